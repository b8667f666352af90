"""From random words to distributions, as PyTorch's CPU kernels transform them.

Each function takes a ``Generator`` (``minitorch/random.py``) and returns a NumPy array on
the host; the factories (``minitorch/random_factories.py``) wrap it as a tensor. The recipes
are PyTorch's, step by step, so the same words give the same numbers:

* **uniform** in ``[from, to)``: keep as many low bits of a draw as the dtype's mantissa
  holds (24 for float32, from a 32-bit draw; 53 for float64, from a 64-bit draw), scale by
  ``2**-bits`` to ``[0, 1)``, then ``x * (to - from) + from`` in the dtype's precision
  (rounded once: the compiler fuses the multiply and the add).
* **normal**, two paths. Below 16 elements (or into a strided tensor), one pair of
  float64 uniforms at a time through Box-Muller, ``r = sqrt(-2 log(1 - u2))``,
  ``theta = 2 pi u1``: ``r cos(theta)`` is the value and ``r sin(theta)`` is kept for the
  next call (the generator's cached normal). From 16 elements, all the uniforms are drawn
  first, then each block of 16 is transformed at once, the first 8 values paired with the
  next 8 (``u1 = 1 - x[j]``, ``u2 = x[j + 8]``); a last partial block is redone by drawing
  16 new uniforms into the last 16 places. float32 uses the vectorised (AVX2) log, sine and
  cosine of ``minitorch/float32_math.py``, exactly as PyTorch's x86 build does.
* **integers** in ``[low, high)``: ``draw % (high - low) + low`` (a 64-bit draw when the
  range needs more than 32 bits).
* **exponential**: ``-log(1 - u) / lambda`` from a float64 uniform; **bernoulli**:
  ``u < p`` from a uniform of ``p``'s precision.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch.creation import _multiply_add
from minitorch.float32_math import fma, log_avx2, sincos_avx2

MANTISSA_BITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}


# Fewer numbers than this are made one at a time in Python, from the draws as Python ints:
# for a handful of numbers that is less work than a chain of NumPy calls on tiny arrays.
# The numbers are the same either way (each step below is exact or rounds once, alike).
FEW = 64


def unit_uniform(gen: Any, count: int, dtype: str) -> np.ndarray:
    """``count`` uniforms in ``[0, 1)`` with the dtype's mantissa bits (float64 for
    float64, float32 for the others: PyTorch computes halves in float)."""
    real = np.float64 if dtype == "float64" else np.float32
    if count < FEW:
        return np.array(unit_uniform_list(gen, count, dtype), dtype=real)
    bits = MANTISSA_BITS[dtype]
    if dtype == "float64":
        words = gen.random64(count) & np.uint64(2**bits - 1)
        return words.astype(np.float64) * 2.0**-bits
    words = gen.random(count) & np.uint32(2**bits - 1)
    return words.astype(np.float32) * np.float32(2.0**-bits)


def unit_uniform_list(gen: Any, count: int, dtype: str) -> list[float]:
    """The numbers of ``unit_uniform`` as Python floats: each is a whole number below
    ``2**bits`` times ``2**-bits``, so a float64 (and a float32) holds it exactly."""
    if count >= FEW:
        return unit_uniform(gen, count, dtype).tolist()
    bits = MANTISSA_BITS[dtype]
    mask, scale = 2**bits - 1, 2.0**-bits
    draws = gen.random64_list(count) if dtype == "float64" else gen.random_list(count)
    return [(word & mask) * scale for word in draws]


def _in_dtype(value: float, dtype: str) -> Any:
    """A Python number rounded to the dtype, as PyTorch's ``static_cast<scalar_t>``."""
    if dtype == "float64":
        return np.float64(value)
    if dtype == "bfloat16":
        from minitorch.dtypes import bfloat16  # the encoding of bfloat16 lives there
        return np.float32(bfloat16.decode(bfloat16.encode(np.array([value], np.float32)))[0])
    return np.float32(getattr(np, dtype)(value))


def uniform(gen: Any, count: int, dtype: str, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """``uniform_(low, high)``: ``x * (high - low) + low`` with the bounds in the dtype."""
    a, b = _in_dtype(low, dtype), _in_dtype(high, dtype)
    x = unit_uniform(gen, count, dtype)
    if a == 0 and b == 1:  # rand(): x * (1 - 0) + 0 is x itself, exactly
        return x
    if dtype == "float64":
        return _multiply_add(b - a, x, a, np.float64)  # one rounding: the compiled loop's FMA
    return fma(x, b - a, a)


def _box_muller_one_by_one(gen: Any, count: int, mean: float, std: float) -> Any:
    """The small path: float64 Box-Muller, one value per step, the sine value cached.

    Each pair of uniforms ``(u1, u2)`` gives two values, ``r cos(theta)`` now and
    ``r sin(theta)`` for the next call (the generator's cached normal)::

        for i in range(count):
            if a cached value waits: take it
            else: draw (u1, u2); value = r cos(theta); cache r sin(theta)

    Which steps draw is known in advance (every other one, from the first without a cached
    value), so all the pairs are drawn at once: the same words, in the same order. Then
    ``value * std + mean``, rounded once (a list of floats, or an array when it must be
    rounded as a fused multiply-add)."""
    values = []
    if count and gen.next_double_normal is not None:
        values.append(gen.next_double_normal)
        gen.next_double_normal = None
    uniforms = unit_uniform_list(gen, (count - len(values) + 1) // 2 * 2, "float64")
    for u1, u2 in zip(uniforms[0::2], uniforms[1::2]):
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        values += (r * math.cos(theta), r * math.sin(theta))
    if len(values) > count:
        gen.next_double_normal = values.pop()
    if std == 1 or mean == 0:  # one of the two steps is exact: plain arithmetic rounds once
        return [value * std + mean for value in values]
    return _multiply_add(std, np.array(values, dtype=np.float64), mean, np.float64)


def _blocks_of_16(x: np.ndarray, mean: Any, std: Any) -> np.ndarray:
    """Box-Muller on blocks of 16 uniforms (rows of ``x``): pairs ``x[:, j]``, ``x[:, j + 8]``."""
    u1, u2 = 1 - x[:, :8], x[:, 8:]
    if x.dtype == np.float32:
        radius = np.sqrt(np.float32(-2.0) * log_avx2(u1))
        sine, cosine = sincos_avx2(np.float32(2.0 * math.pi) * u2)
        n1, n2 = radius * cosine, radius * sine
        return np.concatenate([fma(n1, std, mean), fma(n2, std, mean)], axis=1)
    radius = np.sqrt(-2 * _libm(np.log, u1))
    theta = 2.0 * math.pi * u2
    cosine, sine = _libm(np.cos, theta), _libm(np.sin, theta)
    n1, n2 = radius * cosine, radius * sine
    return np.concatenate([_multiply_add(std, n1, mean, np.float64),
                           _multiply_add(std, n2, mean, np.float64)], axis=1)  # fmt: skip


def _libm(function: Any, x: np.ndarray) -> np.ndarray:
    """A float64 function as the C library computes it (Python's ``math`` calls it; NumPy's
    own vectorised versions may differ in the last bit)."""
    scalar = getattr(math, function.__name__)
    return np.array([scalar(v) for v in x.reshape(-1)], dtype=np.float64).reshape(x.shape)


def normal(gen: Any, count: int, dtype: str, mean: float = 0.0, std: float = 1.0,
           contiguous: bool = True) -> np.ndarray:  # fmt: skip
    """``normal_(mean, std)`` on ``count`` elements, by PyTorch's two paths."""
    if count < 16 or not contiguous or dtype in ("float16", "bfloat16"):
        values = _box_muller_one_by_one(gen, count, mean, std)
        return np.array(values, dtype=np.float64 if dtype == "float64" else np.float32)
    real = np.float64 if dtype == "float64" else np.float32
    m, s = real(mean), real(std)
    data = unit_uniform(gen, count, dtype)
    whole = count // 16 * 16
    data[:whole] = _blocks_of_16(data[:whole].reshape(-1, 16), m, s).reshape(-1)
    if count % 16:
        last = unit_uniform(gen, 16, dtype).reshape(1, 16)
        data[count - 16 :] = _blocks_of_16(last, m, s).reshape(-1)
    return data


def integers(gen: Any, count: int, low: int, high: int) -> np.ndarray:
    """``random_(low, high)``: ``draw % (high - low) + low``, as int64. A range of 2**28 or
    more takes 64-bit draws, whatever the dtype (PyTorch 2.13's rule, measured against it:
    not 2**32, which left ``randint`` wrong for ranges between the two)."""
    span = high - low
    if count < FEW:
        draws = gen.random64_list(count) if span >= 2**28 else gen.random_list(count)
        return np.array([draw % span + low for draw in draws], dtype=np.int64)
    draws = gen.random64(count) if span >= 2**28 else gen.random(count).astype(np.uint64)
    return (draws % np.uint64(span)).astype(np.int64) + np.int64(low)


def permutation(gen: Any, n: int) -> np.ndarray:
    """``randperm(n)``: Fisher-Yates from the front, ``swap(p[i], p[i + draw % (n - i)])``
    (64-bit draws once ``n`` nears the 32-bit range, so ``%`` stays unbiased)."""
    order = list(range(n))
    count = max(n - 1, 0)
    draws = gen.random_list(count) if n < (2**32 - 1) // 20 else gen.random64_list(count)
    for i, draw in enumerate(draws):
        j = i + draw % (n - i)
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def exponential(gen: Any, count: int, lambd: float) -> np.ndarray:
    """``exponential_(lambd)``: ``-1 / lambd * log1p(-u)`` with ``u`` a float64 uniform
    (``log1p(-u)``, not ``log(1 - u)``: ``1 - u`` rounds away the low bits of a small ``u``,
    and PyTorch's numbers are ``log1p``'s, bit for bit in float64)."""
    u = unit_uniform(gen, count, "float64")
    return (-1.0 / lambd) * _libm(np.log1p, -u)


def bernoulli(gen: Any, p: np.ndarray) -> np.ndarray:
    """One draw per probability of ``p`` (float64 ``p``: float64 uniforms; else float32)."""
    dtype = "float64" if p.dtype == np.float64 else "float32"
    u = unit_uniform(gen, p.size, dtype).reshape(p.shape)
    return u < p.astype(u.dtype)


def categorical(gen: Any, weights: np.ndarray, samples: int) -> np.ndarray:
    """``multinomial(..., replacement=True)`` for each row of ``weights``: the running sums
    (in float64), divided by the total, the last set to 1; then for each sample a float64
    uniform ``u`` and the first index whose running sum is ``>= u`` (a binary search)."""
    rows = []
    for row in weights.astype(np.float64):
        running = np.cumsum(row)
        running = (running / running[-1]).astype(weights.dtype)
        running[-1] = 1
        u = unit_uniform(gen, samples, "float64")
        rows.append(np.searchsorted(running.astype(np.float64), u, side="left"))
    return np.array(rows, dtype=np.int64)
