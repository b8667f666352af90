"""Constant padding: a tensor inside a border of one value (``F.pad``, and the border
convolution and pooling windows may hang over).

The padded tensor is a fresh tensor of ``value``; the input is copied into its interior,
a strided view that starts ``before`` cells in along each dimension::

    out = full(size + before + after for each dim, value)
    out[before_0 : before_0 + size_0, before_1 : ...] = x

Backward: the gradient of the interior is the interior of the gradient (the border
came from a constant, so it has none).
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
    dimension ``d``. Widths must be >= 0 (PyTorch crops with negative ones; we do not)."""
    if len(widths) != x.ndim:
        raise ValueError(f"constant_pad: expected {x.ndim} (before, after) pairs, got {len(widths)}")
    if any(before < 0 or after < 0 for before, after in widths):
        raise NotImplementedError(f"minitorch's pad does not crop (negative padding {list(widths)})")
    return ConstantPad.apply(x, widths, value)
