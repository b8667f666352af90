"""Constant padding: a tensor inside a border of one value (``F.pad``, and the border
convolution and pooling windows may hang over).

The padded tensor is a fresh tensor of ``value``; the input is copied into its interior,
a strided view that starts ``before`` cells in along each dimension::

    out = full(size + before + after for each dim, value)
    out[before_0 : before_0 + size_0, before_1 : ...] = x

Backward: the gradient of the interior is the interior of the gradient (the border
came from a constant, so it has none).

A negative width crops, as in PyTorch: ``x`` is first narrowed by those cells (a view,
whose gradient autograd already knows), then padded by the positive widths.
"""

from __future__ import annotations

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx

Widths = tuple[tuple[int, int], ...]  # (before, after) for every dimension


def padded_copy(x: Tensor, widths: Widths, value: float) -> Tensor:
    """``x`` copied into the interior of a new tensor of ``value`` (``x`` itself when
    every width is 0). No autograd: ``ConstantPad`` and ``im2col`` build on it."""
    if all(before == 0 and after == 0 for before, after in widths):
        return x
    shape = tuple(size + before + after for size, (before, after) in zip(x._shape, widths))
    out = Tensor._full(shape, value, x.dtype, x.device)
    offset = sum(before * stride for (before, _), stride in zip(widths, out._strides))
    dispatch.map("copy", out._view(x._shape, out._strides, offset), x)
    return out


class ConstantPad(Function):
    """``x`` inside a border of ``value``;  gradient: the interior of ``grad``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, widths: Widths, value: float) -> Tensor:
        ctx.widths = widths
        out = padded_copy(x, widths, value)
        return x.clone() if out is x else out  # a new tensor, like PyTorch's

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        for dim, (before, after) in enumerate(ctx.widths):
            if before or after:
                grad = grad.narrow(dim, before, grad.shape[dim] - before - after)
        return grad, None, None


def constant_pad(x: Tensor, widths: Widths, value: float = 0.0) -> Tensor:
    """``x`` with ``widths[d] = (before, after)`` cells of ``value`` added around each
    dimension ``d``; a negative width removes that many cells instead."""
    if len(widths) != x.ndim:
        raise ValueError(f"constant_pad: expected {x.ndim} (before, after) pairs, got {len(widths)}")
    for dim, (before, after) in enumerate(widths):
        if before < 0 or after < 0:
            crop_before, crop_after = max(-before, 0), max(-after, 0)
            if x._shape[dim] - crop_before - crop_after < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            x = x.narrow(dim, crop_before, x._shape[dim] - crop_before - crop_after)
    widths = tuple((max(before, 0), max(after, 0)) for before, after in widths)
    return ConstantPad.apply(x, widths, value)
