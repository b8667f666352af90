"""Started by ``python -m minitorch.distributed.run -n N launched.py ARGS``: prints what
the launcher told it, then all-reduces its rank. With the argument ``fail`` rank 1
raises before it ever joins the group, and the launcher must end the job."""

import os
import sys

import minitorch as torch
import minitorch.distributed as dist

if sys.argv[1:] == ["fail"] and os.environ["RANK"] == "1":
    raise KeyError("rank 1 gives up before init_process_group")
dist.init_process_group("mpi")
x = torch.tensor([float(dist.get_rank())])
dist.all_reduce(x)
environ = os.environ
print(f"rank={environ['RANK']} world_size={environ['WORLD_SIZE']} local_rank={environ['LOCAL_RANK']} "
      f"argv={sys.argv[1:]} name={__name__} sum={x.item():g}", flush=True)  # fmt: skip
