"""``ReduceOp``: how a reduction combines the values of every rank, and which MPI
operation does it.

A reduction of ``n`` tensors ``x_0 ... x_{n-1}`` (one per rank) is the elementwise fold
``out[i] = x_0[i] (+) x_1[i] (+) ... (+) x_{n-1}[i]`` for one associative ``(+)``.
MPI has each of PyTorch's operations built in (``MPI.SUM``, ``MPI.PROD``, ...), except
``AVG``, which is a ``SUM`` followed by a division by ``n`` on every rank.

``bool`` tensors fold logically, as PyTorch's backends fold them: ``SUM`` and ``MAX`` are
"any" (``or``), ``PRODUCT`` and ``MIN`` are "all" (``and``).
"""

from __future__ import annotations

from enum import Enum


class ReduceOp(Enum):
    """The reductions of ``all_reduce``, ``reduce`` and ``reduce_scatter`` (as
    ``torch.distributed.ReduceOp``)."""

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}>"


# The MPI operation of each reduction, for numbers and for bools (by attribute name of
# mpi4py's MPI module, looked up when MPI is loaded).
MPI_NAMES = {
    ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD",
    ReduceOp.MIN: "MIN", ReduceOp.MAX: "MAX",
    ReduceOp.BAND: "BAND", ReduceOp.BOR: "BOR", ReduceOp.BXOR: "BXOR",
}  # fmt: skip
MPI_NAMES_FOR_BOOL = {
    ReduceOp.SUM: "LOR", ReduceOp.MAX: "LOR", ReduceOp.PRODUCT: "LAND", ReduceOp.MIN: "LAND",
    ReduceOp.BAND: "LAND", ReduceOp.BOR: "LOR", ReduceOp.BXOR: "LXOR",
}  # fmt: skip
BITWISE = (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


def check_reduce_op(op: object, dtype: object) -> ReduceOp:
    """``op`` as a ``ReduceOp``, refused (before any message is sent) where PyTorch's
    backends refuse it: bitwise folds of floating tensors, ``AVG`` of bools."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be a torch.distributed.ReduceOp, got {type(op).__name__}")
    floating = getattr(dtype, "is_floating_point", False)
    if op in BITWISE and floating:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with floating-point tensors ({dtype})")
    if op is ReduceOp.AVG and str(getattr(dtype, "name", dtype)) == "bool":
        raise RuntimeError("Cannot use ReduceOp.AVG with bool tensors")
    return op


def mpi_op(op: ReduceOp, is_bool: bool):
    """The mpi4py operation that folds ``op`` (``AVG`` folds as ``SUM``)."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    return getattr(MPI, (MPI_NAMES_FOR_BOOL if is_bool else MPI_NAMES)[op])
