"""Reductions: ``sum``, ``mean``, ``prod``, ``max``, ``min``, ``argmax``,
``logsumexp``, ``all``, ``any`` and ``norm`` (``var`` and ``std`` live in ``variance.py``,
the ``softmax`` family in ``softmax.py``).

The ``reduce`` kernel folds *one* dimension into size 1. Reducing several dimensions
folds them one after another; without ``keepdim`` the size-1 dimensions are then
squeezed away. The backward of a reduction does the opposite: it puts the removed
dimensions back (``unsqueeze``) and spreads the gradient over them (``expand``).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bfloat16, bool_, float16, float32, int64
from minitorch.layout import normalize_dim, normalize_dims, numel, reduction_dims
from minitorch.ops.common import cast, require_tensor
from minitorch.ops.variance import Root, std, var  # noqa: F401 (reduce.var, reduce.std: Tensor methods)

# (values, indices), like PyTorch's torch.return_types.max
ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def fold(op: str, x: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Run the ``reduce`` kernel over each of ``dims`` (no graph). The result is always a
    new tensor: a 0-d ``x`` (nothing to fold) is one run of one element.

    Without ``keepdim`` the folded size-1 dimensions are dropped. The folded tensor is
    new and seen by no one else, so they are dropped from its own shape and strides: the
    result is a tensor of its own, not a view (with no dims, nothing was folded: then
    it is a view of ``x``)."""
    if not x._shape:
        one = x._view((1,), (1,), x._offset)
        summed = dispatch.reduce(op, Tensor._empty((1,), x.dtype, x.device), one, 0)
        summed._shape, summed._strides = (), ()  # (new, seen by no one else: reshaped where it lies)
        return summed
    if not dims:
        return x if keepdim else x._view(*_squeezed(x, dims))
    for d in dims:
        if x._shape[d] == 0 and op in ("max", "min"):
            raise IndexError(
                f"{op}(): Expected reduction dim {d} to have non-zero size."
            )
        shape = x._shape[:d] + (1,) + x._shape[d + 1 :]
        out = Tensor._empty(shape, x.dtype, x.device)
        x = dispatch.reduce(op, out, x, d)
    if not keepdim:  # (``x`` is new and seen by no one else: its size-1 dims dropped where it lies)
        x._shape, x._strides, x._offset = _squeezed(x, dims)
    return x


def _squeezed(x: Tensor, dims: tuple[int, ...]) -> tuple:
    if len(dims) == len(x._shape):  # everything folded: one element
        return (), (), x._offset
    keep = [d for d in range(x.ndim) if d not in dims]
    return (tuple(x._shape[d] for d in keep), tuple(x._strides[d] for d in keep), x._offset)


def expand_back(grad: Tensor, shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Spread a reduction's gradient back over the reduced dimensions. (A 0-d gradient,
    of a reduction over everything, needs no ``unsqueeze``: ``expand`` adds the leading
    dimensions by itself, as in PyTorch's backward of ``sum()``.)"""
    if not keepdim and grad._shape:
        for d in dims:
            grad = grad.unsqueeze(d)
    return grad.expand(shape)


def sum_dtype(x: Tensor) -> Any:
    """Sums of bool and integer tensors are int64, as in PyTorch."""
    return x.dtype if x.dtype.is_floating_point else int64


def accumulation_dtype(dtype: Any) -> Any:
    """The dtype a statistic of ``dtype`` values is computed in: float32 for the 16-bit
    floats, whose largest value is 65504 (float16) or which keep 8 bits (bfloat16), as
    PyTorch does. ``mean`` of 4000 values of 30.0 sums to 120000: in float16 that is
    ``inf``, in float32 it is exact, and 120000 / 4000 = 30.0 rounds back to float16.
    The statistic is rounded to 16 bits once, at the end."""
    return float32 if dtype in (float16, bfloat16) else dtype


class Sum(Function):
    """y = sum of x over dims;  dy/dx = 1 for every summed element"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dims: tuple, keepdim: bool) -> Tensor:
        ctx.shape, ctx.dims, ctx.keepdim = x._shape, dims, keepdim
        return fold("sum", cast(x, sum_dtype(x)), dims, keepdim)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None


class SumOverDims(Sum):
    """``sum(x, dim)``: the same op as ``Sum``; PyTorch names its node ``SumBackward1``."""

    node_name = "SumBackward1"


class Mean(Function):
    """y = sum(x) / n, summed and divided in the accumulation dtype;  dy/dx = 1 / n"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dims: tuple, keepdim: bool) -> Tensor:
        ctx.shape, ctx.dims, ctx.keepdim = x._shape, dims, keepdim
        ctx.count = numel([x._shape[d] for d in dims])
        total = fold("sum", cast(x, accumulation_dtype(x.dtype)), dims, keepdim)
        return cast(total / ctx.count, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return expand_back(grad / ctx.count, ctx.shape, ctx.dims, ctx.keepdim), None, None


class MeanOverDims(Mean):
    """``mean(x, dim)``: the same op as ``Mean``; PyTorch names its node ``MeanBackward1``."""

    node_name = "MeanBackward1"


class Prod(Function):
    """y = product of x;  dy/dx_i = product of the *other* elements.

    That is ``y / x_i`` when no element is zero. With exactly one zero, only the zero's
    own gradient is nonzero (the product of the rest); with two or more, all are zero.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dims: tuple, keepdim: bool) -> Tensor:
        ctx.save_for_backward(x)
        ctx.dims, ctx.keepdim = dims, keepdim
        return fold("prod", cast(x, sum_dtype(x)), dims, keepdim)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        dims, shape = ctx.dims, x.shape
        is_zero = x == 0
        safe = x.where(~is_zero, 1.0)
        product_of_nonzeros = safe.prod(dims, keepdim=True)
        zeros = is_zero.sum(dims, keepdim=True)
        others = (product_of_nonzeros / safe).where(zeros == 0, 0.0)
        others = others.where(~is_zero, product_of_nonzeros.where(zeros == 1, 0.0))
        return expand_back(grad, shape, dims, ctx.keepdim) * others, None, None


class Extreme(Function):
    """``max``/``min`` over dims (``amax``/``amin``): the gradient is shared evenly among
    the elements equal to the extreme value."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, op: str, dims: tuple, keepdim: bool) -> Tensor:
        y = fold(op, x, dims, keepdim)
        ctx.save_for_backward(x, y)
        ctx.dims, ctx.keepdim = dims, keepdim
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        shape = x.shape
        hits = x == expand_back(y, shape, ctx.dims, ctx.keepdim)
        count = hits.sum(ctx.dims, keepdim=True)
        return expand_back(grad, shape, ctx.dims, ctx.keepdim) * hits / count, None, None, None


class ExtremeWithIndex(Function):
    """``max(dim)``/``min(dim)``: values and the index where each was found. The
    gradient goes to that one element (``scatter_add`` into zeros)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, op: str, dim: int, keepdim: bool) -> tuple:
        values = fold(op, x, (dim,), keepdim=True)
        indices = arg_fold("arg" + op, x, dim)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim, ctx.keepdim = x._shape, dim, keepdim
        ctx.mark_non_differentiable(indices)
        if not keepdim:
            values = values._view(*_squeezed(values, (dim,)))
            indices = indices._view(*_squeezed(indices, (dim,)))
        return values, indices

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor, grad_indices: Tensor) -> tuple:
        (indices,) = ctx.saved_tensors  # kept with keepdim=True
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        zeros = grad.new_zeros(ctx.shape)
        return zeros.scatter_add(ctx.dim, indices, grad), None, None, None


# The same two ops under PyTorch's node names: max() of all elements is MaxBackward1,
# max(dim) MaxBackward0, amax AmaxBackward0 (and likewise for min).
class MaxAll(Extreme):
    node_name = "MaxBackward1"


class MinAll(Extreme):
    node_name = "MinBackward1"


class Amax(Extreme):
    node_name = "AmaxBackward0"


class Amin(Extreme):
    node_name = "AminBackward0"


class MaxAlongDim(ExtremeWithIndex):
    node_name = "MaxBackward0"


class MinAlongDim(ExtremeWithIndex):
    node_name = "MinBackward0"


def arg_fold(op: str, x: Tensor, dim: int) -> Tensor:
    """The ``arg_reduce`` kernel over one dimension; the result keeps it with size 1."""
    if x._shape[dim] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {dim} to have non-zero size.")
    out = Tensor._empty(x._shape[:dim] + (1,) + x._shape[dim + 1 :], int64, x.device)
    return dispatch.arg_reduce(op, out, x, dim)


# ----- the functions users call -------------------------------------------------------


def sum(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (an int, a tuple, or None for all)."""
    require_tensor("sum", x)
    if dtype is not None:
        x = x.to(dtype)
    return (Sum if dim is None else SumOverDims).apply(x, reduction_dims(dim, x.ndim), keepdim)


def mean(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    require_tensor("mean", x)
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {x.dtype.type_name}"
        )
    return (Mean if dim is None else MeanOverDims).apply(x, reduction_dims(dim, x.ndim), keepdim)


def prod(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    require_tensor("prod", x)
    if dtype is not None:
        x = x.to(dtype)
    return Prod.apply(x, normalize_dims(dim, x.ndim), keepdim)


def _max_or_min(op: str, x: Tensor, dim: Any, keepdim: bool) -> Any:
    require_tensor(op, x)
    if isinstance(dim, Tensor):  # max(a, b) is the elementwise maximum
        return x.maximum(dim) if op == "max" else x.minimum(dim)
    if dim is None:
        if x.numel() == 0:
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return (MaxAll if op == "max" else MinAll).apply(x, op, normalize_dims(None, x.ndim), False)
    d = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        return ValuesIndices(x.clone(), Tensor._full((), 0, int64, x.device))
    values, indices = (MaxAlongDim if op == "max" else MinAlongDim).apply(x, op, d, keepdim)
    return ValuesIndices(values, indices)


def max(x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """The largest element, or ``(values, indices)`` along ``dim``."""
    return _max_or_min("max", x, dim, keepdim)


def min(x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """The smallest element, or ``(values, indices)`` along ``dim``."""
    return _max_or_min("min", x, dim, keepdim)


def amax(x: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    require_tensor("amax", x)
    return Amax.apply(x, "max", reduction_dims(dim, x.ndim), keepdim)


def amin(x: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    require_tensor("amin", x)
    return Amin.apply(x, "min", reduction_dims(dim, x.ndim), keepdim)


def _arg(op: str, x: Tensor, dim: Any, keepdim: bool) -> Tensor:
    require_tensor(op, x)
    if x.dtype == bool_:  # PyTorch refuses too: which of several Trues is "largest"?
        raise RuntimeError(f"{op}(): does not support bool input (convert first with x.int())")
    if dim is None:
        flat = x.reshape(-1)
        result = arg_fold(op, flat, 0)
        return result.reshape((1,) * x.ndim) if keepdim else result.reshape(())
    d = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        return Tensor._full((), 0, int64, x.device)
    result = arg_fold(op, x, d)
    return result if keepdim else result._view(*_squeezed(result, (d,)))


def argmax(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index of the (first) largest element, over everything or along ``dim``."""
    return _arg("argmax", x, dim, keepdim)


def argmin(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _arg("argmin", x, dim, keepdim)


def logsumexp(x: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` computed stably: subtract the max first, add it back after."""
    require_tensor("logsumexp", x)
    dims = normalize_dims(dim, x.ndim)
    if not x.dtype.is_floating_point:
        x = x.float()
    shift = x.detach().amax(dims, keepdim=True) if x.numel() else x.new_zeros(())
    shift = shift.where(shift.abs() != float("inf"), 0.0)
    total = (x - shift).exp().sum(dims, keepdim=True).log() + shift
    return total if keepdim else total.squeeze(dims)


def all(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where every element (along ``dim``) is nonzero."""
    require_tensor("all", x)
    return fold("all", cast(x, bool_), normalize_dims(dim, x.ndim), keepdim)


def any(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where some element (along ``dim``) is nonzero."""
    require_tensor("any", x)
    return fold("any", cast(x, bool_), normalize_dims(dim, x.ndim), keepdim)


def norm(x: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Tensor:
    """The vector p-norm over ``dim`` (all elements by default): ``p=2`` (or "fro") is
    ``sqrt(sum(x^2))``, ``p=1`` is ``sum(|x|)``, ``p=inf`` is ``max(|x|)``. The gradient
    at a zero vector is 0, as in PyTorch (see ``Root``). ``p=0`` counts the nonzeros."""
    require_tensor("norm", x)
    dims = reduction_dims(dim, x.ndim)
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"norm(): expected a floating point tensor as input, got {x.dtype.name} "
            f"(convert first with x.float())"
        )
    if p in ("fro", 2, 2.0):
        return Root.apply((x * x).sum(dims, keepdim), 2)
    if p == 0:
        return (x != 0).sum(dims, keepdim).to(x.dtype)
    if p == 1:
        return x.abs().sum(dims, keepdim)
    if p == float("inf"):
        return x.abs().amax(dims, keepdim)
    return Root.apply((x.abs() ** p).sum(dims, keepdim), p)
