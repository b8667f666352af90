"""Ops that are short formulas of other ops: ``addcmul``, ``addcdiv``, ``lerp``,
``clamp_min``, ``clamp_max``, ``index_fill``, ``scatter``, ``outer``, ``diff``.

Optimizers and tutorials use these (Adam's ``exp_avg_sq.addcmul_(grad, grad, value=1 -
beta2)``). Each is written with ops that already have a derivative, so each one's
gradient comes for free: no ``Function``, no kernel of its own. Their in-place forms
(``addcmul_``...) are made in ``inplace.py`` like every other op's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch._tensor import Tensor
from minitorch.dtypes import bool_, int64
from minitorch.layout import normalize_dim
from minitorch.ops.choice import clamp, where
from minitorch.ops.common import is_number, require_tensor
from minitorch.ops.shape import cat


def addcmul(x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``x + value * tensor1 * tensor2`` (all three broadcast together)."""
    require_tensor("addcmul", x)
    return x + value * (tensor1 * tensor2) if value != 1 else x + tensor1 * tensor2


def addcdiv(x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``x + value * tensor1 / tensor2``; integer ``tensor1``/``tensor2`` are refused,
    as in PyTorch (their quotient would silently be a float)."""
    require_tensor("addcdiv", x)
    if not (tensor1.dtype.is_floating_point or tensor2.dtype.is_floating_point):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. Use "
            "(input + value * tensor1 / tensor2) instead."
        )
    return x + value * (tensor1 / tensor2) if value != 1 else x + tensor1 / tensor2


def lerp(start: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Linear interpolation ``start + weight * (end - start)``.

    As PyTorch computes it, from the nearer end, so ``weight = 1`` gives ``end`` exactly::

        start + weight * (end - start)        if |weight| < 0.5
        end - (end - start) * (1 - weight)    otherwise
    """
    require_tensor("lerp", start)
    diff = end - start
    if is_number(weight):
        return start + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
    return where(weight.abs() < 0.5, start + weight * diff, end - diff * (1 - weight))


def clamp_min(x: Tensor, min: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    """``clamp(x, min=min)``: every element at least ``min``."""
    return clamp(x, min=min)


def clamp_max(x: Tensor, max: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    """``clamp(x, max=max)``: every element at most ``max``."""
    return clamp(x, max=max)


def index_fill(x: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``x`` with the entries ``index`` along ``dim`` set to ``value``: for dim 1 of a
    2-D tensor, ``out[i][j] = value if j in index else x[i][j]``."""
    require_tensor("index_fill", x)
    d = normalize_dim(dim, x.ndim)
    if index.dtype is not int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    size = x.shape[d] if x.ndim else 1
    flat = index.reshape(-1)
    if flat.numel() and (int(flat.min()) < -size or int(flat.max()) >= size):
        raise IndexError(f"index out of range in self (dimension {d} has size {size})")
    positions = x.new_tensor(list(range(size)), dtype=int64)
    chosen = (positions.unsqueeze(1) == (flat % size).unsqueeze(0)).any(1)
    mask = chosen.reshape([size if k == d else 1 for k in range(x.ndim)])
    return x.masked_fill(mask, value)


def outer(x: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors: ``out[i][j] = x[i] * vec2[j]``, a column times a
    row broadcast into a matrix."""
    require_tensor("outer", x)
    require_tensor("outer", vec2)
    for name, v in (("self", x), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return x.unsqueeze(1) * vec2.unsqueeze(0)


def diff(x: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """Differences of neighbours along ``dim``, ``out[i] = x[i + 1] - x[i]``, taken ``n``
    times; ``prepend``/``append`` are joined on first. For bools, ``x[i + 1] != x[i]``."""
    require_tensor("diff", x)
    if x.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d, given = normalize_dim(dim, x.ndim), x
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = cat([p if p.ndim else p.expand(*x.shape[:d], 1, *x.shape[d + 1:]) for p in parts], d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        later, earlier = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = later != earlier if x.dtype is bool_ else later - earlier
    return x.clone() if x is given else x  # n = 0: a copy, as in PyTorch


def scatter(x: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:  # fmt: skip
    """``x`` with ``src`` (a tensor, or one number) written at the positions ``index``
    names along ``dim``: for dim 1 of a 2-D tensor, ``out[i][index[i][j]] = src[i][j]``.
    ``reduce="add"`` adds instead of writing (``scatter_add``).

    Written as "scatter_add into zeros, then pick where something was written". When
    ``index`` names one position twice, the last write wins, as in PyTorch's CPU loop:
    the earlier writes are zeroed before the sum."""
    require_tensor("scatter", x)
    if src is None:
        src = value
    if is_number(src):
        src = x.new_full(tuple(index.shape), src)
    if reduce == "add":
        used = src[tuple(slice(0, size) for size in index.shape)] if src.ndim else src
        return x.scatter_add(dim, index, used.to(x.dtype))
    if reduce is not None:
        if reduce != "multiply":
            raise RuntimeError("reduce argument must be either add or multiply.")
        raise NotImplementedError("minitorch's scatter supports reduce='add' only, not 'multiply'")
    written = x.new_zeros(x.shape).scatter_add(dim, index, index.new_ones(index.shape).to(x.dtype))
    used = src[tuple(slice(0, size) for size in index.shape)] if src.ndim else src
    if x.ndim:
        last = _last_writes(index, normalize_dim(dim, x.ndim), tuple(x.shape))
        used = where(index.new_tensor(last, dtype=bool_), used, 0)
    placed = x.new_zeros(x.shape).scatter_add(dim, index, used)
    return where(written != 0, placed, x)


def _last_writes(index: Tensor, dim: int, shape: tuple[int, ...]) -> np.ndarray:
    """True at each entry of ``index`` that is the last, in row-major order, to name its
    target position in a tensor of ``shape`` (the entry ``[i][j]`` of a dim-1 index
    names ``[i][index[i][j]]``)."""
    positions = index.detach().cpu().numpy()
    coordinates = list(np.indices(positions.shape))
    coordinates[dim] = positions
    targets = np.ravel_multi_index(coordinates, shape).reshape(-1)
    _, last_from_end = np.unique(targets[::-1], return_index=True)
    last = np.zeros(targets.size, dtype=bool)
    last[targets.size - 1 - last_from_end] = True
    return last.reshape(positions.shape)
