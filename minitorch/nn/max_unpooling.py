"""``MaxUnpool1d``, ``MaxUnpool2d`` and ``MaxUnpool3d``: ``F.max_unpool1d/2d/3d`` as layers (the values of a
max pooling put back where its indices say, zeros elsewhere)."""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn.functional import max_unpooling
from minitorch.nn.functional.conv import pair, single, triple
from minitorch.nn.module import Module


class MaxUnpool2d(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = self._as_tuple(kernel_size, "kernel_size")
        self.stride = self._as_tuple(stride if stride is not None else kernel_size, "stride")
        self.padding = self._as_tuple(padding, "padding")

    @staticmethod
    def _as_tuple(value: Any, name: str) -> tuple:
        return pair(value, name)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        return max_unpooling.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(MaxUnpool2d):
    @staticmethod
    def _as_tuple(value: Any, name: str) -> tuple:
        return (single(value, name),)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        return max_unpooling.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool3d(MaxUnpool2d):
    @staticmethod
    def _as_tuple(value: Any, name: str) -> tuple:
        return triple(value, name)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        return max_unpooling.max_unpool3d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )
