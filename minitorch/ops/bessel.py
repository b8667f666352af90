"""The modified Bessel functions of the first kind beside ``i0``: ``i1`` and the
exponentially scaled ``i0e = e^-|x| I0(x)``, ``i1e = e^-|x| I1(x)`` (``torch.special``).

``I0`` and ``I1`` grow like ``e^|x|`` (``I0(100) = 1.07e42``, past float32 from x = 91),
so the scaled forms are computed as such, never as ``e^-|x|`` times an overflowed
``inf``. Two series, each exact to float64 rounding on its side of |x| = 25 (computed in
float64; float32 inputs are rounded back at the end)::

    I_v(x) = (x / 2)^v sum_k (x^2 / 4)^k / (k! (k + v)!)                       |x| <= 25
    I_v(x) ~ e^|x| / sqrt(2 pi |x|) sum_k c_k / |x|^k,
             c_0 = 1,  c_k = c_(k-1) ((2k - 1)^2 - 4 v^2) / (8 k)               |x| > 25

(``I1`` is odd: the second series gives ``I1(|x|)``, and the sign of ``x`` is put back.)

Derivatives, each a ``backward`` here::

    I1'(x)  = I0(x) - I1(x) / x                       (1/2 at 0)
    i0e'(x) = i1e(x) - sign(x) i0e(x)
    i1e'(x) = i0e(x) - i1e(x) (sign(x) + 1 / x)       (1/2 at 0)
"""

from __future__ import annotations

import math

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import float64
from minitorch.ops.choice import where
from minitorch.ops.common import cast
from minitorch.ops.normal_distribution import floating
from minitorch.ops.special_math import i0

SERIES_EDGE = 25.0
POWER_TERMS = 60
ASYMPTOTIC_TERMS = 25


def bessel_i(x: Tensor, order: int, scaled: bool) -> Tensor:
    """``I_order(x)`` (``order`` 0 or 1), times ``e^-|x|`` when ``scaled``; float64, no graph."""
    a = x.abs()
    small = a <= SERIES_EDGE
    near = where(small, x, 0.0)
    quarter_square = near * near / 4
    ones = quarter_square * 0 + 1  # finite: ``near`` is 0 wherever x is not small
    term = power_sum = ones
    for k in range(1, POWER_TERMS):
        term = term * quarter_square / (k * (k + order))
        power_sum = power_sum + term
    if order == 1:
        power_sum = power_sum * near / 2
    if scaled:
        power_sum = power_sum * (-near.abs()).exp()
    far = where(small, 2 * SERIES_EDGE, a)
    coefficient, scaled_power = 1.0, ones
    tail = scaled_power
    for k in range(1, ASYMPTOTIC_TERMS + 1):
        coefficient = coefficient * ((2 * k - 1) ** 2 - 4 * order * order) / (8 * k)
        scaled_power = scaled_power / far
        tail = tail + coefficient * scaled_power
    asymptotic = tail / (far * 2 * math.pi).sqrt()
    if not scaled:
        asymptotic = asymptotic * far.exp()
    if not scaled:
        asymptotic = where(far == math.inf, far, asymptotic)  # e^inf / inf: inf, not NaN
    if order == 1:
        asymptotic = where(x < 0, -asymptotic, asymptotic)
    return where(small, power_sum, asymptotic)


class BesselI(Function):
    """y = I_order(x), scaled by e^-|x| or not (derivatives in the module docstring)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, order: int, scaled: bool) -> Tensor:
        with no_grad():
            y = cast(bessel_i(cast(x, float64), order, scaled), x.dtype)
        ctx.save_for_backward(x, y)
        ctx.order, ctx.scaled = order, scaled
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        if ctx.order == 0:  # only the scaled i0 comes here: i0 has its own (ops/special_math.py)
            return grad * (i1e(x) - x.sign() * y), None, None
        at_zero = x == 0
        safe = where(at_zero, 1.0, x)
        if ctx.scaled:
            slope = i0e(x) - y * (x.sign() + 1 / safe)
        else:
            slope = i0(x) - y / safe
        return grad * where(at_zero, 0.5, slope), None, None


def i0e(input: Tensor) -> Tensor:  # noqa: A002 (PyTorch's names)
    """``e^-|x| I0(x)``: the modified Bessel function of order 0, scaled so that it stays
    finite (about ``1 / sqrt(2 pi |x|)`` for large |x|)."""
    return BesselI.apply(floating("special.i0e", input), 0, True)


def i1(input: Tensor) -> Tensor:  # noqa: A002
    """``I1(x)``, the modified Bessel function of the first kind of order 1 (odd in x)."""
    return BesselI.apply(floating("special.i1", input), 1, False)


def i1e(input: Tensor) -> Tensor:  # noqa: A002
    """``e^-|x| I1(x)``: ``i1`` scaled so that it stays finite for large |x|."""
    return BesselI.apply(floating("special.i1e", input), 1, True)
