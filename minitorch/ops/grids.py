"""Tensors of numbers laid out on a grid: ``logspace``, ``range``, ``vander``,
``tril_indices``, ``triu_indices``, ``combinations``, ``scalar_tensor``,
``empty_strided`` and ``Tensor.new_empty_strided``.

``tril_indices(n, m, k)`` lists the positions ``(i, j)`` of an ``n x m`` matrix with
``j - i <= k``, row by row: the coordinates ``tril`` keeps. ``vander(x)`` has columns
``x^(N-1), ..., x, 1`` (decreasing powers, as NumPy's; ``increasing=True`` reverses).
``combinations(x, r)`` lists every choice of ``r`` of the elements in order, as
``itertools.combinations`` does, and gathers them with indexing, so it is differentiable.
"""

from __future__ import annotations

import builtins
import itertools
import warnings
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import float64, int64
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import sizes_from


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``base ** linspace(start, end, steps)``: ``steps`` values evenly spaced in the exponent."""
    exponents = creation.linspace(float(start), float(end), steps, dtype=float64, device=device)
    values = (exponents * 0 + float(base)) ** exponents
    return values.to(dtype or creation.get_default_dtype()).requires_grad_(requires_grad)


def range(start: Any, end: Any, step: Any = 1, *, dtype: Any = None, device: Any = None,  # noqa: A001
          requires_grad: bool = False) -> Tensor:  # fmt: skip
    """Deprecated in PyTorch: ``start, start + step, ...`` up to *and including* ``end``
    (unlike Python's ``range`` and ``arange``), in the default float dtype."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior "
        "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
        "values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    count = int((end - start) // step) + 1
    values = creation.arange(count, dtype=float64, device=device) * step + start
    return values.to(dtype or creation.get_default_dtype()).requires_grad_(requires_grad)


def vander(x: Tensor, N: Any = None, increasing: bool = False) -> Tensor:  # noqa: N803 (PyTorch's name)
    """The Vandermonde matrix of a vector: ``out[i][j] = x[i] ** (N - 1 - j)``."""
    require_tensor("vander", x, "x")
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    columns = x.shape[0] if N is None else int(N)
    if columns < 0:
        raise RuntimeError("N must be non-negative.")
    powers = creation.arange(columns, device=x.device)
    if not increasing:
        powers = powers.flip(0)
    base = x if x.dtype.is_floating_point else x.long()
    return base.unsqueeze(1) ** powers.unsqueeze(0).to(base.dtype)


def _triangle(function: str, row: int, col: int, offset: int, lower: bool, dtype: Any, device: Any) -> Tensor:
    if row < 0 or col < 0:
        raise RuntimeError(f"{'row' if row < 0 else 'col'} must be non-negative, got{min(row, col)}")
    cells = itertools.product(builtins.range(row), builtins.range(col))
    pairs = [(i, j) for i, j in cells if (j - i <= offset if lower else j - i >= offset)]
    rows = [i for i, _ in pairs]
    cols = [j for _, j in pairs]
    return creation.tensor([rows, cols], dtype=dtype or int64, device=device).reshape(2, len(pairs))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:  # fmt: skip
    """The ``(2, count)`` coordinates of the lower triangle ``j - i <= offset``, row by row."""
    return _triangle("tril_indices", row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:  # fmt: skip
    """The ``(2, count)`` coordinates of the upper triangle ``j - i >= offset``, row by row."""
    return _triangle("triu_indices", row, col, offset, False, dtype, device)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """Every choice of ``r`` elements of a vector, in order: a ``(count, r)`` tensor (as
    ``itertools.combinations``, or ``combinations_with_replacement``)."""
    require_tensor("combinations", input)
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    choose = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    picks = list(choose(builtins.range(input.shape[0]), r))
    if r == 0:
        return input.new_zeros((0,))
    if not picks:
        return input.new_zeros((0, r))
    index = input.new_tensor(picks, dtype=int64)
    return input[index.reshape(-1)].reshape(len(picks), r)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding the number ``s``, in the default float dtype unless told."""
    return creation.tensor(float(s) if dtype is None else s, dtype=dtype or creation.get_default_dtype(),
                           device=device, requires_grad=requires_grad)  # fmt: skip


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A new tensor with the given ``size`` and ``stride``: storage just large enough for
    the farthest position, ``1 + sum((size_d - 1) * stride_d)``, viewed through them."""
    sizes, strides = sizes_from((size,)), tuple(int(s) for s in stride)
    if len(sizes) != len(strides):
        raise RuntimeError(
            f"mismatch in length of strides and shape (got {len(strides)} strides and {len(sizes)} sizes)"
        )
    needed = 0 if 0 in sizes else 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    storage = creation.empty(needed, dtype=dtype, device=device)
    return storage.as_strided(sizes, strides).requires_grad_(requires_grad)


def new_empty_strided(t: Tensor, size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``empty_strided`` with ``t``'s dtype and device unless told."""
    return empty_strided(size, stride, dtype=dtype or t.dtype, device=device or t.device,
                         requires_grad=requires_grad)  # fmt: skip


METHODS = {"new_empty_strided": new_empty_strided}
