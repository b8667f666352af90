"""Margin and embedding loss layers (the formulas are in ``functional/margin_loss.py``)."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn.functional import margin_loss as M
from minitorch.nn.functional.regression_loss import legacy_reduction
from minitorch.nn.loss import _Loss


class _MarginLoss(_Loss):
    """A loss with a ``margin`` and PyTorch's legacy reduction flags."""

    default_margin = 0.0

    def __init__(self, margin: float | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(legacy_reduction(size_average, reduce, reduction))
        self.margin = self.default_margin if margin is None else margin


class MarginRankingLoss(_MarginLoss):
    """``max(0, -y (x1 - x2) + margin)``."""

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return M.margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """``x`` for ``y = 1``, ``max(0, margin - x)`` for ``y = -1``."""

    default_margin = 1.0

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return M.hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """``1 - cos`` for ``y = 1``, ``max(0, cos - margin)`` for ``y = -1``."""

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return M.cosine_embedding_loss(input1, input2, target, self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``log(1 + e^(-y x))``."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(legacy_reduction(size_average, reduce, reduction))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return M.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """Binary cross-entropy per class (``weight`` per class), averaged over classes."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(legacy_reduction(size_average, reduce, reduction))
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return M.multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(0, d(a, p) - d(a, n) + margin)``."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(legacy_reduction(size_average, reduce, reduction))
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return M.triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps,
                                     self.swap, reduction=self.reduction)  # fmt: skip
