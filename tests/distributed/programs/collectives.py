"""Run on n ranks: every collective of minitorch.distributed against NumPy's answer.

Rank r holds values that depend on r, so the expected result of each collective is a
NumPy expression over all ranks' values (every rank can compute every other's). Prints
one line per passed check; an assertion error ends the job with a non-zero exit.
"""

from datetime import timedelta

import numpy as np

import minitorch as torch
import minitorch.distributed as dist

dist.init_process_group("mpi")
rank, n = dist.get_rank(), dist.get_world_size()
passed = []


def values(r: int, shape=(3, 4), dtype="float64") -> np.ndarray:
    """Rank r's input: small numbers that every dtype holds exactly."""
    cells = int(np.prod(shape))
    return ((np.arange(cells) % 5) + r + 1).reshape(shape).astype(dtype)


def check(name: str, got, expected) -> None:
    got = got.float().numpy() if got.dtype == torch.bfloat16 else got.numpy()
    np.testing.assert_array_equal(got, np.asarray(expected, dtype=got.dtype), err_msg=name)
    passed.append(name)


everyone = [values(r) for r in range(n)]
folds = {
    dist.ReduceOp.SUM: np.sum(everyone, axis=0),
    dist.ReduceOp.PRODUCT: np.prod(everyone, axis=0),
    dist.ReduceOp.MIN: np.min(everyone, axis=0),
    dist.ReduceOp.MAX: np.max(everyone, axis=0),
    dist.ReduceOp.AVG: np.sum(everyone, axis=0) / n,
}
for dtype in ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "float16", "bfloat16"):
    for op, expected in folds.items():
        x = torch.tensor(values(rank).astype("float64"), dtype=getattr(torch, dtype))
        dist.all_reduce(x, op=op)
        if op is dist.ReduceOp.AVG and not getattr(torch, dtype).is_floating_point:
            expected = np.sum(everyone, axis=0) // n
        check(f"all_reduce {op.name} {dtype}", x, expected)

# bools fold logically: SUM/MAX is any, PRODUCT/MIN is all
flags = [values(r) % 2 == 0 for r in range(n)]
for op, expected in ((dist.ReduceOp.SUM, np.any(flags, 0)), (dist.ReduceOp.MAX, np.any(flags, 0)),
                     (dist.ReduceOp.PRODUCT, np.all(flags, 0)), (dist.ReduceOp.MIN, np.all(flags, 0))):
    x = torch.tensor(flags[rank])
    dist.all_reduce(x, op=op)
    check(f"all_reduce {op.name} bool", x, expected)
for op, fold in ((dist.ReduceOp.BAND, np.bitwise_and), (dist.ReduceOp.BOR, np.bitwise_or),
                 (dist.ReduceOp.BXOR, np.bitwise_xor)):
    x = torch.tensor(values(rank).astype("int64") * 7)
    dist.all_reduce(x, op=op)
    check(f"all_reduce {op.name} int64", x, fold.reduce([e.astype("int64") * 7 for e in everyone]))

# a non-contiguous tensor (a transposed view) is staged and written back; its storage
# outside the view is untouched
base = torch.tensor(values(rank, (4, 6)))
view = base[:, 1:4].t()
dist.all_reduce(view)
expected = values(rank, (4, 6)).copy()
expected[:, 1:4] = np.sum([values(r, (4, 6))[:, 1:4] for r in range(n)], axis=0)
check("all_reduce non-contiguous view, neighbours untouched", base, expected)

# a contiguous slice in the middle of a storage goes to MPI without a copy
base = torch.tensor(values(rank, (5, 4)))
middle = base[1:3]
storage_before = base._storage
dist.all_reduce(middle)
assert base._storage is storage_before
expected = values(rank, (5, 4)).copy()
expected[1:3] = np.sum([values(r, (5, 4))[1:3] for r in range(n)], axis=0)
check("all_reduce contiguous slice in place", base, expected)

# 0-d and empty tensors
x = torch.tensor(float(rank))
dist.all_reduce(x)
check("all_reduce 0-d", x, sum(range(n)))
x = torch.zeros(0, 3)
dist.all_reduce(x)
check("all_reduce empty", x, np.zeros((0, 3)))

# async: start several, compute, then wait; is_completed becomes True
works, tensors = [], []
for k in range(4):
    t = torch.tensor(values(rank + k))
    tensors.append(t)
    works.append(dist.all_reduce(t, async_op=True))
    assert isinstance(works[-1], dist.Work)
for work in works:
    assert work.wait() is True
    assert work.is_completed()
for k, t in enumerate(tensors):
    check(f"async all_reduce #{k}", t, np.sum([values(r + k) for r in range(n)], axis=0))

# broadcast from every root, every dtype (raw bytes)
for root in range(n):
    for dtype in ("float32", "bool", "int8", "float16", "bfloat16", "int64"):
        x = torch.tensor(values(rank).astype("float64") % 2 if dtype == "bool" else values(rank),
                         dtype=getattr(torch, dtype))
        dist.broadcast(x, src=root)
        want = values(root) % 2 if dtype == "bool" else values(root)
        check(f"broadcast from {root} {dtype}", x, want.astype(bool) if dtype == "bool" else want)
base = torch.tensor(values(rank, (4, 6)))
dist.broadcast(base[::2, ::3], src=n - 1)
expected = values(rank, (4, 6)).copy()
expected[::2, ::3] = values(n - 1, (4, 6))[::2, ::3]
check("broadcast strided view", base, expected)

# barrier, blocking and async
dist.barrier(timeout=timedelta(seconds=30))
assert dist.barrier(async_op=True).wait()
passed.append("barrier")

# point to point: a ring, blocking and not
right, left = (rank + 1) % n, (rank - 1) % n
out = torch.tensor(values(rank))
into = torch.zeros(3, 4, dtype=torch.float64)
if rank % 2 == 0:
    dist.send(out, dst=right)
    sender = dist.recv(into, src=left)
else:
    sender = dist.recv(into, src=left)
    dist.send(out, dst=right)
assert sender == left
check("send/recv ring", into, values(left))
sending = dist.isend(torch.tensor(values(rank)).t(), dst=right, tag=3)
into = torch.zeros(4, 3, dtype=torch.float64)
receiving = dist.irecv(into, src=left, tag=3)
receiving.wait()
sending.wait()
check("isend/irecv non-contiguous with a tag", into, values(left).T)
into = torch.zeros(3, 4, dtype=torch.float64)
works = dist.batch_isend_irecv([dist.P2POp(dist.irecv, into, left), dist.P2POp(dist.isend, out, right)])
for work in works:
    work.wait()
assert works[0].source_rank() == left
check("batch_isend_irecv ring", into, values(left))
if rank == 0:
    got = sorted(dist.recv(torch.zeros(2, dtype=torch.int32)) for _ in range(n - 1))
    assert got == list(range(1, n)), got
    passed.append("recv from any source")
else:
    dist.send(torch.tensor([rank, rank], dtype=torch.int32), dst=0)

# bad input on one rank is refused on every rank before anything is sent
for bad in (None, "tensor", np.zeros(3)):
    try:
        dist.all_reduce(bad)
    except TypeError:
        pass
    else:
        raise AssertionError(f"all_reduce({bad!r}) did not raise TypeError")
try:
    dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND)
except RuntimeError:
    passed.append("bitwise fold of floats refused")
try:
    dist.init_process_group("mpi")
except ValueError as error:
    assert "twice" in str(error)
    passed.append("init twice refused")

assert dist.is_initialized()
dist.destroy_process_group()
assert not dist.is_initialized()
print(f"rank {rank}: {len(passed)} checks passed")
