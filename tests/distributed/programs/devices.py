"""Run on n ranks with MINITORCH_CUDA=emulator: tensors on device "cuda" are staged
through host memory and written back, for reductions, broadcasts, gathers and messages."""

import numpy as np

import minitorch as torch
import minitorch.distributed as dist

dist.init_process_group("mpi")
rank, n = dist.get_rank(), dist.get_world_size()
x = (torch.arange(6.0, device="cuda").reshape(2, 3) + rank).t()
dist.all_reduce(x)
np.testing.assert_array_equal(x.cpu().numpy(), sum(np.arange(6.0).reshape(2, 3) + r for r in range(n)).T)
y = torch.full((4,), float(rank), device="cuda", dtype=torch.int32)
dist.broadcast(y, src=n - 1)
np.testing.assert_array_equal(y.cpu().numpy(), [n - 1] * 4)
out = [torch.zeros(3, device="cuda") for _ in range(n)]
dist.all_gather(out, torch.full((3,), float(rank), device="cuda"))
assert [o.device.type for o in out] == ["cuda"] * n
gathered = np.stack([o.cpu().numpy() for o in out])
np.testing.assert_array_equal(gathered, np.repeat(np.arange(float(n))[:, None], 3, 1))
if rank == 0:
    dist.send(torch.arange(4, device="cuda"), dst=1)
elif rank == 1:
    into = torch.zeros(4, dtype=torch.int64, device="cuda")
    dist.recv(into, src=0)
    np.testing.assert_array_equal(into.cpu().numpy(), np.arange(4))
print(f"rank {rank}: device checks passed", flush=True)
