"""The random in-place methods ``cauchy_``, ``geometric_`` and ``log_normal_``, with
PyTorch's CPU streams.

Each is a formula of the uniform or normal numbers the generator already makes as PyTorch
makes them (``minitorch/random_transforms.py``), one number per element, in float64,
rounded once to the tensor's dtype at the end:

* **cauchy** ``(median, sigma)``: ``median + sigma * tan(pi * (u - 1/2))`` for a float64
  uniform ``u``. The inverse of the distribution function: ``u - 1/2`` spreads the
  uniform over ``(-1/2, 1/2)``, and ``tan`` of ``pi`` times it over the whole real line,
  with the heavy tails of the Cauchy distribution (no mean, no variance).
* **geometric** ``(p)``: ``ceil(log(u) / log(1 - p))``, the number of Bernoulli trials up
  to and including the first success. ``P(X > k) = (1 - p)**k``, so ``X > k`` exactly when
  ``u < (1 - p)**k``, that is ``log(u) / log(1 - p) > k`` (``log1p(-p)`` keeps a small
  ``p``'s digits).
* **log_normal** ``(mean, std)``: ``exp(n)`` for a float64 normal ``n`` of that mean and
  standard deviation, drawn one pair of uniforms at a time by Box-Muller with the sine
  value kept for the next call (the generator's cached normal), as ``normal_`` does on a
  small or strided tensor. ``mean`` and ``std`` are those of ``log(x)``, not of ``x``.

PyTorch's CPU kernels fill the elements in *memory* order (``in_memory_order``), so a
transposed or sliced tensor gets its numbers in the order its storage holds them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch import random_transforms as transforms
from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor
from minitorch.ops.random_inplace import _C_NAMES, _check_generator, _write
from minitorch.random import Generator
from minitorch.random_factories import generator_or_default, in_memory_order


def _number(method: str, name: str, position: int, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{method}(): argument '{name}' (position {position}) must be float, not "
                        f"{type(value).__name__}")  # fmt: skip
    return float(value)


def _require_floating(t: Tensor, distribution: str) -> None:
    """PyTorch's refusal of an integer tensor for a continuous distribution."""
    if not t.dtype.is_floating_point:
        name = _C_NAMES[t.dtype.name]
        raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {name}")  # fmt: skip


def cauchy_(t: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:  # fmt: skip
    """Overwrite ``t`` with Cauchy numbers centred on ``median`` with half-width ``sigma``:
    ``median + sigma * tan(pi * (u - 0.5))`` for a float64 uniform ``u``."""
    require_tensor("cauchy_", t, "self")
    _check_generator("cauchy_", generator)
    median, sigma = _number("cauchy_", "median", 1, median), _number("cauchy_", "sigma", 2, sigma)
    _require_floating(t, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_shown(sigma)}")
    gen = generator_or_default(generator)
    return _write(t, in_memory_order(t, lambda n: cauchy(gen, n, median, sigma)))


def geometric_(t: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Overwrite ``t`` with geometric numbers (trials up to the first success, each a
    success with probability ``p``): ``ceil(log(u) / log1p(-p))``. Integer dtypes too."""
    require_tensor("geometric_", t, "self")
    _check_generator("geometric_", generator)
    p = _number("geometric_", "p", 1, p)
    if t.dtype.name == "bool":
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_shown(p)}")
    gen = generator_or_default(generator)
    return _write(t, in_memory_order(t, lambda n: geometric(gen, n, p)))


def log_normal_(t: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> Tensor:  # fmt: skip
    """Overwrite ``t`` with log-normal numbers: ``exp(n)`` for a float64 normal ``n`` of
    mean ``mean`` and standard deviation ``std`` (those of ``log(x)``)."""
    require_tensor("log_normal_", t, "self")
    _check_generator("log_normal_", generator)
    mean, std = _number("log_normal_", "mean", 1, mean), _number("log_normal_", "std", 2, std)
    if not t.dtype.is_floating_point:
        name = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}[t.dtype.name]  # fmt: skip
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{name}'")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_shown(std)}")
    gen = generator_or_default(generator)
    return _write(t, in_memory_order(t, lambda n: log_normal(gen, n, mean, std)))


# ---- the transformations: draws -> numbers (float64 arrays) --------------------------------


def cauchy(gen: Any, count: int, median: float, sigma: float) -> np.ndarray:
    """``count`` Cauchy numbers, one float64 uniform each."""
    u = transforms.unit_uniform_list(gen, count, "float64")
    return np.array([median + sigma * math.tan(math.pi * (x - 0.5)) for x in u], dtype=np.float64)


def geometric(gen: Any, count: int, p: float) -> np.ndarray:
    """``count`` geometric numbers, one float64 uniform each (``u = 0``, one chance in
    ``2**53``, gives ``log(0) = -inf`` and so an infinite count, as in PyTorch)."""
    u = transforms.unit_uniform_list(gen, count, "float64")
    scale = math.log1p(-p)
    return np.array([math.ceil(math.log(x) / scale) if x > 0 else math.inf for x in u], dtype=np.float64)


def log_normal(gen: Any, count: int, mean: float, std: float) -> np.ndarray:
    """``count`` log-normal numbers: the one-by-one Box-Muller normals, exponentiated."""
    normals = np.asarray(transforms._box_muller_one_by_one(gen, count, mean, std), dtype=np.float64)
    return np.array([_exp(x) for x in normals.tolist()], dtype=np.float64)


def _exp(x: float) -> float:
    """The C library's ``exp`` (Python's ``math`` calls it), ``inf`` past float64's range."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _shown(value: float) -> str:
    """A number as PyTorch's messages print it (``1`` rather than ``1.0``)."""
    return str(int(value)) if value == int(value) else repr(value)


METHODS = {"cauchy_": cauchy_, "geometric_": geometric_, "log_normal_": log_normal_}
