"""The derivatives of ``tanh``, ``sigmoid``, ``relu`` and ``log_softmax``, each an op of
its own (PyTorch's ``tanh_backward``, ``sigmoid_backward``, ``threshold_backward`` and
``_log_softmax_backward_data``).

``Tanh.backward`` could write its formula ``grad * (1 - y * y)`` as three tensor ops, but
one pass over the elements computes the same numbers: the ``tanh_backward`` zip of the
scalar-op table. Making that pass an op with its *own* backward keeps both wins: every
backward, plain or ``create_graph=True``, runs the one formula (so both give the same
bits), and a second derivative is still exact, because the fused op says how its result
changes with each of its inputs.

Each op ``r = f(g, y)`` takes ``g`` (the gradient dL/dy arriving at the activation) and
``y`` (the activation's saved output). Its backward gets ``gg`` (dL/dr) and returns
``(dL/dg, dL/dy) = (gg * dr/dg, gg * dr/dy)``; the ``dL/dy`` part flows on into the
activation's own node, and from there to ``x``.
"""

from __future__ import annotations

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.ops.common import cast
from minitorch.ops.elementwise import apply_zip


class TanhBackward(Function):
    """r = g (1 - y^2), the gradient of ``y = tanh x``;
    dr/dg = 1 - y^2 (this same op again, on ``gg``), dr/dy = -2 g y"""

    @staticmethod
    def forward(ctx: FunctionCtx, g: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(g, y)
        return apply_zip("tanh_backward", g, y)

    @staticmethod
    def backward(ctx: FunctionCtx, gg: Tensor) -> tuple:
        g, y = ctx.saved_tensors
        grad_g = TanhBackward.apply(gg, y) if ctx.needs_input_grad[0] else None
        grad_y = gg * g * y * -2 if ctx.needs_input_grad[1] else None
        return grad_g, grad_y


class SigmoidBackward(Function):
    """r = g (1 - y) y, the gradient of ``y = sigmoid x``;
    dr/dg = (1 - y) y (this same op again, on ``gg``), dr/dy = g (1 - 2 y)"""

    @staticmethod
    def forward(ctx: FunctionCtx, g: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(g, y)
        return apply_zip("sigmoid_backward", g, y)

    @staticmethod
    def backward(ctx: FunctionCtx, gg: Tensor) -> tuple:
        g, y = ctx.saved_tensors
        grad_g = SigmoidBackward.apply(gg, y) if ctx.needs_input_grad[0] else None
        grad_y = gg * g * (1 - 2 * y) if ctx.needs_input_grad[1] else None
        return grad_g, grad_y


class ReluBackward(Function):
    """r = g where y > 0, else 0: the gradient of ``y = relu x`` (PyTorch's
    ``threshold_backward`` at threshold 0; where ``y`` is NaN the gradient passes).

    ``r`` is ``g`` masked by a step of ``y``: dr/dg is the same mask (this op again, on
    ``gg``), and dr/dy is 0 everywhere but the step itself, where it is undefined (0, as
    in PyTorch)."""

    node_name = "ThresholdBackwardBackward0"  # PyTorch's name

    @staticmethod
    def forward(ctx: FunctionCtx, g: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(y)
        return apply_zip("relu_backward", g, y)

    @staticmethod
    def backward(ctx: FunctionCtx, gg: Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        grad_g = ReluBackward.apply(gg, y) if ctx.needs_input_grad[0] else None
        grad_y = y.new_zeros(y.shape) if ctx.needs_input_grad[1] else None  # (keeps x in the graph)
        return grad_g, grad_y


class LogSoftmaxBackward(Function):
    """r = g - exp(y) S with ``S = sum(g)`` along ``dim``: the gradient of
    ``y = log_softmax(x)`` (``exp(y)`` is the softmax ``p``).

    Along one line, ``r_i = g_i - p_i S``, so ``dr_i/dg_j = [i = j] - p_i`` and
    ``dr_i/dy_k = -[i = k] p_i S``. With ``gg`` the gradient of ``r``::

        dL/dg = gg - sum(gg * p)        (one value per line, spread over it)
        dL/dy = -gg * p * S

    The forward is one kernel, ``dispatch.log_softmax_backward``: each line's sum ``S``
    and its outputs in one pass over the line (the reference backend writes the loop
    out), where as ops it would be three kernels over the whole tensor: the sum,
    ``exp(y) * S``, and the subtraction."""

    node_name = "LogSoftmaxBackwardDataBackward0"  # PyTorch's name

    @staticmethod
    def forward(ctx: FunctionCtx, g: Tensor, y: Tensor, dim: int) -> Tensor:
        ctx.save_for_backward(g, y)
        ctx.dim = dim
        g = cast(g, y.dtype)  # (the kernel takes one dtype)
        out = Tensor._empty(y._shape, y.dtype, y.device)
        return dispatch.log_softmax_backward(out, g, y, dim)

    @staticmethod
    def backward(ctx: FunctionCtx, gg: Tensor) -> tuple:
        g, y = ctx.saved_tensors
        p = y.exp()
        grad_g = gg - (gg * p).sum(ctx.dim, keepdim=True) if ctx.needs_input_grad[0] else None
        grad_y = -gg * p * g.sum(ctx.dim, keepdim=True) if ctx.needs_input_grad[1] else None
        return grad_g, grad_y, None
