"""Special functions of one tensor: ``expm1``, ``asinh``, ``acosh``, ``atanh``, ``erfc``,
``lgamma`` (one ``map`` kernel each, rows of ``minitorch/special_scalar_functions.py``),
and ``digamma``, ``erfinv``, ``mvlgamma``, ``i0``, written from those and other ops.

Derivatives::

    expm1' = e^x = y + 1          asinh' = 1 / sqrt(x^2 + 1)    acosh' = 1 / sqrt(x^2 - 1)
    atanh' = 1 / (1 - x^2)        erfc'  = -2/sqrt(pi) e^(-x^2)  lgamma' = digamma
    erfinv'(x) = sqrt(pi)/2 e^(erfinv(x)^2)   (the inverse function's rule: 1 / erf'(y))

``digamma`` (psi, the derivative of ln Gamma) is a formula of ops, so it has a gradient
of its own for free. Three steps:

1. reflection, for x < 1/2:  psi(x) = psi(1 - x) - pi / tan(pi x);
2. recurrence, to push x above 10:  psi(x) = psi(x + 10) - sum_{k=0..9} 1 / (x + k);
3. the asymptotic series there:  psi(x) ~ ln x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - 1/(252x^6)
   + 1/(240x^8) - 1/(132x^10) + 691/(32760x^12), within float64 rounding for x >= 10.

``i0`` (the modified Bessel function I_0) is its power series for |x| <= 15 and the
asymptotic series beyond, each exact to float64 rounding on its side:

    I0(x) = sum_k (x^2 / 4)^k / (k!)^2
          ~ e^|x| / sqrt(2 pi |x|) * sum_k ((2k - 1)!!)^2 / (k! (8 |x|)^k)

``erfinv`` starts from Winitzki's closed-form guess (relative error ~1e-3) and takes
Newton steps on erf(y) - x = 0 in float64: each step squares the error, so four reach
float64 rounding.
"""

from __future__ import annotations

import math

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import float64, get_default_dtype
from minitorch.layout import checked_numel
from minitorch.ops.choice import where
from minitorch.ops.common import cast, require_tensor
from minitorch.ops.unary import apply_map


class Expm1(Function):
    """y = e^x - 1;  dy/dx = y + 1"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("expm1", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad * (y + 1)


class MapWithDerivative(Function):
    """y = f(x) for the scalar op named ``op``; dy/dx from ``DERIVATIVES[op](x)``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, op: str) -> Tensor:
        ctx.save_for_backward(x)
        ctx.op = op
        return apply_map(op, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return grad * DERIVATIVES[ctx.op](x), None


DERIVATIVES = {
    "asinh": lambda x: (x * x + 1).rsqrt(),
    "acosh": lambda x: (x * x - 1).rsqrt(),
    "atanh": lambda x: 1 / (1 - x * x),
    "erfc": lambda x: (-x * x).exp() * (-2 / math.sqrt(math.pi)),
    "lgamma": lambda x: digamma(x),
}


def _floating(name: str, x: Tensor) -> Tensor:
    require_tensor(name, x)
    return x if x.dtype.is_floating_point else cast(x, get_default_dtype())


def expm1(x: Tensor) -> Tensor:
    require_tensor("expm1", x)
    return Expm1.apply(x)


def asinh(x: Tensor) -> Tensor:
    return MapWithDerivative.apply(_floating("asinh", x), "asinh")


def acosh(x: Tensor) -> Tensor:
    return MapWithDerivative.apply(_floating("acosh", x), "acosh")


def atanh(x: Tensor) -> Tensor:
    return MapWithDerivative.apply(_floating("atanh", x), "atanh")


def erfc(x: Tensor) -> Tensor:
    return MapWithDerivative.apply(_floating("erfc", x), "erfc")


def lgamma(x: Tensor) -> Tensor:
    """ln |Gamma(x)|: ``lgamma(n + 1) = ln n!``; +inf at 0 and the negative integers."""
    return MapWithDerivative.apply(_floating("lgamma", x), "lgamma")


def digamma(x: Tensor) -> Tensor:
    """psi(x) = d/dx ln Gamma(x) (see the module docstring); -inf at 0 and +inf at -0.0
    (the limits from the right and from the left), NaN at the negative integers."""
    x = _floating("digamma", x)
    if x.dtype is not float64:  # float32 loses digits in the reflection and the sums
        return digamma(x.double()).to(x.dtype)
    reflect = x < 0.5
    pole = (x <= 0) & (x == x.floor())
    safe = where(pole, 0.5, x)
    z = where(reflect, 1 - safe, safe)  # >= 1/2: the series side
    shift = 0
    for k in range(10):
        shift = shift + 1 / (z + k)
    z = z + 10
    r = 1 / (z * z)
    tail = 1 / 252 - r * (1 / 240 - r * (1 / 132 - r * 691 / 32760))
    series = z.log() - 0.5 / z - r * (1 / 12 - r * (1 / 120 - r * tail))
    psi = series - shift
    psi = where(reflect, psi - math.pi / (safe * math.pi).tan(), psi)
    return where(pole, where(x == 0, -1 / x, math.nan), psi)


def mvlgamma(x: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma of dimension ``p``:
    ``ln Gamma_p(x) = p (p - 1) / 4 ln pi + sum_{i=0..p-1} lgamma(x - i / 2)``
    (integer inputs give the default float dtype; outside ``x > (p - 1) / 2``, where
    PyTorch once refused, it now gives what the sum gives, ``inf`` at the poles, and so do we)."""
    require_tensor("mvlgamma", x)
    if not isinstance(p, int) or isinstance(p, bool) or p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    checked_numel(tuple(x.shape) + (p,), x.element_size())  # PyTorch's (..., p) terms: refuse 2**62
    total = lgamma(x)
    for i in range(1, p):
        total = total + lgamma(x - i / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


class Erfinv(Function):
    """y = erfinv(x), so erf(y) = x;  dy/dx = 1 / erf'(y) = sqrt(pi)/2 e^(y^2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        with no_grad():
            y = cast(_erfinv_newton(cast(x, float64)), x.dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad * (y * y).exp() * (math.sqrt(math.pi) / 2)


def _erfinv_newton(x: Tensor) -> Tensor:
    """Winitzki's guess, then Newton on erf(y) = x (float64); +-inf at +-1, NaN beyond."""
    a = 0.147
    inside = x.abs() < 1
    xs = where(inside, x, 0.0)
    log_term = (1 - xs * xs).log()
    first = 2 / (math.pi * a) + log_term / 2
    y = xs.sign() * ((first * first - log_term / a).sqrt() - first).sqrt()
    for _ in range(4):
        y = y - (y.erf() - xs) / ((-y * y).exp() * (2 / math.sqrt(math.pi)))
    edge = where(x.abs() == 1, x * math.inf, math.nan)
    return where(inside, where(x == 0, x, y), edge)  # erfinv(-0.0) = -0.0


def erfinv(x: Tensor) -> Tensor:
    return Erfinv.apply(_floating("erfinv", x))


def i0(x: Tensor) -> Tensor:
    """The modified Bessel function of the first kind, order 0 (see the module docstring);
    its gradient (I_1) comes from the series' own."""
    x = _floating("i0", x)
    a = x.abs()
    small = a <= 15
    near = where(small, a, 0.0)
    quarter_square = near * near / 4
    term, power_sum = quarter_square * 0 + 1, quarter_square * 0 + 1
    for k in range(1, 60):
        term = term * quarter_square / (k * k)
        power_sum = power_sum + term
    far = where(small, 16.0, a)
    coefficient, tail, scaled = 1.0, far * 0 + 1, far * 0 + 1
    for k in range(1, 14):
        coefficient = coefficient * (2 * k - 1) ** 2 / (k * 8)
        scaled = scaled / far
        tail = tail + coefficient * scaled
    asymptotic = far.exp() / (far * 2 * math.pi).sqrt() * tail
    return where(small, power_sum, asymptotic)
