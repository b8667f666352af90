"""Margin and embedding losses: ``margin_ranking_loss``, ``hinge_embedding_loss``,
``soft_margin_loss``, ``multilabel_soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss`` (and ``triplet_margin_with_distance_loss``), and the multi-class
hinges ``multi_margin_loss`` and ``multilabel_margin_loss``.

These losses do not ask for a value to be reached, only for an *order* with a gap (the
margin) between the right answer and the wrong one; once the gap is there the loss is 0
and pushes no more. Labels ``y`` are ``1`` or ``-1``:

* **margin ranking**: ``max(0, -y (x1 - x2) + margin)``: ``x1`` should rank above
  ``x2`` by ``margin`` when ``y = 1``, below it when ``y = -1``;
* **hinge embedding**: ``x`` for ``y = 1``, ``max(0, margin - x)`` for ``y = -1``
  (``x`` is usually a distance: similar pairs close, dissimilar ones at least
  ``margin`` apart);
* **soft margin**: ``log(1 + e^(-y x))``, the smooth version (logistic regression's
  loss); **multi-label soft margin**: binary cross-entropy of ``sigmoid(x)`` for every
  class, averaged over the classes;
* **cosine embedding**: ``1 - cos(x1, x2)`` for ``y = 1``, ``max(0, cos - margin)``
  for ``y = -1``;
* **triplet margin** (FaceNet): ``max(0, d(a, p) - d(a, n) + margin)``: the anchor
  nearer the positive than the negative by ``margin`` (``swap`` uses the nearer of
  ``d(a, n)`` and ``d(p, n)``).

The triplet's distance is ``||x1 - x2 + eps||_p`` (``F.pairwise_distance``; the ``eps``
keeps the gradient finite at 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn.functional.activation_family import logsigmoid, softplus
from minitorch.nn.functional.loss import _check_reduction, _reduce, _require_tensors
from minitorch.nn.functional.regression_loss import legacy_reduction
from minitorch.ops.common import require_tensor


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:  # fmt: skip
    """``||x1 - x2 + eps||_p`` along the last dimension."""
    difference = x1 - x2 + eps
    dim = -1 if difference.ndim else 0
    return difference.norm(p, dim, keepdim=keepdim)


def _labels(function: str, target: Tensor) -> None:
    require_tensor(function, target, "target", 3)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:  # fmt: skip
    """``max(0, -y (x1 - x2) + margin)``."""
    _require_tensors("margin_ranking_loss", input1, input2)
    _labels("margin_ranking_loss", target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {list(input1.shape)}, input2: {list(input2.shape)}, target: {list(target.shape)} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:  # fmt: skip
    """``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1`` (PyTorch's exact
    rule: the first term wherever ``y != -1``, the second wherever ``y != 1``)."""
    _require_tensors("hinge_embedding_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    pushed_apart = (margin - input).clamp(min=0).where(target != 1, 0.0)
    pulled_close = input.where(target != -1, 0.0)
    return _reduce(pushed_apart + pulled_close, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """``log(1 + e^(-y x))``."""
    _require_tensors("soft_margin_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _reduce(softplus(-target * input), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:  # fmt: skip
    """``-(t log sigmoid(x) + (1 - t) log sigmoid(-x))`` per class (times ``weight``),
    averaged over the classes (the last dimension): one loss per sample."""
    _require_tensors("multilabel_soft_margin_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    classes = input.shape[-1] if input.ndim else 1
    return _reduce(loss.sum(-1) / classes if input.ndim else loss, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:  # fmt: skip
    """``1 - cos(x1, x2)`` where ``y = 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``y = -1``; the cosine along the last dimension of ``[N, D]`` (or ``[D]``) inputs,
    with PyTorch's ``1e-12`` added to each squared norm."""
    _require_tensors("cosine_embedding_loss", input1, input2)
    _labels("cosine_embedding_loss", target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.ndim not in (1, 2) or tuple(input1.shape) != tuple(input2.shape):
        raise RuntimeError(
            f"cosine_embedding_loss: expected two 1D or 2D inputs of the same size, but got "
            f"{list(input1.shape)} and {list(input2.shape)}"
        )
    dot = (input1 * input2).sum(-1)
    squares = ((input1 * input1).sum(-1) + 1e-12) * ((input2 * input2).sum(-1) + 1e-12)
    cos = dot / squares.sqrt()
    loss = (1 - cos).where(target == 1, 0.0) + (cos - margin).clamp(min=0).where(target == -1, 0.0)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:  # fmt: skip
    """``max(0, d(a, p) - d(a, n) + margin)`` with ``d(u, v) = ||u - v + eps||_p``."""
    _require_tensors("triplet_margin_loss", anchor, positive)
    require_tensor("triplet_margin_loss", negative, "negative", 3)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
            f"{negative.ndim}D inputs"
        )
    d_positive = _pairwise_distance(anchor, positive, p, eps)
    d_negative = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_negative = d_negative.minimum(_pairwise_distance(positive, negative, p, eps))
    return _reduce((d_positive - d_negative + margin).clamp(min=0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:  # fmt: skip
    """The triplet loss with any ``distance_function(x1, x2)`` (default: the
    Euclidean ``||x1 - x2 + 1e-6||``)."""
    _require_tensors("triplet_margin_with_distance_loss", anchor, positive)
    require_tensor("triplet_margin_with_distance_loss", negative, "negative", 3)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(
            f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead"
        )
    distance = distance_function if distance_function is not None else _pairwise_distance
    d_positive, d_negative = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_negative = d_negative.minimum(distance(positive, negative))
    return _reduce((d_positive - d_negative + margin).clamp(min=0), reduction)


def _class_rows(function: str, input: Tensor, target: Tensor) -> tuple[Tensor, Tensor, bool]:  # noqa: A002
    """``[N, C]`` scores (an unbatched ``[C]`` gets a batch of 1) and their targets."""
    _require_tensors(function, input, target)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"{function}: Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")  # fmt: skip
    unbatched = input.ndim == 1
    return (input.unsqueeze(0), target.reshape(1, -1), True) if unbatched else (input, target, False)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,  # noqa: A002
                      weight: Tensor | None = None, size_average: bool | None = None,
                      reduce: bool | None = None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """The multi-class hinge loss (a linear SVM's): for the right class ``y``,
    ``sum over i != y of w[y] max(0, margin - x[y] + x[i])^p / C``."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x, y, unbatched = _class_rows("multi_margin_loss", input, target)
    n, classes = x.shape
    y = y.reshape(n, 1)
    right = x.gather(1, y)  # [N, 1]
    hinge = (x - right + margin).clamp(min=0)
    if p == 2:
        hinge = hinge * hinge
    others = creation.arange(classes, device=x.device).reshape(1, classes) != y  # leave out i == y
    if weight is not None:
        hinge = hinge * weight.index_select(0, y.reshape(-1)).reshape(n, 1)
    loss = hinge.where(others, 0.0).sum(1) / classes
    return _reduce(loss.reshape(tuple(target.shape)) if unbatched else loss, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                           reduce: bool | None = None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """For each sample, ``target`` lists its classes (ended by the first ``-1``); every
    (target class ``j``, other class ``i``) pair adds ``max(0, 1 - (x[j] - x[i])) / C``."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, y, unbatched = _class_rows("multilabel_margin_loss", input, target)
    if tuple(y.shape) != tuple(x.shape):
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    labels = y.cpu().numpy()
    chosen = np.zeros(labels.shape, dtype=bool)  # chosen[n, c]: class c is one of sample n's
    for row, classes in enumerate(labels):
        for c in classes:
            if c < 0:
                break
            chosen[row, c] = True
    n, classes = x.shape
    pairs = creation.tensor(chosen[:, :, None] & ~chosen[:, None, :], device=x.device)  # [N, j, i]
    hinge = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).clamp(min=0)
    loss = hinge.where(pairs, 0.0).sum((1, 2)) / classes
    return _reduce(loss.reshape(()) if unbatched else loss, reduction)
