"""The collectives that split and join: ``all_gather``, ``gather``, ``scatter``,
``reduce_scatter``, ``all_to_all``.

With ``n`` ranks, rank ``r`` holding ``x_r`` (and, for the list forms, a list of ``n``
tensors ``x_r[0..n-1]``):

=======================================  ================================================
call                                     afterwards
=======================================  ================================================
``all_gather(out_list, x)``              every rank: ``out_list[j] = x_j``
``gather(x, out_list, dst=d)``           rank ``d``: ``out_list[j] = x_j``
``scatter(x, in_list, src=s)``           every rank ``r``: ``x = in_list_s[r]``
``reduce_scatter(x, in_list)``           rank ``r``: ``x = in_list_0[r] + ... + in_list_{n-1}[r]``
``all_to_all(out_list, in_list)``        rank ``r``: ``out_list[j] = in_list_j[r]`` (a transpose)
=======================================  ================================================

MPI moves *one* buffer per rank (``Iallgather`` fills a buffer of ``n`` blocks), so a
list is joined into one contiguous buffer and split again (that copy is the price of
the list form; ``all_gather_into_tensor`` and ``reduce_scatter_tensor`` take one big
tensor instead and, when it is contiguous, copy nothing). ``all_to_all`` may send
blocks of different sizes to different ranks (``Ialltoallv``); each pair of ranks
checks that what one sends is what the other expects.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from minitorch.distributed.buffers import check_tensor, check_tensor_list, mpi_buffer
from minitorch.distributed.collectives import average_in_place, data_moving, members_only, root_of, start
from minitorch.distributed.reduce_op import ReduceOp, check_reduce_op, mpi_op
from minitorch.distributed.work import Pending


def _check_like(tensors: list, like, name: str, count: int) -> None:
    """``tensors`` has ``count`` tensors, each of ``like``'s shape and dtype (checked here,
    on this rank, before anything is sent)."""
    if len(tensors) != count:
        raise RuntimeError(f"{name} must hold one tensor per rank of the group ({count}), got {len(tensors)}")
    for t in tensors:
        if t.shape != like.shape or t.dtype != like.dtype:
            raise RuntimeError(f"every tensor of {name} must have the input's shape {list(like.shape)} "
                               f"and dtype {like.dtype}, got {list(t.shape)} {t.dtype}")  # fmt: skip


def _joined(tensors: list, reduce: bool = False) -> np.ndarray:
    """The cells of several tensors, one after another, in one new contiguous array."""
    parts = []
    for t in tensors:
        with mpi_buffer(t, reduce=reduce, write=False) as cells:
            parts.append(cells.copy())
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8)


def _split_into(tensors: list, joined: np.ndarray, reduce: bool = False) -> None:
    """Write consecutive blocks of ``joined`` into ``tensors`` (the inverse of ``_joined``)."""
    start_at = 0
    for t in tensors:
        with mpi_buffer(t, reduce=reduce) as cells:
            cells[...] = joined[start_at : start_at + cells.size]
            start_at += cells.size


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """``output_tensor`` (``n`` times ``input_tensor``'s cells, stacked on dim 0 or
    concatenated) becomes every rank's ``input_tensor``, in rank order."""
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = members_only("all_gather_into_tensor", group)
    if pg is None:
        return None
    if output_tensor.numel() != pg.size() * input_tensor.numel() or output_tensor.dtype != input_tensor.dtype:
        raise ValueError(f"output tensor must hold {pg.size()} x {input_tensor.numel()} {input_tensor.dtype} "
                         f"elements, got {output_tensor.numel()} {output_tensor.dtype}")  # fmt: skip

    def steps(row):
        yield from pg.agree(row)
        with mpi_buffer(input_tensor, write=False) as mine, mpi_buffer(output_tensor) as everyone:
            yield Pending([pg.data.Iallgather(mine, everyone)], data_moving("all_gather"))

    return start(pg, "all_gather", steps, async_op, dtype=input_tensor.dtype, shape=input_tensor.shape)


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Every rank's ``tensor_list[j]`` becomes rank ``j``'s ``tensor``."""
    check_tensor(tensor)
    outputs = check_tensor_list(tensor_list, "tensor_list")
    pg = members_only("all_gather", group)
    if pg is None:
        return None
    _check_like(outputs, tensor, "tensor_list", pg.size())

    def steps(row):
        yield from pg.agree(row)
        with mpi_buffer(tensor, write=False) as mine:
            everyone = np.empty(pg.size() * mine.size, dtype=np.uint8)
            yield Pending([pg.data.Iallgather(mine, everyone)], data_moving("all_gather"))
        _split_into(outputs, everyone)

    return start(pg, "all_gather", steps, async_op, dtype=tensor.dtype, shape=tensor.shape)


def gather(tensor, gather_list=None, dst: int | None = None, group=None, async_op: bool = False,
           group_dst: int | None = None):  # fmt: skip
    """Rank ``dst``'s ``gather_list[j]`` becomes rank ``j``'s ``tensor`` (the other ranks
    pass no list)."""
    check_tensor(tensor)
    pg = members_only("gather", group)
    if pg is None:
        return None
    root = root_of(pg, dst, group_dst, "dst")
    at_root = pg.rank() == root
    if at_root:
        outputs = check_tensor_list(gather_list, "gather_list")
        _check_like(outputs, tensor, "gather_list", pg.size())
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")

    def steps(row):
        yield from pg.agree(row)
        with mpi_buffer(tensor, write=False) as mine:
            everyone = np.empty(pg.size() * mine.size, dtype=np.uint8) if at_root else None
            yield Pending([pg.data.Igather(mine, everyone, root=root)], data_moving("gather"))
        if at_root:
            _split_into(outputs, everyone)

    return start(pg, "gather", steps, async_op, dtype=tensor.dtype, shape=tensor.shape, root=root)


def scatter(tensor, scatter_list=None, src: int | None = None, group=None, async_op: bool = False,
            group_src: int | None = None):  # fmt: skip
    """Every rank ``r``'s ``tensor`` becomes rank ``src``'s ``scatter_list[r]`` (the other
    ranks pass no list)."""
    check_tensor(tensor)
    pg = members_only("scatter", group)
    if pg is None:
        return None
    root = root_of(pg, src, group_src, "src")
    at_root = pg.rank() == root
    if at_root:
        inputs = check_tensor_list(scatter_list, "scatter_list")
        _check_like(inputs, tensor, "scatter_list", pg.size())
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")

    def steps(row):
        yield from pg.agree(row)
        everyone = _joined(inputs) if at_root else None
        with mpi_buffer(tensor) as mine:
            yield Pending([pg.data.Iscatter(everyone, mine, root=root)], data_moving("scatter"))

    return start(pg, "scatter", steps, async_op, dtype=tensor.dtype, shape=tensor.shape, root=root)


def reduce_scatter_tensor(output, input, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """``input`` holds ``n`` blocks of ``output``'s size; rank ``r``'s ``output`` becomes
    the fold ``op`` of every rank's block ``r``."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    check_reduce_op(op, output.dtype)
    pg = members_only("reduce_scatter_tensor", group)
    if pg is None:
        return None
    if input.numel() != pg.size() * output.numel() or input.dtype != output.dtype:
        raise ValueError(f"input tensor must hold {pg.size()} x {output.numel()} {output.dtype} elements, "
                         f"got {input.numel()} {input.dtype}")  # fmt: skip
    return _reduce_scatter(pg, output, lambda: mpi_buffer(input, reduce=True, write=False), op, async_op)


def reduce_scatter(output, input_list, op: ReduceOp = ReduceOp.SUM, group=None, async_op: bool = False):
    """Rank ``r``'s ``output`` becomes the fold ``op`` of every rank's ``input_list[r]``."""
    check_tensor(output, "output")
    inputs = check_tensor_list(input_list, "input_list")
    check_reduce_op(op, output.dtype)
    pg = members_only("reduce_scatter", group)
    if pg is None:
        return None
    _check_like(inputs, output, "input_list", pg.size())

    return _reduce_scatter(pg, output, lambda: nullcontext(_joined(inputs, reduce=True)), op, async_op)


def _reduce_scatter(pg, output, blocks_of, op: ReduceOp, async_op: bool):
    def steps(row):
        yield from pg.agree(row)
        with blocks_of() as blocks, mpi_buffer(output, reduce=True) as mine:
            operation = mpi_op(op, mine.dtype == np.bool_)
            yield Pending([pg.data.Ireduce_scatter_block(blocks, mine, operation)],
                          data_moving("reduce_scatter"))  # fmt: skip
            if op is ReduceOp.AVG:
                average_in_place(mine, pg.size())

    return start(pg, "reduce_scatter", steps, async_op, dtype=output.dtype, shape=output.shape, reduce=op)


def _counts_and_offsets(counts: list[int], item: int) -> tuple[list[int], list[int]]:
    """Byte counts of the blocks, and where each starts in the joined buffer."""
    sizes = [c * item for c in counts]
    return sizes, [sum(sizes[:j]) for j in range(len(sizes))]


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank ``r``'s ``output_tensor_list[j]`` becomes rank ``j``'s ``input_tensor_list[r]``.
    Blocks may differ in size; each pair of ranks must agree on theirs."""
    outputs = check_tensor_list(output_tensor_list, "output_tensor_list")
    inputs = check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = members_only("all_to_all", group)
    if pg is None:
        return None
    n = pg.size()
    if len(outputs) != n or len(inputs) != n:
        raise ValueError(f"all_to_all needs one input and one output tensor per rank ({n}), "
                         f"got {len(inputs)} and {len(outputs)}")  # fmt: skip
    dtypes = {t.dtype for t in outputs + inputs}
    if len(dtypes) != 1:
        raise RuntimeError(f"all_to_all needs tensors of one dtype, got {sorted(d.name for d in dtypes)}")
    dtype = dtypes.pop()
    sends, expects = [t.numel() for t in inputs], [t.numel() for t in outputs]

    def steps(row):
        from mpi4py import MPI  # optional: only distributed programs need mpi4py

        yield from pg.agree(row, sends, expects)
        item = dtype.itemsize
        outgoing, incoming = _joined(inputs), np.empty(sum(expects) * item, dtype=np.uint8)
        send_spec = [outgoing, _counts_and_offsets(sends, item), MPI.BYTE]
        receive_spec = [incoming, _counts_and_offsets(expects, item), MPI.BYTE]
        yield Pending([pg.data.Ialltoallv(send_spec, receive_spec)], data_moving("all_to_all"))
        _split_into(outputs, incoming)

    return start(pg, "all_to_all", steps, async_op, dtype=dtype)
