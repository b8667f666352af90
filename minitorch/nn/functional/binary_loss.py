"""Binary cross-entropy: one probability per element, ``-(t log p + (1 - t) log(1 - p))``.

``binary_cross_entropy`` takes the probabilities ``p``; ``binary_cross_entropy_with_logits``
takes the logits ``x`` (``p = sigmoid(x)``) and computes the same loss without forming ``p``,
stably for large ``|x|``. Each has its own backward, as in PyTorch. The shared checks and the
``reduction`` come from ``loss.py``.
"""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.nn.functional.loss import (
    _check_reduction,
    _per_element,
    _reduce,
    _refuse_weights_needing_grad,
    _require_tensors,
)


def _clamped_logs(p: Tensor) -> tuple[Tensor, Tensor]:
    """``log p`` and ``log(1 - p)``, each clamped at -100 (as PyTorch does)."""
    return p.log().clamp(min=-100), (1 - p).log().clamp(min=-100)


class BinaryCrossEntropy(Function):
    """``L = reduce(w * -(t log p + (1 - t) log(1 - p)))``, each log clamped at -100.

    Its own backward, as in PyTorch: ``dL/dp = w g (p - t) / max(p (1 - p), 1e-12)``
    stays finite at ``p = 0`` or ``1``, where differentiating through the clamped logs
    would give ``0 * inf = nan``; ``dL/dt = w g (log(1 - p) - log p)``."""

    @staticmethod
    def forward(ctx: FunctionCtx, p: Tensor, t: Tensor, weight: Tensor | None, reduction: str) -> Tensor:
        ctx.save_for_backward(p, t, weight)
        log_p, log_not_p = _clamped_logs(p)
        losses = -(t * log_p + (1 - t) * log_not_p)
        if weight is not None:
            losses = losses * weight
        ctx.reduction, ctx.count = reduction, losses.numel()
        return _reduce(losses, reduction)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        p, t, weight = ctx.saved_tensors
        g = _per_element(grad, ctx.reduction, ctx.count)
        if weight is not None:
            g = g * weight
        grad_p = g * (p - t) / (p * (1 - p)).clamp(min=1e-12) if ctx.needs_input_grad[0] else None
        grad_t = None
        if ctx.needs_input_grad[1]:
            log_p, log_not_p = _clamped_logs(p)
            grad_t = g * (log_not_p - log_p)
        return grad_p, grad_t, None, None


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         reduction: str = "mean") -> Tensor:  # fmt: skip
    """``-(t log p + (1 - t) log(1 - p))`` for probabilities ``p`` in ``[0, 1]`` (each log
    is clamped at -100, like PyTorch, so ``p = 0`` gives a large loss, not ``inf``)."""
    _require_tensors("binary_cross_entropy", input, target)
    _check_reduction(reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if input.numel() and ((input < 0) | (input > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1 (pass logits to "
                           "binary_cross_entropy_with_logits instead)")  # fmt: skip
    _refuse_weights_needing_grad("binary_cross_entropy", weight=weight)
    return BinaryCrossEntropy.apply(input, target, weight, reduction)


def _log_one_plus_exp_neg(x: Tensor) -> Tensor:
    """``log(1 + e^-x) = m + log(e^-m + e^(-x-m))`` with ``m = max(-x, 0)``: neither
    exponential can overflow."""
    m = (-x).clamp(min=0)
    return m + ((-m).exp() + (-x - m).exp()).log()


class BinaryCrossEntropyWithLogits(Function):
    """Binary cross-entropy of ``sigmoid(x)``, computed without ever forming the sigmoid
    (which rounds to exactly 0 or 1 for large logits). With ``q = pos_weight``
    (1 if not given) and ``s(x) = log(1 + e^-x)``::

        loss = w ((1 - t) x + (1 + (q - 1) t) s(x))

        dloss/dx = w ((1 - t) - (1 + (q - 1) t) (1 - sigmoid(x)))   (= w (sigmoid(x) - t) for q = 1)
        dloss/dt = w (-x + (q - 1) s(x))

    (No gradient for the weights ``w`` and ``q``: PyTorch refuses them if they require grad.)
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, t: Tensor, weight: Tensor | None,
                pos_weight: Tensor | None, reduction: str) -> Tensor:  # fmt: skip
        ctx.save_for_backward(x, t, weight, pos_weight)
        losses = BinaryCrossEntropyWithLogits.unweighted(x, t, pos_weight)
        if weight is not None:
            losses = losses * weight
        ctx.reduction, ctx.count = reduction, losses.numel()
        return _reduce(losses, reduction)

    @staticmethod
    def unweighted(x: Tensor, t: Tensor, pos_weight: Tensor | None) -> Tensor:
        softplus = _log_one_plus_exp_neg(x)
        if pos_weight is not None:
            softplus = softplus * ((pos_weight - 1) * t + 1)
        return (1 - t) * x + softplus

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        x, t, weight, pos_weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        g = _per_element(grad, ctx.reduction, ctx.count)
        if weight is not None:
            g = g * weight
        grad_x = grad_t = None
        if needs[0]:
            if pos_weight is None:
                grad_x = g * (x.sigmoid() - t)
            else:
                grad_x = g * ((1 - t) - ((pos_weight - 1) * t + 1) * (1 - x.sigmoid()))
        if needs[1]:
            grad_t = g * -x
            if pos_weight is not None:
                grad_t = grad_t + g * (pos_weight - 1) * _log_one_plus_exp_neg(x)
        return grad_x, grad_t, None, None, None


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                     reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """Binary cross-entropy of ``sigmoid(input)``, stable for large logits (see
    ``BinaryCrossEntropyWithLogits``). ``pos_weight`` multiplies the positive term."""
    _require_tensors("binary_cross_entropy_with_logits", input, target)
    _check_reduction(reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")  # fmt: skip
    _refuse_weights_needing_grad("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    return BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, reduction)
