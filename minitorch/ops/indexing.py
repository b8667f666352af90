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

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.dtypes import bool_, check_scalar_fits, int64
from minitorch.layout import contiguous_strides, numel
from minitorch.ops.gather import as_index_tensor, nonzero
from minitorch.ops.inplace import apply_inplace, copy_
from minitorch.ops.shape import region


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


def _parse_key(x: Tensor, items: tuple) -> tuple[list, list]:
    """Split canonical key items into basic layout steps and advanced (dim, index) pairs."""
    consumed = sum(_dims_consumed(item) for item in items)
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    steps: list = []
    advanced: list = []
    dim = 0  # dimension of the result being built
    source_dim = 0  # dimension of x the next item indexes
    for item in items:
        if item is Ellipsis:
            skip = x.ndim - consumed
            dim += skip
            source_dim += skip
        elif item is None:
            steps.append(("unsqueeze", dim))
            dim += 1
        elif isinstance(item, bool):  # t[True] is t[None][[0]]; t[False] is t[None][[]]
            steps.append(("unsqueeze", dim))
            advanced.append((dim, as_index_tensor(np.zeros(int(item), dtype=np.int64), x)))
            dim += 1
        elif isinstance(item, int):
            size = x._shape[source_dim]
            if not -size <= item < size:
                raise IndexError(
                    f"index {item} is out of bounds for dimension {source_dim} with size {size}"
                )
            steps.append(("select", dim, item))
            source_dim += 1
        elif isinstance(item, slice):
            start = 0 if item.start is None else int(item.start)
            stop = x._shape[source_dim] if item.stop is None else int(item.stop)
            step = 1 if item.step is None else int(item.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            steps.append(("slice", dim, start, stop, step))
            dim += 1
            source_dim += 1
        elif item.dtype is bool_:
            for k in range(item.ndim):
                if item._shape[k] != x._shape[source_dim + k]:
                    raise IndexError(
                        f"The shape of the mask {list(item.shape)} at index {k} does not "
                        f"match the shape of the indexed tensor {list(x.shape)} at index "
                        f"{source_dim + k}"
                    )
            for k, column in enumerate(nonzero(item, as_tuple=True)):
                advanced.append((dim + k, column))
            dim += item.ndim
            source_dim += item.ndim
        else:
            advanced.append((dim, item))
            dim += 1
            source_dim += 1
    return steps, advanced


def getitem(x: Tensor, key: Any) -> Tensor:
    items = tuple(_canonical_item(item, x) for item in _key_items(key))
    steps, advanced = _parse_key(x, items)
    result = region(x, steps) if steps else x
    if not advanced:
        return result if steps else region(x, [])
    return _advanced_index(result, advanced)


def _advanced_index(x: Tensor, advanced: list) -> Tensor:
    """Pick elements with index tensors along some dimensions (a copy).

    The indexed dimensions are moved to the front and merged into one, the indices
    combined into one linear index (row-major: ``i0 * size1 + i1`` for two), and
    ``index_select`` picks the rows. If the indexed dimensions were next to each other,
    the result's new dimensions go where they were. The indices are plain data (no
    gradient), so they are checked and combined with NumPy, on the host.
    """
    dims = [d for d, _ in advanced]
    rest = [d for d in range(x.ndim) if d not in dims]
    sizes = [x._shape[d] for d in dims]
    arrays = [np.asarray(index.detach().cpu().numpy(), dtype=np.int64) for _, index in advanced]
    try:
        index_shape = tuple(np.broadcast_shapes(*(a.shape for a in arrays)))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes "
            f"{shapes}"
        ) from None
    if numel(index_shape) and numel([x._shape[d] for d in rest]):  # else nothing is read
        for d, size, array in zip(dims, sizes, arrays):
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
    items = tuple(_canonical_item(item, x) for item in _key_items(key))
    steps, advanced = _parse_key(x, items)
    if not advanced:
        copy_(region(x, steps) if steps else x, value)
        return
    if isinstance(value, Tensor) and value.dtype is not x.dtype:
        if not (_is_one_mask(items) and value.numel() == 1):  # PyTorch's masked_fill case
            raise RuntimeError(
                f"Index put requires the source and destination dtypes match, got "
                f"{x.dtype.name} for the destination and {value.dtype.name} for the source "
                f"(convert it first: value.to(minitorch.{x.dtype.name}))"
            )
    apply_inplace(x, lambda old: _index_put(old, steps, advanced, value))


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


def _is_one_mask(items: tuple) -> bool:
    """Whether the only advanced item of a key is one boolean mask tensor."""
    tensors = [item for item in items if isinstance(item, Tensor)]
    has_bool = any(isinstance(item, bool) for item in items)
    return len(tensors) == 1 and tensors[0].dtype is bool_ and not has_bool


def _index_put(x: Tensor, steps: list, advanced: list, value: Any) -> Tensor:
    """``x`` with the elements picked by ``(steps, advanced)`` replaced by ``value``
    (out of place). The same key applied to a tensor of positions ``0, 1, 2, ...`` says
    which elements of ``x`` are written."""
    positions = Tensor._make(dispatch.from_numpy(np.arange(x.numel(), dtype=np.int64), x.device.type),
                       x._shape, contiguous_strides(x._shape), 0, int64, x.device)  # fmt: skip
    targets = _advanced_index(region(positions, steps) if steps else positions, advanced)
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
