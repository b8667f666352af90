"""``FractionalMaxPool2d``, ``FractionalMaxPool3d``: max pooling to any output size, with
windows at pseudo-random starts (``F.fractional_max_pool2d`` explains the starts)."""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module


class _FractionalMaxPool(Module):
    dims = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:  # fmt: skip
        super().__init__()
        name = type(self).__name__
        self.kernel_size, self.return_indices = kernel_size, return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = output_size
        if output_ratio is not None and not isinstance(output_ratio, (tuple, list)):
            output_ratio = (output_ratio,) * self.dims
        self.output_ratio = output_ratio
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if output_ratio is not None and not all(0 < ratio < 1 for ratio in output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        pool = F.fractional_max_pool2d if self.dims == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)  # fmt: skip


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling of images ``[N, C, H, W]`` to ``output_size`` (or
    ``output_ratio`` of the input), windows of ``kernel_size``."""

    dims = 2


class FractionalMaxPool3d(_FractionalMaxPool):
    """Fractional max pooling of volumes ``[N, C, T, H, W]``."""

    dims = 3
