"""The parts of a number and the choices between two: ``trunc``, ``frac``, ``signbit``, ``angle``,
``copysign``, ``isposinf``/``isneginf``/``isreal``, ``ldexp``, ``float_power``, ``fmod``,
``fmax``/``fmin``, ``heaviside``, for integers ``gcd``/``lcm``, and a float's binary
parts: ``frexp`` and ``nextafter`` (at the end of the file).

Each is a formula of existing ops, so each gradient comes from theirs:

    trunc(x)       = floor(x) where x >= 0, else ceil(x)     (toward zero; gradient 0)
    frac(x)        = x - trunc(x)
    signbit(x)     = x < 0, or x is -0.0 (1 / -0.0 = -inf)
    copysign(a, b) = |a| with the sign bit of b
    ldexp(x, e)    = x * 2^e
    fmod(a, b)     = a - trunc(a / b) b: the remainder with a's sign. From ``remainder``
                     (b's sign), which is exact: where their signs differ they differ by b.
    fmax(a, b)     = max(a, b), but a NaN loses (NumPy's fmax; ``maximum`` lets NaN win)
    gcd(a, b)      by Euclid: (a, b) -> (b, a mod b) until b = 0, on every element at once
"""

from __future__ import annotations

import math
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import bool_, float64, get_default_dtype, int32, promote_types
from minitorch.ops import return_types
from minitorch.ops.binary import pow, remainder
from minitorch.ops.choice import where
from minitorch.ops.common import cast, is_number, require_tensor
from minitorch.ops.unary import Piecewise


def _not_for_integers(name: str, x: Tensor) -> None:
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{x.dtype.type_name}\'')


def trunc(x: Tensor) -> Tensor:
    """Each element rounded toward zero (``-2.7 -> -2``); integers are copied."""
    require_tensor("trunc", x)
    if not x.dtype.is_floating_point:
        if x.dtype is bool_:
            raise NotImplementedError("\"trunc\" not implemented for 'Bool'")
        return x.clone()
    return where(x >= 0, Piecewise.apply(x, "floor"), Piecewise.apply(x, "ceil"))


fix = trunc  # NumPy's name


def frac(x: Tensor) -> Tensor:
    """The fractional part, ``x - trunc(x)``, with ``x``'s sign (``-2.7 -> -0.7``)."""
    require_tensor("frac", x)
    _not_for_integers("frac", x)
    return x - trunc(x)


def signbit(x: Tensor) -> Tensor:
    """True where the sign bit is set: negatives and -0.0."""
    require_tensor("signbit", x)
    if not x.dtype.is_floating_point:
        return x < 0
    return (x < 0) | ((x == 0) & (1 / x < 0))


class Angle(Function):
    """y = the angle of x as a point of the complex plane: pi for x < 0, 0 for x >= 0 (and
    -0.0), NaN for NaN;  dy/dx = 0, a step function's slope (as PyTorch's, even at 0)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        with no_grad():
            return where(x < 0, math.pi, where(x != x, x, 0.0))

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        return grad.new_zeros(tuple(grad.shape))


def angle(input: Tensor) -> Tensor:  # noqa: A002
    """``torch.angle`` of real numbers: ``pi`` for negatives, 0 otherwise; integers give
    the default float dtype."""
    require_tensor("angle", input)
    if not input.dtype.is_floating_point:
        input = cast(input, get_default_dtype())  # noqa: A001
    return Angle.apply(input)


class Copysign(Function):
    """y = |a| with b's sign bit;  dy/da = y / a (+-1; 0 at a = 0), dy/db = 0"""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, negative: Any, b: Any) -> Tensor:
        size = a.abs()
        y = where(negative, -size, size) if isinstance(negative, Tensor) else (-size if negative else size)
        ctx.save_for_backward(a, y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        a, y = ctx.saved_tensors
        grad_b = grad * 0 if ctx.needs_input_grad[2] else None  # PyTorch's zero gradient for b
        return grad * where(a == 0, 0.0, y / where(a == 0, 1.0, a)), None, grad_b


def copysign(input: Tensor, other: Any) -> Tensor:  # noqa: A002 (PyTorch's names)
    """``|input|`` with the sign of ``other`` (a tensor or a number), always a float."""
    require_tensor("copysign", input)
    if not input.dtype.is_floating_point:
        input = cast(input, get_default_dtype())
    if not isinstance(other, Tensor):
        return Copysign.apply(input, math.copysign(1, other) < 0, None)
    return Copysign.apply(input, signbit(other), other)


def isposinf(x: Tensor) -> Tensor:
    require_tensor("isposinf", x)
    return x == math.inf if x.dtype.is_floating_point else x != x


def isneginf(x: Tensor) -> Tensor:
    require_tensor("isneginf", x)
    return x == -math.inf if x.dtype.is_floating_point else x != x


def isreal(x: Tensor) -> Tensor:
    """True everywhere: minitorch has no complex dtypes."""
    require_tensor("isreal", x)
    return (x == x) | True


def ldexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``input * 2 ** other``, a float."""
    require_tensor("ldexp", input)
    require_tensor("ldexp", other, "other", 2)
    if not input.dtype.is_floating_point:
        input = cast(input, get_default_dtype())
    return input * pow(2.0, cast(other, input.dtype))


def float_power(input: Any, exponent: Any) -> Tensor:  # noqa: A002
    """``input ** exponent`` computed in float64 (a float64 result whatever the dtypes)."""
    if not isinstance(input, Tensor):
        require_tensor("float_power", exponent, "exponent", 2)
        return pow(float(input), exponent.double())
    require_tensor("float_power", input)
    if isinstance(exponent, Tensor):
        exponent = exponent.double()
    elif not is_number(exponent):
        raise TypeError(f"float_power(): argument 'exponent' must be Tensor or Number, "
                        f"not {type(exponent).__name__}")  # fmt: skip
    return pow(input.double(), exponent)


def fmod(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    """The remainder of ``input / other`` with ``input``'s sign (C's fmod): ``fmod(-3, 2)``
    is -1 where ``remainder`` gives 1. Gradients: 1 and ``-trunc(input / other)``."""
    require_tensor("fmod", input)
    r = remainder(input, other)
    differ = (r != 0) & ((r < 0) != (input < 0))
    if not isinstance(other, Tensor):
        r = where(differ, r - other, r)
        return where(input.abs() != math.inf, input, r) if math.isinf(other) else r
    r = r - where(differ, other, 0)
    if not r.dtype.is_floating_point:
        return r
    return where((other.abs() == math.inf) & (input.abs() != math.inf), input, r)  # fmod(x, inf) = x


def _extremum_ignoring_nan(name: str, input: Tensor, other: Tensor, keep_input: Any) -> Tensor:
    require_tensor(name, input)
    require_tensor(name, other, "other", 2)
    dtype = promote_types(input.dtype, other.dtype)
    input, other = cast(input, dtype), cast(other, dtype)
    return where(keep_input(input, other) | (other != other), input, other)


def fmax(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The larger of the two, a NaN counting only where both are NaN."""
    return _extremum_ignoring_nan("fmax", input, other, lambda a, b: a >= b)


def fmin(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The smaller of the two, a NaN counting only where both are NaN."""
    return _extremum_ignoring_nan("fmin", input, other, lambda a, b: a <= b)


class Heaviside(Function):
    """y = 0 for x < 0, 1 for x > 0, ``values`` at 0: PyTorch has no derivative for it."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, values: Tensor) -> Tensor:
        return where(x == 0, values, cast(where(x > 0, 1, 0), x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        raise RuntimeError("the derivative for 'heaviside' is not implemented.")


def heaviside(input: Tensor, values: Tensor) -> Tensor:  # noqa: A002
    """The step function: 0 below zero, 1 above, ``values`` at zero (not differentiable)."""
    require_tensor("heaviside", input)
    require_tensor("heaviside", values, "values", 2)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return Heaviside.apply(input, values)


def _integers(name: str, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    require_tensor(name, a)
    require_tensor(name, b, "other", 2)
    for t in (a, b):
        if t.dtype.is_floating_point or t.dtype is bool_:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{t.dtype.type_name}\'')
    dtype = promote_types(a.dtype, b.dtype)
    return cast(a, dtype), cast(b, dtype)


def gcd(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The greatest common divisor of each pair, >= 0 (``gcd(0, 0) = 0``)."""
    a, b = _integers("gcd", input, other)
    a, b = (a + b * 0).abs(), (b + a * 0).abs()
    while bool((b != 0).any()):
        step = b != 0
        a, b = where(step, b, a), where(step, remainder(a, where(step, b, 1)), b)
    return a


def lcm(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The least common multiple of each pair, >= 0 (0 when either is 0)."""
    a, b = _integers("lcm", input, other)
    g = gcd(a, b)
    return ((a // where(g == 0, 1, g)) * b).abs()


# ---- a float's binary parts: frexp, nextafter ------------------------------------------
#
#     frexp(x) = (m, e) with x = m 2^e and 0.5 <= |m| < 1   (0, inf, NaN: (x, 0))
#
# e is floor(log2 |x|) + 1, put right by one where log2 rounded across a power of two;
# m = x 2^-e is exact (scaling by a power of two), done in two halves so that 2^-e
# itself never overflows (|x| = 5e-324 has e = -1073). The next float after x toward y
# is x plus one unit in the last place: 2^(e - p) for p bits of mantissa (24 in float32,
# 53 in float64), half that toward zero from a power of two (|m| = 0.5), never less than
# the smallest subnormal. Both run in float64, where every float32 step is exact too.

PRECISION = {"float32": (24, -125, 3.4028234663852886e38), "float64": (53, -1021, 1.7976931348623157e308)}


def _exponent(x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """float64 ``e`` of frexp (0 at 0, inf, NaN), and 2^-e as two factors; no graph."""
    a = cast(x, float64).abs()
    finite = (a > 0) & (a < math.inf)
    safe = where(finite, a, 1.0)
    e = safe.log2().floor() + 1
    for _ in range(2):  # log2 may round across a power of two: put e right
        half = (-e / 2).floor()
        m = safe * pow(2.0, half) * pow(2.0, -e - half)
        e = e + where(m >= 1, 1.0, 0.0) - where(m < 0.5, 1.0, 0.0)
    e = where(finite, e, 0.0)
    half = (-e / 2).floor()
    return e, pow(2.0, half), pow(2.0, -e - half)


def frexp(input: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, ``0.5 <= |mantissa|
    < 1`` and an int32 exponent; the mantissa's gradient is ``grad / 2 ** exponent``."""
    require_tensor("frexp", input)
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with no_grad():
        e, first, second = _exponent(input)
        first, second = cast(first, input.dtype), cast(second, input.dtype)
    mantissa = input * first * second  # exact: powers of two
    return return_types.frexp(mantissa, cast(e, int32))


class NextAfter(Function):
    """y = the float after x toward other;  dy/dx = 1 where y moved, 0 where x = other
    (y is other there, as PyTorch), none for other"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, other: Tensor) -> Tensor:
        with no_grad():
            ctx.moves = x != other
            return cast(_next_float64(cast(x, float64), cast(other, float64), x.dtype.name), x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return where(ctx.moves, grad, 0.0), None


def _next_float64(x: Tensor, y: Tensor, dtype_name: str) -> Tensor:
    bits, smallest_exponent, largest = PRECISION[dtype_name]
    e, first, second = _exponent(x)
    power_of_two = (x * first * second).abs() == 0.5
    e = e.clamp(min=smallest_exponent)
    away = pow(2.0, e - bits)
    toward_zero = where(power_of_two & (e > smallest_exponent), away / 2, away)
    up = y > x
    step = where(up == (x > 0), away, toward_zero)
    direction = cast(up, float64) * 2 - 1  # +1 up, -1 down
    moved = x + direction * step
    moved = where(x == 0, direction * 2.0 ** (smallest_exponent - bits), moved)
    moved = where(x.abs() == math.inf, (cast(x > 0, float64) * 2 - 1) * largest, moved)
    return where(x == y, y, where((x != x) | (y != y), math.nan, moved))


def nextafter(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The next float after ``input`` in the direction of ``other`` (``other`` where they
    are equal). Its gradient with respect to ``input`` is 1 where it moved, 0 where
    ``input`` equals ``other``, as PyTorch's."""
    require_tensor("nextafter", input)
    require_tensor("nextafter", other, "other", 2)
    dtype = promote_types(input.dtype, other.dtype)
    if dtype.name not in PRECISION:
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{dtype.type_name}\'')
    x = input if input.dtype is dtype else input.to(dtype)
    return NextAfter.apply(x, other)
