"""Loss layers: each holds its options (``reduction``, class ``weight``...) and calls the
function of the same name in ``nn.functional`` (see ``functional/loss.py`` for the
formulas)."""

from __future__ import annotations

import warnings

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        F.loss._check_reduction(reduction)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with per-class weights, kept as a buffer (moved by ``to``, saved)."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error ``(input - target)^2``, for regression."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error ``|input - target|``."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (use after ``LogSoftmax``)."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its old name for images (deprecated in PyTorch; the same loss)."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean") -> None:  # fmt: skip
        warnings.warn("NLLLoss2d has been deprecated. Please use NLLLoss instead as a drop-in "
                      "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
                      "more details.", stacklevel=2)  # fmt: skip
        super().__init__(weight, ignore_index, reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of raw scores (logits) against class indices or probabilities: the
    usual loss for classification. Applies ``log_softmax`` itself: give it logits."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:  # fmt: skip
        super().__init__(weight, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)  # fmt: skip


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (use after ``Sigmoid``)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits: ``Sigmoid`` + ``BCELoss`` in one stable formula."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:  # fmt: skip
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)  # fmt: skip
