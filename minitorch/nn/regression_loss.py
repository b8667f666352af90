"""Loss layers for regression and distributions (the formulas are in
``functional/regression_loss.py``): ``HuberLoss``, ``SmoothL1Loss``, ``PoissonNLLLoss``,
``GaussianNLLLoss``, ``KLDivLoss``."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn.functional import regression_loss as R
from minitorch.nn.loss import _Loss
from minitorch.nn.module import Module


class HuberLoss(_Loss):
    """Squared error within ``delta`` of the target, absolute error beyond."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return R.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """Huber divided by ``beta`` (``beta = 0``: L1)."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:  # fmt: skip
        super().__init__(R.legacy_reduction(size_average, reduce, reduction))
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return R.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class PoissonNLLLoss(_Loss):
    """Negative log likelihood of counts under a Poisson rate."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average: bool | None = None,
                 eps: float = 1e-8, reduce: bool | None = None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(R.legacy_reduction(size_average, reduce, reduction))
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return R.poisson_nll_loss(log_input, target, self.log_input, self.full, eps=self.eps,
                                  reduction=self.reduction)  # fmt: skip


class GaussianNLLLoss(_Loss):
    """Negative log likelihood of the target under a Gaussian with predicted mean and
    variance."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:  # noqa: A002
        return R.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class KLDivLoss(Module):
    """``KL(target || exp(input))`` for log-probability inputs (``reduction`` may also be
    ``'batchmean'``, the true KL divergence per sample)."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", log_target: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.reduction = R.legacy_reduction(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return R.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
