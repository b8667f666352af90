"""Sorting: ``sort``, ``argsort``, ``topk``, ``msort`` and ``unique``.

One kernel, ``sort``, orders every line along a dimension and says where each value came
from (``values[i] = x[indices[i]]``); the rest is built on it:

* ``argsort`` is the ``indices`` of ``sort``;
* ``topk(k)`` is the first ``k`` of a sort (largest first: descending), a ``narrow``;
* ``unique`` sorts the flattened tensor, then keeps the first of each run of equal
  values.

The order is PyTorch's: NaN is larger than every number (last ascending, first
descending), and the kernels are *stable* (equal values keep their order), which is what
``stable=True`` asks for; without it PyTorch may order ties either way.

Gradient: sorting only moves values, so each value's gradient goes back to the position
it came from: ``grad_x = zeros.scatter_add(dim, indices, grad_values)``.
"""

from __future__ import annotations

from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.creation import arange
from minitorch.dtypes import bool_, int64
from minitorch.layout import as_int, normalize_dim, numel
from minitorch.ops import return_types
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat


class Sort(Function):
    """``values, indices = sort(x, dim)``;  ``dx = zeros.scatter_add(dim, indices, dvalues)``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dim: int, descending: bool) -> tuple:
        values = Tensor._empty(x._shape, x.dtype, x.device)
        indices = Tensor._empty(x._shape, int64, x.device)
        dispatch.sort(values, indices, x, dim, descending)
        ctx.save_for_backward(indices)
        ctx.dim = dim
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor, grad_indices: Tensor) -> tuple:
        (indices,) = ctx.saved_tensors
        return grad.new_zeros(grad.shape).scatter_add(ctx.dim, indices, grad), None, None


def _sorted(name: str, x: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
    """``Sort`` along ``dim``; a 0-d tensor is sorted as one element of a line."""
    require_tensor(name, x)
    d = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        values, indices = Sort.apply(x.reshape(1), 0, descending)
        return values.reshape(()), indices.reshape(())
    return Sort.apply(x, d, descending)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """``(values, indices)``: ``input`` sorted along ``dim`` (ascending unless
    ``descending``) and the position along ``dim`` each value came from. Ties keep their
    order (the kernels are stable, so ``stable=True`` holds either way)."""
    return return_types.sort(*_sorted("sort", input, dim, descending))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``: ``sort(input, dim).indices``."""
    return _sorted("argsort", input, dim, descending)[1]


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along its first dimension: ``sort(input, dim=0).values``."""
    return _sorted("msort", input, 0, False)[0]


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements
    along ``dim``: the first ``k`` of a descending (ascending) sort. They come out sorted
    whether or not ``sorted`` asks for it (PyTorch's order without it is unspecified)."""
    require_tensor("topk", input)
    d = normalize_dim(dim, input.ndim)
    size = input._shape[d] if input.ndim else 1
    k = as_int(k, "k")
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range: k={k} for a dimension of size {size}")
    values, indices = _sorted("topk", input, d, largest)
    if input.ndim == 0:
        return return_types.topk(values, indices)
    return return_types.topk(values.narrow(d, 0, k), indices.narrow(d, 0, k))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:  # fmt: skip
    """The distinct elements of ``input``, ascending (also with ``sorted=False``, as
    PyTorch's CPU kernel does); with ``return_inverse`` also where each element of
    ``input`` went (``unique[inverse] == input``), with ``return_counts`` how often each
    occurs. Not differentiable. NaNs are all distinct, as ``nan != nan`` says::

        values, order = sort(input.flatten())
        first = [True] + [values[i] != values[i - 1] for i > 0]   start of each run
        unique = values[first];  group = cumsum(first) - 1       run of each sorted value
        inverse[order[i]] = group[i];  counts = run lengths

    With ``dim``: the distinct slices along ``dim`` (rows for ``dim=0``), in
    lexicographic order, found the same way once the slices are sorted.
    """
    require_tensor("unique", input)
    x = input.detach()
    if dim is None:
        values, order = _sorted("unique", x.reshape(-1), 0, False)
        first = _run_starts(values)
        result = values[first]
        inverse_shape = input.shape
    else:
        if x.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = normalize_dim(dim, x.ndim)
        if 0 in x.shape[:d] + x.shape[d + 1 :]:
            raise RuntimeError(
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
            )
        moved = x.transpose(0, d)
        rows = moved.reshape(moved.shape[0], numel(moved.shape[1:]))
        order = _lexicographic_order(rows)
        rows = rows.index_select(0, order)
        first = _run_starts(rows)
        result = rows[first].reshape((-1,) + moved.shape[1:]).transpose(0, d)
        inverse_shape = (moved.shape[0],)
    if not (return_inverse or return_counts):
        return result
    extras = []
    n = first.shape[0]
    if return_inverse:
        group = first.to(int64).cumsum(0) - 1
        inverse = group.new_zeros(n).scatter_add(0, order, group)
        extras.append(inverse.reshape(inverse_shape))
    if return_counts:
        starts = first.nonzero().reshape(-1)
        ends = cat([starts[1:], starts.new_tensor([n])]) if n else starts
        extras.append(ends - starts)
    return (result, *extras)


def _run_starts(items: Tensor) -> Tensor:
    """Where each run of equal items of a sorted tensor starts (the items are its
    elements, or its rows when 2-D): the first item, and every item unlike the one before."""
    first = items.new_ones(items.shape[0], dtype=bool_)
    if items.shape[0] > 1:
        differs = items[1:] != items[:-1]
        first[1:] = differs if differs.ndim == 1 else differs.any(1)
    return first


def _lexicographic_order(rows: Tensor) -> Tensor:
    """The order that sorts the rows of a 2-D tensor lexicographically (first column
    first, ties broken by the next...): a stable sort by each column, from the *last*
    column to the first (an LSD radix sort), each sort keeping the order of the last."""
    order = arange(rows.shape[0], device=rows.device)
    for column in reversed(range(rows.shape[1])):
        keys = rows.index_select(0, order)[:, column]
        order = order.index_select(0, _sorted("unique", keys, 0, False)[1])
    return order
