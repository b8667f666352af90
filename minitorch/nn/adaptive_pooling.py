"""Adaptive pooling layers: ``AdaptiveAvgPool1d/3d`` and ``AdaptiveMaxPool1d/2d/3d``, each
``F.adaptive_*`` with its output size kept (``nn/functional/adaptive_pooling.py`` has the
windows)."""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn.functional import adaptive_pooling
from minitorch.nn.module import Module


class _AdaptiveAvgPoolNd(Module):
    function = "adaptive_avg_pool1d"

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return getattr(adaptive_pooling, self.function)(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(Module):
    function = "adaptive_max_pool1d"

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return getattr(adaptive_pooling, self.function)(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    function = "adaptive_avg_pool1d"


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    function = "adaptive_avg_pool3d"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    function = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    function = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    function = "adaptive_max_pool3d"
