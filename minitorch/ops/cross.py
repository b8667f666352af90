"""The cross product of 3-vectors: ``cross`` (``torch.cross``) and ``linalg_cross``
(``torch.linalg.cross``).

For ``a = (a0, a1, a2)`` and ``b = (b0, b1, b2)``::

    a x b = (a1 b2 - a2 b1,  a2 b0 - a0 b2,  a0 b1 - a1 b0)

Component ``i`` reads components ``i + 1`` and ``i + 2`` (counting around 0, 1, 2), so
the whole product is two reorderings of each input and one elementwise expression:
``a[1, 2, 0] * b[2, 0, 1] - a[2, 0, 1] * b[1, 2, 0]`` along the vector dimension. The
other dimensions broadcast, as in any elementwise op.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch import creation, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_
from minitorch.ops.common import require_tensor


class LinalgCross(Function):
    """y = a x b;  the product is linear in each input, and the gradients are cross
    products again: dL/da = b x g, dL/db = g x a (with g = dL/dy)."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor, dim: int) -> Tensor:
        ctx.save_for_backward(a, b)
        ctx.dim = dim
        next_one = creation.tensor([1, 2, 0], device=a.device)  # component i + 1
        next_two = creation.tensor([2, 0, 1], device=a.device)  # component i + 2
        turn = a.index_select(dim, next_one) * b.index_select(dim, next_two)
        return turn - a.index_select(dim, next_two) * b.index_select(dim, next_one)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        grad_a = LinalgCross.apply(b, grad, ctx.dim) if ctx.needs_input_grad[0] else None
        grad_b = LinalgCross.apply(grad, a, ctx.dim) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None


def _check(a: Tensor, b: Tensor, dim: int, shown_dim: int) -> None:
    """PyTorch's checks: one dtype (no promotion), one rank, 3 components along ``dim``,
    the other dimensions broadcastable."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {a.dtype.type_name} but found {b.dtype.type_name}")
    if a.dtype is bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if a._shape[dim] != 3 or b._shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {shown_dim} must have length 3. "
                           f"Got {a._shape[dim]} and {b._shape[dim]}")  # fmt: skip
    layout.broadcast_shapes(a._shape, b._shape)  # raises for shapes that do not broadcast


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """``torch.linalg.cross``: the cross product along ``dim`` (default: the last)."""
    require_tensor("linalg_cross", input)
    require_tensor("linalg_cross", other, "other", 2)
    d = layout.normalize_dim(dim, input.ndim)
    _check(input, other, d, dim)
    return LinalgCross.apply(input, other, d)


def cross(input: Tensor, other: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    """``torch.cross``: like ``linalg_cross``, but without ``dim`` it takes the *first*
    dimension of size 3 (with PyTorch's deprecation warning: pass ``dim``)."""
    require_tensor("cross", input)
    require_tensor("cross", other, "other", 2)
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        dim = next((d for d, size in enumerate(input._shape) if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)
