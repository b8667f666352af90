"""Run on n ranks: the splitting and joining collectives, the object collectives and
new_group, against NumPy's answer (rank r's values depend on r, so every rank knows
every other's). Prints how many checks passed; an assertion ends the job."""

import numpy as np

import minitorch as torch
import minitorch.distributed as dist

dist.init_process_group("mpi")
rank, n = dist.get_rank(), dist.get_world_size()
passed = []


def values(r: int, shape=(2, 3)) -> np.ndarray:
    return (np.arange(int(np.prod(shape))) * 10 + r).reshape(shape).astype("float64")


def check(name: str, got, expected) -> None:
    got = got.float().numpy() if got.dtype == torch.bfloat16 else got.numpy()
    np.testing.assert_array_equal(got, np.asarray(expected, dtype=got.dtype), err_msg=name)
    passed.append(name)


for dtype in (torch.float32, torch.int64, torch.bfloat16, torch.bool):
    mine = torch.tensor(values(rank), dtype=dtype)
    expect = [torch.tensor(values(r), dtype=dtype).numpy() if dtype != torch.bfloat16 else values(r)
              for r in range(n)]
    outputs = [torch.zeros(2, 3, dtype=dtype) for _ in range(n)]
    dist.all_gather(outputs, mine)
    for r in range(n):
        check(f"all_gather {dtype} from {r}", outputs[r], expect[r])
    big = torch.zeros(n * 2, 3, dtype=dtype)
    dist.all_gather_into_tensor(big, mine)
    check(f"all_gather_into_tensor {dtype}", big, np.concatenate(expect))

# a non-contiguous output list (columns of one matrix)
matrix = torch.zeros(3, 2 * n, dtype=torch.float64)
dist.all_gather([matrix[:, 2 * r : 2 * r + 2].t() for r in range(n)], torch.tensor(values(rank)))
check("all_gather into transposed column blocks", matrix, np.concatenate([values(r).T for r in range(n)], 1))

for root in range(n):
    outputs = [torch.zeros(2, 3, dtype=torch.float64) for _ in range(n)] if rank == root else None
    dist.gather(torch.tensor(values(rank)), outputs, dst=root)
    if rank == root:
        for r in range(n):
            check(f"gather at {root} from {r}", outputs[r], values(r))
    into = torch.zeros(2, 3, dtype=torch.float64)
    pieces = [torch.tensor(values(100 * root + r)) for r in range(n)] if rank == root else None
    dist.scatter(into, pieces, src=root)
    check(f"scatter from {root}", into, values(100 * root + rank))

for op, fold in ((dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.MAX, np.max), (dist.ReduceOp.AVG, np.mean)):
    for dtype in (torch.float64, torch.float16):
        out = torch.zeros(2, 3, dtype=dtype)
        dist.reduce_scatter(out, [torch.tensor(values(10 * s + rank), dtype=dtype) for s in range(n)], op=op)
        check(f"reduce_scatter {op.name} {dtype}", out, fold([values(10 * rank + r) for r in range(n)], 0))
    whole = torch.tensor(np.concatenate([values(10 * s + rank) for s in range(n)]))
    out = torch.zeros(2, 3, dtype=torch.float64)
    dist.reduce_scatter_tensor(out, whole, op=op)
    check(f"reduce_scatter_tensor {op.name}", out, fold([values(10 * rank + r) for r in range(n)], 0))

for root in range(n):
    x = torch.tensor(values(rank))
    dist.reduce(x, dst=root, op=dist.ReduceOp.SUM)
    check(f"reduce at {root}", x, np.sum([values(r) for r in range(n)], 0) if rank == root else values(rank))

# all_to_all with blocks of different sizes: rank r sends j + r + 1 cells to rank j
sizes = lambda sender, receiver: receiver + sender + 1  # noqa: E731
inputs = [torch.arange(sizes(rank, j), dtype=torch.int32) + 100 * rank for j in range(n)]
outputs = [torch.zeros(sizes(j, rank), dtype=torch.int32) for j in range(n)]
work = dist.all_to_all(outputs, inputs, async_op=True)
work.wait()
for j in range(n):
    check(f"all_to_all from {j}", outputs[j], np.arange(sizes(j, rank)) + 100 * j)

# objects
things = [{"rank": rank, "name": "x" * rank}, rank * 1.5, None] if rank == n - 1 else [None, None, None]
dist.broadcast_object_list(things, src=n - 1)
assert things == [{"rank": n - 1, "name": "x" * (n - 1)}, (n - 1) * 1.5, None], things
passed.append("broadcast_object_list")
everyone = [None] * n
dist.all_gather_object(everyone, {"rank": rank, "data": list(range(rank * 50))})
assert everyone == [{"rank": r, "data": list(range(r * 50))} for r in range(n)]
passed.append("all_gather_object")
gathered = [None] * n if rank == 0 else None
dist.gather_object(("hello", rank), gathered, dst=0)
assert rank != 0 or gathered == [("hello", r) for r in range(n)]

# a group of ranks 0 and n-1; the others are not members
pair = dist.new_group([0, n - 1])
if rank in (0, n - 1):
    assert dist.get_world_size(pair) == 2 and dist.get_rank(pair) == (0 if rank == 0 else 1)
    x = torch.tensor([float(rank)])
    dist.all_reduce(x, group=pair)
    check("all_reduce on a group", x, [0.0 + (n - 1)])
    y = torch.tensor([float(rank)])
    dist.broadcast(y, src=n - 1, group=pair)
    check("broadcast on a group from a world rank", y, [n - 1.0])
else:
    assert pair is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(pair) == -1
dist.barrier()
assert dist.get_process_group_ranks(pair) == ([0, n - 1] if rank in (0, n - 1) else [])
dist.destroy_process_group()
print(f"rank {rank}: {len(passed)} checks passed")
