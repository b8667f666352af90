"""``softmax`` and ``log_softmax``: a line of scores made into probabilities (or their logs).

Both subtract the line's max before ``exp`` so that no ``exp`` overflows: softmax is
unchanged by adding a constant to every score of a line, so the shift costs nothing in
exactness. Each is one op with its own derivative, written once.
"""

from __future__ import annotations

from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.layout import normalize_dim
from minitorch.ops.activation_derivatives import LogSoftmaxBackward
from minitorch.ops.common import require_tensor


class Softmax(Function):
    """y = exp(x - max) / sum(exp(x - max));  dL/dx = y * (g - sum(g * y))

    The forward is one kernel, ``dispatch.softmax``: each line's max, its sum of
    exponentials and the quotients in one pass over the line (the reference backend
    writes the loop out)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dim: int) -> Tensor:
        y = dispatch.softmax("softmax", Tensor._empty(x._shape, x.dtype, x.device), x, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Function):
    """y = x - logsumexp(x);  dL/dx = g - softmax(x) * sum(g)

    With ``m`` the line's max (so that no ``exp`` overflows) and ``s = x - m``::

        y = s - log(sum(exp(s)))           one kernel: dispatch.softmax("log_softmax")
        dL/dx = g - exp(y) * sum(g)        the op LogSoftmaxBackward

    The kernel takes each line in one pass (its max, the sum of the exponentials, one
    logarithm, the subtractions), where written as ops it would be five kernels over the
    whole tensor. The backward is an op of its own
    (``minitorch/ops/activation_derivatives.py``), so that a plain backward and a
    ``create_graph=True`` one run the same formula."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dim: int) -> Tensor:
        y = dispatch.softmax("log_softmax", Tensor._empty(x._shape, x.dtype, x.device), x, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        return LogSoftmaxBackward.apply(grad, y, ctx.dim), None


def _softmax_input(x: Tensor, dim: Any, dtype: Any) -> tuple[Tensor, int]:
    require_tensor("softmax", x)
    if dtype is not None:
        x = x.to(dtype)
    elif not x.dtype.is_floating_point and x.numel() > 0:
        # PyTorch refuses too (a softmax of integers is float), but lets an empty one through
        raise NotImplementedError(
            f"softmax is not implemented for {x.dtype.name} tensors; pass "
            f"dtype=minitorch.float32 or convert first with x.float()"
        )
    if dim is None:
        raise TypeError("softmax() missing required argument 'dim' (minitorch, like "
                        "PyTorch, needs the dimension to normalise over)")  # fmt: skip
    return x, normalize_dim(dim, x.ndim)


def softmax(x: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, stable for large inputs."""
    x, d = _softmax_input(x, dim, dtype)
    if x.numel() == 0:  # nothing to normalise (and no max to subtract over a size-0 dim)
        return x.clone()
    if x.ndim == 0:
        return Softmax.apply(x.unsqueeze(0), 0).squeeze(0)
    return Softmax.apply(x, d)


def log_softmax(x: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed without overflow."""
    x, d = _softmax_input(x, dim, dtype)
    if x.numel() == 0:  # nothing to normalise (and no max to subtract over a size-0 dim)
        return x.clone()
    if x.ndim == 0:
        return LogSoftmax.apply(x.unsqueeze(0), 0).squeeze(0)
    return LogSoftmax.apply(x, d)
