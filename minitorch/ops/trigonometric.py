"""The trigonometric and hyperbolic functions: ``sin``, ``cos``, ``asin``, ``acos``,
``atan``, ``sinh``, ``cosh`` (``tanh``, an activation too, lives in ``unary.py``).

Each is a ``Function`` whose forward is one ``map`` kernel (``apply_map``) and whose
backward is its derivative written as tensor operations, so it can be differentiated
again. ``grad`` is dL/dy; backward returns dL/dx.
"""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.ops.unary import apply_map


class Sin(Function):
    """y = sin x;  dy/dx = cos x"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("sin", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * x.cos()


class Cos(Function):
    """y = cos x;  dy/dx = -sin x"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("cos", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return -grad * x.sin()


class Asin(Function):
    """y = arcsin x;  dy/dx = 1 / sqrt(1 - x^2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("asin", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * (1 - x * x).rsqrt()


class Acos(Function):
    """y = arccos x = pi/2 - arcsin x;  dy/dx = -1 / sqrt(1 - x^2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("acos", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return -grad * (1 - x * x).rsqrt()


class Atan(Function):
    """y = arctan x;  dy/dx = 1 / (1 + x^2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("atan", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad / (1 + x * x)


class Sinh(Function):
    """y = sinh x = (e^x - e^-x) / 2;  dy/dx = cosh x"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("sinh", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * x.cosh()


class Cosh(Function):
    """y = cosh x = (e^x + e^-x) / 2;  dy/dx = sinh x"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("cosh", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * x.sinh()


def sin(x: Tensor) -> Tensor:
    return Sin.apply(x)


def cos(x: Tensor) -> Tensor:
    return Cos.apply(x)


def asin(x: Tensor) -> Tensor:
    """The inverse of ``sin`` on [-pi/2, pi/2]; NaN outside [-1, 1]."""
    return Asin.apply(x)


def acos(x: Tensor) -> Tensor:
    """The inverse of ``cos`` on [0, pi]; NaN outside [-1, 1]."""
    return Acos.apply(x)


def atan(x: Tensor) -> Tensor:
    """The inverse of ``tan``, in (-pi/2, pi/2) (see ``atan2`` for the full circle)."""
    return Atan.apply(x)


arcsin, arccos, arctan = asin, acos, atan  # NumPy's names, which PyTorch accepts too


def sinh(x: Tensor) -> Tensor:
    return Sinh.apply(x)


def cosh(x: Tensor) -> Tensor:
    return Cosh.apply(x)
