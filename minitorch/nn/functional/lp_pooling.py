"""Power-average pooling: ``lp_pool1d``, ``lp_pool2d``, ``lp_pool3d`` (and their layers
``nn.LPPool1d/2d/3d``).

Each window gives ``(sum x^p)^(1/p)``: ``p = 1`` is sum pooling, large ``p`` approaches max
pooling (of the absolute values). Computed as PyTorch does: the average of ``x^p`` over
the window (``avg_pool``) times the window's size, and the ``1/p`` power of that
(negative sums, possible for odd ``p``, are kept with their sign through ``relu``'s zero).
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn.functional.activation import relu
from minitorch.nn.functional.conv import pair, single, triple
from minitorch.nn.functional.pooling import avg_pool1d, avg_pool2d, avg_pool3d
from minitorch.ops.common import require_tensor


def _root(window_means: Tensor, window_size: int, norm_type: float) -> Tensor:
    return (window_means.sign() * relu(window_means.abs())).mul(window_size).pow(1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    require_tensor("lp_pool2d", input)
    kh, kw = pair(kernel_size, "kernel_size")
    means = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(means, kh * kw, norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    require_tensor("lp_pool1d", input)
    means = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(means, single(kernel_size, "kernel_size"), norm_type)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """``(sum x^p)^(1/p)`` over each ``kd x kh x kw`` box of a volume."""
    require_tensor("lp_pool3d", input)
    kd, kh, kw = triple(kernel_size, "kernel_size")
    means = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(means, kd * kh * kw, norm_type)
