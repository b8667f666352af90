"""Scalar helpers for the Numba kernels: the scalar functions as kernels see them, and a
fast ``exp`` (with ``tanh`` and ``sigmoid`` built on it).

**Scalar functions.** The Numba kernels compile the *same* scalar functions as the reference
backend (``minitorch/scalar_ops.py``). ``scalar_function(ZIP_OPS, "add")`` returns the plain
function ``scalar_ops.add``, registered with Numba so compiled code may call it; a kernel
factory (``make_zip_kernels(f)``) then builds kernels with ``f`` inlined in their loops.

**Why a custom exp.** ``np.exp`` inside a Numba loop becomes a call to the C library, one
element at a time: about 3x slower than NumPy, which uses vector instructions. Numba's
former fix (Intel SVML, via the ``icc-rt`` package) is gone since Numba 0.62. ``fast_exp``
below is written with plain arithmetic only (no calls), so the compiler turns the loop into
vector instructions. Its results are within 2 ulp of ``np.exp`` for float64, and within
1 ulp of the exact value for float32, which it computes in float32 (both tested). It keeps
the IEEE rules: ``exp(nan) = nan``, ``exp(inf) = inf``, ``exp(-inf) = 0``, overflow to inf.
``tanh`` and ``sigmoid`` are formulas in that exp, for the same reason (``np.tanh`` in a
float32 loop was 20x slower than PyTorch's).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload, register_jitable

from minitorch.scalar_ops import MAP_OPS, REDUCE_OPS, ZIP_OPS

JIT_OPTIONS = {"error_model": "numpy", "cache": True}  # 1/0 = inf, like NumPy and PyTorch
HELPER_OPTIONS = {"error_model": "numpy"}
# Parallel kernels split work only where we wrote ``prange``. Numba's other automatic
# parallelism (np.zeros, slice assignment, array expressions...) stays off: it would start
# threads for every small temporary array, even on a kernel's serial path.
PRANGE_ONLY = {
    "prange": True,
    "comprehension": False,
    "setitem": False,
    "reduction": False,
    "numpy": False,
    "stencil": False,
    "fusion": False,
}


# --------------------------------------------------------------------------------------
# A vectorizable exp
# --------------------------------------------------------------------------------------


def reinterpreting(source, target):
    """An intrinsic that reads the bits of a ``source`` value (a Numba type) as a value of
    ``target``, a type of the same width: no conversion, like a C union. The exps below
    build ``2**n`` this way, and split a float into its bits."""

    def reinterpret(typingctx, value):
        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], context.get_value_type(target))

        return target(source), codegen

    reinterpret.__name__ = reinterpret.__qualname__ = f"{source}_as_{target}"
    return intrinsic(reinterpret)


float64_from_bits = reinterpreting(types.int64, types.float64)
float64_bits = reinterpreting(types.float64, types.int64)
float32_from_bits = reinterpreting(types.int32, types.float32)
float32_bits = reinterpreting(types.float32, types.int32)


LOG2_E = 1.4426950408889634
LN2_HIGH = 6.93147180369123816490e-01  # ln 2 split in two so that n * LN2_HIGH is exact
LN2_LOW = 1.90821492927058770002e-10
ROUNDER = 6755399441055744.0  # 1.5 * 2**52: a float64 this large has no bits for a fraction


@njit(**HELPER_OPTIONS)
def nearest_integer(v):
    """``(n, whole)``: ``v`` rounded to the nearest integer, as a float64 and as an int64
    (for ``|v| < 2**51``). The sum ``v + ROUNDER`` has no bits left for a fraction, so the
    addition itself rounds, and the low bits of the sum are the integer. Unlike
    ``np.int64(np.floor(v + 0.5))`` this stays in vector registers: AVX2 has no
    instruction that converts float64 lanes to int64, so the compiler would take the
    vector apart for that one step."""
    shifted = v + ROUNDER
    return shifted - ROUNDER, float64_bits(shifted) - float64_bits(ROUNDER)


@njit(**HELPER_OPTIONS)
def power_of_two(n):
    """``2.0 ** n`` for an integer ``-1022 <= n <= 1023``, built from its bits: a float64
    is ``sign | 11-bit exponent (biased by 1023) | 52-bit fraction``."""
    return float64_from_bits((n + 1023) << 52)


@njit(**HELPER_OPTIONS)
def exp_reduced(x, degree):
    """``exp(x)`` in float64 by range reduction, with a Taylor polynomial of ``degree``:

    1. write ``x = n * ln2 + r`` with an integer ``n`` and ``|r| <= ln2 / 2``;
    2. ``exp(x) = 2**n * exp(r)``, and ``exp(r)`` is a short polynomial because r is small;
    3. build ``2**n`` from bits, in two halves so that ``n`` up to 1075 stays in range
       (the product then overflows to inf or rounds to denormals/0 exactly like exp).
    """
    clamped = min(max(x, -746.0), 710.0)  # beyond these exp is 0 or inf anyway
    n, whole = nearest_integer(clamped * LOG2_E)
    r = (clamped - n * LN2_HIGH) - n * LN2_LOW
    term = 1.0  # Horner's rule for 1 + r + r^2/2! + ... + r^degree/degree!
    for k in range(degree, 0, -1):
        term = 1.0 + term * (r * (1.0 / k))  # 1/k folds to a constant once unrolled
    half = whole >> 1
    result = term * power_of_two(half) * power_of_two(whole - half)
    return result if x == x else x  # NaN stays NaN


@njit(**HELPER_OPTIONS)
def exp_wide(x):
    """``exp`` of a float32 as a float64, close enough (relative error below 1e-8, far
    under float32's 6e-8 ulp) that one rounding to float32 gives the float32 answer:
    steps 1-2 of ``exp_reduced`` with a Taylor polynomial of degree 7; since ``|n| <= 150``
    here, ``2**n`` fits a float64 in one piece. NaN stays NaN."""
    wide = min(max(np.float64(x), -104.0), 104.0)  # beyond these: 0, or far beyond float32
    n, whole = nearest_integer(wide * LOG2_E)
    r = wide - n * LN2_HIGH - n * LN2_LOW
    term = 1.0
    for k in range(7, 0, -1):
        term = 1.0 + term * (r * (1.0 / k))
    result = term * power_of_two(whole)
    return result if x == x else np.float64(x)


F32_LOG2_E = np.float32(LOG2_E)
F32_LN2_HIGH = np.float32(0.693359375)  # 9 bits of ln 2: n * F32_LN2_HIGH is exact for |n| <= 150
F32_LN2_LOW = np.float32(math.log(2.0) - 0.693359375)
F32_ROUNDER = np.float32(1.5 * 2**23)  # as ROUNDER: a float32 this large has no bits for a fraction
F32_ROUNDER_BITS = int(np.array(F32_ROUNDER).view(np.int32))
F32_EXP_LOWEST, F32_EXP_HIGHEST = np.float32(-104.0), np.float32(89.0)  # exp is 0 below, inf above
# exp(r) = 1 + r + r^2 * Q(r) for |r| <= ln2/2, with Q of degree 4: its coefficients are fitted
# by least squares to (exp(r) - 1 - r) / r^2 at Chebyshev points of that interval, so the
# whole polynomial is within 4e-9 of exp (far under float32's half step, 6e-8). They are
# Taylor's 1/2!, 1/3!, ... 1/6!, nudged so that degree 6 does what Taylor needs degree 7 for.
F32_EXP_Q = tuple(np.float32(c) for c in (0.49999988, 0.16666518, 0.041669533, 0.008368916, 0.0013751407))


@njit(**HELPER_OPTIONS)
def exp_float32(x):
    """``exp`` of a float32, in float32 arithmetic: a vector register holds twice as many
    float32 lanes as float64 ones. The steps of ``exp_reduced``, sized for float32:

    1. ``n`` = ``x / ln2`` rounded (``nearest_integer``'s trick), ``r = x - n * ln2`` in two
       parts, so ``|r| <= ln2 / 2`` and ``n * F32_LN2_HIGH`` has no rounding error;
    2. ``exp(r) = 1 + (r + r^2 * Q(r))`` (``F32_EXP_Q``, by Horner's rule);
    3. ``2**n`` from bits, in two halves so that ``n`` from -150 (denormal answers) to 128
       (overflow to inf) stays in range; the last product rounds once.

    Within 1 ulp of the exact value (tested); NaN stays NaN."""
    clamped = min(max(x, F32_EXP_LOWEST), F32_EXP_HIGHEST)
    shifted = clamped * F32_LOG2_E + F32_ROUNDER
    n = shifted - F32_ROUNDER
    whole = float32_bits(shifted) - np.int32(F32_ROUNDER_BITS)
    r = (clamped - n * F32_LN2_HIGH) - n * F32_LN2_LOW
    q = F32_EXP_Q[4]
    for k in range(3, -1, -1):
        q = q * r + F32_EXP_Q[k]
    half = whole >> 1
    low_power = float32_from_bits((half + np.int32(127)) << 23)  # 2**half
    high_power = float32_from_bits((whole - half + np.int32(127)) << 23)
    result = (np.float32(1.0) + (r + (r * r) * q)) * low_power * high_power
    return result if x == x else x


def fast_exp(x):
    """``np.exp(x)`` that vectorizes: within about 1 ulp of NumPy for float64, and of the
    exact value for float32 (``exp_float32``). Must agree with ``scalar_ops.exp``."""
    return np.exp(x)


@overload(fast_exp, jit_options=HELPER_OPTIONS)
def _fast_exp_for_type(x):
    """Pick the implementation by the argument's type when a kernel is compiled."""
    if x == types.float64:
        return lambda x: exp_reduced(x, 13)  # r^14/14! < 2^-53 for |r| <= ln2/2
    if x == types.float32:
        return lambda x: exp_float32(x)
    return lambda x: np.exp(x)  # integers and bool: the library call


# --------------------------------------------------------------------------------------
# tanh and sigmoid from the exp above
# --------------------------------------------------------------------------------------


@njit(**HELPER_OPTIONS)
def expm1_small_wide(y):
    """``exp(y) - 1`` in float64 for ``0 <= y <= 40`` (or NaN), with a relative error
    below 1e-9 even where the answer is tiny (``exp(y) - 1`` itself would lose every digit
    there)::

        y = n * ln2 + r,  |r| <= ln2 / 2                  (as in ``exp_reduced``)
        expm1(r) = r * (1 + r/2 * (1 + r/3 * (... (1 + r/8))))    (Taylor, degree 8:
                                              the first term left out is below 6e-10 * r)
        expm1(y) = 2**n * expm1(r) + (2**n - 1)

    For ``y < ln2 / 2`` (``n = 0``) the last line adds exactly 0, so small answers keep
    their relative accuracy, down to denormals."""
    n, whole = nearest_integer(y * LOG2_E)
    r = (y - n * LN2_HIGH) - n * LN2_LOW
    term = 1.0
    for k in range(8, 1, -1):
        term = 1.0 + term * (r * (1.0 / k))
    scale = power_of_two(whole)
    return scale * (r * term) + (scale - 1.0)


@njit(**HELPER_OPTIONS)
def tanh_float32(x):
    """``tanh`` of a float32, computed in float64 and rounded once::

        E = exp(2|x|) - 1                 (``expm1_small_wide``, relative error < 1e-9)
        tanh x = E / (E + 2), with the sign of x

    (``tanh |x| = (e^2|x| - 1) / (e^2|x| + 1)``.) Both ``E`` and the quotient keep their
    relative accuracy for every ``x``, tiny ones included, so one formula serves all: the
    error stays far below float32's step (6e-8), and ``-0.0`` and denormals come out as
    they went in. ``|x|`` is clamped to 20, where tanh is 1 in float64, so ``E`` stays
    finite: ``tanh(+-inf) = +-1``; ``tanh(nan) = nan``. No branch and no library call, so
    the loop around it runs four float64 lanes at a time."""
    wide = np.float64(x)
    size = min(abs(wide), 20.0)  # NaN passes through
    grown = expm1_small_wide(2.0 * size)
    return np.float32(math.copysign(grown / (grown + 2.0), wide))


def fast_tanh(x):
    """``np.tanh(x)`` that vectorizes for float32 (``tanh_float32``, within 1 ulp of
    ``np.tanh``); float64 keeps the library call, whose every digit is right."""
    return np.tanh(x)


@overload(fast_tanh, jit_options=HELPER_OPTIONS)
def _fast_tanh_for_type(x):
    if x == types.float32:
        return lambda x: tanh_float32(x)
    return lambda x: np.tanh(x)


def fast_sigmoid(x):
    """``1 / (1 + exp(-x))`` (``scalar_ops.sigmoid``) that vectorizes: float32 is computed
    in float64 (``exp_wide``) and rounded once; float64 uses ``fast_exp``."""
    return 1.0 / (1.0 + np.exp(-x))


@overload(fast_sigmoid, jit_options=HELPER_OPTIONS)
def _fast_sigmoid_for_type(x):
    if x == types.float32:
        return lambda x: np.float32(1.0 / (1.0 + exp_wide(-x)))
    if x == types.float64:
        return lambda x: 1.0 / (1.0 + exp_reduced(-x, 13))
    return lambda x: 1.0 / (1.0 + np.exp(-x))


# --------------------------------------------------------------------------------------
# The scalar functions as the kernels see them
# --------------------------------------------------------------------------------------


def exp_vectorizable(a):
    """The table's ``exp``, through ``fast_exp`` (the overload above picks the loop-friendly
    version for floats)."""
    return fast_exp(a)


def tanh_vectorizable(a):
    """The table's ``tanh``, through ``fast_tanh``."""
    return fast_tanh(a)


def sigmoid_vectorizable(a):
    """The table's ``sigmoid``, through ``fast_sigmoid``."""
    return fast_sigmoid(a)


# Table functions we replace by ones that vectorize (same values, within float rounding)
FAST_REPLACEMENTS = {"exp": exp_vectorizable, "tanh": tanh_vectorizable, "sigmoid": sigmoid_vectorizable}
_registered: set = set()


def scalar_function(table: dict, name: str):
    """The plain Python function a kernel for op ``name`` inlines (``table`` is
    ``MAP_OPS``, ``ZIP_OPS``...), registered so that compiled code may call it.

    We hand the kernels the *plain* function, not ``njit(fn)``: a plain module-level
    function pickles by name, which keeps the kernel's disk-cache key the same in every
    process (see ``elementwise_kernels.py``).
    """
    fn = FAST_REPLACEMENTS.get(name, table[name].fn) if table is MAP_OPS else table[name].fn
    return jitable(fn)


def jitable(fn):
    """Register the plain function ``fn`` (once) so that compiled code may call it, and
    return it unchanged."""
    if fn not in _registered:
        register_jitable(**HELPER_OPTIONS)(fn)
        _registered.add(fn)
    return fn


def reduce_functions(name: str):
    """``(combine, identity)`` of reduction ``name``; identity None means "start from the
    first element" (max, min)."""
    reduction = REDUCE_OPS[name]
    return scalar_function(ZIP_OPS, reduction.combine.name), reduction.identity
