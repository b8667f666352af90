"""The float32 logarithm, sine and cosine of PyTorch's vectorised normal sampler.

PyTorch's x86 build draws ``randn`` (16 or more float32 values) with the Cephes-style
polynomials of ``avx_mathfun`` (eight floats at a time), not with the C library. To give
the same bits we evaluate the same steps in float32 NumPy, one operation at a time:

* ``log(x)``: split ``x = m * 2**e`` with ``m`` in ``[0.5, 1)``; when ``m < sqrt(1/2)`` use
  ``2m`` and ``e - 1``; then ``log(x) = t + t**2 * P(t) - t**2/2 + e * log(2)`` with
  ``t = m - 1``, a degree-8 polynomial ``P`` and ``log 2`` split in two parts.
* ``sincos(x)``: ``j`` = the octant of ``|x|`` rounded up to even, ``x - j * pi/4`` in
  three parts (so the reduction is exact), then one polynomial for sine and one for cosine
  near 0, swapped and signed by the octant.
"""

from __future__ import annotations

import numpy as np
from numba import njit

f32 = np.float32


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once to float32, as the FMA instruction the C++ compiler makes
    of a multiply followed by an add (float32 operands, broadcast together)."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    out = np.empty(a.shape, np.float64)
    fma_rounded_to_odd(a.ravel(), b.ravel(), c.ravel(), out.reshape(-1))
    return out.astype(np.float32)


@njit(cache=True)
def fma_rounded_to_odd(a: np.ndarray, b: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = a[i] * b[i] + c[i]`` in float64, made safe to round once more to float32.

    The product of two float32 values is exact in float64. The sum is made exact as
    ``total + error`` (Knuth's two-sum), and an inexact ``total`` is rounded "to odd": when
    its last bit is even it steps one unit toward the exact value. Rounding that to float32
    then rounds the exact value, as one FMA does (a plain float64 sum would round twice)."""
    bits = out.view(np.int64)
    for i in range(out.size):
        product = a[i] * b[i]
        total = product + c[i]
        part = total - product
        error = (product - (total - part)) + (c[i] - part)
        out[i] = total
        if error != 0.0 and abs(total) < np.inf and bits[i] % 2 == 0:
            bits[i] += 1 if (error > 0.0) == (total > 0.0) else -1


LOG_POLY = [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
            -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1]  # fmt: skip
LOG2_LOW, LOG2_HIGH = f32(-2.12194440e-4), f32(0.693359375)
SQRT_HALF = f32(0.707106781186547524)
PI4_PARTS = (f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8))
SIN_POLY = (f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1))
COS_POLY = (f32(2.443315711809948e-005), f32(-1.388731625493765e-003), f32(4.166664568298827e-002))
FOUR_OVER_PI = f32(1.27323954473516)


def log_avx2(x: np.ndarray) -> np.ndarray:
    """The natural logarithm of positive float32 values, as ``log256_ps`` computes it."""
    x = np.maximum(x.astype(np.float32), np.array(0x00800000, np.int32).view(np.float32))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + f32(1)
    m = ((bits & ~0x7F800000) | np.array(0.5, np.float32).view(np.int32)).view(np.float32)
    small = m < SQRT_HALF
    t = (m - f32(1)) + np.where(small, m, f32(0))
    e = e - np.where(small, f32(1), f32(0))
    z = t * t
    y = np.full_like(t, f32(LOG_POLY[0]))
    for c in LOG_POLY[1:]:
        y = fma(y, t, f32(c))
    y = fma(y * t, z, e * LOG2_LOW)
    y = fma(-z, f32(0.5), y)
    return fma(e, LOG2_HIGH, t + y)


def sincos_avx2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sin(x), cos(x))`` of float32 values, as ``sincos256_ps`` computes them."""
    x = x.astype(np.float32)
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (np.trunc(x * FOUR_OVER_PI).astype(np.int32) + 1) & ~1
    y = j.astype(np.float32)
    swap_sin = (j & 4) != 0
    use_sin_poly = (j & 2) == 0  # for the sine: the polynomial near 0 is the sine's
    for part in PI4_PARTS:
        x = fma(y, part, x)
    swap_cos = ((j - 2) & 4) == 0
    z = x * x
    cos_near_0 = fma(COS_POLY[0], z, COS_POLY[1])
    cos_near_0 = fma(cos_near_0, z, COS_POLY[2]) * z
    cos_near_0 = fma(cos_near_0, z, -(z * f32(0.5))) + f32(1)
    sin_near_0 = fma(SIN_POLY[0], z, SIN_POLY[1])
    sin_near_0 = fma(fma(sin_near_0, z, SIN_POLY[2]) * z, x, x)
    sine = np.where(use_sin_poly, sin_near_0, cos_near_0)
    cosine = np.where(use_sin_poly, cos_near_0, sin_near_0)
    sine = np.where(sign_sin ^ swap_sin, -sine, sine)
    cosine = np.where(swap_cos, -cosine, cosine)
    return sine, cosine
