"""The random in-place methods ``bernoulli_``, ``exponential_`` and ``random_``, with
PyTorch's CPU streams.

Each draws its numbers from the generator (``generator=``, or the default one) with
PyTorch's transformation (``minitorch/random_transforms.py``) and writes them into the
tensor. PyTorch's CPU kernels visit the elements in *memory* order (its iterator sorts
the dimensions by stride), so a transposed or sliced tensor gets its draws in the order
its storage holds them; ``random_factories.in_memory_order`` lays the draws out the same
way (and so do ``uniform_`` and ``normal_``).

``random_`` has three forms, as PyTorch's:

* ``random_(from, to)``: integers in ``[from, to)``: ``draw % (to - from) + from``, with a
  64-bit draw when the range is ``2**28`` or more;
* ``random_(to)``: ``[0, to)``;
* ``random_()``: ``[0, 2**mantissa_bits]`` for a floating dtype (so every value is
  exact), ``[0, max]`` for an integer one, 0 or 1 for bool.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minitorch import random_transforms as transforms
from minitorch._tensor import Tensor
from minitorch.creation import _finish
from minitorch.dtypes import int64
from minitorch.ops.common import require_tensor
from minitorch.random import Generator
from minitorch.random_factories import generator_or_default, in_memory_order

# the C type names PyTorch's range errors use
_C_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
            "int64": "long int", "bool": "bool"}  # fmt: skip


def _write(t: Tensor, values: np.ndarray, dtype: Any = None) -> Tensor:
    """Copy the drawn ``values`` (made a tensor of ``dtype``, default ``t``'s) into ``t``."""
    return t.copy_(_finish(np.array(values, order="C"), dtype or t.dtype, t.device, False))


def _check_generator(method: str, generator: Any) -> None:
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{method}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")  # fmt: skip


def bernoulli_(t: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Overwrite ``t`` with 0s and 1s, each 1 with probability ``p`` (a number, or a tensor
    broadcast to ``t``'s shape). One uniform per element, ``u < p``: float64 uniforms for
    a number or a float64 ``p``, float32 ones for a float32 ``p`` (PyTorch's choice)."""
    require_tensor("bernoulli_", t, "self")
    _check_generator("bernoulli_", generator)
    gen = generator_or_default(generator)
    if isinstance(p, Tensor):
        probabilities = p.detach().cpu().expand(tuple(t.shape)).contiguous().numpy()
        if probabilities.size and not ((probabilities >= 0) & (probabilities <= 1)).all():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        draw_of = in_memory_order(t, np.arange).reshape(-1)  # element -> its draw's number
        element_of = np.argsort(draw_of)  # draw -> the element it goes to
        values = np.empty(probabilities.size, dtype=bool)
        values[element_of] = transforms.bernoulli(gen, probabilities.reshape(-1)[element_of])
        return _write(t, values.reshape(tuple(t.shape)))
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"bernoulli_(): argument 'p' must be float or Tensor, not {type(p).__name__}")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _write(t, in_memory_order(t, lambda n: transforms.bernoulli(gen, np.full(n, float(p)))))


def exponential_(t: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Overwrite ``t`` with exponential numbers of rate ``lambd``: ``-log1p(-u) / lambd``
    for a float64 uniform ``u`` (the inverse of the distribution function)."""
    require_tensor("exponential_", t, "self")
    _check_generator("exponential_", generator)
    if isinstance(lambd, bool) or not isinstance(lambd, (int, float)):
        raise TypeError(f"exponential_(): argument 'lambd' (position 1) must be float, not "
                        f"{type(lambd).__name__}")  # fmt: skip
    if not t.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must "
                           f"be a floating point but you specified {_torch_name(t)}")  # fmt: skip
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    gen = generator_or_default(generator)
    return _write(t, in_memory_order(t, lambda n: transforms.exponential(gen, n, float(lambd))))


def random_(t: Tensor, *args: Any, generator: Generator | None = None, **kwargs: Any) -> Tensor:
    """Overwrite ``t`` with random integers: ``random_(from, to)`` in ``[from, to)``,
    ``random_(to)`` in ``[0, to)``, ``random_()`` over every integer the dtype holds exactly."""
    require_tensor("random_", t, "self")
    _check_generator("random_", generator)
    low, high = _bounds(args, kwargs)
    gen = generator_or_default(generator)
    name = t.dtype.name
    if low is None:  # random_(): the dtype's whole range
        return _write(t, in_memory_order(t, lambda n: _whole_range(gen, n, name)), int64)
    if high is None:  # random_(from): up to the dtype's largest value, included
        if low == -(2**63) and name in ("int64", "float64", "float32", "bfloat16"):  # all 64 bits
            return _write(t, in_memory_order(t, lambda n: gen.random64(n).view(np.int64)), int64)
        if t.dtype.is_floating_point:
            high = 2 ** (np.finfo(name).nmant + 1) + 1  # every integer up to 2**digits is exact
        else:
            high = (1 if name == "bool" else int(np.iinfo(name).max)) + 1
    if t.dtype.is_floating_point:
        low, high = _representable(low, high, name)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    _check_range(t, low, high)
    return _write(t, in_memory_order(t, lambda n: transforms.integers(gen, n, low, high)), int64)


def _bounds(args: tuple, kwargs: dict) -> tuple[int | None, int | None]:
    """``(from, to)`` of a ``random_`` call: ``(None, None)`` for ``random_()``."""
    names = dict(kwargs)
    unknown = set(names) - {"from", "to"}
    if unknown or len(args) > 2:
        raise TypeError(f"random_() received an invalid combination of arguments - got {args}, {kwargs}")
    values = list(args)
    for value in [*values, *names.values()]:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError("random_() received an invalid combination of arguments - got "
                            f"({type(value).__name__}), but expected one of: (*, torch.Generator generator), "
                            "(int from, int to, *, torch.Generator generator), "
                            "(int to, *, torch.Generator generator)")  # fmt: skip
    if "from" in names:
        return names["from"], names.get("to", values[0] if values else None)
    if len(values) == 2:
        return values[0], values[1]
    if len(values) == 1:
        if values[0] is None:
            raise TypeError("random_() received an invalid combination of arguments - got (NoneType)")
        return (0, values[0]) if "to" not in names else (values[0], names["to"])
    if "to" in names:
        return 0, names["to"]
    return None, None


def _representable(low: int, high: int, name: str) -> tuple[int, int]:
    """PyTorch's bounds for a floating dtype that cannot hold ``low + 1`` or ``high - 1``
    exactly: each moved inwards to a neighbour the dtype can hold (so every value drawn
    rounds into ``[low, high)``)."""
    digits = np.finfo(name).nmant + 1
    rounded = np.dtype(name).type
    above_low = int(rounded(low + 1))
    if above_low < low:
        low = above_low + (1 << ((abs(low + 1).bit_length() - 1) - digits + 1))
    below_high = int(rounded(high - 1))
    if below_high >= high:
        high = below_high - (1 << ((abs(high - 1).bit_length() - 1) - digits + 1))
    return low, high


def _whole_range(gen: Any, count: int, name: str) -> np.ndarray:
    """``random_()``'s draws: ``draw % (top + 1)`` for the dtype's ``top`` (64-bit draws
    for int64 and float64, 32-bit ones otherwise; bool takes the lowest bit)."""
    if name in ("float64", "float32", "float16", "bfloat16"):
        top = 2 ** np.finfo(name).nmant * 2 if name != "bfloat16" else 2**8
    elif name == "bool":
        top = 1
    else:
        top = int(np.iinfo(name).max)
    draws = gen.random64(count) if name in ("int64", "float64") else gen.random(count).astype(np.uint64)
    return (draws % np.uint64(top + 1)).astype(np.int64)


def _check_range(t: Tensor, low: int, high: int) -> None:
    name = t.dtype.name
    if t.dtype.is_floating_point:
        digits = np.finfo(name).nmant + 1
        if not (-(2**digits) <= low <= 2**digits and -(2**digits) <= high - 1 <= 2**digits):
            warnings.warn(f"random_ bounds are out of [-(2^{digits}), 2^{digits}]: {name} cannot hold every "
                          "integer there", UserWarning, stacklevel=3)  # fmt: skip
        return
    smallest, largest = (0, 1) if name == "bool" else (int(np.iinfo(name).min), int(np.iinfo(name).max))
    if not smallest <= low <= largest:
        raise RuntimeError(f"from is out of bounds for {_C_NAMES.get(name, name)}")
    if not smallest <= high - 1 <= largest:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES.get(name, name)}")


def _torch_name(t: Tensor) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(t.dtype.name, t.dtype.name)  # fmt: skip
