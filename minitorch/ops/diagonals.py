"""The parts of a matrix picked by its diagonals: ``diagonal``, ``diag``, ``diag_embed``,
``tril``, ``triu``.

Element ``[i, j]`` of a matrix lies on diagonal number ``k = j - i``: 0 is the main
diagonal, ``k > 0`` the ones above it, ``k < 0`` below. So

* ``diagonal(x, k)`` reads the elements with ``j - i == k``. It is a *view*: stepping
  one place along a diagonal moves one row down and one column right, which is one step
  of ``strides[0] + strides[1]`` in storage. No data is copied;
* ``diag_embed(v, k)`` does the opposite: a zero matrix with ``v`` written on diagonal
  ``k`` (and ``diag`` is either of the two, for a vector or a matrix);
* ``tril(x, k)`` keeps the elements with ``j - i <= k`` (on and below diagonal ``k``)
  and sets the rest to 0; ``triu(x, k)`` keeps ``j - i >= k``. Each is one ``where``
  kernel with a mask built from the row and column numbers.

With more than two dimensions, the leading ones are a batch: every matrix gets the same
treatment (``diagonal``/``diag_embed`` may name any two dimensions as the matrix's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import creation, dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import clone


def diagonal_layout(shape: tuple, strides: tuple, offset: int, k: int, dim1: int, dim2: int) -> tuple:
    """``(shape, strides, offset)`` of diagonal ``k`` of dimensions ``dim1`` (rows) and
    ``dim2`` (columns): the other dimensions in order, then the diagonal. Its element
    ``i`` is ``[i, i + k]`` when ``k >= 0`` and ``[i - k, i]`` when ``k < 0``."""
    rows, columns = shape[dim1], shape[dim2]
    if k >= 0:
        length, start = min(rows, columns - k), offset + k * strides[dim2]
    else:
        length, start = min(rows + k, columns), offset - k * strides[dim1]
    if length <= 0:  # the diagonal is outside the matrix: an empty view
        length, start = 0, offset
    kept = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    return (tuple(shape[d] for d in kept) + (length,),
            tuple(strides[d] for d in kept) + (strides[dim1] + strides[dim2],), start)  # fmt: skip


class Diagonal(Function):
    """y = diagonal k of x, a view;  each y element is one x element, so the gradient is
    a zero tensor of x's shape with dL/dy written on that diagonal (``DiagEmbed``)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, k: int, dim1: int, dim2: int) -> Tensor:
        ctx.shape, ctx.where = x._shape, (k, dim1, dim2)
        return x._view(*diagonal_layout(x._shape, x._strides, x._offset, k, dim1, dim2))

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return DiagEmbed.apply(grad, ctx.shape, *ctx.where), None, None, None


class DiagEmbed(Function):
    """y = a zero tensor of ``shape`` with v written on diagonal k;  the gradient is the
    same diagonal of dL/dy (``Diagonal``): each is the other's backward."""

    @staticmethod
    def forward(ctx: FunctionCtx, v: Tensor, shape: tuple, k: int, dim1: int, dim2: int) -> Tensor:
        ctx.where = (k, dim1, dim2)
        out = Tensor._full(shape, 0, v.dtype, v.device)
        on_diagonal = diagonal_layout(out._shape, out._strides, 0, k, dim1, dim2)
        dispatch.map("copy", out._view(*on_diagonal), v)
        return out

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return Diagonal.apply(grad, *ctx.where), None, None, None, None


def _matrix_dims(function: str, ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = layout.normalize_dim(dim1, ndim), layout.normalize_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"{function} dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """Diagonal ``offset`` of the matrices in dimensions ``dim1``, ``dim2``, as a view
    (the diagonal becomes the last dimension)."""
    require_tensor("diagonal", input)
    d1, d2 = _matrix_dims("diagonal", input.ndim, dim1, dim2)
    return Diagonal.apply(input, diagonal_number("diagonal", offset, "offset"), d1, d2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    """Matrices in dimensions ``dim1``, ``dim2`` (of the result) with the last dimension of
    ``input`` on diagonal ``offset`` and zeros elsewhere."""
    require_tensor("diag_embed", input)
    offset = diagonal_number("diag_embed", offset, "offset")
    d1, d2 = _matrix_dims("diagonal", input.ndim + 1, dim1, dim2)
    size = input._shape[-1] + abs(offset)
    shape = list(input._shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, size)
    return DiagEmbed.apply(input, tuple(shape), offset, d1, d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """A vector to a square matrix with it on diagonal ``diagonal``; a matrix to (a copy
    of) its diagonal ``diagonal``."""
    require_tensor("diag", input)
    diagonal = diagonal_number("diag", diagonal)
    if input.ndim == 1:
        size = input._shape[0] + abs(diagonal)
        return DiagEmbed.apply(input, (size, size), diagonal, 0, 1)
    if input.ndim == 2:
        return clone(Diagonal.apply(input, diagonal, 0, 1))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def triangle_mask(x: Tensor, k: int, lower: bool) -> Tensor:
    """True at ``[i, j]`` where ``j - i <= k`` (``lower``) or ``j - i >= k``: an
    ``(n, m)`` bool tensor that broadcasts over any batch dimensions of ``x``."""
    rows, columns = x._shape[-2], x._shape[-1]
    k = max(-rows, min(k, columns))  # a diagonal outside the matrix: all or nothing
    rows_plus_k = (creation.arange(rows, device=x.device) + k).unsqueeze(1)  # (n, 1)
    column = creation.arange(columns, device=x.device)  # (m,): one comparison, broadcast
    return column <= rows_plus_k if lower else column >= rows_plus_k


def diagonal_number(function: str, k: Any, argument: str = "diagonal") -> int:
    """PyTorch's checks of a diagonal number: an int (or NumPy integer, not a bool) that
    fits in int64."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{function}(): argument '{argument}' must be int, not {type(k).__name__}")
    if not -(2**63) <= k < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return int(k)


def _keep_triangle(function: str, x: Tensor, k: int, lower: bool) -> Tensor:
    if x.ndim < 2:
        raise RuntimeError(f"{function}: input tensor must have at least 2 dimensions")
    zero = Tensor._full((), 0, x.dtype, x.device)
    return where(triangle_mask(x, k, lower), x, zero)


class Tril(Function):
    """y = x on and below diagonal k, else 0;  the gradient is tril of dL/dy."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, k: int) -> Tensor:
        ctx.k = k
        return _keep_triangle("tril", x, k, lower=True)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return tril(grad, ctx.k), None


class Triu(Function):
    """y = x on and above diagonal k, else 0;  the gradient is triu of dL/dy."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, k: int) -> Tensor:
        ctx.k = k
        return _keep_triangle("triu", x, k, lower=False)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return triu(grad, ctx.k), None


def tril(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The lower triangle: elements on and below diagonal ``diagonal`` (others are 0)."""
    require_tensor("tril", input)
    return Tril.apply(input, diagonal_number("tril", diagonal))


def triu(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The upper triangle: elements on and above diagonal ``diagonal`` (others are 0)."""
    require_tensor("triu", input)
    return Triu.apply(input, diagonal_number("triu", diagonal))
