"""``LPPool1d``, ``LPPool2d`` and ``LPPool3d``: ``F.lp_pool1d/2d/3d`` (``(sum x^p)^(1/p)``
per window) as layers."""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module


class LPPool2d(Module):
    function = "lp_pool2d"

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = (
            norm_type,
            kernel_size,
            stride,
            ceil_mode,
        )

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return getattr(F, self.function)(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")  # fmt: skip


class LPPool1d(LPPool2d):
    function = "lp_pool1d"


class LPPool3d(LPPool2d):
    function = "lp_pool3d"
