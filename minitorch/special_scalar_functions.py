"""Six more elementwise functions of one number, for the scalar-op table
(``minitorch/scalar_ops.py`` makes each a ``MAP_OPS`` row with ``returns_float``).

Each has a formula in older ops (``expm1(x) = exp(x) - 1``, ``asinh(x) = log(x +
sqrt(x^2 + 1))``...), but the formula loses the digits that matter: near 0, ``exp(x)``
is ``1.0000001`` and subtracting 1 leaves one correct digit of ``x``; ``erfc(5) = 1 -
erf(5)`` is ``1.5e-12`` but ``1 - erf(5)`` in float32 is 0. So each is its own scalar op,
computed by the C library (``math`` in Python and Numba, the same function in CUDA C),
as PyTorch does.
"""

from __future__ import annotations

import math

import numpy as np


def expm1(a):  # e^a - 1, exact near 0
    return np.expm1(a)


def asinh(a):
    return np.arcsinh(a)


def acosh(a):  # NaN below 1
    return np.arccosh(a)


def atanh(a):  # +-inf at +-1, NaN outside [-1, 1]
    return np.arctanh(a)


def erfc(a):  # 1 - erf(a), without the cancellation for large a
    return math.erfc(a)


def lgamma(a):  # ln |Gamma(a)|; +inf at 0 and the negative integers
    if a <= 0 and a == np.floor(a):
        return np.inf
    return math.lgamma(a)


# (name, Python function, CUDA C expression in ``a``)
SPECIAL_MAP_ROWS = [
    ("expm1", expm1, "expm1(a)"),
    ("asinh", asinh, "asinh(a)"),
    ("acosh", acosh, "acosh(a)"),
    ("atanh", atanh, "atanh(a)"),
    ("erfc", erfc, "erfc(a)"),
    ("lgamma", lgamma, "lgamma(a)"),
]
