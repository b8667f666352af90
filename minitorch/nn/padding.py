"""Padding layers: ``ZeroPad*``, ``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``
and ``CircularPad*`` (1-D, 2-D and 3-D), each ``F.pad`` with its mode and its widths kept.

``padding`` is one int (the same width on every side) or the widths themselves in
``F.pad``'s order: ``(left, right)``, then ``(top, bottom)``, then ``(front, back)``.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module


class _PadNd(Module):
    """One padding layer: ``mode`` and the number of padded dimensions come from the class."""

    mode = "constant"
    dims = 1

    def __init__(self, padding: Any, value: float = 0.0) -> None:
        super().__init__()
        self.padding = (padding,) * (2 * self.dims) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        if self.mode == "constant" and not isinstance(self, _ZeroPad):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


class _ZeroPad(_PadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)


class _ConstantPad(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ZeroPad1d(_ZeroPad):
    dims = 1


class ZeroPad2d(_ZeroPad):
    dims = 2


class ZeroPad3d(_ZeroPad):
    dims = 3


class ConstantPad1d(_ConstantPad):
    dims = 1


class ConstantPad2d(_ConstantPad):
    dims = 2


class ConstantPad3d(_ConstantPad):
    dims = 3


class ReflectionPad1d(_PadNd):
    mode, dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    mode, dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    mode, dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    mode, dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    mode, dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    mode, dims = "replicate", 3


class CircularPad1d(_PadNd):
    mode, dims = "circular", 1


class CircularPad2d(_PadNd):
    mode, dims = "circular", 2


class CircularPad3d(_PadNd):
    mode, dims = "circular", 3
