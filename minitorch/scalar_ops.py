"""The scalar-op table: every elementwise operation, written once, in two spellings:

* ``fn``   -- a Python function on one or two scalars. The reference backend calls it
  in a plain loop; the Numba backend compiles the *same* function into its kernels.
  It uses NumPy's scalar functions (``np.exp``...) rather than ``math``, because they
  follow IEEE rules: ``exp(1000) = inf`` and ``1/0 = inf`` instead of raising.
* ``cuda`` -- the same operation as a CUDA C expression in ``a`` (and ``b``), where ``T``
  is the element type, pasted into the ``map``/``zip`` kernels (``mt_*``: ``strided.cuh``).

A new elementwise op is one row here (or in ``special_scalar_functions.py``) plus its
derivative in ``minitorch/ops/``: no backend changes. ``MAP_OPS`` take one input,
``ZIP_OPS`` two, ``REDUCE_OPS`` fold a dimension with a binary op from an identity value.
The flags ``returns_bool`` (comparisons) and ``returns_float`` (``exp``, ``div``...:
integer inputs become the default float dtype first) give the result dtype.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from minitorch.special_scalar_functions import SPECIAL_MAP_ROWS


@dataclass(frozen=True)
class ScalarOp:
    """One elementwise operation: name, inputs, two spellings, result-dtype flags."""

    name: str
    arity: int
    fn: Callable
    cuda: str
    returns_bool: bool = False
    returns_float: bool = False


# ----- one input: out[i] = f(a[i]) ----------------------------------------------------


def copy(a):  # the store into `out` does any dtype conversion
    return a


def neg(a):
    return -a


def abs_(a):
    return abs(a)


def exp(a):
    return np.exp(a)


def log(a):
    return np.log(a)


def log1p(a):
    return np.log1p(a)


def sqrt(a):
    return np.sqrt(a)


def rsqrt(a):
    return 1.0 / np.sqrt(a)


def sin(a):
    return np.sin(a)


def cos(a):
    return np.cos(a)


def asin(a):  # NaN outside [-1, 1]
    return np.arcsin(a)


def acos(a):  # NaN outside [-1, 1]
    return np.arccos(a)


def atan(a):
    return np.arctan(a)


def tanh(a):
    return np.tanh(a)


def sinh(a):
    return np.sinh(a)


def cosh(a):
    return np.cosh(a)


def erf(a):  # NumPy has no erf; math.erf takes NumPy scalars and Numba compiles it
    return math.erf(a)


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def relu(a):  # NaN stays NaN; negatives (and -0.0) become +0
    return a if (a > 0 or a != a) else 0


def sign(a):  # spelled out: Numba's np.sign reads uint8 200 as negative
    return a if a != a else (1 if a > 0 else 0) - (1 if a < 0 else 0)


def floor(a):
    return np.floor(a)


def ceil(a):
    return np.ceil(a)


def round_(a):  # to the nearest integer, ties to the even one (2.5 -> 2), as PyTorch
    return np.rint(a)


def tan(a):
    return np.tan(a)


def log10(a):
    return np.log10(a)


def log2(a):
    return np.log2(a)


def reciprocal(a):
    return 1.0 / a


def logical_not(a):
    return not a


# Bitwise ops take integers only, but a CUDA module compiles every op for each dtype: the C
# goes through ``long long`` to compile for floats too (``x ^ (T)-1``: ``~x``, or ``!x``).


def bitwise_not(a):  # flips every bit: ~x == -x - 1
    return ~a


# ----- two inputs: out[i] = f(a[i], b[i]) ---------------------------------------------


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b


def div(a, b):
    return a / b


def floordiv(a, b):  # rounds toward minus infinity
    if b == -1 and a != 0 and a == -a:
        return a  # the smallest integer: -a wraps around to a itself, as in PyTorch
    return a // b


def remainder(a, b):  # the sign of b (Python's %), but 0 has a's sign as in PyTorch's fmod
    return a * 0 if a % b == 0 else a % b  # 3.0 % -0.75 is 0.0, -3.0 % 0.75 is -0.0


def pow_(a, b):
    # Squares and cubes by multiplying, as PyTorch computes them: ``x * x`` is exact where
    # ``pow`` rounds the same, and a compiled loop whose ``b`` is one repeated value
    # tests it once and vectorizes (docs/backend-guide.md has the measurement).
    if b == 2:
        return a * a
    if b == 3:
        return a * a * a
    return a**b


def tanh_backward(a, b):  # a: the gradient of y = tanh(x), b: y
    return a * (1 - b * b)


def square_backward(a, b):  # a: the gradient of y = x ** 2, b: x
    return a * (2 * b)


def sigmoid_backward(a, b):  # a: the gradient of y = sigmoid(x), b: y
    return a * (1 - b) * b


def relu_backward(a, b):  # a: the gradient of y = relu(x), b: y; NaN in y lets a through
    return 0 if b <= 0 else a


def atan2(a, b):  # the angle of the point (x=b, y=a), in (-pi, pi]
    return np.arctan2(a, b)


def maximum(a, b):  # NaN wins, like PyTorch
    return a if (a > b or a != a) else b


def minimum(a, b):  # NaN wins, like PyTorch
    return a if (a < b or a != a) else b


def eq(a, b):
    return a == b


def ne(a, b):
    return a != b


def lt(a, b):
    return a < b


def le(a, b):
    return a <= b


def gt(a, b):
    return a > b


def ge(a, b):
    return a >= b


def logical_and(a, b):
    return (a != 0) and (b != 0)


def logical_or(a, b):
    return (a != 0) or (b != 0)


def bitwise_and(a, b):
    return a & b


def bitwise_or(a, b):
    return a | b


def bitwise_xor(a, b):
    return a ^ b


# Shifting by a negative count or by the width or more is undefined in C; as PyTorch, we
# shift every bit out, in two legal steps (width - 1, then 1): 0, or -1 (a negative >>).


def bitwise_left_shift(a, b):  # a * 2**b, wrapping around like the integer type
    bits = np.iinfo(a).bits
    if b < 0 or b >= bits:
        return a << (bits - 1) << 1
    return a << b


def bitwise_right_shift(a, b):  # floor(a / 2**b): the sign bit is copied in from the left
    bits = np.iinfo(a).bits
    if b < 0 or b >= bits:
        return a >> (bits - 1) >> 1
    return a >> b


MAP_OPS: dict[str, ScalarOp] = {
    op.name: op
    for op in [
        ScalarOp("copy", 1, copy, "a"),
        ScalarOp("neg", 1, neg, "-a"),
        ScalarOp("abs", 1, abs_, "(mt_is_negative(a) ? -a : a)"),
        ScalarOp("exp", 1, exp, "exp(a)", returns_float=True),
        ScalarOp("log", 1, log, "log(a)", returns_float=True),
        ScalarOp("log1p", 1, log1p, "log1p(a)", returns_float=True),
        ScalarOp("sqrt", 1, sqrt, "sqrt(a)", returns_float=True),
        ScalarOp("rsqrt", 1, rsqrt, "(T)1 / sqrt(a)", returns_float=True),
        ScalarOp("sin", 1, sin, "sin(a)", returns_float=True),
        ScalarOp("cos", 1, cos, "cos(a)", returns_float=True),
        ScalarOp("asin", 1, asin, "asin(a)", returns_float=True),
        ScalarOp("acos", 1, acos, "acos(a)", returns_float=True),
        ScalarOp("atan", 1, atan, "atan(a)", returns_float=True),
        ScalarOp("tanh", 1, tanh, "tanh(a)", returns_float=True),
        ScalarOp("sinh", 1, sinh, "sinh(a)", returns_float=True),
        ScalarOp("cosh", 1, cosh, "cosh(a)", returns_float=True),
        ScalarOp("erf", 1, erf, "erf(a)", returns_float=True),
        ScalarOp("sigmoid", 1, sigmoid, "(T)1 / ((T)1 + exp(-a))", returns_float=True),
        ScalarOp("relu", 1, relu, "((a > (T)0 || a != a) ? a : (T)0)"),
        ScalarOp("sign", 1, sign, "(a != a ? a : (T)((a > (T)0) - mt_is_negative(a)))"),
        ScalarOp("floor", 1, floor, "floor(a)"),
        ScalarOp("ceil", 1, ceil, "ceil(a)"),
        ScalarOp("round", 1, round_, "rint(a)"),
        ScalarOp("tan", 1, tan, "tan(a)", returns_float=True),
        ScalarOp("log10", 1, log10, "log10(a)", returns_float=True),
        ScalarOp("log2", 1, log2, "log2(a)", returns_float=True),
        ScalarOp("reciprocal", 1, reciprocal, "(T)1 / a", returns_float=True),
        ScalarOp("logical_not", 1, logical_not, "!a", returns_bool=True),
        ScalarOp("bitwise_not", 1, bitwise_not, "(T)((long long)a ^ (long long)(T)-1)"),
        *(ScalarOp(name, 1, fn, cuda, returns_float=True) for name, fn, cuda in SPECIAL_MAP_ROWS),
    ]
}

ZIP_OPS: dict[str, ScalarOp] = {
    op.name: op
    for op in [
        ScalarOp("add", 2, add, "a + b"),
        ScalarOp("sub", 2, sub, "a - b"),
        ScalarOp("mul", 2, mul, "a * b"),
        ScalarOp("div", 2, div, "a / b", returns_float=True),
        ScalarOp("floordiv", 2, floordiv, "mt_floordiv(a, b)"),
        ScalarOp("remainder", 2, remainder, "mt_remainder(a, b)"),
        ScalarOp("pow", 2, pow_, "mt_pow(a, b)"),
        ScalarOp("atan2", 2, atan2, "atan2(a, b)", returns_float=True),
        ScalarOp("maximum", 2, maximum, "((a > b || a != a) ? a : b)"),
        ScalarOp("minimum", 2, minimum, "((a < b || a != a) ? a : b)"),
        ScalarOp("eq", 2, eq, "a == b", returns_bool=True),
        ScalarOp("ne", 2, ne, "a != b", returns_bool=True),
        ScalarOp("lt", 2, lt, "a < b", returns_bool=True),
        ScalarOp("le", 2, le, "a <= b", returns_bool=True),
        ScalarOp("gt", 2, gt, "a > b", returns_bool=True),
        ScalarOp("ge", 2, ge, "a >= b", returns_bool=True),
        ScalarOp("logical_and", 2, logical_and, "(a != (T)0) && (b != (T)0)", returns_bool=True),
        ScalarOp("logical_or", 2, logical_or, "(a != (T)0) || (b != (T)0)", returns_bool=True),
        ScalarOp("bitwise_and", 2, bitwise_and, "(T)((long long)a & (long long)b)"),
        ScalarOp("bitwise_or", 2, bitwise_or, "(T)((long long)a | (long long)b)"),
        ScalarOp("bitwise_xor", 2, bitwise_xor, "(T)((long long)a ^ (long long)b)"),
        ScalarOp("bitwise_left_shift", 2, bitwise_left_shift,
                 "(((long long)b < 0 || (long long)b >= 8 * (long long)sizeof(T)) ? (T)0"
                 " : (T)((unsigned long long)(long long)a << (long long)b))"),
        ScalarOp("bitwise_right_shift", 2, bitwise_right_shift,
                 "(((long long)b < 0 || (long long)b >= 8 * (long long)sizeof(T))"
                 " ? (T)((long long)a < 0 ? -1 : 0) : (T)((long long)a >> (long long)b))"),
        # Derivatives fused into one pass, for backward formulas that need no second
        # derivative (``Tanh.backward`` in ``minitorch/ops/unary.py``): PyTorch's
        # ``tanh_backward``, ``sigmoid_backward`` and ``threshold_backward``.
        ScalarOp("tanh_backward", 2, tanh_backward, "a * ((T)1 - b * b)"),
        ScalarOp("sigmoid_backward", 2, sigmoid_backward, "a * ((T)1 - b) * b"),
        ScalarOp("square_backward", 2, square_backward, "a * ((T)2 * b)"),
        ScalarOp("relu_backward", 2, relu_backward, "(b <= (T)0 ? (T)0 : a)"),
    ]
}


@dataclass(frozen=True)
class ReduceOp:
    """A dimension folded with a zip op from ``identity`` (``None``: the first element)."""

    name: str
    combine: ScalarOp
    identity: float | bool | None


REDUCE_OPS: dict[str, ReduceOp] = {
    "sum": ReduceOp("sum", ZIP_OPS["add"], 0),
    "prod": ReduceOp("prod", ZIP_OPS["mul"], 1),
    "max": ReduceOp("max", ZIP_OPS["maximum"], None),
    "min": ReduceOp("min", ZIP_OPS["minimum"], None),
    "any": ReduceOp("any", ZIP_OPS["logical_or"], False),
    "all": ReduceOp("all", ZIP_OPS["logical_and"], True),
}
