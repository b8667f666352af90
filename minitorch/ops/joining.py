"""Joining tensors: ``cat`` along an existing dimension, ``stack`` along a new one.

Both copy every input into its slice of one new tensor (one ``copy`` kernel per input,
through a view of the output), so each input's gradient is simply its slice of the
output's gradient.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitorch import dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import result_type
from minitorch.ops.common import cast, require_tensors


class Cat(Function):
    """Join tensors along ``dim`` (a copy);  each input's gradient is its slice.

    Like PyTorch, a 1-D tensor with no elements may be joined to anything (it is
    skipped); its gradient is empty too."""

    @staticmethod
    def forward(ctx: FunctionCtx, dim: int, *tensors: Tensor) -> Tensor:
        joined = [t for t in tensors if not _is_legacy_empty(t)] or [tensors[0]]
        dtype = result_type(*tensors)
        shape = list(joined[0]._shape)
        shape[dim] = sum(t._shape[dim] for t in joined)
        out = Tensor._empty(tuple(shape), dtype, joined[0].device)
        start = 0
        for t in joined:
            region = layout.slice_dim(out._shape, out._strides, 0, dim, start,
                                      start + t._shape[dim], 1)  # fmt: skip
            dispatch.map("copy", out._view(*region), cast(t, dtype))
            start += t._shape[dim]
        ctx.sizes = [None if _is_legacy_empty(t) else t._shape[dim] for t in tensors]
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        pieces, start = [], 0
        for size in ctx.sizes:
            if size is None:
                pieces.append(grad.new_zeros((0,)))
                continue
            pieces.append(grad.narrow(ctx.dim, start, size))
            start += size
        return (None, *pieces)


class Stack(Function):
    """Join tensors of one shape along a new dimension ``dim``: a ``Cat`` of their
    unsqueezed views, recorded as one node (``StackBackward0``, as in PyTorch);  each
    input's gradient is its slice ``grad.select(dim, i)``."""

    @staticmethod
    def forward(ctx: FunctionCtx, dim: int, *tensors: Tensor) -> Tensor:
        ctx.dim, ctx.count = dim, len(tensors)
        return Cat.forward(ctx, dim, *(t.unsqueeze(dim) for t in tensors))

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return (None, *(grad.select(ctx.dim, i) for i in range(ctx.count)))


def _is_legacy_empty(t: Tensor) -> bool:
    return t.ndim == 1 and t._shape[0] == 0


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    require_tensors("cat", tensors)
    checked = [t for t in tensors if not _is_legacy_empty(t)] or tensors
    d = layout.normalize_dim(dim, checked[0].ndim)
    reference = checked[0]
    for number, t in enumerate(checked):
        if t.ndim != reference.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {reference.ndim} and {t.ndim}"
            )
        for axis in range(t.ndim):
            if axis != d and t._shape[axis] != reference._shape[axis]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{reference._shape[axis]} but got size {t._shape[axis]} for tensor "
                    f"number {number} in the list."
                )
    return Cat.apply(d, *tensors)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dimension."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    require_tensors("stack", tensors)
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} "
                f"at entry 0 and {list(t.shape)} at entry {i}"
            )
    d = layout.normalize_dim(dim, tensors[0].ndim + 1)
    return Stack.apply(d, *tensors)
