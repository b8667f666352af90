"""The standard normal distribution's functions, and the scaled error function behind
their tails (``torch.special.ndtr``, ``log_ndtr``, ``ndtri``, ``erfcx``)::

    ndtr(x)     = P(Z <= x) = erfc(-x / sqrt 2) / 2
    erfcx(x)    = e^(x^2) erfc(x)
    log_ndtr(x) = ln ndtr(x) = ln(erfcx(-x / sqrt 2) / 2) - x^2 / 2     for x < -1
                             = log1p(-erfc(x / sqrt 2) / 2)              otherwise
    ndtri(p)    = the x with ndtr(x) = p

Why the detours: ``ndtr(-40)`` is ``3.7e-350``, below the smallest float64, so
``ln(ndtr(-40))`` would be ``-inf`` where the answer is ``-804.6``; ``erfcx`` keeps the
``e^(-x^2)`` out of the number and puts it back as a logarithm. And ``erfc(-x / sqrt 2)``
has no ``1 - erf`` in it, so the left tail keeps all its digits.

``erfcx`` is ``e^(x^2) erfc(x)`` below 5. Above, ``erfc(x)`` runs out of range (it is
``1e-308`` at 26.5), so the continued fraction of ``erfc`` is used instead, evaluated from
its 40th level up (each level adds digits; at x = 5 forty are more than float64 holds)::

    erfcx(x) = 1 / (sqrt(pi) t),   t = x + (1/2) / (x + 1 / (x + (3/2) / (x + 2 / (x + ...))))

``ndtri`` starts from Abramowitz and Stegun's rational guess (26.2.23, off by at most
4.5e-4) in the lower half, ``q = min(p, 1 - p)``, and takes Newton steps on
``log_ndtr(y) - ln q = 0``; the logarithm keeps the step sound far in the tail, and its
slope ``ndtr'(y) / ndtr(y)`` is ``sqrt(2 / pi) / erfcx(-y / sqrt 2)``. Each step squares
the error, so four reach float64 rounding.

The scalar work runs in float64 (float32 inputs are rounded back at the end), and each
op here has its derivative in its ``backward``::

    erfcx'(x) = 2 x erfcx(x) - 2 / sqrt(pi)        ndtri'(p) = sqrt(2 pi) e^(ndtri(p)^2 / 2)

``ndtr`` and ``log_ndtr`` are formulas of ``erfc`` and ``erfcx``, so their gradients come
from those.
"""

from __future__ import annotations

import math

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import float64, get_default_dtype
from minitorch.ops.choice import where
from minitorch.ops.common import cast, require_tensor
from minitorch.ops.special_math import erfc

SQRT_HALF = math.sqrt(0.5)
CONTINUED_FRACTION_LEVELS = 40


def floating(name: str, x: Tensor) -> Tensor:
    """``x`` itself when floating point; integers and bools as the default float dtype."""
    require_tensor(name, x)
    return x if x.dtype.is_floating_point else cast(x, get_default_dtype())


def _erfcx_float64(x: Tensor) -> Tensor:
    """erfcx on a float64 tensor, no graph (see the module docstring)."""
    direct = x < 5
    near = where(direct, x, 0.0)
    product = (near * near).exp() * erfc(near)
    far = where(direct, 5.0, x)
    t = far
    for level in range(CONTINUED_FRACTION_LEVELS, 0, -1):
        t = far + (level / 2) / t
    fraction = 1 / (t * math.sqrt(math.pi))
    return where(direct, product, fraction)


class Erfcx(Function):
    """y = e^(x^2) erfc(x);  dy/dx = 2 x y - 2 / sqrt(pi)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        with no_grad():
            y = cast(_erfcx_float64(cast(x, float64)), x.dtype)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        x, y = ctx.saved_tensors
        return grad * (2 * x * y - 2 / math.sqrt(math.pi))


def erfcx(input: Tensor) -> Tensor:  # noqa: A002 (PyTorch's names)
    """The scaled complementary error function, ``e^(x^2) erfc(x)``: about
    ``1 / (x sqrt(pi))`` for large ``x``, where ``erfc`` alone underflows."""
    return Erfcx.apply(floating("erfcx", input))


def ndtr(input: Tensor) -> Tensor:  # noqa: A002
    """The standard normal distribution function, ``P(Z <= x) = erfc(-x / sqrt 2) / 2``."""
    x = floating("ndtr", input)
    return erfc(x * -SQRT_HALF) * 0.5


def log_ndtr(input: Tensor) -> Tensor:  # noqa: A002
    """``ln ndtr(x)``, accurate in the left tail (``log_ndtr(-40) = -804.6``, where
    ``ndtr`` itself is 0 in float64)."""
    x = floating("log_ndtr", input)
    tail = x < -1
    left = where(tail, x, -2.0)  # each branch at a harmless point where not picked
    right = where(tail, 0.0, x)
    left_value = (erfcx(left * -SQRT_HALF) * 0.5).log() - left * left * 0.5
    right_value = (erfc(right * SQRT_HALF) * -0.5).log1p()
    return where(tail, left_value, right_value)


def _ndtri_float64(p: Tensor) -> Tensor:
    """ndtri on a float64 tensor, no graph (see the module docstring)."""
    upper = p > 0.5
    q = where(upper, 1 - p, p)  # exact: p > 1/2
    inside = (q > 0) & (p < 1)
    q = where(inside, q, 0.25)
    t = (-2 * q.log()).sqrt()
    numerator = 2.515517 + t * (0.802853 + t * 0.010328)
    denominator = 1 + t * (1.432788 + t * (0.189269 + t * 0.001308))
    y = numerator / denominator - t
    log_q = q.log()
    for _ in range(4):
        y = y - (log_ndtr(y) - log_q) * erfcx(y * -SQRT_HALF) / math.sqrt(2 / math.pi)
    y = where(upper, -y, y)
    edge = where(p == 0, -math.inf, where(p == 1, math.inf, math.nan))
    return where(inside, where(p == 0.5, 0.0, y), edge)


class Ndtri(Function):
    """y = ndtri(p), so ndtr(y) = p;  dy/dp = 1 / ndtr'(y) = sqrt(2 pi) e^(y^2 / 2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, p: Tensor) -> Tensor:
        with no_grad():
            y = cast(_ndtri_float64(cast(p, float64)), p.dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad * (y * y * 0.5).exp() * math.sqrt(2 * math.pi)


def ndtri(input: Tensor) -> Tensor:  # noqa: A002
    """The inverse of ``ndtr``: the ``x`` with ``P(Z <= x) = p`` (the normal quantile);
    ``-inf`` at 0, ``inf`` at 1, NaN outside [0, 1]."""
    return Ndtri.apply(floating("ndtri", input))
