"""What each rank says it is about to do, so that ranks that disagree fail instead of
hanging or summing the wrong numbers.

MPI trusts its caller: if rank 0 all-reduces 4 floats while rank 1 all-reduces 3, or
broadcasts, or calls nothing at all, MPI may hang, fail with a cryptic truncation error,
or quietly add the wrong cells. So before any data moves, every collective sends each
other rank of its group a *signature*: a fixed-size row of integers saying which
collective this is (its number on this group, its name), and the dtype, shape, root and
reduction of the tensor it was given. A rank compares every signature it receives with
its own:

* all arrived and all equal: the data moves;
* one differs: the collective fails on every rank, naming both calls;
* some never arrive before the timeout: it fails naming the ranks that did not call.

The row has a fixed size, so a signature exchange itself can never be mismatched. Two
fields are *pairwise* (``all_to_all``): how many cells this rank sends to that one, and
how many it expects back, which must be each other's mirror image.
"""

from __future__ import annotations

import numpy as np

from minitorch.dtypes import ALL_DTYPES

OPERATIONS = (
    "barrier", "all_reduce", "broadcast", "reduce", "all_gather", "gather", "scatter",
    "reduce_scatter", "all_to_all", "new_group", "all_gather_object", "broadcast_object_list", "send",
)  # fmt: skip
REDUCTIONS = ("-", "SUM", "PRODUCT", "MIN", "MAX", "AVG", "BAND", "BOR", "BXOR")
DTYPES = ("-",) + tuple(d.name for d in ALL_DTYPES)
MAX_DIMS = 15
LENGTH = 9 + MAX_DIMS
SEQ, OP, DTYPE, ROOT, REDUCE, NUMEL, SENDS, EXPECTS, NDIM = range(9)


def encode(seq: int, operation: str, dtype: object = None, shape: tuple = (), root: int = -1,
           reduce: object = None) -> np.ndarray:  # fmt: skip
    """The signature row of one call (``dtype``/``shape`` of the tensor every rank must agree on)."""
    row = np.zeros(LENGTH, dtype=np.int64)
    row[SEQ], row[OP], row[ROOT] = seq, OPERATIONS.index(operation), root
    row[DTYPE] = DTYPES.index(dtype.name) if dtype is not None else 0
    row[REDUCE] = REDUCTIONS.index(reduce.name) if reduce is not None else 0
    shape = tuple(int(n) for n in shape)
    row[NUMEL] = int(np.prod(shape, dtype=np.int64)) if shape else (1 if dtype is not None else 0)
    row[NDIM] = len(shape)
    if len(shape) <= MAX_DIMS:
        row[NDIM + 1 : NDIM + 1 + len(shape)] = shape
    else:  # too many dims to spell out: a fingerprint of them
        row[NDIM + 1] = hash(shape) & 0x7FFFFFFFFFFFFFFF
    return row


def pairwise(row: np.ndarray, sends: int, expects: int) -> np.ndarray:
    """``row`` as sent to one peer: the cells sent to it and the cells expected from it."""
    out = row.copy()
    out[SENDS], out[EXPECTS] = sends, expects
    return out


def describe(row: np.ndarray) -> str:
    """A signature as the call that made it, e.g. ``all_reduce(float32 tensor of shape
    [3, 4], op=SUM)``."""
    operation = OPERATIONS[int(row[OP])]
    details = [describe_tensor(row)] if row[DTYPE] else []
    if operation == "all_to_all":  # lists of tensors of one dtype, sizes checked pairwise
        details = [f"{DTYPES[int(row[DTYPE])]} tensors"]
    if operation == "new_group":  # the "shape" is the list of member ranks
        count = int(row[NDIM])
        listed = ", ".join(str(int(r)) for r in row[NDIM + 1 : NDIM + 1 + count])
        details = [f"ranks [{listed}]" if count <= MAX_DIMS else f"{count} ranks"]
    if row[ROOT] >= 0:
        details.append(f"root={int(row[ROOT])}")
    if row[REDUCE]:
        details.append(f"op={REDUCTIONS[int(row[REDUCE])]}")
    return f"{operation}({', '.join(details)}) as collective #{int(row[SEQ])}"


def describe_tensor(row: np.ndarray) -> str:
    """The tensor of a signature, e.g. ``float32 tensor of shape [3, 4]``."""
    ndim = int(row[NDIM])
    dims = [str(int(d)) for d in row[NDIM + 1 : NDIM + 1 + ndim]] if ndim <= MAX_DIMS else ["..."]
    return f"{DTYPES[int(row[DTYPE])]} tensor of shape [{', '.join(dims)}]"


def disagreement(mine: np.ndarray, theirs: np.ndarray, my_rank: int, their_rank: int) -> str | None:
    """Why two ranks' signatures cannot run as one collective, or ``None`` if they can."""
    if not np.array_equal(mine[: SENDS], theirs[: SENDS]) or not np.array_equal(mine[NDIM:], theirs[NDIM:]):
        return (f"rank {their_rank} called {describe(theirs)} on this group, "
                f"while rank {my_rank} called {describe(mine)}")  # fmt: skip
    if mine[EXPECTS] != theirs[SENDS] or mine[SENDS] != theirs[EXPECTS]:
        return (f"in {describe(mine)}, the block sizes do not match: rank {their_rank} sends "
                f"{int(theirs[SENDS])} elements to rank "
                f"{my_rank}, which expects {int(mine[EXPECTS])}; rank {my_rank} sends "
                f"{int(mine[SENDS])}, rank {their_rank} expects {int(theirs[EXPECTS])}")  # fmt: skip
    return None
