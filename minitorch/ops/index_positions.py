"""Positions in a tensor, computed and written: ``unravel_index`` (flat index to
coordinates), ``nonzero_static`` (``nonzero`` with a fixed number of rows),
``fill_diagonal_``, ``index_reduce``, ``as_strided_scatter``, ``slice_inverse`` and
``empty_permuted`` (a tensor whose memory order is a permutation of its dims).

``unravel_index(i, shape)`` undoes row-major flattening: for shape ``(2, 3)`` the
element strides are ``(3, 1)``, so ``i = 5`` is at ``(5 // 3 % 2, 5 // 1 % 3) = (1, 2)``.
The floor division and remainder make a negative ``i`` count from the end (``-1`` is
``(1, 2)``), as PyTorch does.

``index_reduce(dim, index, source, reduce)`` is ``scatter_reduce`` with one index per
slice instead of per element: slice ``source.select(dim, j)`` is combined (``prod``,
``mean``, ``amax``, ``amin``) into ``self.select(dim, index[j])``. So the index vector
is broadcast over the other dims and the work, gradients included, is
``scatter_reduce``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import int64
from minitorch.ops import binary, gather, index_update, inplace, shape
from minitorch.ops.common import require_tensor


def unravel_index(indices: Tensor, shape: Any) -> tuple[Tensor, ...]:  # noqa: A002
    """The coordinates, one int64 tensor per dim of ``shape``, of each flat
    (row-major) index in ``indices``."""
    require_tensor("unravel_index", indices, "indices")
    if indices.dtype.is_floating_point or indices.dtype.type_name == "Bool":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    sizes = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(size < 0 for size in sizes):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(sizes)}")
    if any(size == 0 for size in sizes):
        raise RuntimeError("ZeroDivisionError")
    flat, coordinates, stride = indices.long(), [], 1
    for size in reversed(sizes):
        coordinates.insert(0, binary.remainder(binary.floor_divide(flat, stride), size))
        stride *= size
    return tuple(coordinates)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:  # noqa: A002
    """``nonzero(input)`` with exactly ``size`` rows: the first ``size`` coordinates, or
    all of them followed by rows of ``fill_value``."""
    require_tensor("nonzero_static", input)
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = gather.nonzero(input)
    if found.shape[0] >= size:
        return found[:size]
    padding = creation.full((size - found.shape[0], input.ndim), fill_value, dtype=int64, device=input.device)
    return shape.cat([found, padding], 0)


def fill_diagonal_(t: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Write ``fill_value`` at ``t[i, i, ..., i]`` (all dims of equal size, or a matrix).

    A tall matrix (more rows than columns) gets one diagonal of ``min(rows, cols)``
    elements, or with ``wrap=True`` NumPy's wrapped one: a new diagonal starts every
    ``cols + 1`` rows, as if the flat row-major index stepped by ``cols + 1``."""
    if t.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if t.ndim > 2 and len(set(t.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    count = min(t.shape)
    if t.ndim == 2 and wrap and t.shape[0] > t.shape[1] + 1:
        rows, cols = t.shape
        flat = range(0, rows * cols, cols + 1)
        where = [[k // cols for k in flat], [k % cols for k in flat]]
    else:
        where = [list(range(count))] * t.ndim
    positions = tuple(creation.tensor(axis, dtype=int64, device=t.device) for axis in where)
    return t.index_put_(positions, creation.tensor(fill_value, dtype=t.dtype, device=t.device))


def _slice_index(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``index`` laid along ``dim`` and broadcast to ``source``'s shape (per element)."""
    along = [1] * source.ndim
    along[dim] = index.numel()
    return index.reshape(along).expand(tuple(source.shape))


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,  # noqa: A002
                 include_self: bool = True) -> Tensor:  # fmt: skip
    """A copy of ``input`` with each slice ``source.select(dim, j)`` combined into slice
    ``index[j]`` by ``reduce`` (``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``); with
    ``include_self=False`` the slices that receive anything start from ``source`` alone."""
    require_tensor("index_reduce", input)
    require_tensor("index_reduce", source, "source", 4)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index.dtype.type_name not in ("Long", "Int"):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    if source.dtype is not input.dtype:
        raise RuntimeError("index_reduce_(): self and source must have the same scalar type")
    if input.ndim == 0:  # a scalar is a one-element vector here
        one = index_reduce(input.reshape(1), 0, index.reshape(-1), source.reshape(-1), reduce,
                           include_self=include_self)  # fmt: skip
        return one.reshape(())
    dim = dim % input.ndim
    if source.ndim == 0:
        source = source.reshape([1 if d == dim else input.shape[d] for d in range(input.ndim)])
    if source.shape[dim] != index.numel():
        raise RuntimeError("index_reduce_(): Number of indices should be equal to source.size(dim)")
    return index_update.scatter_reduce(
        input, dim, _slice_index(input, dim, index.long(), source), source, reduce, include_self=include_self
    )


def index_reduce_(t: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:  # fmt: skip
    """``index_reduce``, written into ``t``."""
    return inplace.apply_inplace(
        t, lambda old: index_reduce(old, dim, index, source, reduce, include_self=include_self)
    )


def as_strided_scatter(input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int],  # noqa: A002
                       storage_offset: int | None = None) -> Tensor:  # fmt: skip
    """A copy of ``input`` whose elements at ``input.as_strided(size, stride,
    storage_offset)`` are ``src``: the out-of-place form of writing into that view."""
    require_tensor("as_strided_scatter", input)
    require_tensor("as_strided_scatter", src, "src", 2)
    out = shape.clone(input)
    target = out.as_strided(tuple(size), tuple(stride), storage_offset)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(target.shape)}"
        )
    target.copy_(src)
    return out


def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,  # noqa: A002
                  end: int | None = None, step: int = 1) -> Tensor:  # fmt: skip
    """The inverse of slicing, for compilers: given ``input = src[start:end:step]`` along
    ``dim``, a view of all of ``src`` (its own shape, strides and offset)."""
    require_tensor("slice_inverse", input)
    require_tensor("slice_inverse", src, "src", 2)
    return src.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


def empty_permuted(size: Sequence[int], physical_layout: Sequence[int], *, dtype: Any = None,
                   device: Any = None, requires_grad: bool = False, **ignored: Any) -> Tensor:  # fmt: skip
    """An uninitialised tensor of shape ``size`` whose memory holds its dims in the order
    ``physical_layout`` (outermost first): ``empty_permuted((2, 3, 4), (2, 0, 1))`` has
    strides ``(3, 1, 6)``, dim 2 outermost. It is ``empty`` of the permuted shape,
    viewed through the inverse permutation."""
    size, physical_layout = tuple(size), tuple(physical_layout)
    if len(size) != len(physical_layout):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(physical_layout)}"
        )
    if sorted(physical_layout) != list(range(len(size))):
        raise RuntimeError(f"Dimension out of range: physical_layout {physical_layout} is not a permutation")
    stored = creation.empty(tuple(size[d] for d in physical_layout), dtype=dtype, device=device)
    inverse = [physical_layout.index(d) for d in range(len(size))]
    made = stored.permute(tuple(inverse))
    return made.requires_grad_(True) if requires_grad else made


METHODS = {
    "fill_diagonal_": fill_diagonal_, "index_reduce": index_reduce, "index_reduce_": index_reduce_,
    "as_strided_scatter": as_strided_scatter, "nonzero_static": nonzero_static,
    "slice_inverse": slice_inverse,
}  # fmt: skip

__all__ = [
    "as_strided_scatter", "empty_permuted", "index_reduce", "nonzero_static", "slice_inverse",
    "unravel_index",
]
