"""``tan``, ``log10``, ``log2`` and ``round``: four more elementwise functions of one
tensor, each one ``map`` kernel (rows ``tan``, ``log10``, ``log2``, ``round`` of
``minitorch/scalar_ops.py``) with its derivative beside it, as in ``unary.py``.

``round(x, decimals=d)`` is a formula of ``round``: scale by ``10^d``, round to the
nearest integer (ties to the even one), scale back, as PyTorch computes it::

    round(x, decimals=d) = round(x * 10^d) / 10^d      (d >= 0)
                         = round(x / 10^-d) * 10^-d    (d < 0)
"""

from __future__ import annotations

import math

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_
from minitorch.ops.common import require_tensor
from minitorch.ops.unary import Piecewise, apply_map


class Tan(Function):
    """y = tan x;  dy/dx = 1 + tan^2 x = 1 + y^2"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("tan", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad * (y * y + 1)


class Log10(Function):
    """y = log10 x = ln x / ln 10;  dy/dx = 1 / (x ln 10)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("log10", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad / (x * math.log(10.0))


class Log2(Function):
    """y = log2 x = ln x / ln 2;  dy/dx = 1 / (x ln 2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("log2", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad / (x * math.log(2.0))


def tan(x: Tensor) -> Tensor:
    return Tan.apply(x)


def log10(x: Tensor) -> Tensor:
    return Log10.apply(x)


def log2(x: Tensor) -> Tensor:
    return Log2.apply(x)


def round(x: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001 (PyTorch's name)
    """Each element rounded to the nearest integer, a tie to the even one (``2.5 -> 2``,
    ``-0.5 -> -0``); with ``decimals``, to that many digits after the point (see the
    module docstring). Integers stay as they are. The gradient is 0 (flat steps)."""
    require_tensor("round", x)
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if x.dtype is bool_:
        raise NotImplementedError("\"round_vml_cpu\" not implemented for 'Bool'")
    if decimals == 0:
        return x.clone() if not x.dtype.is_floating_point else Piecewise.apply(x, "round")
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{x.dtype.type_name}'")
    scale = 10.0 ** (decimals if decimals > 0 else -decimals)
    if decimals > 0:
        return Piecewise.apply(x * scale, "round") / scale
    return Piecewise.apply(x / scale, "round") * scale
