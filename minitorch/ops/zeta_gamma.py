"""The Hurwitz zeta function and what is built on it, ``polygamma``, and the regularized
incomplete gamma functions ``igamma`` / ``igammac`` (``torch.special.zeta``,
``polygamma``, ``gammainc``, ``gammaincc``). Each is computed in float64 (float32 inputs
are rounded back at the end), as a formula of elementwise ops with a fixed number of
steps, so it runs on every backend.

**zeta(s, q) = sum_{k >= 0} (q + k)^-s** (s > 1), by Euler-Maclaurin summation: add the
first N terms directly, then the rest as an integral and its corrections, with
a = q + N and the Bernoulli numbers B_2j::

    zeta(s, q) = sum_{k < N} (q + k)^-s + a^(1-s) / (s - 1) + a^-s / 2
                 + sum_{j=1..12} B_2j / (2j)! s (s + 1) ... (s + 2j - 2) a^(-s-2j+1)

With a >= 9 the twelve corrections reach float64 rounding. N is 12, or more when some q
is below -3 (polygamma of a negative x): one host read of the smallest q decides.
``zeta`` is +inf at s = 1 and at q = 0, -1, -2...; NaN for s < 1, and for q < 0 with a
non-integer s (a negative number to a fractional power).

**polygamma(n, x)**, the n-th derivative of ``digamma``: ``digamma`` for n = 0, and
``(-1)^(n+1) n! zeta(n + 1, x)`` above.

**igamma(a, x) = P(a, x) = gamma(a, x) / Gamma(a)**, and igammac = Q = 1 - P. Below
x = a + 1 the series (all terms positive)::

    P(a, x) = x^a e^-x / Gamma(a + 1) sum_{n >= 0} x^n / ((a + 1) (a + 2) ... (a + n))

and above it Legendre's continued fraction, evaluated from its deepest level up::

    Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))

Each is computed where it converges fast, and the other is 1 minus it. Both need about
``sqrt(a)`` steps near x = a; the number of steps is 64 + 8 sqrt(max a) (one host read).

Derivatives::

    d/dq zeta(s, q) = -s zeta(s + 1, q)           d/dx polygamma(n, x) = polygamma(n + 1, x)
    d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x)

As in PyTorch, there is none with respect to ``s`` or ``a``: asking raises.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import float64, get_default_dtype, promote_types
from minitorch.ops.choice import where
from minitorch.ops.common import as_operand, broadcast_all, cast, is_number, require_tensor
from minitorch.ops.special_math import digamma, lgamma

# B_2j / (2j)!, j = 1..12 (B_2 = 1/6, B_4 = -1/30, B_6 = 1/42, ...)
BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
             43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730]  # fmt: skip
EULER_MACLAURIN = [b / math.factorial(2 * j + 2) for j, b in enumerate(BERNOULLI)]
DIRECT_TERMS = 12


def float_operands(name: str, a: Any, b: Any) -> tuple[Tensor, Tensor]:
    """Both operands as tensors of one floating dtype (PyTorch's promotion; integers give
    the default float dtype). One of them may be a number."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{name}(): expected a Tensor as one of the arguments")
    for value, position in ((a, 1), (b, 2)):
        if not isinstance(value, Tensor) and not is_number(value):
            require_tensor(name, value, "input" if position == 1 else "other", position)
    like = a if isinstance(a, Tensor) else b
    dtypes = [v.dtype for v in (a, b) if isinstance(v, Tensor)]
    dtype = dtypes[0] if len(dtypes) == 1 else promote_types(*dtypes)
    if not dtype.is_floating_point:
        dtype = get_default_dtype()
    return as_operand(a, dtype, like), as_operand(b, dtype, like)


def _zeta_float64(s: Tensor, q: Tensor) -> Tensor:
    """Hurwitz zeta on float64 tensors, no graph (see the module docstring)."""
    _, (s, q) = broadcast_all(s, q)
    direct = DIRECT_TERMS
    smallest = q.min().item() if q.numel() else 0.0
    if smallest < -3 and smallest == smallest:
        direct += min(int(math.ceil(-smallest)), 100_000)
    total = q * 0
    for k in range(direct):
        total = total + (q + k) ** -s
    a = q + direct
    power = a**-s
    total = total + a * power / (s - 1) + power / 2
    rising, a_power = s, power / a  # s (s+1) ... (s+2j-2), a^(-s-2j+1)
    for j, coefficient in enumerate(EULER_MACLAURIN):
        total = total + coefficient * rising * a_power
        rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2)
        a_power = a_power / (a * a)
    pole = (q <= 0) & (q == q.floor())
    return where(s == 1, math.inf, where(s < 1, math.nan, where(pole, math.inf, total)))


class Zeta(Function):
    """y = zeta(s, q);  dy/dq = -s zeta(s + 1, q)  (none for s, as in PyTorch)"""

    @staticmethod
    def forward(ctx: FunctionCtx, s: Tensor, q: Tensor) -> Tensor:
        with no_grad():
            y = cast(_zeta_float64(cast(s, float64), cast(q, float64)), s.dtype)
        ctx.save_for_backward(s, q)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        s, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, grad * -s * zeta(s + 1, q)


def zeta(input: Any, other: Any) -> Tensor:  # noqa: A002 (PyTorch's names)
    """The Hurwitz zeta function ``sum_k (other + k)^-input`` (``zeta(s, 1)`` is Riemann's)."""
    s, q = float_operands("special.zeta", input, other)
    return Zeta.apply(s, q)


def _signed_factorial(n: int) -> float:
    """(-1)^(n+1) n! as a float64: infinite from 171!, which float64 cannot hold (and
    which ``math.factorial`` of a huge ``n`` would spend forever computing)."""
    size = float(math.factorial(n)) if n <= 170 else math.inf
    return size if n % 2 else -size


class Polygamma(Function):
    """y = polygamma(n, x), n >= 1;  dy/dx = polygamma(n + 1, x)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, n: int) -> Tensor:
        with no_grad():
            x64 = cast(x, float64)
            if n > 170:  # n! is infinite in float64, and so (as in PyTorch) is every value
                value = where(x64 != x64, x64, _signed_factorial(n))
            else:
                value = _zeta_float64(x64 * 0 + (n + 1), x64) * _signed_factorial(n)
            y = cast(value, x.dtype)
        ctx.save_for_backward(x)
        ctx.n = n
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return grad * polygamma(ctx.n + 1, x), None


def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002
    """The ``n``-th derivative of ``digamma`` (``polygamma(0, x)`` is ``digamma(x)``,
    ``polygamma(1, x)`` the trigamma function)."""
    require_tensor("polygamma", input, "input", 2)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = input if input.dtype.is_floating_point else cast(input, get_default_dtype())
    return digamma(x) if n == 0 else Polygamma.apply(x, n)


def polygamma_method(self: Tensor, n: int) -> Tensor:
    """``x.polygamma(n)``: ``polygamma(n, x)``."""
    return polygamma(n, self)


polygamma_method.__name__ = polygamma_method.__qualname__ = "polygamma"  # Tensor.polygamma


def _incomplete_gamma_float64(a: Tensor, x: Tensor, upper: bool) -> Tensor:
    """P(a, x), or Q(a, x) when ``upper``, on float64 tensors, no graph."""
    _, (a, x) = broadcast_all(a, x)
    inside = (a > 0) & (x > 0) & (a < math.inf) & (x < math.inf)
    biggest = a.max().item() if a.numel() else 0.0
    steps = 64 + int(8 * math.sqrt(min(max(biggest, 0.0), 1e6))) if biggest == biggest else 64
    series_side = x < a + 1
    sa = where(inside, a, 1.0)
    sx = where(inside, x, 1.0)
    log_front = sa * sx.log() - sx
    term = sx * 0 + 1
    power_sum = term
    for n in range(1, steps):
        term = term * sx / (sa + n)
        power_sum = power_sum + term
    lower = power_sum * (log_front - lgamma(sa + 1)).exp()
    t = sx + 2 * steps + 1 - sa
    for k in range(steps, 0, -1):
        t = sx + 2 * k - 1 - sa - k * (k - sa) / t
    upper_value = (log_front - lgamma(sa)).exp() / t
    p = where(series_side, lower, 1 - upper_value)
    q = where(series_side, 1 - lower, upper_value)
    value = q if upper else p
    # the edges, as PyTorch: a = 0 is all mass at 0; x = inf all below; a = inf none
    zero, one = (1.0, 0.0) if upper else (0.0, 1.0)
    nan = (a < 0) | (x < 0) | ((a == 0) & (x == 0)) | ((a == math.inf) & (x == math.inf))
    edge = where(a == math.inf, zero, where((a == 0) | (x == math.inf), one, zero))
    return where(nan | (a != a) | (x != x), math.nan, where(inside, value, edge))


class IncompleteGamma(Function):
    """y = P(a, x) (or Q);  dy/dx = +- x^(a-1) e^-x / Gamma(a)  (none for a, as in PyTorch)"""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, x: Tensor, upper: bool) -> Tensor:
        with no_grad():
            y = cast(_incomplete_gamma_float64(cast(a, float64), cast(x, float64), upper), a.dtype)
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            name = "igammac" if ctx.upper else "igamma"
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        density = ((a - 1) * x.log() - x - lgamma(a)).exp()
        return None, grad * (-density if ctx.upper else density), None


def igamma(input: Any, other: Any) -> Tensor:  # noqa: A002
    """The regularized lower incomplete gamma function ``P(a, x)`` (``a = input``, ``x =
    other``): the chance that a Gamma(a, 1) variable is at most ``x``."""
    a, x = float_operands("igamma", input, other)
    return IncompleteGamma.apply(a, x, False)


def igammac(input: Any, other: Any) -> Tensor:  # noqa: A002
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x = float_operands("igammac", input, other)
    return IncompleteGamma.apply(a, x, True)
