"""Two losses of a model's last layer: ``CTCLoss`` (a label sequence read from frames,
without an alignment) and ``LinearCrossEntropyLoss`` (the classifier's projection and its
cross entropy in one module)."""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.linear import Linear
from minitorch.nn.loss import _Loss, _WeightedLoss


class CTCLoss(_Loss):
    """Connectionist Temporal Classification: ``-log`` of the probability of every frame
    path that reads the target (``F.ctc_loss`` explains the forward algorithm)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)  # fmt: skip


class LinearCrossEntropyLoss(_WeightedLoss):
    """``cross_entropy(linear(input), target)`` with the linear map's weight (``[C * d_1 ..
    d_K, in_features]``, kept 2-D in ``self.linear``) as this module's parameter."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple = (),
                 bias: bool = False, device: Any = None, dtype: Any = None, reduction: str = "mean",
                 weight: Tensor | None = None, ignore_index: int | None = None,
                 label_smoothing: float = 0.0, options: Any = None) -> None:  # fmt: skip
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight, reduction)
        self.num_classes, self.out_features = num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing, self.options = ignore_index, label_smoothing, options
        width = num_classes
        for extent in self.out_features:
            width *= extent
        self.linear = Linear(in_features, width, bias=bias, device=device, dtype=dtype)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias
        return F.linear_cross_entropy(
            input, self.linear.weight.reshape(shape + (self.linear.in_features,)), target,
            linear_bias=None if bias is None else bias.reshape(shape), weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing, options=self.options,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")  # fmt: skip
