"""Formulas of ``exp``, ``log`` and friends: ``exp2``, ``logaddexp``, ``logaddexp2``,
``xlogy``, ``logit``, ``hypot``, ``sinc``, ``deg2rad``, ``rad2deg``. Each is written from
existing ops, so each gradient comes from theirs.

    exp2(x)         = 2^x                               (``pow``: exact at integers)
    logaddexp(a, b) = ln(e^a + e^b) = max(a, b) + ln(1 + e^-|a - b|)
    logaddexp2(a,b) = log2(2^a + 2^b) = max(a, b) + log2(1 + 2^-|a - b|)
    xlogy(x, y)     = x ln y, and 0 where x = 0 (unless y is NaN)
    logit(x, eps)   = ln(x / (1 - x)), x first clamped to [eps, 1 - eps]
    hypot(a, b)     = sqrt(a^2 + b^2) = m sqrt(1 + (n/m)^2), m = max(|a|,|b|), n = min
                      (inf if either is infinite, even when the other is NaN)
    sinc(x)         = sin(pi x) / (pi x), and 1 at 0
    entr(x)         = -x ln x, 0 at 0, -inf below 0      (``torch.special``; with
    xlog1py(x, y)   = x log1p(y), 0 where x = 0          their own backward, as PyTorch's)

The shifted forms never overflow: ``e^a`` of a = 100 is inf in float32, ``e^-|a - b|``
is at most 1; ``a^2`` overflows from 1.9e19, ``n/m`` is at most 1.

Where a formula has a hole (``sinc`` at 0, ``x ln y`` at y = 0), ``where`` picks the
limit, and the formula is evaluated at a harmless stand-in there (``where(x == 0, 1,
x)``): ``where`` sends a zero gradient into the branch it did not pick, but 0 times the
inf of a derivative at the hole is NaN, so the hole must not be computed at all.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import get_default_dtype
from minitorch.ops.binary import pow
from minitorch.ops.choice import clamp, maximum, minimum, where
from minitorch.ops.common import cast, require_tensor
from minitorch.ops.zeta_gamma import float_operands


def _floating(name: str, x: Any, argument: str = "input", position: int = 1) -> Tensor:
    require_tensor(name, x, argument, position)
    return x if x.dtype.is_floating_point else cast(x, get_default_dtype())


def _floats_only(name: str, *tensors: Tensor) -> None:
    for position, t in enumerate(tensors, 1):
        require_tensor(name, t, "input" if position == 1 else "other", position)
        if not t.dtype.is_floating_point:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{t.dtype.type_name}\'')


def exp2(x: Tensor) -> Tensor:
    """2 to the power of each element (a float)."""
    return pow(2.0, _floating("exp2", x))


def deg2rad(x: Tensor) -> Tensor:
    return _floating("deg2rad", x) * (math.pi / 180)


def rad2deg(x: Tensor) -> Tensor:
    return _floating("rad2deg", x) * (180 / math.pi)


def sinc(x: Tensor) -> Tensor:
    """The normalized sinc, ``sin(pi x) / (pi x)``: 1 at 0, 0 at the other integers."""
    x = _floating("sinc", x)
    zero = x == 0
    scaled = where(zero, 1.0, x) * math.pi
    return where(zero, 1.0, scaled.sin() / scaled)


def logit(x: Tensor, eps: float | None = None) -> Tensor:
    """The inverse of the sigmoid, ``ln(x / (1 - x))``; with ``eps``, ``x`` is clamped to
    ``[eps, 1 - eps]`` first (and the gradient is 0 outside it)."""
    x = _floating("logit", x)
    if eps is not None:
        x = clamp(x, eps, 1 - eps)
    return (x / (1 - x)).log()


def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002 (PyTorch's names)
    """``input * ln(other)``, 0 where ``input`` is 0 (entropy's ``0 ln 0 = 0``), NaN
    where ``other`` is NaN. Either may be a number, not both."""
    if not isinstance(input, Tensor):
        other = _floating("xlogy", other, "other", 2)
        input = other * 0 + input
    elif not isinstance(other, Tensor):
        input = _floating("xlogy", input)
        other = input * 0 + other
    else:
        input, other = _floating("xlogy", input), _floating("xlogy", other, "other", 2)
    positive_finite = (other > 0) & (other < math.inf)  # where x ln y is 0 at x = 0 by itself
    hole = (input == 0) & ~positive_finite & (other == other)  # 0 * -inf, 0 * NaN of ln(-1)
    safe = where(hole, 1.0, other)
    product = input * safe.log()
    product = where(input == 0, product + 0.0, product)  # -0.0 ln y is +0, as PyTorch's
    return where(hole, 0.0, product)


def _log_add(name: str, a: Tensor, b: Tensor, base: float) -> Tensor:
    """``log_base(base^a + base^b)`` in the shifted form (module docstring)."""
    _floats_only(name, a, b)
    same_infinity = (a == b) & (a.abs() == math.inf)  # inf - inf would be NaN
    d = where(same_infinity, 0.0, a - b)
    shift = (-d.abs() * math.log(base)).exp().log1p() / math.log(base)
    return where(same_infinity, a, maximum(a, b) + shift)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``ln(e^input + e^other)``, without overflow."""
    return _log_add("logaddexp", input, other, math.e)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``log2(2^input + 2^other)``, without overflow."""
    return _log_add("logaddexp2", input, other, 2.0)


def hypot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``sqrt(input^2 + other^2)``, the length of the vector (input, other), scaled so
    that the squares cannot overflow."""
    _floats_only("hypot", input, other)
    a, b = input.abs(), other.abs()
    m, n = maximum(a, b), minimum(a, b)
    empty = (m == 0) | (m == math.inf)
    ratio = n / where(empty, 1.0, m)
    length = where(empty, m, m * (ratio * ratio + 1).sqrt())
    return where((a == math.inf) | (b == math.inf), math.inf, length)  # even beside a NaN


class Entr(Function):
    """y = -x ln x (0 at 0, -inf below);  dy/dx = -(1 + ln x)  (inf at 0, NaN below, as PyTorch)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        with no_grad():
            positive = x > 0
            safe = where(positive, x, 1.0)
            y = where(positive, -safe * safe.log(), where(x == 0, 0.0, where(x < 0, -math.inf, x)))
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * -(x.log() + 1)


def entr(input: Tensor) -> Tensor:  # noqa: A002
    """The entropy term ``-x ln x`` of each element: 0 at 0, ``-inf`` for negatives."""
    return Entr.apply(_floating("special.entr", input))


class Xlog1py(Function):
    """y = x log1p(z), 0 where x = 0 (unless z is NaN);
    dy/dx = log1p(z) (0 where x = 0 and z <= -1), dy/dz = x / (1 + z)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, z: Tensor) -> Tensor:
        with no_grad():
            hole = (x == 0) & (z == z)
            y = where(hole, 0.0, x * where(hole, 0.0, z).log1p())
        ctx.save_for_backward(x, z)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        x, z = ctx.saved_tensors
        grad_x = grad_z = None
        if ctx.needs_input_grad[0]:
            grad_x = where((x == 0) & (z <= -1), 0.0, grad * z.log1p())
        if ctx.needs_input_grad[1]:
            grad_z = grad * x / (z + 1)
        return grad_x, grad_z


def xlog1py(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN): ``xlogy``
    for ``ln(1 + y)``, exact for small ``y``. Either may be a number, not both."""
    x, z = float_operands("special.xlog1py", input, other)
    return Xlog1py.apply(x, z)
