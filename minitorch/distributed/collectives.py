"""The collectives that keep one tensor's shape: ``barrier``, ``all_reduce``,
``broadcast``, ``reduce``.

Every rank of the group calls the same function with a tensor of the same shape and
dtype; what each ends with (``n`` ranks, rank ``r`` holding ``x_r``):

=================  ==============================================  =====================
call               afterwards                                      MPI
=================  ==============================================  =====================
``barrier()``      nothing moves; no rank leaves before all came   ``Ibarrier``
``all_reduce(x)``  every rank: ``x_0 + x_1 + ... + x_{n-1}``       ``Iallreduce``
``broadcast(x,s)`` every rank: ``x_s``                             ``Ibcast``
``reduce(x, d)``   rank ``d``: the sum; the others keep ``x_r``     ``Ireduce``
=================  ==============================================  =====================

(``+`` is any ``ReduceOp``.) The tensor is changed *in place*, so a rank writes its
result where its input was, and MPI works on the tensor's own memory when its layout is
contiguous (``buffers.py``). Each call first checks that all ranks agree
(``ProcessGroup.agree``), then posts the MPI operation; with ``async_op=True`` it returns
a ``Work`` at once and the caller may compute while the data moves.

Ranks in ``src=``/``dst=`` are *world* ranks, as in PyTorch; ``group_src=``/
``group_dst=`` name a rank by its place in the group instead.
"""

from __future__ import annotations

import warnings
from datetime import timedelta

import numpy as np

from minitorch.distributed import signature, work
from minitorch.distributed.buffers import check_tensor, mpi_buffer
from minitorch.distributed.initialization import resolve
from minitorch.distributed.process_group import ProcessGroup
from minitorch.distributed.reduce_op import ReduceOp, check_reduce_op, mpi_op
from minitorch.distributed.work import Pending


def members_only(name: str, group: object) -> ProcessGroup | None:
    """The group of a call, or ``None`` (with PyTorch's warning) on a rank outside it."""
    pg = resolve(group)
    if pg is None:
        from minitorch.distributed.initialization import default_group

        warnings.warn(f"Running {name} on global rank {default_group().global_rank} which does not "
                      "belong to the given group.", stacklevel=3)  # fmt: skip
    return pg


def root_of(pg: ProcessGroup, rank: object, group_rank: object, role: str) -> int:
    """The group rank of a call's root, from ``src``/``dst`` (world) or ``group_src``/``group_dst``."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {role} and group_{role}")
    if group_rank is not None:
        if not isinstance(group_rank, int) or not 0 <= group_rank < pg.size():
            raise ValueError(f"group_{role} {group_rank} is not a rank of a group of size {pg.size()}")
        return group_rank
    return pg.group_rank(0 if rank is None else rank, role)


def start(pg: ProcessGroup, name: str, steps_of, async_op: bool, timeout=None, **row):
    """Number the call, build its signature, and run ``steps_of(row)``."""
    encoded = signature.encode(pg.sequence, name, **row)
    pg.sequence += 1
    return work.run(name, pg, steps_of(encoded), async_op, timeout=timeout)


def data_moving(name: str) -> str:
    return (f"every rank called {name}, but its data has not finished moving (a rank may have died "
            "or be stopped)")  # fmt: skip


def average_in_place(cells: np.ndarray, n: int) -> None:
    """``cells / n`` in place: true division for floats, rounded toward zero for integers
    (as NCCL averages integers)."""
    if cells.dtype.kind == "f":
        cells /= n
    else:
        cells[...] = np.sign(cells) * (np.abs(cells) // n)


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids: object = None,
            timeout: object = None):  # fmt: skip
    """Wait until every rank of the group has called ``barrier`` (at most ``timeout``, a
    ``timedelta``, instead of the group's)."""
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    pg = members_only("barrier", group)
    if pg is None:
        return None

    def steps(row):
        yield from pg.agree(row)
        yield Pending([pg.data.Ibarrier()], data_moving("barrier"))

    return start(pg, "barrier", steps, async_op, timeout)


def all_reduce(tensor, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False):  # fmt: skip
    """Every rank's ``tensor`` becomes the elementwise fold ``op`` of all ranks' tensors.

    ``ReduceOp.AVG`` sums, then divides by the group's size. float16 and bfloat16 are
    summed in float32 (MPI has no 16-bit float arithmetic) and rounded back once."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    check_tensor(tensor)
    check_reduce_op(op, tensor.dtype)
    pg = members_only("all_reduce", group)
    if pg is None:
        return None

    def steps(row):
        yield from pg.agree(row)
        with mpi_buffer(tensor, reduce=True) as cells:
            operation = mpi_op(op, cells.dtype == np.bool_)
            yield Pending([pg.data.Iallreduce(MPI.IN_PLACE, cells, operation)], data_moving("all_reduce"))
            if op is ReduceOp.AVG:
                average_in_place(cells, pg.size())

    return start(pg, "all_reduce", steps, async_op, dtype=tensor.dtype, shape=tensor.shape, reduce=op)


def broadcast(tensor, src: int | None = None, group: ProcessGroup | None = None, async_op: bool = False,
              group_src: int | None = None):  # fmt: skip
    """Every rank's ``tensor`` becomes rank ``src``'s (a world rank)."""
    check_tensor(tensor)
    pg = members_only("broadcast", group)
    if pg is None:
        return None
    root = root_of(pg, src, group_src, "src")

    def steps(row):
        yield from pg.agree(row)
        with mpi_buffer(tensor, write=pg.rank() != root) as cells:
            yield Pending([pg.data.Ibcast(cells, root=root)], data_moving("broadcast"))

    return start(pg, "broadcast", steps, async_op, dtype=tensor.dtype, shape=tensor.shape, root=root)


def reduce(tensor, dst: int | None = None, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
           async_op: bool = False, group_dst: int | None = None):  # fmt: skip
    """Rank ``dst``'s ``tensor`` becomes the fold ``op`` of all ranks' tensors; the other
    ranks' tensors are left as they were."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    check_tensor(tensor)
    check_reduce_op(op, tensor.dtype)
    pg = members_only("reduce", group)
    if pg is None:
        return None
    root = root_of(pg, dst, group_dst, "dst")

    def steps(row):
        yield from pg.agree(row)
        at_root = pg.rank() == root
        with mpi_buffer(tensor, reduce=True, write=at_root) as cells:
            operation = mpi_op(op, cells.dtype == np.bool_)
            send, receive = (MPI.IN_PLACE, cells) if at_root else (cells, None)
            yield Pending([pg.data.Ireduce(send, receive, operation, root=root)], data_moving("reduce"))
            if op is ReduceOp.AVG and at_root:
                average_in_place(cells, pg.size())

    return start(pg, "reduce", steps, async_op, dtype=tensor.dtype, shape=tensor.shape, root=root, reduce=op)
