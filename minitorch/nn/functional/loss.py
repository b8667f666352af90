"""Loss functions: a number that says how wrong the predictions are.

``reduction`` decides what comes back: ``"mean"`` (the default) or ``"sum"`` of the
per-element losses, or ``"none"``: all of them.

Cross-entropy is ``nll_loss(log_softmax(logits), target)``: ``log_softmax`` is computed
stably (shifted by the max), and ``nll_loss`` *gathers* the log-probability of each
sample's true class, ``-logp[i, target[i]]``. Targets equal to ``ignore_index`` count for
nothing, not even in the mean's denominator.
"""

from __future__ import annotations

import warnings

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import int32, int64
from minitorch.ops import reduce
from minitorch.ops.common import require_tensor
from minitorch.ops.gather import Gather

REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction "
                         "(choose 'none', 'mean' or 'sum')")  # fmt: skip


def _require_tensors(function: str, input: Tensor, target: Tensor) -> None:  # noqa: A002
    """PyTorch's TypeError when ``input`` or ``target`` is not a tensor (before any
    ``.shape`` is read)."""
    require_tensor(function, input)
    require_tensor(function, target, "target", 2)


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    _check_reduction(reduction)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _warn_if_broadcast(input: Tensor, target: Tensor, name: str) -> None:  # noqa: A002
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) in {name}. This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean squared error: ``(input - target)^2``."""
    _require_tensors("mse_loss", input, target)
    _warn_if_broadcast(input, target, "mse_loss")
    difference = input - target
    return _reduce(difference * difference, reduction)


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean absolute error: ``|input - target|``."""
    _require_tensors("l1_loss", input, target)
    _warn_if_broadcast(input, target, "l1_loss")
    return _reduce((input - target).abs(), reduction)


def _classes_last(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor, tuple]:  # noqa: A002
    """``input [N, C, d1, ...]`` -> ``[N*d1*..., C]`` and ``target`` -> ``[N*d1*...]``;
    also returns the target's shape (for ``reduction="none"``)."""
    if input.ndim == 1:  # one unbatched sample [C]
        if target.ndim != 0:
            raise ValueError(f"Expected a 0D target for a 1D input, got target of shape "
                             f"{list(target.shape)}")  # fmt: skip
        return input.unsqueeze(0), target.reshape(1), ()
    if input.ndim == 0:
        raise ValueError("Expected input of shape [N, C] (or [C], or [N, C, d1, ...]), got a 0D tensor")
    expected = (input.shape[0],) + tuple(input.shape[2:])
    if tuple(target.shape) != expected:
        raise ValueError(
            f"Expected target of shape {list(expected)} (one class index per sample) for input "
            f"of shape {list(input.shape)}, got {list(target.shape)}"
        )
    classes = input.shape[1]
    if input.ndim > 2:
        order = (0,) + tuple(range(2, input.ndim)) + (1,)
        input = input.permute(order)
    return input.reshape(-1, classes), target.reshape(-1), tuple(target.shape)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             ignore_index: int = -100, reduction: str = "mean") -> Tensor:  # fmt: skip
    """Negative log-likelihood: ``-input[i, target[i]]``, for log-probabilities ``input``
    of shape ``[N, C]`` and class indices ``target`` of shape ``[N]``. With class weights
    ``w``, each term is multiplied by ``w[target[i]]`` and the mean divides by their sum."""
    _require_tensors("nll_loss", input, target)
    _check_reduction(reduction)
    if target.dtype not in (int64, int32):
        raise RuntimeError(
            f"expected scalar type Long but found {target.dtype.name.capitalize()}: class "
            "indices must be an integer tensor (for class probabilities use cross_entropy)"
        )
    logp, target, target_shape = _classes_last(input, target)
    classes = logp.shape[1]
    target = target.to(int64)
    # Check the class indices on the host (a few integers): cheaper than kernels, and a
    # bad index must never reach the gather kernel, which does no bounds checks.
    values = target.detach().cpu().numpy()
    valid_host = values != ignore_index
    bad = valid_host & ((values < 0) | (values >= classes))
    if bad.any():
        raise IndexError(
            f"Target {int(values[bad][0])} is out of bounds: the input has {classes} classes, so "
            f"class indices must be in [0, {classes - 1}] (or equal ignore_index={ignore_index})"
        )
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: {list(weight.shape)}")  # fmt: skip
    if valid_host.all() and weight is None:  # the common case: plain -logp[i, target[i]]
        losses = -Gather.apply(logp, 1, target.unsqueeze(1)).squeeze(1)
        return _reduce(losses.reshape(target_shape) if reduction == "none" else losses, reduction)
    valid = target != ignore_index
    safe = target.where(valid, 0)
    picked = Gather.apply(logp, 1, safe.unsqueeze(1)).squeeze(1)  # log-probability of the class
    weights = valid.to(logp.dtype)
    if weight is not None:
        weights = weights * weight.index_select(0, safe)
    losses = -picked * weights
    if reduction == "none":
        return losses.reshape(target_shape)
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / weights.sum()


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:  # fmt: skip
    """Cross-entropy of logits ``input [N, C]`` (unnormalized scores) with class indices
    ``target [N]``, or with class probabilities ``target [N, C]``."""
    _require_tensors("cross_entropy", input, target)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 1 if input.ndim > 1 else 0
    logp = reduce.log_softmax(input, class_dim)
    classes = input.shape[class_dim]
    if target.dtype.is_floating_point:
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim)
    loss = nll_loss(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return loss
    # Smoothing mixes in the loss against the uniform distribution over the classes.
    shape = [1] * input.ndim
    shape[class_dim] = classes
    weighted = logp * weight.reshape(shape) if weight is not None else logp
    smooth = -weighted.sum(class_dim)
    valid = (target != ignore_index).to(logp.dtype)
    smooth = smooth * valid
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        if weight is not None:
            safe = target.where(target != ignore_index, 0).reshape(-1)
            smooth = smooth.sum() / (weight.index_select(0, safe) * valid.reshape(-1)).sum()
        else:
            smooth = smooth.sum() / valid.sum()
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / classes)


def _soft_cross_entropy(logp: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
                        label_smoothing: float, class_dim: int) -> Tensor:  # fmt: skip
    if tuple(target.shape) != tuple(logp.shape):
        raise RuntimeError(f"Expected target of shape {list(logp.shape)} (class probabilities) "
                           f"but got {list(target.shape)}")  # fmt: skip
    classes = logp.shape[class_dim]
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = logp * target
    if weight is not None:
        shape = [1] * logp.ndim
        shape[class_dim] = classes
        terms = terms * weight.reshape(shape)
    losses = -terms.sum(class_dim)
    if reduction == "mean":
        return losses.sum() / (losses.numel() if losses.ndim else 1)
    return _reduce(losses, reduction)


class BinaryCrossEntropy(Function):
    """``-(t log p + (1 - t) log(1 - p))``, each log clamped at -100.

    Its own backward, as in PyTorch: ``dL/dp = (p - t) / max(p (1 - p), 1e-12)`` stays
    finite at ``p = 0`` or ``1``, where differentiating through the clamped logs would give
    ``0 * inf = nan``."""

    @staticmethod
    def forward(ctx: FunctionCtx, p: Tensor, t: Tensor) -> Tensor:
        ctx.save_for_backward(p, t)
        log_p, log_not_p = p.log().clamp(min=-100), (1 - p).log().clamp(min=-100)
        return -(t * log_p + (1 - t) * log_not_p)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        p, t = ctx.saved_tensors
        grad_p = grad * (p - t) / (p * (1 - p)).clamp(min=1e-12)
        grad_t = None
        if ctx.needs_input_grad[1]:
            grad_t = grad * ((1 - p).log().clamp(min=-100) - p.log().clamp(min=-100))
        return grad_p, grad_t


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         reduction: str = "mean") -> Tensor:  # fmt: skip
    """``-(t log p + (1 - t) log(1 - p))`` for probabilities ``p`` in ``[0, 1]`` (each log
    is clamped at -100, like PyTorch, so ``p = 0`` gives a large loss, not ``inf``)."""
    _require_tensors("binary_cross_entropy", input, target)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if input.numel() and ((input < 0) | (input > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1 (pass logits to "
                           "binary_cross_entropy_with_logits instead)")  # fmt: skip
    losses = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        losses = losses * weight
    return _reduce(losses, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                     reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """Binary cross-entropy of ``sigmoid(input)``, computed without ever forming the
    sigmoid (which rounds to exactly 0 or 1 for large logits)::

        loss = (1 - t) x + log(1 + e^-x)
             = (1 - t) x + m + log(e^-m + e^(-x-m))      with m = max(-x, 0)

    so neither exponential can overflow. ``pos_weight`` multiplies the positive term.
    """
    _require_tensors("binary_cross_entropy_with_logits", input, target)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")  # fmt: skip
    m = (-input).clamp(min=0)
    log_one_plus_exp = m + ((-m).exp() + (-input - m).exp()).log()  # log(1 + e^-x)
    if pos_weight is not None:
        log_one_plus_exp = log_one_plus_exp * ((pos_weight - 1) * target + 1)
    losses = (1 - target) * input + log_one_plus_exp
    if weight is not None:
        losses = losses * weight
    return _reduce(losses, reduction)
