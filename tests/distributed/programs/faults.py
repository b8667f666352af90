"""Run on n ranks: one way for ranks to let each other down (the first argument), so
that tests/distributed/test_faults.py can check what every rank says and that nothing
waits forever.

* ``disagree``: calls that cannot run together (shapes, dtypes, collectives, roots,
  point-to-point shapes, new_group members, all_to_all counts), each caught on every rank as a
  DistBackendError naming both calls; the world is re-initialized after each;
* ``absent``: rank 0 all-reduces on a group with a timeout of 1 s, the others never do;
* ``caught``: as ``absent`` (a ``wait(timeout=1 s)``), but rank 0 catches the timeout
  and returns normally;
* ``raises``: rank 1 raises ZeroDivisionError while the others wait in all_reduce;
* ``killed``: rank 1 kills itself (SIGKILL) while the others wait in all_reduce.
"""

import os
import signal
import sys
import time
from datetime import timedelta

import minitorch as torch
import minitorch.distributed as dist

scenario = sys.argv[1]
dist.init_process_group("mpi", timeout=timedelta(seconds=60))
rank, n = dist.get_rank(), dist.get_world_size()


def expect_disagreement(name, call, *words):
    try:
        call()
    except dist.DistBackendError as error:
        message = str(error)
        assert all(w in message for w in words), (name, message)
        print(f"rank {rank}: {name}: {message}", flush=True)
    else:
        raise AssertionError(f"{name}: no error on rank {rank}")
    dist.destroy_process_group()
    dist.init_process_group("mpi", timeout=timedelta(seconds=60))


if scenario == "disagree":
    last = n - 1
    expect_disagreement("shapes", lambda: dist.all_reduce(torch.ones(3 if rank != last else 4)),
                        "disagree", "shape [3]", "shape [4]")  # fmt: skip
    expect_disagreement("dtypes", lambda: dist.all_reduce(torch.ones(3, dtype=torch.float64 if rank == 0
                                                                     else torch.float32)),
                        "float64", "float32")  # fmt: skip
    expect_disagreement("collectives", lambda: dist.broadcast(torch.ones(2), src=0) if rank == last
                        else dist.all_reduce(torch.ones(2)), "broadcast", "all_reduce")  # fmt: skip
    expect_disagreement("roots", lambda: dist.broadcast(torch.ones(2), src=0 if rank else 1),
                        "root=0", "root=1")  # fmt: skip
    op = dist.ReduceOp.MAX if rank == 0 else dist.ReduceOp.SUM
    expect_disagreement("ops", lambda: dist.all_reduce(torch.ones(2), op=op), "op=MAX", "op=SUM")
    expect_disagreement("async", lambda: dist.all_reduce(torch.ones(2 + (rank == last)), async_op=True)
                        .wait(), "shape")  # fmt: skip
    # point to point: rank 0 sends 3000 numbers (more than MPI sends eagerly), rank 1
    # expects 5: rank 1 refuses them, rank 0's send still completes
    if rank == 1:
        expect_disagreement("recv", lambda: dist.recv(torch.zeros(5), src=0), "expected to receive",
                            "shape [5]", "shape [3000]")  # fmt: skip
    else:
        if rank == 0:
            dist.send(torch.ones(3000), dst=1)
        dist.destroy_process_group()
        dist.init_process_group("mpi", timeout=timedelta(seconds=60))
    expect_disagreement("new_group", lambda: dist.new_group([0, 1] if rank else [0, 2]),
                        "new_group(ranks [0, 1])", "new_group(ranks [0, 2])")  # fmt: skip
    counts = [1] * n
    if rank == 0:
        counts[1] = 2  # rank 0 expects 2 cells from rank 1, which sends 1
    expect_disagreement("all_to_all counts", lambda: dist.all_to_all(
        [torch.zeros(c) for c in counts], [torch.ones(1) for _ in range(n)]),
        "all_to_all", "block sizes")  # fmt: skip
    x = torch.tensor([float(rank)])
    dist.all_reduce(x)  # the world works again after each failure
    assert x.item() == sum(range(n))
    print(f"rank {rank}: all disagreements reported", flush=True)
elif scenario in ("absent", "caught"):
    x = torch.ones(2)
    impatient = dist.new_group(timeout=timedelta(seconds=1))  # every rank is here: a group timeout
    if rank == 0:
        started = time.monotonic()
        try:
            if scenario == "absent":
                dist.all_reduce(x, group=impatient)  # the group's timeout
            else:
                dist.all_reduce(x, async_op=True).wait(timeout=timedelta(seconds=1))  # the call's
        except dist.DistBackendError as error:
            print(f"rank 0 after {time.monotonic() - started:.1f} s: {error}", flush=True)
            if scenario == "absent":
                raise
    else:
        time.sleep(120)  # never calls; ended with the job
elif scenario in ("raises", "killed"):
    x = torch.ones(2)
    dist.barrier()
    if rank == 1:
        time.sleep(0.5)  # the others are waiting in all_reduce by now
        if scenario == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        print(1 / 0)
    dist.all_reduce(x)
print(f"rank {rank}: finished {scenario}", flush=True)
