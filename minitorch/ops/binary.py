"""Elementwise functions of two tensors (or a tensor and a number): ``+ - * / ** ...``.

The forward of each is one ``zip`` kernel, run by ``apply_zip``
(``minitorch/ops/elementwise.py``) after its preparations: type promotion (both operands
converted to the result dtype; a Python number becomes a 0-d tensor of that dtype) and
broadcasting (both viewed at the common shape, a stretched dimension having stride 0, no
data copied). Its plan remembers them per layout.

The backward formulas ignore broadcasting: the engine sums each gradient back to its
input's shape (``sum_to`` in ``minitorch/autograd/engine.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_, result_type
from minitorch.ops.choice import where
from minitorch.ops.common import (
    is_number,
    python_number,
    require_tensor,
)
from minitorch.ops.elementwise import apply_zip, save_operands, saved_operands


class Add(Function):
    """y = a + b;  dy/da = 1, dy/db = 1"""

    numbers_are_inputs = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Any, b: Any) -> Tensor:
        return apply_zip("add", a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor, Tensor]:
        return grad, grad


class Sub(Function):
    """y = a - b;  dy/da = 1, dy/db = -1"""

    numbers_are_inputs = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Any, b: Any) -> Tensor:
        return apply_zip("sub", a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        return grad, -grad if ctx.needs_input_grad[1] else None


class Mul(Function):
    """y = a * b;  dy/da = b, dy/db = a"""

    numbers_are_inputs = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Any, b: Any) -> Tensor:
        # Save only what a gradient needs (dy/da needs b, dy/db needs a): `y * 2` saves
        # nothing, so `y` may still be changed in place afterwards, as in PyTorch.
        needs_a, needs_b = ctx.needs_input_grad
        save_operands(ctx, a, b, keep=(needs_b, needs_a))
        return apply_zip("mul", a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = saved_operands(ctx)
        grad_a = grad * b if ctx.needs_input_grad[0] else None
        grad_b = grad * a if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Div(Function):
    """y = a / b;  dy/da = 1 / b, dy/db = -a / b^2"""

    numbers_are_inputs = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Any, b: Any) -> Tensor:
        needs_b = ctx.needs_input_grad[1]  # dy/da needs only b; dy/db needs a and b
        save_operands(ctx, a, b, keep=(needs_b, True))
        return apply_zip("div", a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = saved_operands(ctx)
        grad_a = grad / b if ctx.needs_input_grad[0] else None
        grad_b = -grad * a / (b * b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Pow(Function):
    """y = a ** b;  dy/da = b a^(b-1), dy/db = a^b ln a"""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Any, b: Any) -> Tensor:
        y = apply_zip("pow", a, b)
        # ``y`` itself is needed only by dy/db = a^b ln a: saved only then, so that
        # ``y = x ** 2`` may be changed in place afterwards, as in PyTorch.
        save_operands(ctx, a, b, y if ctx.needs_input_grad[1] else None)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, y = saved_operands(ctx)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            # where b == 0 the derivative is 0 (even at a == 0, where a^(b-1) is inf)
            if isinstance(b, Tensor):
                grad_a = where(b == 0, 0.0, grad * b * a ** (b - 1))
            elif b == 0:
                grad_a = grad * 0
            elif b == 2:  # grad * (2 a): one kernel, an op of its own
                grad_a = SquareBackward.apply(grad, a)
            else:  # PyTorch's order, grad * (b a^(b-1))
                grad_a = grad * (b * a ** (b - 1))
        if ctx.needs_input_grad[1]:
            log_a = a.log() if isinstance(a, Tensor) else Tensor._full((), a, y.dtype, y.device).log()
            grad_b = grad * y * where((a == 0) & (b >= 0), 0.0, log_a)
        return grad_a, grad_b


class SquareBackward(Function):
    """r = g (2 a), the gradient of ``y = a ** 2`` (PyTorch's order: ``g * (2 * a)``);
    dr/dg = 2 a (this same op again, on ``gg``), dr/da = 2 g"""

    @staticmethod
    def forward(ctx: FunctionCtx, g: Tensor, a: Tensor) -> Tensor:
        ctx.save_for_backward(g, a)
        return apply_zip("square_backward", g, a)

    @staticmethod
    def backward(ctx: FunctionCtx, gg: Tensor) -> tuple:
        g, a = ctx.saved_tensors
        grad_g = SquareBackward.apply(gg, a) if ctx.needs_input_grad[0] else None
        grad_a = gg * g * 2 if ctx.needs_input_grad[1] else None
        return grad_g, grad_a


class Remainder(Function):
    """y = a mod b = a - floor(a / b) b;  dy/da = 1, dy/db = -floor(a / b)"""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Any, b: Any) -> Tensor:
        save_operands(ctx, a, b)
        return apply_zip("remainder", a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        a, b = saved_operands(ctx)
        grad_b = -grad * (a / b).floor() if ctx.needs_input_grad[1] else None
        return grad, grad_b


class Atan2(Function):
    """y = atan2(a, b), the angle of the point (b, a);  dy/da = b / (a^2 + b^2),
    dy/db = -a / (a^2 + b^2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return apply_zip("atan2", a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        scale = grad / (a * a + b * b)
        return (scale * b if ctx.needs_input_grad[0] else None,
                -scale * a if ctx.needs_input_grad[1] else None)  # fmt: skip


# ----- the functions users call -------------------------------------------------------


def add(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    """``a + alpha * b``."""
    return Add.apply(a, _times_alpha(a, b, alpha))


def sub(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    """``a - alpha * b``."""
    return Sub.apply(a, _times_alpha(a, b, alpha))


def _times_alpha(a: Any, b: Any, alpha: Any) -> Any:
    """``alpha * b`` for ``add``/``sub``, with PyTorch's checks: ``alpha`` may not be a
    float when the result is an integer, nor a bool unless the result is a bool."""
    if alpha == 1 and not isinstance(alpha, bool):
        return b  # the common case
    if not (isinstance(b, Tensor) or is_number(b)):
        return b  # prepare() names the bad operand
    a, b = (v.item() if isinstance(v, np.generic) else v for v in (a, b))
    dtype = result_type(a, b)
    if isinstance(alpha, bool) and dtype is not bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not dtype.is_floating_point:
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if dtype is bool_:
        alpha = bool(alpha)  # True + True * 2 is True
    if alpha == 1:
        return b
    return mul(b, alpha) if isinstance(b, Tensor) else b * alpha


def mul(a: Any, b: Any) -> Tensor:
    return Mul.apply(a, b)


def div(a: Any, b: Any, *, rounding_mode: str | None = None) -> Tensor:
    """True division (``rounding_mode=None``), or ``"floor"``/``"trunc"`` rounding."""
    if rounding_mode is None:
        return Div.apply(a, b)
    if rounding_mode == "floor":
        return DivFloor.apply(a, b)
    if rounding_mode == "trunc":
        return _trunc_divide(a, b)
    raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                     f"but found '{rounding_mode}'")  # fmt: skip


class FloorDivide(Function):
    """y = floor(a / b): a staircase. Like PyTorch, it is recorded in the graph but
    asking for its derivative is an error (it is zero almost everywhere)."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Any, b: Any) -> Tensor:
        return apply_zip("floordiv", a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        raise RuntimeError("the derivative for 'floor_divide' is not implemented.")


class DivFloor(FloorDivide):
    """``div(a, b, rounding_mode="floor")``: the same staircase as ``floor_divide``, but,
    as PyTorch defines it, with derivative 0 (flat steps) rather than an error."""

    node_name = "DivBackward2"  # PyTorch's node for a rounded division

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        zero = grad.new_zeros(grad.shape)
        return tuple(zero if needed else None for needed in ctx.needs_input_grad[:2])


def _trunc_divide(a: Any, b: Any) -> Tensor:
    """``a / b`` rounded toward zero. Integers are divided exactly, never through floats:
    trunc = floor + 1 where the division is inexact and the quotient negative."""
    dtype = result_type(python_number(a), python_number(b))
    if dtype.is_floating_point:
        quotient = Div.apply(a, b)
        return where(quotient < 0, quotient.ceil(), quotient.floor())
    if dtype is bool_:
        raise NotImplementedError("\"div_trunc_cpu\" not implemented for 'Bool'")
    floored = floor_divide(a, b)  # raises on a zero divisor
    return floored + ((remainder(a, b) != 0) & (floored < 0))


def floor_divide(a: Any, b: Any) -> Tensor:
    """``floor(a / b)``, rounding toward minus infinity."""
    return FloorDivide.apply(a, b)


def remainder(a: Any, b: Any) -> Tensor:
    """Python's ``a % b``: the result has the sign of ``b``."""
    return Remainder.apply(a, b)


class PowTensorExponent(Pow):
    """``a ** b`` with a tensor exponent: PyTorch names its node ``PowBackward1``."""

    node_name = "PowBackward1"


class PowNumberBase(Pow):
    """``2 ** b``, a number to a tensor power: PyTorch names its node ``PowBackward2``."""

    node_name = "PowBackward2"


def pow(a: Any, b: Any) -> Tensor:  # noqa: A001 (PyTorch's name)
    """``a ** b``: which ``Function`` depends on which operands are tensors."""
    if not isinstance(b, Tensor):
        return Pow.apply(a, b)
    integers = not result_type(python_number(a), python_number(b)).is_floating_point
    if integers and not b.dtype.is_floating_point and b.dtype is not bool_ and bool((b < 0).any()):
        return _negative_integer_powers(a, b)
    return (PowTensorExponent if isinstance(a, Tensor) else PowNumberBase).apply(a, b)


def _negative_integer_powers(a: Any, b: Tensor) -> Tensor:
    """Integer ``a ** b`` with some exponents negative, as PyTorch computes it: ``1 / a**|b|``
    truncated to an integer, so 1 for ``a == 1``, 1 or -1 for ``a == -1`` (even or odd
    ``b``), 0 for every other base. (Only a tensor exponent: a negative *number* exponent
    of an integer tensor is refused, as in PyTorch.)"""
    powers = pow(a, b.clamp(min=0))
    signs = where(b % 2 == 0, 1, -1)  # (-1) ** b
    if isinstance(a, Tensor):
        inverses = where(a == 1, 1, 0) + where(a == -1, signs, 0)
    else:
        inverses = signs if a == -1 else where(b < 0, int(a == 1), 0)
    return where(b < 0, inverses, powers).to(powers.dtype)


def atan2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002 (PyTorch's names)
    """The angle of the point ``(x=other, y=input)`` in ``(-pi, pi]``: ``atan(input /
    other)``, corrected by pi in the left half-plane. Both must be tensors."""
    require_tensor("atan2", input)
    require_tensor("atan2", other, "other", 2)
    return Atan2.apply(input, other)


arctan2 = atan2  # NumPy's name


def _shift(op: str, kernel_name: str, a: Any, b: Any) -> Tensor:
    """``a << b`` or ``a >> b`` on integers, with PyTorch's checks. Not differentiable: an
    integer tensor has no gradient."""
    if not (isinstance(a, Tensor) or isinstance(b, Tensor)) or not all(
        isinstance(v, Tensor) or is_number(v) for v in (a, b)
    ):
        raise TypeError(f"{op}(): expected a Tensor and a Tensor or a number, but got "
                        f"{type(a).__name__} and {type(b).__name__}")  # fmt: skip
    dtype = result_type(python_number(a), python_number(b))
    if dtype.is_floating_point or dtype is bool_:
        raise NotImplementedError(f"\"{kernel_name}_cpu\" not implemented for '{dtype.type_name}'")
    return apply_zip(op, a, b)


def bitwise_left_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input << other``: the bits moved left, ``input * 2**other`` wrapping around like
    the integer type. A count that is negative or not less than the type's width gives 0."""
    return _shift("bitwise_left_shift", "lshift", input, other)


def bitwise_right_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input >> other``: the bits moved right, copies of the sign bit coming in from the
    left: ``floor(input / 2**other)``. A count that is negative or not less than the type's
    width gives 0, or -1 for a negative ``input``."""
    return _shift("bitwise_right_shift", "rshift", input, other)


def operator_form(function: Any) -> Any:
    """``function`` as a Python operator (``t + other``, ``t == other``). As PyTorch's, it
    converts a NumPy array to a tensor, and answers ``NotImplemented`` to anything else it
    does not know, so Python falls back: ``t == None`` is False (``t in [None]`` works),
    ``t + [1]`` is Python's TypeError."""

    def operator(self: Tensor, other: Any) -> Any:
        if not isinstance(other, Tensor):  # (a tensor, the common case, needs no test)
            if isinstance(other, np.ndarray):
                other = creation.tensor(other, device=self.device)
            elif not is_number(other):
                return NotImplemented
        return function(self, other)

    operator.__name__, operator.__doc__ = function.__name__, function.__doc__
    return operator


def reversed_operands(function: Any) -> Any:
    """For ``2 - t`` Python calls ``t.__rsub__(2)``: swap the operands back. ``2 * t`` and
    ``2 + t`` are computed as ``t * 2`` and ``t + 2`` (the same numbers: floating-point
    ``+`` and ``*`` are commutative), so the graph lists ``t`` first, as PyTorch's does."""
    commutative = function in (add, mul)

    def reflected(self: Tensor, other: Any) -> Tensor:
        if not (is_number(other) or isinstance(other, Tensor)):
            return NotImplemented
        return function(self, other) if commutative else function(other, self)

    return reflected
