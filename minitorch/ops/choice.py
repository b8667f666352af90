"""Elementwise choices: ``where``, ``clamp``, ``maximum``, ``minimum``.

At each position the result *is* one of the inputs (or a bound), so the derivative is
a switch: the gradient goes to whichever input was chosen there, and nowhere else.
Ties need a rule, and PyTorch's are kept: ``maximum`` splits a tie half and half,
``clamp`` gives it to ``x``.
"""

from __future__ import annotations

from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_, result_type
from minitorch.ops.common import as_operand, broadcast_all, python_number
from minitorch.ops.elementwise import apply_zip, save_operands, saved_operands


class Extremum(Function):
    """y = maximum(a, b) (or minimum);  the gradient goes to the chosen input, split
    half and half where both are equal (PyTorch's convention)."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Any, op: str) -> Tensor:
        save_operands(ctx, a, b)
        ctx.op = op
        return apply_zip(op, a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        a, b = saved_operands(ctx)
        a_wins = (a > b) if ctx.op == "maximum" else (a < b)
        share_a = where(a == b, 0.5, a_wins * 1.0)
        grad_b = grad * (1 - share_a) if ctx.needs_input_grad[1] else None
        return grad * share_a, grad_b, None


class Where(Function):
    """y = a where cond else b;  the gradient goes to whichever was chosen."""

    @staticmethod
    def forward(ctx: FunctionCtx, cond: Tensor, a: Any, b: Any) -> Tensor:
        a, b = python_number(a), python_number(b)
        like = cond
        if isinstance(a, Tensor):
            like = a
        elif isinstance(b, Tensor):
            like = b
        dtype = result_type(*(v for v in (a, b)))
        a, b = as_operand(a, dtype, like), as_operand(b, dtype, like)
        if cond.dtype is not bool_:
            raise RuntimeError(
                "where expected condition to be a boolean tensor, but got a tensor with "
                f"dtype {cond.dtype.type_name}"
            )
        shape, (cond, a, b) = broadcast_all(cond, a, b)
        ctx.save_for_backward(cond)
        out = Tensor._empty(shape, dtype, like.device)
        return dispatch.where(out, cond, a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (cond,) = ctx.saved_tensors
        zero = grad * 0
        return (None,
                where(cond, grad, zero) if ctx.needs_input_grad[1] else None,
                where(cond, zero, grad) if ctx.needs_input_grad[2] else None)  # fmt: skip


class Clamp(Function):
    """y = min(max(x, low), high), a bound being a number or a tensor.

    The gradient goes to whichever of x, low, high y equals, with PyTorch's tie rules:
    dy/dx = 1 where low <= x <= high (x wins ties); dy/dlow = 1 where x < low < high;
    dy/dhigh = 1 where x > high, or everywhere high < low (then y is high)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, low: Any, high: Any) -> Tensor:
        ctx.save_for_backward(x, *(v if isinstance(v, Tensor) else None for v in (low, high)))
        ctx.bounds = tuple(None if isinstance(v, Tensor) else v for v in (low, high))
        y = x
        if low is not None:
            y = apply_zip("maximum", y, low)
        if high is not None:
            y = apply_zip("minimum", y, high)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        x, low, high = ctx.saved_tensors
        low = low if low is not None else ctx.bounds[0]
        high = high if high is not None else ctx.bounds[1]
        inside = x >= low if low is not None else x == x  # False where x is NaN
        if high is not None:
            inside = inside & (x <= high)
        grad_low = grad_high = None
        if ctx.needs_input_grad[1]:
            below = x < low
            grad_low = grad * (below & (low < high) if high is not None else below)
        if ctx.needs_input_grad[2]:
            above = x > high
            grad_high = grad * (above | (high < low) if low is not None else above)
        return grad * inside, grad_low, grad_high


def maximum(a: Tensor, b: Any) -> Tensor:
    return Extremum.apply(a, b, "maximum")


def minimum(a: Tensor, b: Any) -> Tensor:
    return Extremum.apply(a, b, "minimum")


def where(condition: Tensor, input: Any, other: Any) -> Tensor:  # noqa: A002
    """Elementwise choice: ``input`` where ``condition`` is True, else ``other``."""
    return Where.apply(condition, input, other)


def clamp(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Limit every element to ``[min, max]`` (either bound may be omitted)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return Clamp.apply(x, min, max)
