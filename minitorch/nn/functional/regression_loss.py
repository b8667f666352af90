"""Losses for regression and for distributions: ``huber_loss``, ``smooth_l1_loss``,
``poisson_nll_loss``, ``gaussian_nll_loss`` and ``kl_div``.

With ``d = |input - target|``:

* **Huber** (robust regression): ``d^2 / 2`` for ``d < delta``, ``delta (d - delta / 2)``
  beyond: squared error near the target, absolute error far from it, so an outlier pulls
  with a bounded force ``delta`` instead of one that grows with ``d``;
* **smooth L1** (Fast R-CNN's box loss): Huber divided by ``beta`` (``d^2 / (2 beta)``
  below ``beta``, ``d - beta / 2`` above); ``beta = 0`` is plain L1;
* **Poisson NLL** for counts ``t`` with rate ``lambda``: ``lambda - t log(lambda)``
  (``log_input``: the input is ``log(lambda)``, so ``e^x - t x``); ``full`` adds the
  Stirling term ``t log t - t + log(2 pi t) / 2`` that makes it the true negative log
  likelihood (for ``t > 1``);
* **Gaussian NLL** with a predicted variance: ``(log var + (x - t)^2 / var) / 2``, the
  variance clamped at ``eps`` for stability (``full`` adds ``log(2 pi) / 2``);
* **KL divergence** ``sum t (log t - x)`` where the input ``x`` holds log-probabilities
  (``log_target``: the target does too). ``reduction='batchmean'`` divides the sum by
  the batch size, which is the mathematically correct KL; ``'mean'`` divides by every
  element, as PyTorch's default does.

Every one is a formula in differentiable ops; the ``reduction`` is PyTorch's
(``'none'``, ``'mean'``, ``'sum'``), and the old ``size_average``/``reduce`` flags are
read as PyTorch reads them.
"""

from __future__ import annotations

import math

from minitorch._tensor import Tensor
from minitorch.nn.functional.loss import _check_reduction, _reduce, _require_tensors, _warn_if_broadcast


def legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """PyTorch's deprecated flags: ``reduce=False`` is ``'none'``, otherwise
    ``size_average`` picks ``'mean'`` (the default) or ``'sum'``."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,  # noqa: A002
               weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """``d^2 / 2`` for ``d = |x - t| < delta``, else ``delta (d - delta / 2)``."""
    _require_tensors("huber_loss", input, target)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _warn_if_broadcast(input, target, "huber_loss")
    d = (input - target).abs()
    loss = (d * d * 0.5).where(d < delta, (d - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:  # fmt: skip
    """``d^2 / (2 beta)`` for ``d < beta``, else ``d - beta / 2``."""
    _require_tensors("smooth_l1_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _warn_if_broadcast(input, target, "smooth_l1_loss")
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce((d * d * (0.5 / beta)).where(d < beta, d - 0.5 * beta), reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,  # noqa: A002
                     size_average: bool | None = None, eps: float = 1e-8, reduce: bool | None = None,
                     reduction: str = "mean") -> Tensor:  # fmt: skip
    """``e^x - t x`` (``log_input``) or ``x - t log(x + eps)``; ``full`` adds Stirling's
    approximation of ``log(t!)`` where ``t > 1``."""
    _require_tensors("poisson_nll_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        safe = target.where(target > 1, 1.0)  # the term is 0 where t <= 1 (and log 0 unused)
        stirling = safe * safe.log() - safe + (safe * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.where(target > 1, 0.0)
    return _reduce(loss, reduction)


def _variance_like(input: Tensor, var: Tensor | float) -> Tensor:  # noqa: A002
    """``var`` checked as PyTorch checks it, shaped to broadcast against ``input``."""
    if not isinstance(var, Tensor):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return input.new_full((), float(var))
    shape, wanted = tuple(var.shape), tuple(input.shape)
    if shape != wanted:
        if shape == wanted[:-1]:  # one variance per sample
            var = var.unsqueeze(-1)
        elif not (shape[:-1] == wanted[:-1] and shape[-1:] == (1,)):
            raise ValueError("var is of incorrect size")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    return var


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,  # noqa: A002
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:  # fmt: skip
    """``(log var + (x - t)^2 / var) / 2`` (``+ log(2 pi) / 2`` when ``full``). ``var``
    has the input's shape, or one fewer dimension / a last dimension of 1 (one variance
    per sample, shared by its features), or is a number. Values below ``eps`` are raised
    to ``eps``, with the gradient passing as if they were not (PyTorch clamps a copy
    under ``no_grad``)."""
    _require_tensors("gaussian_nll_loss", input, target)
    _check_reduction(reduction)
    var = _variance_like(input, var)
    var = var + (var.clamp(min=eps) - var).detach()
    loss = (var.log() + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:  # fmt: skip
    """``t (log t - x)`` elementwise (0 where ``t = 0``: the limit of ``t log t``), with
    ``x`` log-probabilities; ``log_target``: ``e^t (t - x)``. ``'batchmean'`` divides the
    sum by ``input.size(0)``."""
    _require_tensors("kl_div", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        positive = target > 0
        loss = (target * target.where(positive, 1.0).log()).where(positive, 0.0) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, reduction)
