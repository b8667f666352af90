"""``var`` and ``std``: how far the values spread around their mean.

Both are made of reductions (``mean``, ``sum``), so their gradients come from those; the
one op of their own is ``Root``, the square root whose gradient is defined at 0, which
``norm`` shares.
"""

from __future__ import annotations

import builtins
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import float64
from minitorch.layout import numel, reduction_dims
from minitorch.ops.common import require_tensor


class Root(Function):
    """y = v ** (1/n) (``n = 2``: the square root);  dy/dv = y / (n v).

    At ``v = 0`` that is ``0 / 0``; PyTorch takes the gradient of ``norm`` and ``std`` to
    be 0 there (a subgradient: every direction out of 0 increases the norm), so we do
    too. Elsewhere, and for NaN or infinite ``v``, the formula applies as written."""

    @staticmethod
    def forward(ctx: FunctionCtx, v: Tensor, n: float) -> Tensor:
        y = v.sqrt() if n == 2 else v ** (1.0 / n)
        ctx.save_for_backward(v, y)
        ctx.n = n
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        v, y = ctx.saved_tensors
        return (grad * y / (v * ctx.n)).where(v != 0, 0.0), None


def _accumulation_dtype(x: Tensor) -> Any:
    """Float16/32 statistics are computed in float64, as PyTorch's CPU kernels do: the
    squares of values near 1e30 overflow float32, their float64 mean does not."""
    return float64 if x.dtype.is_floating_point and x.dtype.itemsize < 8 else x.dtype


def _variance(x: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> Tensor:
    """``sum((x - mean)^2) / (n - correction)`` in two passes (the mean first, then the
    squared deviations from it), in the accumulation dtype. Never ``E[x^2] - E[x]^2``:
    that subtracts two huge, nearly equal numbers and loses every digit of a small
    variance."""
    if isinstance(unbiased, bool):
        correction = 1 if unbiased else 0
    elif unbiased is not None and dim is None:  # var(x, 0) style positional dim
        dim = unbiased
    if correction is None:
        correction = 1
    dims = reduction_dims(dim, x.ndim)
    count = numel([x.shape[d] for d in dims])
    wide = x.to(_accumulation_dtype(x))
    centered = wide - wide.mean(dims, keepdim=True)
    return (centered * centered).sum(dims, keepdim=keepdim) / builtins.max(count - correction, 0)


def _bool_first_is_unbiased(dim: Any, unbiased: Any) -> tuple[Any, Any]:
    """PyTorch's other form ``std(x, unbiased)``: a bool where ``dim`` goes is ``unbiased``."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError("std()/var() received a bool for dim and also unbiased=")
        return None, dim
    return dim, unbiased


def var(x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:  # fmt: skip
    """Variance: ``sum((x - mean)^2) / (n - correction)``; ``correction=1`` by default
    (Bessel's correction), ``unbiased=False`` means ``correction=0``."""
    require_tensor("var", x)
    dim, unbiased = _bool_first_is_unbiased(dim, unbiased)
    return _variance(x, dim, unbiased, keepdim, correction).to(x.dtype)


def std(x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:  # fmt: skip
    """Standard deviation: the square root of ``var`` (gradient 0 where it is 0)."""
    require_tensor("std", x)
    dim, unbiased = _bool_first_is_unbiased(dim, unbiased)
    return Root.apply(_variance(x, dim, unbiased, keepdim, correction), 2).to(x.dtype)
