"""Pooling layers: ``MaxPool2d``, ``AvgPool2d`` (and 1-D, 3-D forms), ``AdaptiveAvgPool2d``."""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module


class MaxPool2d(Module):
    """The largest value of each ``kernel_size`` window (``stride`` defaults to
    ``kernel_size``: windows side by side)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)  # fmt: skip

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")  # fmt: skip


class AvgPool2d(Module):
    """The mean of each ``kernel_size`` window."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool1d(MaxPool2d):
    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)  # fmt: skip


class AvgPool1d(AvgPool2d):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)  # fmt: skip


class MaxPool3d(MaxPool2d):
    """The largest value of each ``kernel_size`` box of a ``[N, C, D, H, W]`` volume."""

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)  # fmt: skip


class AvgPool3d(AvgPool2d):
    """The mean of each ``kernel_size`` box of a ``[N, C, D, H, W]`` volume."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)  # fmt: skip


class AdaptiveAvgPool2d(Module):
    """Average-pool to ``output_size`` (any size: windows overlap where it does not divide the input)."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
