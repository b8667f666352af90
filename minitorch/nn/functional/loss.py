"""Loss functions: a number that says how wrong the predictions are.

``reduction`` decides what comes back: ``"mean"`` (the default) or ``"sum"`` of the
per-element losses, or ``"none"``: all of them.

Cross-entropy is ``nll_loss(log_softmax(logits), target)``: ``log_softmax`` is computed
stably (shifted by the max), and ``nll_loss`` *gathers* the log-probability of each
sample's true class, ``-logp[i, target[i]]``. Targets equal to ``ignore_index`` count for
nothing, not even in the mean's denominator. The binary cross-entropies (one probability
per element) live in ``binary_loss.py``.
"""

from __future__ import annotations

import warnings

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.dtypes import int32, int64
from minitorch.ops import reduce
from minitorch.ops.common import require_tensor
from minitorch.ops.gather import pick_per_row, scatter_per_row
from minitorch.ops.softmax import log_softmax

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


def _per_element(grad: Tensor, reduction: str, count: int) -> Tensor:
    """The gradient reaching each per-element loss: ``grad`` itself for ``"none"`` and
    ``"sum"`` (a 0-d one broadcasts), ``grad / count`` for the mean of ``count`` losses."""
    return grad / count if reduction == "mean" else grad


class MseLoss(Function):
    """``L = reduce((x - t)^2)``;  ``dL/dx = 2 (x - t) g`` with ``g`` the gradient of
    each term (see ``_per_element``), and ``dL/dt = -dL/dx``."""

    @staticmethod
    def forward(ctx: FunctionCtx, input: Tensor, target: Tensor, reduction: str) -> Tensor:  # noqa: A002
        ctx.save_for_backward(input, target)
        difference = input - target
        ctx.reduction, ctx.count = reduction, difference.numel()
        return _reduce(difference * difference, reduction)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        input, target = ctx.saved_tensors
        grad_input = (input - target) * (_per_element(grad, ctx.reduction, ctx.count) * 2)
        return (grad_input if ctx.needs_input_grad[0] else None,
                -grad_input if ctx.needs_input_grad[1] else None, None)  # fmt: skip


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean squared error: ``(input - target)^2`` (its node: ``MseLossBackward0``)."""
    _require_tensors("mse_loss", input, target)
    _check_reduction(reduction)
    _warn_if_broadcast(input, target, "mse_loss")
    return MseLoss.apply(input, target, reduction)


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean absolute error: ``|input - target|``."""
    _require_tensors("l1_loss", input, target)
    _warn_if_broadcast(input, target, "l1_loss")
    return _reduce((input - target).abs(), reduction)


def _check_target_shape(input: Tensor, target: Tensor) -> None:  # noqa: A002
    """One class index per sample: ``target`` is ``input``'s shape without the class dim."""
    if input.ndim == 1:  # one unbatched sample [C]
        if target.ndim != 0:
            raise ValueError(f"Expected a 0D target for a 1D input, got target of shape "
                             f"{list(target.shape)}")  # fmt: skip
        return
    if input.ndim == 0:
        raise ValueError("Expected input of shape [N, C] (or [C], or [N, C, d1, ...]), got a 0D tensor")
    expected = input._shape[:1] + input._shape[2:]
    if target._shape != expected:
        raise ValueError(
            f"Expected target of shape {list(expected)} (one class index per sample) for input "
            f"of shape {list(input.shape)}, got {list(target.shape)}"
        )


def _classes_last(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor, tuple]:  # noqa: A002
    """``input [N, C, d1, ...]`` -> ``[N*d1*..., C]`` and ``target`` -> ``[N*d1*...]``
    (shapes checked by ``_check_target_shape``); also returns the target's shape (for
    ``reduction="none"``)."""
    if input.ndim == 1:  # one unbatched sample [C]
        return input.unsqueeze(0), target.reshape(1), ()
    if input.ndim == 2:  # the usual [N, C]: already in shape
        return input, target, target._shape
    order = (0,) + tuple(range(2, input.ndim)) + (1,)
    return input.permute(order).reshape(-1, input._shape[1]), target.reshape(-1), target._shape


def _classes_first(grad: Tensor, input_shape: tuple) -> Tensor:
    """The inverse of ``_classes_last``: ``[N*d1*..., C]`` back to ``input_shape``."""
    if len(input_shape) == 2:
        return grad
    if len(input_shape) < 2:
        return grad.reshape(input_shape)
    batch_first = (input_shape[0],) + tuple(input_shape[2:]) + (input_shape[1],)
    ndim = len(input_shape)
    return grad.reshape(batch_first).permute((0, ndim - 1) + tuple(range(1, ndim - 1)))


class NllLoss(Function):
    """``L = reduce(-w[t_i] logp[i, t_i])`` over the samples ``i`` (``w = 1`` without class
    weights; the mean divides by the sum of the ``w[t_i]``). Its gradient is zero except
    at each sample's class: ``dL/dlogp[i, t_i] = -w[t_i] g_i``, written there by a
    scatter-add. The class indices and weights are keyword arguments: no gradient flows
    to them, and the node has no edge for them (PyTorch's ``NllLossBackward0`` neither).
    """

    @staticmethod
    def forward(ctx: FunctionCtx, input: Tensor, *, target: Tensor, weight: Tensor | None,  # noqa: A002
                ignore_index: int, all_valid: bool, reduction: str) -> Tensor:  # fmt: skip
        logp, target, target_shape = _classes_last(input, target)
        ctx.input_shape, ctx.reduction, ctx.rows = input._shape, reduction, logp._shape[0]
        if all_valid and weight is None:  # the common case: plain -logp[i, target[i]]
            ctx.index, ctx.weights = target, None
            ctx.total = logp._shape[0]
        else:
            valid = target != ignore_index
            ctx.index = target.where(valid, 0)
            weights = valid.to(logp.dtype)
            if weight is not None:
                weights = weights * weight.index_select(0, ctx.index)
            ctx.weights, ctx.total = weights, weights.sum()
        ctx.classes = logp._shape[1]
        picked = pick_per_row(logp, ctx.index)  # [N]: logp[i, t_i]
        if ctx.weights is not None:
            picked = picked * ctx.weights
        if reduction == "none":
            return (-picked).reshape(target_shape)
        # The minus sign goes where it costs least: on the one number of a sum or mean,
        # divided where it lies (the sum is new: no one else holds it).
        total = reduce.fold("sum", picked, (0,), False)
        divisor = -1 if reduction == "sum" else -ctx.total
        return total.div_(divisor)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        # Each sample's -w[t_i] g_i as a vector [N]; a sum or mean gives every sample the
        # same 0-d value, negated (and divided) once, then expanded (no copy).
        if ctx.reduction == "none":
            per_sample = -grad.reshape(ctx.rows)
        else:
            scale = grad / -ctx.total if ctx.reduction == "mean" else -grad
            per_sample = scale.expand(ctx.rows)
        if ctx.weights is not None:
            per_sample = per_sample * ctx.weights
        grad_logp = scatter_per_row((ctx.rows, ctx.classes), ctx.index, per_sample)
        return _classes_first(grad_logp, ctx.input_shape)


def _check_class_targets(input: Tensor, target: Tensor, weight: Tensor | None,  # noqa: A002
                         ignore_index: int) -> tuple[Tensor, bool]:  # fmt: skip
    """Refuse class-index targets that the gather kernel must never see, before any kernel
    runs: a non-integer dtype, a wrong shape, an index out of range (the kernel does no
    bounds checks), class weights of the wrong size. Returns the targets as int64 and
    whether every one counts (none is ``ignore_index``)."""
    if target.dtype not in (int64, int32):
        raise RuntimeError(
            f"expected scalar type Long but found {target.dtype.name.capitalize()}: class "
            "indices must be an integer tensor (for class probabilities use cross_entropy)"
        )
    _check_target_shape(input, target)
    classes = input._shape[1] if input.ndim > 1 else input._shape[0]

    def check(values: np.ndarray) -> bool:
        """On the host: a few integers, cheaper than kernels."""
        unsigned = values.view(f"u{values.itemsize}")  # (a negative index reads as a huge one)
        if values.size == 0 or (unsigned.max() < classes and not 0 <= ignore_index < classes):
            return True  # the usual case: every target is a class, none can be ignore_index
        valid = values != ignore_index
        bad = valid & ((values < 0) | (values >= classes))
        if bad.any():
            raise IndexError(
                f"Target {int(values[bad][0])} is out of bounds: the input has {classes} classes, "
                f"so class indices must be in [0, {classes - 1}] (or equal ignore_index={ignore_index})"
            )
        return bool(valid.all())

    all_valid = dispatch.validate(target if target.ndim == 1 else target.reshape(-1), check)
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: {list(weight.shape)}")  # fmt: skip
    return (target if target.dtype is int64 else target.to(int64)), all_valid


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             ignore_index: int = -100, reduction: str = "mean") -> Tensor:  # fmt: skip
    """Negative log-likelihood: ``-input[i, target[i]]``, for log-probabilities ``input``
    of shape ``[N, C]`` and class indices ``target`` of shape ``[N]``. With class weights
    ``w``, each term is multiplied by ``w[target[i]]`` and the mean divides by their sum."""
    _require_tensors("nll_loss", input, target)
    _check_reduction(reduction)
    target, all_valid = _check_class_targets(input, target, weight, ignore_index)
    return NllLoss.apply(input, target=target, weight=weight, ignore_index=ignore_index,
                         all_valid=all_valid, reduction=reduction)  # fmt: skip


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
    classes = input._shape[class_dim] if input.ndim else 0
    if target.dtype.is_floating_point:
        logp = log_softmax(input, class_dim)
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim)
    # Class indices: checked before anything runs, then log_softmax and nll_loss's op.
    index, all_valid = _check_class_targets(input, target, weight, ignore_index)
    logp = log_softmax(input, class_dim)
    loss = NllLoss.apply(logp, target=index, weight=weight, ignore_index=ignore_index,
                         all_valid=all_valid, reduction=reduction)  # fmt: skip
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


def _refuse_weights_needing_grad(function: str, **weights: Tensor | None) -> None:
    """PyTorch's error for weights that require grad (it has no formula for them)."""
    for name, weight in weights.items():
        if weight is not None and weight.requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"The function '{function}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )
