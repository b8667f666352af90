"""Reading and writing at index positions: ``index_add``, ``index_copy``, ``index_put``,
``put``, ``take``, ``take_along_dim``, ``masked_select``, ``masked_scatter``,
``scatter_reduce``; and the questions about positions ``argwhere``, ``count_nonzero``,
``isin``, ``bucketize``.

Each is one of the gather/scatter primitives seen through a reshape. ``index_add`` along
dim 1 of a matrix adds ``source[:, j]`` into column ``index[j]``; spelled with
``scatter_add`` that is "the index of every element of ``source`` is ``index[j]`` along
dim 1, and its own position along the other dims", so the index is ``index`` laid along
``dim`` and expanded to ``source``'s shape. ``put`` and ``take`` see the tensor as one
flat vector (``reshape(-1)``). Written from ops that have derivatives, so the gradient
of each comes for free.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.dtypes import bool_, int64, promote_types
from minitorch.layout import broadcast_shapes, normalize_dim
from minitorch.ops.choice import where
from minitorch.ops.common import is_number, require_tensor
from minitorch.ops.composite import scatter
from minitorch.ops.histogram import searchsorted
from minitorch.ops.inplace import inplace_variant
from minitorch.ops.shape import cat
from minitorch.ops.sort import sort


def _laid_along(function: str, x: Tensor, dim: int, index: Tensor, source: Tensor) -> tuple[int, Tensor]:
    """``(dim, index expanded to source's shape)`` after PyTorch's checks: a vector of
    int64 indices, one per slice of ``source`` along ``dim``, each in ``[0, size)``."""
    require_tensor(function, x)
    require_tensor(function, index, "index", 3)
    require_tensor(function, source, "source", 4)
    d = normalize_dim(dim, x.ndim)
    if index.ndim > 1:
        raise IndexError(
            f"{function}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
            f"Long and size: {list(index.shape)}"
        )
    if index.dtype is not int64:
        raise IndexError(f"{function}_(): Expected dtype int64 for index")
    if source.dtype is not x.dtype:
        raise RuntimeError(
            f"{function}_(): self ({x.dtype.name}) and source ({source.dtype.name}) must have the "
            "same scalar type"
        )
    count, size = index.numel(), (x.shape[d] if x.ndim else 1)
    if (source.shape[d] if source.ndim else 1) != count:
        raise IndexError(
            f"{function}_(): Number of indices ({count}) should be equal to source.size(dim) "
            f"({source.shape[d] if source.ndim else 1})"
        )
    if count and (int(index.min()) < 0 or int(index.max()) >= size):
        raise IndexError("index out of range in self")
    if x.ndim == 0:
        return 0, index.reshape(()).expand(source.shape)
    along = index.reshape([count if k == d else 1 for k in range(source.ndim)])
    return d, along.expand(source.shape)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``input`` with ``alpha * source[.., j, ..]`` added into slice ``index[j]`` along
    ``dim`` (a repeated index adds twice)."""
    d, spread = _laid_along("index_add", input, dim, index, source)
    added = source if alpha == 1 else source * alpha
    if input.ndim == 0:
        return input + added.sum()
    return input.scatter_add(d, spread, added)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """``input`` with slice ``index[j]`` along ``dim`` replaced by ``source[.., j, ..]``."""
    d, spread = _laid_along("index_copy", input, dim, index, source)
    if input.ndim == 0:
        return source.reshape(()).clone() if source.numel() else input.clone()
    return scatter(input, d, spread, source)


def _index_tensors(x: Tensor, indices: Any) -> list[Tensor]:
    """The index tensors of ``index_put``, a bool mask turned into the positions of its
    ``True`` entries (one index tensor per dimension it covers)."""
    found: list[Tensor] = []
    for item in indices:
        require_tensor("index_put", item, "indices")
        if item.dtype is bool_:
            found.extend(item.nonzero().unbind(1))
        else:
            found.append(item)
    return found


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:  # noqa: A002
    """``out = input.clone(); out[indices] = values`` (``accumulate=True``: ``+=``, where a
    repeated position adds every time). The accumulating form numbers each indexed
    position row-major, ``p = i0 * size1 + i1``, and adds with ``index_add`` into
    ``input`` seen as a ``(size0 * size1, rest...)`` matrix."""
    require_tensor("index_put", input)
    require_tensor("index_put", values, "values", 3)
    items = _index_tensors(input, indices)
    out = input.clone()
    if not accumulate:
        out[tuple(items)] = values
        return out
    lead = tuple(input.shape[: len(items)])
    shape = broadcast_shapes(*(tuple(i.shape) for i in items))
    position = items[0].new_zeros(shape)
    for item, size in zip(items, lead):
        position = position * size + item.expand(shape) % size
    rest = tuple(input.shape[len(items) :])
    rows = 1
    for size in lead:
        rows *= size
    added = values.expand(*shape, *rest).reshape(-1, *rest).to(input.dtype)
    return out.reshape(rows, *rest).index_add(0, position.reshape(-1), added).reshape(input.shape)


def _flat_index(function: str, x: Tensor, index: Tensor) -> Tensor:
    require_tensor(function, x)
    require_tensor(function, index, "index", 2)
    if index.dtype is not int64:
        raise RuntimeError(f"{function}(): Expected a long tensor for index, but got {index.dtype.name}")
    n = x.numel()
    if index.numel():
        low, high = int(index.min()), int(index.max())
        if low < -n or high >= n:
            bad = low if low < -n else high
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return index % n if n else index


def take(input: Tensor, index: Tensor) -> Tensor:  # noqa: A002
    """``input.reshape(-1)[index]``: elements by their row-major position, shaped like ``index``."""
    return input.reshape(-1)[_flat_index("take", input, index)]


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:  # noqa: A002
    """``input`` with the elements at row-major positions ``index`` set to ``source``
    (``accumulate=True``: increased by it)."""
    flat = _flat_index("put", input, index).reshape(-1)
    require_tensor("put", source, "source", 3)
    values = source.reshape(-1).to(input.dtype)
    line = input.reshape(-1)
    placed = line.index_add(0, flat, values) if accumulate else line.index_copy(0, flat, values)
    return placed.reshape(input.shape)


def take_along_dim(input: Tensor, indices: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    """``gather`` after broadcasting ``input`` and ``indices`` in every dim but ``dim``
    (no ``dim``: both flattened). ``take_along_dim(x, x.argsort(1), 1)`` sorts each row."""
    require_tensor("take_along_dim", input)
    require_tensor("take_along_dim", indices, "indices", 2)
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    d = normalize_dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices"
        )
    outside = [tuple(t.shape[:d]) + (1,) + tuple(t.shape[d + 1 :]) for t in (input, indices)]
    common = list(broadcast_shapes(*outside))
    source = input.expand(common[:d] + [input.shape[d]] + common[d + 1 :])
    return source.gather(d, indices.expand(common[:d] + [indices.shape[d]] + common[d + 1 :]))


def masked_select(input: Tensor, mask: Tensor) -> Tensor:  # noqa: A002
    """The elements where ``mask`` (broadcast with ``input``) is True, as a vector in
    row-major order."""
    require_tensor("masked_select", input)
    require_tensor("masked_select", mask, "mask", 2)
    if mask.dtype is not bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype.name}")
    shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return input.expand(shape)[mask.expand(shape)]


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """``input`` where ``mask`` is False; where it is True, the elements of ``source`` one
    after another in row-major order (the inverse of ``masked_select``)."""
    require_tensor("masked_scatter", input)
    require_tensor("masked_scatter", mask, "mask", 2)
    require_tensor("masked_scatter", source, "source", 3)
    if mask.dtype is not bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype.name}"
        )
    shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    chosen = mask.expand(shape)
    count = int(chosen.sum())
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = input.expand(shape).clone()
    out[chosen] = source.reshape(-1)[:count].to(input.dtype)
    return out


SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,  # noqa: A002
                   include_self: bool = True) -> Tensor:  # fmt: skip
    """``input`` where nothing is scattered; at each position that ``index`` names, the
    ``reduce`` (sum, prod, mean, amax, amin) of the ``src`` values sent there, and of the
    old value too with ``include_self``.

    ``sum`` and ``mean`` are ``scatter_add``s (of the values, and of ones to count them).
    The others compare every sent value with every target: along ``dim``, ``hit[j, i]``
    says "value ``j`` goes to position ``i``"; each target reduces its column, the values
    not sent there replaced by the reduction's identity (1, or -inf for amax). That costs
    ``index.numel() * input.shape[dim]``, fine for the sizes this library teaches with."""
    require_tensor("scatter_reduce", input)
    if reduce not in SCATTER_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if input.ndim == 0:
        return scatter_reduce(input.reshape(1), 0, index.reshape(-1), src.reshape(-1), reduce,
                              include_self=include_self).reshape(())  # fmt: skip
    d = normalize_dim(dim, input.ndim)
    base = input if include_self else scatter(input, d, index, 0)
    if reduce in ("sum", "mean"):
        part = src[tuple(slice(0, size) for size in index.shape)]
        total = base.scatter_add(d, index, part)
        if reduce == "sum":
            return total
        ones = part.new_ones(part.shape)
        count = input.new_zeros(input.shape).scatter_add(d, index, ones) + (1 if include_self else 0)
        count = where(count == 0, count.new_ones(()), count)
        if input.dtype.is_floating_point:
            return total / count
        return total.div(count, rounding_mode="floor")
    return _reduce_by_comparison(input, d, index, src, reduce, include_self)


def _reduce_by_comparison(x: Tensor, d: int, index: Tensor, src: Tensor, reduce: str,
                          include_self: bool) -> Tensor:  # fmt: skip
    """``prod``/``amax``/``amin`` of ``scatter_reduce`` (see there): candidates along
    ``d``, targets along a new last dim."""
    key = tuple(slice(0, size) for size in index.shape)
    part = src[key]
    region_key = tuple(slice(None) if k == d else key[k] for k in range(x.ndim))
    region = x[region_key]  # the part of x whose positions index can reach
    targets = index.new_tensor(list(range(x.shape[d])), dtype=int64)
    hit = index.unsqueeze(-1) == targets  # index.shape + (n,)
    if reduce == "prod":
        identity: Any = 1
    elif x.dtype.is_floating_point:
        identity = float("-inf") if reduce == "amax" else float("inf")
    else:
        identity = int(part.min()) if reduce == "amax" else int(part.max())
    candidates = where(hit, part.unsqueeze(-1), identity)
    if include_self:
        candidates = cat([region.movedim(d, -1).unsqueeze(d), candidates], d)
    reduced = getattr(candidates, reduce)(d).movedim(-1, d)
    touched = hit.any(d).movedim(-1, d)
    combined = where(touched, reduced.to(x.dtype), region)
    out = x.clone()
    out[region_key].copy_(combined)
    return out


def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    """The positions of the nonzero elements, one row of coordinates each (``nonzero``)."""
    require_tensor("argwhere", input)
    return input.nonzero()


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    """How many elements are not zero (over ``dim``: one count per remaining position)."""
    require_tensor("count_nonzero", input)
    return (input != 0).sum() if dim is None else (input != 0).sum(dim)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """For each of ``elements``, whether it is one of ``test_elements`` (``invert``: is not).

    Sort the test elements once; then each element's place in them (``searchsorted``)
    points at the only candidate that can be equal to it: ``O((n + m) log m)``, not the
    ``n * m`` comparisons of checking every pair."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: one of elements and "
                        "test_elements must be a Tensor")  # fmt: skip
    like = elements if isinstance(elements, Tensor) else test_elements
    if is_number(elements):
        elements = like.new_tensor(elements)
    if is_number(test_elements):
        test_elements = like.new_tensor(test_elements)
    require_tensor("isin", elements, "elements")
    require_tensor("isin", test_elements, "test_elements", 2)
    common = promote_types(elements.dtype, test_elements.dtype)
    values, tests = elements.detach().to(common), sort(test_elements.detach().reshape(-1).to(common)).values
    if tests.numel() == 0:
        found = values.new_zeros(values.shape, dtype=bool_)
    else:
        place = searchsorted(tests, values.reshape(-1)).clamp(max=tests.numel() - 1)
        found = (tests[place] == values.reshape(-1)).reshape(values.shape)
    return ~found if invert else found


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:  # noqa: A002
    """Which bucket each value falls in: the number of ``boundaries`` (sorted, 1-D) below it
    (``right=True``: at or below it). ``searchsorted`` with the arguments swapped."""
    require_tensor("bucketize", boundaries, "boundaries", 2)
    if is_number(input):
        input = boundaries.new_tensor(input)  # noqa: A001
    require_tensor("bucketize", input)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


METHODS = {
    "index_add": index_add, "index_copy": index_copy, "index_put": index_put, "put": put,
    "take": take, "take_along_dim": take_along_dim, "masked_select": masked_select,
    "masked_scatter": masked_scatter, "scatter_reduce": scatter_reduce, "argwhere": argwhere,
    "count_nonzero": count_nonzero,
}  # fmt: skip
METHODS.update({f"{name}_": inplace_variant(METHODS[name]) for name in (
    "index_add", "index_copy", "index_put", "put", "masked_scatter", "scatter_reduce")})  # fmt: skip
