"""The shape ops that copy: ``contiguous``, ``clone`` and ``flip`` write their elements into
new storage (``Copy`` and ``Flip``, one ``copy`` kernel each), where the views of
``shape.py`` only compute a new layout over the same storage.

A copy has a choice a view does not: in which order to lay out the new storage.
``contiguous`` picks row-major (or the order ``memory_format`` names, such as
``channels_last``); ``clone`` and ``flip`` keep ``x``'s own dimension order when ``x`` is
dense (PyTorch's ``preserve_format``: ``x.t().clone()`` is still transposed).
"""

from __future__ import annotations

from typing import Any

from minitorch import dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.memory_format import (
    check_memory_format,
    contiguous_format,
    dimension_order,
    is_laid_out,
    preserve_format,
)
from minitorch.ops.common import require_tensor, sizes_from


class Copy(Function):
    """A copy into new contiguous storage (``contiguous``, ``clone``);  gradient: itself."""

    node_name = "CloneBackward0"  # PyTorch's name for both

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, keep_strides: bool) -> Tensor:
        out = Tensor._empty(x._shape, x.dtype, x.device)
        if keep_strides and x.numel() > 1:
            out = _dense_like(x)
        return dispatch.map("copy", out, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return grad, None


def _dense_like(x: Tensor) -> Tensor:
    """An empty tensor with ``x``'s dimension order in memory when ``x`` is dense
    (PyTorch's ``preserve_format``: ``x.t().clone()`` is still transposed)."""
    order = sorted(range(x.ndim), key=lambda d: (-x._strides[d], d))
    packed = layout.contiguous_strides(tuple(x._shape[d] for d in order))
    strides = [0] * x.ndim
    for d, stride in zip(order, packed):
        strides[d] = stride
    dense = all(x._strides[d] == strides[d] for d in range(x.ndim) if x._shape[d] > 1)
    return Tensor._empty(x._shape, x.dtype, x.device, tuple(strides) if dense else None)


class Flip(Function):
    """Reverse the order along ``dims`` (a copy, as in PyTorch);  gradient: flip back."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dims: tuple) -> Tensor:
        ctx.dims = dims
        strides, offset = list(x._strides), x._offset
        for d in dims:
            if x._shape[d] > 0:
                offset += (x._shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
        reversed_view = x._view(x._shape, tuple(strides), offset)
        out = _dense_like(x) if x.numel() > 1 else Tensor._empty(x._shape, x.dtype, x.device)
        return dispatch.map("copy", out, reversed_view)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return grad.flip(ctx.dims), None


def contiguous(x: Tensor, memory_format: Any = contiguous_format) -> Tensor:
    """``x`` itself when its elements are already in row-major order (or in the order of
    ``memory_format``, such as ``channels_last``), else a copy in that order."""
    if check_memory_format(memory_format, "contiguous") is not contiguous_format:
        return in_memory_format(x, memory_format, "contiguous")
    return x if x.is_contiguous() else Copy.apply(x, False)


def clone(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    """A copy with its own storage: a dense tensor keeps its dimension order
    (``preserve_format``), or the copy is laid out in ``memory_format``."""
    require_tensor("clone", x)
    if check_memory_format(memory_format, "clone") is preserve_format:
        return Copy.apply(x, True)
    return in_memory_format(Copy.apply(x, False), memory_format, "clone")


def in_memory_format(x: Tensor, memory_format: Any, function: str) -> Tensor:
    """``x`` laid out in ``memory_format`` (see ``minitorch/memory_format.py``): itself when
    it already is, else a copy, made by viewing the dimensions in memory order, copying
    that row-major, and viewing them back (so the gradient needs nothing new)."""
    fmt = check_memory_format(memory_format, function)
    if fmt is preserve_format:
        return x
    if is_laid_out(x._shape, x._strides, fmt):
        return x
    order = dimension_order(fmt, x.ndim)
    back = tuple(order.index(d) for d in range(x.ndim))
    return contiguous(x.permute(order)).permute(back)


def flip(x: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy; each dim at most once)."""
    require_tensor("flip", x)
    dims = sizes_from(args if dims is None else (dims,))
    return Flip.apply(x, layout.normalize_dims(tuple(dims), x.ndim))
