"""Elementwise functions of two tensors (or a tensor and a number): ``+ - * / ** ...``.

The forward of each is one ``zip`` kernel after two preparations (``prepare``):

1. **Type promotion** (``minitorch/dtypes.py``): both operands are converted to the
   result dtype; a Python number becomes a 0-d tensor of that dtype.
2. **Broadcasting** (``minitorch/layout.py``): both are viewed at the common shape, a
   stretched dimension having stride 0. No data is copied.

The backward formulas ignore broadcasting: the engine sums each gradient back to its
input's shape (``sum_to`` in ``minitorch/autograd/engine.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import creation, dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_, get_default_dtype, result_type
from minitorch.ops.common import (
    as_operand,
    broadcast_all,
    is_number,
    python_number,
    require_tensor,
    result_strides,
)
from minitorch.ops.lean_lane import lean_zip
from minitorch.scalar_ops import ZIP_OPS


def prepare(op: str, a: Any, b: Any) -> tuple[Tensor, Tensor, Tensor]:
    """Promote, check and broadcast the operands of ``op``; allocate the output.
    Returns ``(out, a, b)``, ready for ``dispatch.zip``."""
    tensors_of_one_dtype = isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is b.dtype
    if tensors_of_one_dtype:
        dtype, like = a.dtype, a  # the common case, without the general promotion rules
    else:
        for operand in (a, b):
            if not (isinstance(operand, Tensor) or is_number(operand)):
                raise TypeError(
                    f"{op}(): expected a Tensor or a number, but got {type(operand).__name__}"
                    + (" (convert it with minitorch.tensor(...))" if hasattr(operand, "__len__") else "")
                )
        a, b = python_number(a), python_number(b)
        like = a if isinstance(a, Tensor) else b
        dtype = result_type(a, b)
    scalar_op = ZIP_OPS[op]
    if scalar_op.returns_float and not dtype.is_floating_point:
        dtype = get_default_dtype()  # true division of integers gives floats
    if op in ("logical_and", "logical_or"):
        dtype = bool_
    if dtype is bool_ or op == "sub":
        _check_bool_operands(op, a, b, dtype)
    divisor = b  # (a number is checked as a number: no kernel, no read from a device)
    if not (tensors_of_one_dtype and a.dtype is dtype):  # numbers, casts: make operands
        a, b = as_operand(a, dtype, like), as_operand(b, dtype, like)
    if op in ("floordiv", "remainder") and not dtype.is_floating_point:
        if (divisor == 0 if is_number(divisor) else (b == 0).any()):  # SIGFPE in a CUDA kernel
            raise RuntimeError(
                f"ZeroDivisionError: integer {'//' if op == 'floordiv' else '%'} by zero"
            )
    if op == "pow" and not dtype.is_floating_point and dtype is not bool_:
        if (divisor < 0 if is_number(divisor) else (b < 0).any()):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    shape, (a, b) = broadcast_all(a, b)
    strides = result_strides(shape, (a, b))  # (None: contiguous, the usual case)
    out = Tensor._empty(shape, bool_ if scalar_op.returns_bool else dtype, like.device, strides)
    return out, a, b


def _is_bool(value: Any) -> bool:
    return value.dtype is bool_ if isinstance(value, Tensor) else isinstance(value, bool)


def _check_bool_operands(op: str, a: Any, b: Any, dtype: Any) -> None:
    """PyTorch refuses arithmetic that makes no sense on booleans."""
    if op == "sub" and (_is_bool(a) or _is_bool(b)):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if op == "pow" and not isinstance(b, Tensor):
        return  # PyTorch allows a bool tensor to a scalar power
    if op in ("floordiv", "remainder", "pow") and dtype is bool_:
        name = {"floordiv": "div_floor_cpu", "remainder": "remainder_cpu", "pow": "pow"}[op]
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\'')


# The zip ops whose result, for a floating tensor and a tensor of its dtype or a Python
# number, is the kernel's alone: no promotion, cast or check to make first (lean_lane.py);
# the activation derivatives are the fused backward formulas of unary.py
LANE_OPS = frozenset({"add", "sub", "mul", "div", "pow",
                      "tanh_backward", "sigmoid_backward", "relu_backward", "square_backward",
                      "sub_log", "exp_mul"})  # fmt: skip


def apply_zip(op: str, a: Any, b: Any) -> Tensor:
    """``out[i] = f(a[i], b[i])`` for a zip op of the scalar-op table. Called by each
    Function's forward, where grad mode is off: the lean lane takes the common case, and
    ``prepare`` the rest."""
    if op in LANE_OPS:
        out = lean_zip(op, a, b)
        if out is not None:
            return out
    out, a, b = prepare(op, a, b)
    return dispatch.zip(op, out, a, b)


def save_operands(ctx: FunctionCtx, a: Any, b: Any, *outputs: Tensor,
                  keep: tuple[bool, bool] = (True, True)) -> None:  # fmt: skip
    """Save what a backward needs: the tensor operands that ``keep`` asks for (and any
    ``outputs``) with ``save_for_backward``, and the Python numbers (a number is not a
    tensor and cannot be saved: ``x * 2`` remembers the 2 as ``ctx.numbers``)."""
    a_is_tensor, b_is_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    ctx.save_for_backward(a if keep[0] and a_is_tensor else None,
                          b if keep[1] and b_is_tensor else None, *outputs)  # fmt: skip
    ctx.numbers = (None if a_is_tensor else a, None if b_is_tensor else b)


def saved_operands(ctx: FunctionCtx) -> tuple:
    """``(a, b, *outputs)`` as ``save_operands`` kept them: each operand is its saved
    tensor, or its number (``None`` when neither was kept)."""
    saved = ctx.saved_tensors
    number_a, number_b = ctx.numbers
    a = saved[0] if saved[0] is not None else number_a
    b = saved[1] if saved[1] is not None else number_b
    return (a, b, *saved[2:]) if len(saved) > 2 else (a, b)


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


# ----- the functions users call -------------------------------------------------------


def add(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    """``a + alpha * b``."""
    if alpha == 1 and alpha is not True:  # (then ``alpha * b`` is ``b``)
        out = lean_zip("add", a, b)  # operands that need no graph: see lean_lane.py
        if out is not None:
            return out
    return Add.apply(a, _times_alpha(a, b, alpha))


def sub(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    """``a - alpha * b``."""
    if alpha == 1 and alpha is not True:
        out = lean_zip("sub", a, b)
        if out is not None:
            return out
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
    out = lean_zip("mul", a, b)
    return out if out is not None else Mul.apply(a, b)


def div(a: Any, b: Any, *, rounding_mode: str | None = None) -> Tensor:
    """True division (``rounding_mode=None``), or ``"floor"``/``"trunc"`` rounding."""
    if rounding_mode is None:
        out = lean_zip("div", a, b)
        return out if out is not None else Div.apply(a, b)
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
    out = lean_zip("pow", a, b)  # operands that need no graph: see lean_lane.py
    return out if out is not None else pow_function(a, b)


def pow_function(a: Any, b: Any) -> Tensor:
    """``a ** b`` as a ``Function``: which one depends on which operands are tensors."""
    if not isinstance(b, Tensor):
        return Pow.apply(a, b)
    return (PowTensorExponent if isinstance(a, Tensor) else PowNumberBase).apply(a, b)


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


def lane_operator(function: Any, op: str, general: Any) -> Any:
    """``function`` as a Python operator, for an op of the lean lane (``+ - * / **``):
    ``t + other`` asks the lane at once, one call sooner than ``add`` would, and
    otherwise runs ``general`` (the op's ``Function``, or a function choosing one) after
    ``operator_form``'s checks: the same as ``operator_form(function)``, since
    ``function`` too is the lane, else ``general``. (A Function's ``apply`` is looked up
    on each call, as ``function`` does, not bound once here.)"""
    if isinstance(general, type):
        function_class = general
        general = lambda a, b: function_class.apply(a, b)  # noqa: E731
    checked = operator_form(general)

    def operator(self: Tensor, other: Any) -> Any:
        out = lean_zip(op, self, other)
        if out is not None:
            return out
        if isinstance(other, Tensor):  # (``operator_form``'s checks pass: no call to them)
            return general(self, other)
        return checked(self, other)

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
