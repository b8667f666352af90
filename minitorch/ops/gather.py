"""Picking elements with index tensors: ``gather``, ``scatter_add``, ``index_select``,
``masked_fill`` and ``nonzero`` (``t[...]`` builds on them, in ``indexing.py``).

``gather`` reads along one dimension at positions an index tensor names; its gradient
``scatter_add`` adds back along the same positions. For dim 1 of a 2-D tensor:

    for i in range(index.shape[0]):
        for j in range(index.shape[1]):
            out[i][j] = x[i][index[i][j]]          # gather
            out[i][index[i][j]] += src[i][j]       # scatter_add (out starts as x)

Indices are checked here, before any kernel runs: the kernels do no bounds checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_, check_scalar_fits, from_numpy_dtype, int32, int64
from minitorch.layout import contiguous_strides, is_contiguous, normalize_dim
from minitorch.ops.common import cast, require_tensor

INDEX_DTYPES = (int64, int32, bool_)


def as_index_tensor(item: Any, like: Tensor) -> Tensor:
    """``item`` (a tensor, list or array of ints or bools) as an index tensor on ``like``'s
    device: int64 or bool (a CPU index may index a CUDA tensor, as in PyTorch)."""
    if isinstance(item, Tensor):
        index = item
        if index.device != like.device and index.device.type == "cpu":
            index = index.to(like.device)  # like PyTorch: CPU indices may index a CUDA tensor
    else:
        array = np.asarray(item)
        if array.dtype.kind not in "iub" or (array.size == 0 and array.dtype.kind == "f"):
            array = array.astype(np.int64) if array.size == 0 else array
        if array.dtype.kind not in "iub":
            raise IndexError(
                "tensors used as indices must be long, int, byte or bool tensors"
            )
        array = array.astype(np.bool_ if array.dtype.kind == "b" else np.int64, copy=False)
        storage = dispatch.from_numpy(array.reshape(-1), like.device.type)  # a copy: the array stays theirs
        index = Tensor._make(storage, array.shape, contiguous_strides(array.shape), 0,
                       from_numpy_dtype(array.dtype), like.device)  # fmt: skip
    if index.dtype not in INDEX_DTYPES:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return index


def nonzero(x: Tensor, as_tuple: bool = False) -> Any:
    """Indices of the nonzero elements: an ``(n, ndim)`` int64 tensor, or one 1-D tensor
    per dimension with ``as_tuple=True``. (A 0-d tensor counts as one element: ``(n, 0)``,
    or one tensor ``[0]`` or ``[]``, as in PyTorch.) The positions are found on the host,
    by NumPy, in one pass over the values: the count and the positions together."""
    require_tensor("nonzero", x)
    found = np.nonzero(np.atleast_1d(_host_values(x)))
    if as_tuple:
        return tuple(as_index_tensor(f, x) for f in found)
    return as_index_tensor(np.stack(found, axis=1)[:, : x.ndim], x)


def _host_values(x: Tensor) -> np.ndarray:
    """``x``'s values as a NumPy array on the host: for a contiguous mask (what a
    comparison makes) the run of its storage, read in place; otherwise its strided
    view (bfloat16 decoded to float32)."""
    if x.dtype is bool_ and is_contiguous(x._shape, x._strides):
        storage = dispatch.to_numpy(x._storage, x.device.type)
        return storage[x._offset : x._offset + x.numel()].reshape(x._shape)
    return x.detach().cpu()._host_array()


def _check_index(name: str, x: Tensor, dim: int, index: Tensor, other: Tensor | None) -> Tensor:
    """Check ``index`` as PyTorch does and return it as int64 (the kernels' index type):
    PyTorch takes int32 indices too, and an empty index of any integer dtype."""
    empty_integers = index.numel() == 0 and index.dtype is not bool_ and not index.dtype.is_floating_point
    if index.dtype is int32 or empty_integers:
        index = cast(index, int64)
    if index.dtype is not int64:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index.ndim != x.ndim and not (index.ndim <= 1 and x.ndim <= 1):
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as input tensor "
            f"({index.ndim} vs {x.ndim})"
        )
    for d in range(index.ndim):
        if d != dim and index._shape[d] > x._shape[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index.shape)} to "
                f"be smaller than self {list(x.shape)} apart from dimension {dim}"
            )
        if other is not None and index._shape[d] > other._shape[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index.shape)} to "
                f"be smaller than src {list(other.shape)}"
            )
    size = x._shape[dim] if x.ndim else 1

    def check(values: np.ndarray) -> None:  # on the host: one copy, no kernels
        bad = values[(values >= size) | (values < 0)]
        if bad.size:
            worst = bad.reshape(-1)[0]
            raise RuntimeError(f"index {worst} is out of bounds for dimension {dim} with size {size}")

    dispatch.validate(index, check)
    return index


def _reads_as_1d(x: Tensor, index: Tensor) -> bool:
    """PyTorch's gather and scatter read a 0-d input or index as a 1-D one of one element
    (when the other is at most 1-D): ``gather(tensor(2.), 0, tensor(0))`` is ``tensor(2.)``."""
    return min(x.ndim, index.ndim) == 0 and max(x.ndim, index.ndim) <= 1


class Gather(Function):
    """``out[i][j] = x[i][index[i][j]]`` (dim 1);  gradient: scatter_add it back."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dim: int, index: Tensor) -> Tensor:
        ctx.save_for_backward(index)
        ctx.shape, ctx.dim = x._shape, dim
        out = Tensor._empty(index._shape, x.dtype, x.device)
        return dispatch.gather(out, x, dim, index)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (index,) = ctx.saved_tensors
        zeros = Tensor._full(ctx.shape, 0, grad.dtype, grad.device)
        return zeros.scatter_add(ctx.dim, index, grad), None, None


class ScatterAdd(Function):
    """``out = x`` then ``out[i][index[i][j]] += src[i][j]`` (dim 1).
    Gradients: ``x`` gets ``grad``; ``src`` gets ``grad`` gathered at ``index``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim = dim
        out = Tensor._empty(x._shape, x.dtype, x.device)
        dispatch.map("copy", out, x)
        src = cast(src, x.dtype)
        if src._shape != index._shape:  # only the part of src that index covers is used
            src = src._view(index._shape, src._strides, src._offset)
        return dispatch.scatter_add(out, dim, index, src)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (index,) = ctx.saved_tensors
        return grad, None, None, grad.gather(ctx.dim, index)


def gather(x: Tensor, dim: int, index: Tensor) -> Tensor:
    d = normalize_dim(dim, x.ndim)
    if _reads_as_1d(x, index):
        return gather(x.reshape(-1), 0, index.reshape(-1)).reshape(index.shape)
    index = _check_index("gather", x, d, index, None)
    return Gather.apply(x, d, index)


class PickPerRow(Function):
    """``out[i] = x[i, index[i]]``: one entry of each row of the matrix ``x``, chosen by
    the vector ``index`` (checked by the caller): one gather kernel (``nll_loss``: each
    sample's log-probability of its class). Its gradient puts each ``grad[i]`` back at
    ``[i, index[i]]`` of a zero matrix (``ScatterPerRow``).

    The kernel walks the last dimension of its output one stride step at a time, so the
    samples are laid along it: ``out`` as a row ``[1, N]``, ``x`` read as its transpose
    ``[C, N]`` (a view), gathered along dim 0: ``out[0, i] = xT[index[i], i] = x[i, index[i]]``.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, index: Tensor) -> Tensor:
        ctx.index, ctx.shape = index, x._shape
        out = Tensor._empty((1,) + index._shape, x.dtype, x.device)
        transposed = x._view(x._shape[::-1], x._strides[::-1], x._offset)
        dispatch.gather(out, transposed, 0, _as_row(index))
        out._shape, out._strides = index._shape, (1,)  # (new, seen by no one else: reshaped where it lies)
        return out

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return ScatterPerRow.apply(grad, ctx.index, ctx.shape), None


class ScatterPerRow(Function):
    """A new matrix of ``shape``, zero except ``out[i, index[i]] = values[i]``: one
    scatter-add kernel into new zeros (the gradient of ``PickPerRow``). Its own gradient
    reads the same entries back (``PickPerRow``)."""

    @staticmethod
    def forward(ctx: FunctionCtx, values: Tensor, index: Tensor, shape: tuple) -> Tensor:
        ctx.index = index
        zeros = Tensor._full(shape, 0, values.dtype, values.device)
        return dispatch.scatter_add(zeros, 1, _as_column(index), _as_column(values))

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return PickPerRow.apply(grad, ctx.index), None, None


def pick_per_row(x: Tensor, index: Tensor) -> Tensor:
    """``x[i, index[i]]`` for every row ``i`` (``PickPerRow``)."""
    return PickPerRow.apply(x, index)


def scatter_per_row(shape: tuple[int, int], index: Tensor, values: Tensor) -> Tensor:
    """A zero matrix of ``shape`` with ``values[i]`` at ``[i, index[i]]`` (``ScatterPerRow``)."""
    return ScatterPerRow.apply(values, index, shape)


def _as_row(t: Tensor) -> Tensor:
    """The vector ``t`` as a one-row matrix: a view, for the kernels (no graph)."""
    return t._view((1,) + t._shape, (t._shape[0] * t._strides[0] or 1,) + t._strides, t._offset)


def _as_column(t: Tensor) -> Tensor:
    """The vector ``t`` as a one-column matrix: a view, for the kernels (no graph)."""
    return t._view(t._shape + (1,), t._strides + (1,), t._offset)


def scatter_add(x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d = normalize_dim(dim, x.ndim)
    if _reads_as_1d(x, index):
        flat_src = src.reshape(-1) if src.ndim == 0 else src
        return scatter_add(x.reshape(-1), 0, index.reshape(-1), flat_src).reshape(x.shape)
    index = _check_index("scatter_add", x, d, index, src)
    return ScatterAdd.apply(x, d, index, src)


def index_select(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries ``index`` along ``dim`` (a copy): ``x.index_select(0, idx)`` = rows."""
    d = normalize_dim(dim, x.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (int64, int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    index = cast(index, int64).reshape(-1)
    size = x._shape[d] if x.ndim else 1

    def check(values: np.ndarray) -> None:  # (read unsigned, a negative index is a huge one)
        if values.size and values.view(np.uint64).max() >= size:
            raise IndexError(f"index out of range in self (dimension {d} has size {size})")

    dispatch.validate(index, check)
    return select_entries(x, d, index)


def select_entries(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """``index_select`` of an int64 vector ``index`` already checked to lie in
    ``[0, x.shape[dim])``: one ``gather``, whose index is the vector stretched (stride 0)
    over the other dimensions of the output. For rows of a matrix (``dim == 0``)::

        out[i][j] = x[index[i]][j]"""
    if x.ndim == 0:
        return x.reshape(1).index_select(0, index).reshape(())
    shape = x._shape[:dim] + (index._shape[0],) + x._shape[dim + 1 :]
    strides = tuple(index._strides[0] if k == dim else 0 for k in range(x.ndim))
    return Gather.apply(x, dim, index._view(shape, strides, index._offset))


def masked_fill(x: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``value`` (converted to ``x``'s dtype) where ``mask`` is True, ``x`` elsewhere."""
    if mask.dtype is not bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{mask.dtype.name} (make one with a comparison, or mask.bool())"
        )
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return x.where(~mask, value.to(x.dtype))
    check_scalar_fits(value, x.dtype)
    return x.where(~mask, Tensor._full((), value, x.dtype, x.device))
