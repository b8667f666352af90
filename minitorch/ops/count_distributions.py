"""``torch.poisson`` and ``torch.binomial``: random counts, with PyTorch's CPU streams.

Each element is sampled on its own from float64 uniforms ``u`` (the generator's 53-bit
numbers, as ``rand`` makes them), in the logical order of the elements, by the same
algorithms as PyTorch's CPU kernels, so after the same seed the counts are PyTorch's:

* **Poisson**, rate ``lam``:

  - below 10, multiply uniforms until the product falls to ``exp(-lam)`` or below; the
    count is the number of factors before that one (Knuth's method: the waiting times
    between events of a Poisson process are exponential, ``-log(u)``);
  - from 10 on, the *transformed rejection* method (Hörmann, 1993): a pair ``(U, V)``
    proposes ``k = floor((2a / us + b) U + lam + 0.43)`` with ``us = 0.5 - |U|``, a
    shape that hugs the distribution; most proposals are accepted by a cheap box test,
    the rest by comparing ``log V`` with the log of the probability of ``k``, and a
    rejected pair is replaced by the next. The loop takes a varying number of uniforms.

* **binomial**, ``count`` trials each a success with probability ``p`` (for ``p > 1/2``,
  ``count`` minus the failures, sampled with ``1 - p``):

  - when ``count * p < 10``, *inversion by geometric jumps*: the gap to the next success
    is geometric, ``ceil(log(u) / log(1 - p))``; add gaps until they pass ``count``;
  - from 10 on, *BTRS* (Hörmann, 1993): the same transformed rejection, around the mode
    ``m = floor((count + 1) p)``, its acceptance test written with Stirling's series
    (``log k! = (k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2 + tail(k)``).

The numbers are made in Python one element at a time (a count's uniforms depend on the
earlier ones), so these are for the sizes a lesson samples, not millions of elements.
Neither is differentiable (PyTorch gives Poisson a zero gradient and binomial none).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch import random_transforms as transforms
from minitorch._tensor import Tensor
from minitorch.creation import _finish
from minitorch.ops.common import broadcast_all, require_tensor
from minitorch.random import Generator
from minitorch.random_factories import generator_or_default

_INT64_MIN = -(2**63)

# tail(k) of Stirling's series for log k!, exactly for k <= 9 (the series is poor there)
_STIRLING_TAILS = (0.08106146679532726, 0.04134069595540929, 0.02767792568499834, 0.02079067210376509,
                   0.01664469118982119, 0.01387612882307075, 0.01189670994589177, 0.01041126526197209,
                   0.009255462182712733, 0.008330563433362871)  # fmt: skip


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:  # noqa: A002
    """A Poisson count for each rate of ``input`` (non-negative), of ``input``'s dtype."""
    require_tensor("poisson", input)
    _require_floating("poisson_cpu", input)
    rates = input.detach().cpu().contiguous().numpy().astype(np.float64).reshape(-1)
    if rates.size and not (rates >= 0).all():  # (NaN fails too)
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    gen = generator_or_default(generator)
    counts = np.array([_poisson_one(float(lam), gen) for lam in rates.tolist()], dtype=np.float64)
    return _finish(counts.reshape(tuple(input.shape)), input.dtype, input.device, False)


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """The successes in ``count`` trials of probability ``prob`` (elementwise, broadcast),
    of ``count``'s dtype (``prob`` must have the same one)."""
    require_tensor("binomial", count, "count")
    require_tensor("binomial", prob, "prob", 2)
    if not count.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {_aten_name(count)}")
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {_aten_name(prob)} but expected {_aten_name(count)}")
    shape, (n, p) = broadcast_all(count, prob)
    trials = n.detach().cpu().contiguous().numpy().astype(np.float64).reshape(-1).tolist()
    chances = p.detach().cpu().contiguous().numpy().astype(np.float64).reshape(-1).tolist()
    gen = generator_or_default(generator)
    successes = np.array([_binomial_one(a, b, gen) for a, b in zip(trials, chances)], dtype=np.float64)
    return _finish(successes.reshape(tuple(shape)), count.dtype, count.device, False)


# ---- one element ---------------------------------------------------------------------------


def _uniform(gen: Any) -> float:
    return transforms.unit_uniform_list(gen, 1, "float64")[0]


def _floor_to_int64(x: float) -> int:
    """``floor`` then C's cast to int64: a value outside int64 (or NaN) becomes INT64_MIN
    on x86, which is what PyTorch returns for an enormous rate."""
    return math.floor(x) if math.isfinite(x) and -(2.0**63) <= x < 2.0**63 else _INT64_MIN


def _poisson_one(lam: float, gen: Any) -> int:
    if lam >= 10:  # transformed rejection
        root, log_lam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
        box = 0.9277 - 3.6224 / (b - 2)
        while True:
            u, v = _uniform(gen) - 0.5, _uniform(gen)
            us = 0.5 - abs(u)
            k = _floor_to_int64((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= box:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(inverse_alpha) - math.log(a / (us * us) + b)
                    <= -lam + k * log_lam - math.lgamma(k + 1.0)):  # fmt: skip
                return k
    if lam == 0:
        return 0
    threshold, count, product = math.exp(-lam), 0, 1.0  # Knuth: multiply uniforms
    while True:
        product *= _uniform(gen)
        if product <= threshold:
            return count
        count += 1


def _binomial_one(n: float, p: float, gen: Any) -> float:
    if not math.isfinite(n):  # (PyTorch's loop would never end: no count of jumps passes it)
        return math.nan if n > 0 or math.isnan(n) else 0.0
    if n <= 0 or p <= 0:
        return 0.0
    if p >= 1:
        return n
    if p <= 0.5:
        return _btrs(n, p, gen) if n * p >= 10 else _geometric_jumps(n, p, gen)
    if p > 0.5:
        q = 1.0 - p
        return n - (_btrs(n, q, gen) if n * q >= 10 else _geometric_jumps(n, q, gen))
    return math.nan  # p is NaN


def _geometric_jumps(n: float, p: float, gen: Any) -> float:
    """Successes counted by jumping from one to the next (each gap geometric)."""
    log_q, travelled, successes = math.log1p(-p), 0.0, 0
    while True:
        u = _uniform(gen)
        travelled += math.ceil(math.log(u) / log_q) if u > 0 else math.inf
        if travelled > n:
            return float(successes)
        successes += 1


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _STIRLING_TAILS[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _btrs(n: float, p: float, gen: Any) -> float:
    """Transformed rejection around the mode, accepting by Stirling's series."""
    spread = math.sqrt(n * p * (1 - p))
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    box = 0.92 - 4.2 / b
    odds = p / (1 - p)
    alpha = (2.83 + 5.1 / b) * spread
    m = math.floor((n + 1) * p)
    while True:
        u, v = _uniform(gen) - 0.5, _uniform(gen)
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= box:
            return float(k)
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (odds * (n - m + 1)))
                 + (n + 1) * math.log((n - m + 1) / (n - k + 1))
                 + (k + 0.5) * math.log(odds * (n - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(n - m)
                 - _stirling_tail(k) - _stirling_tail(n - k))  # fmt: skip
        if v <= bound:
            return float(k)


def _require_floating(kernel: str, t: Tensor) -> None:
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_aten_name(t)}'")


def _aten_name(t: Tensor) -> str:
    return {"float64": "Double", "float32": "Float", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}[t.dtype.name]  # fmt: skip


__all__ = ["binomial", "poisson"]
