"""Indexing: ``t[...]`` and ``t[...] = v`` (the index-tensor ops they use: ``gather.py``).

PyTorch (like NumPy) has two kinds of indexing, and the difference matters:

* **Basic** indexing, with ints, slices, ``None`` and ``...``, is a *view*: each item is
  a layout step (``select`` drops a dimension, a slice narrows and strides it, ``None``
  adds a dimension of size 1). Nothing is copied; writing through it changes ``t``.
* **Advanced** indexing, with integer tensors/lists or boolean masks, picks arbitrary
  elements, which no single stride can describe: it *copies*, using ``gather``.

    >>> t[1, ::2]          # a view
    >>> t[[0, 2]]          # a copy (rows 0 and 2)
    >>> t[t > 0]           # a copy (1-D: the positive elements)

Three of PyTorch's rules surprise newcomers, and we follow them: a 0-d integer tensor is
the int it holds (``t[tensor(1)]`` is the view ``t[1]``); ``True``/``False`` add a
dimension of size 1/0; and a list holding lists or slices is read as a tuple
(``t[[[0, 1], [1, 0]]]`` is ``t[[0, 1], [1, 0]]``). See ``_key_items``.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.dtypes import bool_, check_scalar_fits, int64
from minitorch.layout import contiguous_strides, numel
from minitorch.ops.common import cast
from minitorch.ops.gather import as_index_tensor, nonzero, select_entries
from minitorch.ops.inplace import apply_inplace, copy_
from minitorch.ops.shape import Select, Slice, UnsqueezeRegion


def _key_items(key: Any) -> tuple:
    """The key as a tuple of items, by PyTorch's rule for a key that is not a tuple.

    ``t[1]``, ``t[mask]``, ``t[[0, 2]]`` are one item. A *list* that holds a slice,
    ``None``, ``...``, a tensor or another sequence is NumPy's old spelling of a tuple:
    ``t[[[0, 1], [1, 0]]]`` means ``t[[0, 1], [1, 0]]`` (elements (0, 1) and (1, 0)), not
    one 2-D index. PyTorch 2.13 still reads it so, with a warning; so do we."""
    if isinstance(key, tuple):
        return key
    if isinstance(key, list) and len(key) < 32 and any(
        item is None or item is Ellipsis or isinstance(item, (slice, Tensor, np.ndarray, Sequence))
        for item in key
    ):
        warnings.warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated; use "
            "x[tuple(seq)] instead of x[seq]",
            UserWarning,
            stacklevel=3,
        )
        return tuple(key)
    return (key,)


def _canonical_item(item: Any, x: Tensor) -> Any:
    """One key item as ``...``, ``None``, a slice, a Python int, a Python bool, or an index
    tensor of at least one dimension. A 0-d tensor (or NumPy 0-d array) is the number it
    holds: ``t[tensor(1)]`` is ``t[1]``, a view, as in PyTorch."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        return item
    if isinstance(item, (bool, np.bool_)):
        return bool(item)
    if isinstance(item, (int, np.integer)):
        return int(item)
    if isinstance(item, float):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
            "Variables are valid indices (got float)"
        )
    index = as_index_tensor(item, x)
    if index.ndim == 0:
        return bool(index.item()) if index.dtype is bool_ else int(index.item())
    return index


def _dims_consumed(item: Any) -> int:
    """How many dimensions of the indexed tensor an item uses up."""
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0  # a Python bool (like None) adds a dimension of size 1 (or 0) instead
    if isinstance(item, Tensor) and item.dtype is bool_:
        return item.ndim  # a mask covers as many dimensions as it has
    return 1


def _parse_key(x: Tensor, key: Any) -> tuple:
    """Read a key in one walk: the view its basic items make, and its advanced items.

    Returns ``(view, advanced)``. ``view`` is ``(node, layout, relative)``, or ``None`` when
    the key takes no basic step: ``layout`` is ``(shape, strides, offset)`` over ``x``'s
    storage, ``relative`` the same region inside a contiguous tensor of ``x``'s shape (for
    the backward), and ``node`` the ``RegionView`` named after the last step, as PyTorch
    names it. Each basic item changes the layout where the walk stands::

        t[i]       offset += i * stride, the dimension is dropped        (select)
        t[a:b:s]   offset += a * stride, size = len(range(a, b, s)),
                   stride *= s                                          (slice)
        t[None]    a new dimension of size 1                            (unsqueeze)

    ``advanced`` holds a ``(dim, index, in_range)`` triple for each index tensor (a mask
    gives one per dimension it covers): they keep their dimensions in the view, and are
    picked from it afterwards (``_advanced_index``), ``dim`` counting the view's
    dimensions. ``in_range`` says the positions cannot be out of bounds (a mask's)."""
    kind = type(key)
    raw = key if kind is tuple else (key,) if kind is int or kind is slice else _key_items(key)
    items, consumed, ellipses = [], 0, 0
    for item in raw:  # every item canonical (``_canonical_item``); ints and slices already are
        if type(item) is int or type(item) is slice:
            consumed += 1
        else:
            item = _canonical_item(item, x)
            consumed += _dims_consumed(item)
            ellipses += item is Ellipsis
        items.append(item)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    shape, strides = x._shape, x._strides
    ndim = len(shape)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    dense = contiguous_strides(shape)  # the strides ``relative`` starts from
    new_shape: list = []
    new_strides: list = []
    new_dense: list = []
    offset, dense_offset = x._offset, 0
    advanced: list = []
    last = None  # the last basic step taken
    src = 0  # the dimension of x the next item indexes
    for item in items:
        kind = type(item)
        if kind is int:
            size = shape[src]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {src} with size {size}")
            if item < 0:
                item += size
            offset += item * strides[src]
            dense_offset += item * dense[src]
            src += 1
            last = Select
        elif kind is slice:
            if item.step is not None and operator.index(item.step) <= 0:
                raise ValueError("step must be greater than zero")
            start, stop, step = item.indices(shape[src])
            new_shape.append(max(0, (stop - start + step - 1) // step))
            new_strides.append(strides[src] * step)
            new_dense.append(dense[src] * step)
            offset += start * strides[src]
            dense_offset += start * dense[src]
            src += 1
            last = Slice
        elif item is None or kind is bool:  # t[True] is t[None][[0]]; t[False] is t[None][[]]
            if kind is bool:
                zeros = as_index_tensor(np.zeros(int(item), dtype=np.int64), x)  # position 0 of size 1
                advanced.append((len(new_shape), zeros, True))
            # the new dimension's stride: what a contiguous tensor would have there
            new_shape.append(1)
            new_strides.append(shape[src] * strides[src] if src < ndim else 1)
            new_dense.append(shape[src] * dense[src] if src < ndim else 1)
            last = UnsqueezeRegion
        elif item is Ellipsis:
            skip = ndim - consumed
            new_shape += shape[src : src + skip]
            new_strides += strides[src : src + skip]
            new_dense += dense[src : src + skip]
            src += skip
        else:  # an index tensor, or a mask: its dimensions stay, to be picked from
            covered = item.ndim if item.dtype is bool_ else 1
            if item.dtype is bool_:
                for k in range(covered):
                    if item._shape[k] != shape[src + k]:
                        raise IndexError(
                            f"The shape of the mask {list(item.shape)} at index {k} does not "
                            f"match the shape of the indexed tensor {list(x.shape)} at index "
                            f"{src + k}"
                        )
                for k, column in enumerate(nonzero(item, as_tuple=True)):  # in range: found there
                    advanced.append((len(new_shape) + k, column, True))
            else:
                advanced.append((len(new_shape), item, False))
            new_shape += shape[src : src + covered]
            new_strides += strides[src : src + covered]
            new_dense += dense[src : src + covered]
            src += covered
    if last is None:
        return None, advanced
    new_shape += shape[src:]
    layout = (tuple(new_shape), (*new_strides, *strides[src:]), offset)
    relative = (layout[0], (*new_dense, *dense[src:]), dense_offset)
    return (last, layout, relative), advanced


def getitem(x: Tensor, key: Any) -> Tensor:
    view, advanced = _parse_key(x, key)
    if view is None and not advanced:  # ``t[...]``, ``t[()]``: the whole tensor, as a view
        view = (Slice, (x._shape, x._strides, x._offset), (x._shape, contiguous_strides(x._shape), 0))
    result = view[0].apply(x, view[1], view[2]) if view else x
    return _advanced_index(result, advanced) if advanced else result


def _advanced_index(x: Tensor, advanced: list) -> Tensor:
    """Pick elements with index tensors along some dimensions (a copy).

    The indexed dimensions are moved to the front and merged into one, the indices
    combined into one linear index (row-major: ``i0 * size1 + i1`` for two), and
    ``index_select`` picks the rows. If the indexed dimensions were next to each other,
    the result's new dimensions go where they were. The indices are plain data (no
    gradient), so they are checked and combined with NumPy, on the host.

    One index tensor (``x[idx]``, ``C[X]``, a 1-D mask) needs no combining: ``_take``.
    """
    if len(advanced) == 1:
        return _take(x, *advanced[0])
    dims = [d for d, _, _ in advanced]
    rest = [d for d in range(x.ndim) if d not in dims]
    sizes = [x._shape[d] for d in dims]
    arrays = [np.asarray(index.detach().cpu().numpy(), dtype=np.int64) for _, index, _ in advanced]
    try:
        index_shape = tuple(np.broadcast_shapes(*(a.shape for a in arrays)))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes "
            f"{shapes}"
        ) from None
    if numel(index_shape):  # (every index into a dimension of size 0 is out of bounds; in
        reads = numel([x._shape[d] for d in rest])  # others, when nothing is read, none is checked)
        for d, size, array in zip(dims, sizes, arrays):
            if reads or size == 0:
                _check_in_bounds(array, d, size)
    linear = None
    for size, array in zip(sizes, arrays):
        wrapped = array % size if size else array  # negative indices count from the end
        linear = wrapped if linear is None else linear * size + wrapped
    linear = np.broadcast_to(linear, index_shape).reshape(-1)
    order = dims + rest  # (a permutation or reshape that changes nothing is skipped)
    merged = x.permute(order) if order != list(range(x.ndim)) else x
    merged_shape = (numel(sizes),) + tuple(x._shape[d] for d in rest)
    merged = merged.reshape(merged_shape) if merged_shape != merged._shape else merged
    picked = merged.index_select(0, as_index_tensor(linear, x))
    result_shape = index_shape + tuple(x._shape[d] for d in rest)
    result = picked.reshape(result_shape) if result_shape != picked._shape else picked
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if adjacent and dims[0] > 0:
        n_index, first = len(index_shape), dims[0]
        order = ([n_index + i for i in range(first)] + list(range(n_index))
                 + [n_index + i for i in range(first, len(rest))])  # fmt: skip
        result = result.permute(order)
    return result


def _take(x: Tensor, dim: int, index: Tensor, in_range: bool = False) -> Tensor:
    """``x`` indexed along ``dim`` by one index tensor: the entries its values name, read
    with one ``index_select`` of the index flattened, whose one new dimension then
    unfolds into the index's shape. ``C[X]``, for a matrix ``C``::

        out[i][j][k] = C[X[i][j]][k]

    The index is checked on the host. Read as unsigned integers, negative indices become
    huge ones, so one largest value below ``size`` says at once that every index lies in
    ``[0, size)``, the usual case. Otherwise the smallest and largest value are checked,
    and a negative index counts from the end (``index % size``). Positions ``in_range``
    by how they were made (a mask's, found by ``nonzero`` in this very dimension) need
    no check."""
    size = x._shape[dim]
    flat = cast(index, int64)
    flat = flat if flat.ndim == 1 else flat.reshape(-1)
    rest = x._shape[:dim] + x._shape[dim + 1 :]
    if not in_range and flat._shape[0] and (numel(rest) or size == 0):  # else nothing is read: no check

        def has_negative(values: np.ndarray) -> bool:
            if values.view(np.uint64).max() < size:
                return False  # every index in [0, size): nothing to check or wrap
            low, high = values.min(), values.max()
            if low < -size or high >= size:
                _check_in_bounds(values, dim, size)
            return bool(low < 0)

        if dispatch.validate(flat, has_negative):
            flat = flat % size
    picked = select_entries(x, dim, flat)
    shape = x._shape[:dim] + index._shape + x._shape[dim + 1 :]
    return picked.reshape(shape) if shape != picked._shape else picked


def _check_in_bounds(index: np.ndarray, dim: int, size: int) -> None:
    """PyTorch's IndexError for an index outside ``[-size, size)``, naming the first one."""
    bad = index[(index >= size) | (index < -size)]
    if bad.size:
        worst = bad.reshape(-1)[0]
        raise IndexError(f"index {worst} is out of bounds for dimension {dim} with size {size}")


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value``: basic keys copy into the view; advanced keys write the
    chosen elements (an in-place op either way, so every view sees it).

    As in PyTorch, the value's leading size-1 dimensions are dropped before it is
    broadcast: ``x[0] = ones(1, 3)`` fills row 0 of a ``(2, 3)`` tensor. An advanced write
    of a tensor needs the same dtype (except a one-element value under one mask)."""
    value = _assignable(value, x)
    view, advanced = _parse_key(x, key)
    if not advanced:
        copy_(view[0].apply(x, view[1], view[2]) if view else x, value)
        return
    if isinstance(value, Tensor) and value.dtype is not x.dtype:
        if not (_is_one_mask(x, key) and value.numel() == 1):  # PyTorch's masked_fill case
            raise RuntimeError(
                f"Index put requires the source and destination dtypes match, got "
                f"{x.dtype.name} for the destination and {value.dtype.name} for the source "
                f"(convert it first: value.to(minitorch.{x.dtype.name}))"
            )
    relative = view[2] if view else None
    apply_inplace(x, lambda old: _index_put(old, relative, advanced, value))


def _assignable(value: Any, x: Tensor) -> Any:
    """``value`` checked for ``x[key] = value``: a Python number, or a tensor with its
    leading size-1 dimensions dropped."""
    if isinstance(value, Tensor):
        ones = next((k for k, size in enumerate(value._shape) if size != 1), value.ndim)
        return value.reshape(value._shape[ones:]) if ones else value
    if isinstance(value, np.integer):
        value = int(value)
    if isinstance(value, (bool, int, float)):
        check_scalar_fits(value, x.dtype)  # NaN into an int tensor is an error, not INT64_MIN
        return value
    if isinstance(value, complex):
        raise RuntimeError(f"value cannot be converted to type {x.dtype.name} without overflow "
                           f"(a complex number into a real tensor)")  # fmt: skip
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(
        f"can't assign a {name} to a {x.dtype.name} tensor: assign a number or a Tensor "
        f"(minitorch.tensor(...) makes one from a list or an array)"
    )


def _is_one_mask(x: Tensor, key: Any) -> bool:
    """Whether the only advanced item of a key is one boolean mask tensor."""
    items = [_canonical_item(item, x) for item in (key if isinstance(key, tuple) else (key,))]
    tensors = [item for item in items if isinstance(item, Tensor)]
    has_bool = any(isinstance(item, bool) for item in items)
    return len(tensors) == 1 and tensors[0].dtype is bool_ and not has_bool


def _index_put(x: Tensor, relative: tuple | None, advanced: list, value: Any) -> Tensor:
    """``x`` with the elements the key picks replaced by ``value`` (out of place). The same
    key applied to a tensor of positions ``0, 1, 2, ...`` says which elements of ``x`` are
    written: its view (``relative``, the key's basic steps) and then its ``advanced`` picks."""
    positions = Tensor._make(dispatch.from_numpy(np.arange(x.numel(), dtype=np.int64), x.device.type),
                       x._shape, contiguous_strides(x._shape), 0, int64, x.device)  # fmt: skip
    targets = _advanced_index(positions._view(*relative) if relative else positions, advanced)
    if not isinstance(value, Tensor):
        value = Tensor._full((), value, x.dtype, x.device)
    values = value.to(x.dtype).expand(targets.shape).reshape(-1)
    flat_targets = targets.reshape(-1).cpu().numpy()
    # When a position is named twice, the last write wins (PyTorch leaves it unspecified).
    _, last = np.unique(flat_targets[::-1], return_index=True)
    keep = np.sort(len(flat_targets) - 1 - last)
    unique_targets = as_index_tensor(flat_targets[keep], x)
    chosen = values.index_select(0, as_index_tensor(keep.astype(np.int64), x))
    hit = np.zeros(x.numel(), dtype=np.bool_)
    hit[flat_targets] = True
    zero = Tensor._full((), 0, x.dtype, x.device)
    flat = x.reshape(-1).where(~as_index_tensor(hit, x), zero)
    return flat.scatter_add(0, unique_targets, chosen).reshape(x.shape)
