"""Normalizations that use no other sample's numbers: ``group_norm``,
``instance_norm``, ``rms_norm``, ``local_response_norm`` and ``normalize``.

Batch norm (``normalization.py``) shares statistics across the batch, so a sample's
output depends on which other samples it came with, and small batches give noisy
statistics. These compute every statistic inside one sample:

* **group norm** (Wu & He, 2018): split the ``C`` channels of ``x[N, C, *]`` into ``G``
  groups and normalize each group of each sample: ``(x - mean) / sqrt(var + eps)`` over
  its ``C/G * H * W`` values, then a learned scale and shift per channel. ``G = 1`` is
  layer norm over ``[C, H, W]``; ``G = C`` is instance norm;
* **instance norm** (Ulyanov et al., 2016): every channel of every sample on its own,
  over its spatial positions (style transfer: it removes each image's contrast). It can
  also keep running averages, like batch norm (``use_input_stats=False`` reads them);
* **RMS norm** (Zhang & Sennrich, 2019; LLaMA): no centering, just the scale:
  ``x / sqrt(mean(x^2) + eps) * weight`` over the last dimensions;
* **local response norm** (AlexNet): divide each channel by the energy of its
  ``size`` neighbouring channels, ``(k + alpha / size * sum x^2) ^ beta``;
* **normalize**: ``x / max(||x||_p, eps)`` along ``dim`` (unit vectors).

The variance is the biased one (divide by ``n``), as in batch norm. Each is composed from
reductions and elementwise ops, so autograd gives the backward.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import finfo
from minitorch.layout import numel
from minitorch.ops.common import require_tensor
from minitorch.ops.pad import constant_pad
from minitorch.ops.reduce import accumulation_dtype


def _standardize(x: Tensor, dims: tuple, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(x - mean) / sqrt(var + eps)`` over ``dims``, with the mean and biased variance."""
    mean = x.mean(dims, keepdim=True)
    centered = x - mean
    var = (centered * centered).mean(dims, keepdim=True)
    return centered * (var + eps).rsqrt(), mean, var


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None, ndim: int) -> Tensor:
    """Scale and shift per channel (dim 1) of an ``ndim``-dimensional output."""
    shape = (-1,) + (1,) * (ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalize each of ``num_groups`` channel groups of each sample of ``[N, C, *]``."""
    require_tensor("group_norm", input)
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, channels = input.shape[0], input.shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}"
        )
    wide = input.to(accumulation_dtype(input.dtype))
    grouped = wide.reshape(n, num_groups, -1)
    out = _standardize(grouped, (2,), eps)[0].reshape(tuple(input.shape))
    out = _affine(out, weight, bias, input.ndim)
    return out.to(input.dtype) if wide.dtype is not input.dtype else out


def instance_norm(input: Tensor, running_mean: Tensor | None = None,  # noqa: A002
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True, momentum: float = 0.1,
                  eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalize each channel of each sample of ``[N, C, *spatial]`` over its spatial
    positions. With ``use_input_stats`` and running buffers given, the buffers move
    toward the batch's average of the per-instance means and unbiased variances."""
    require_tensor("instance_norm", input)
    if input.ndim < 3:
        raise ValueError(f"instance_norm: expected an input [N, C, *spatial] of at least 3D, got "
                         f"{list(input.shape)}")  # fmt: skip
    dims = tuple(range(2, input.ndim))
    wide = input.to(accumulation_dtype(input.dtype))
    shape = (1, input.shape[1]) + (1,) * len(dims)
    if use_input_stats:
        count = numel(input.shape[2:])
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {list(input.shape)}"
            )
        out, mean, var = _standardize(wide, dims, eps)
        if running_mean is not None and running_var is not None:
            with no_grad():
                batch_mean = mean.reshape(input.shape[:2]).mean(0)
                batch_var = (var.reshape(input.shape[:2]) * (count / (count - 1))).mean(0)
                running_mean.mul_(1 - momentum).add_(batch_mean * momentum)
                running_var.mul_(1 - momentum).add_(batch_var * momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(
                "Expected running_mean and running_var to be defined when use_input_stats is false"
            )
        out = (wide - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    out = _affine(out, weight, bias, input.ndim)
    return out.to(input.dtype) if wide.dtype is not input.dtype else out


def rms_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:  # fmt: skip
    """``x / sqrt(mean(x^2) + eps) * weight`` over the last ``len(normalized_shape)``
    dimensions; ``eps=None`` is the machine epsilon of the input's dtype."""
    require_tensor("rms_norm", input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or len(shape) > input.ndim:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in shape)}], but got input of size {list(input.shape)}"
        )
    if eps is None:
        eps = finfo(input.dtype).eps
    wide = input.to(accumulation_dtype(input.dtype))
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = (wide * ((wide * wide).mean(dims, keepdim=True) + eps).rsqrt()).to(input.dtype)
    return out * weight if weight is not None else out


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,  # noqa: A002
                        k: float = 1.0) -> Tensor:  # fmt: skip
    """Divide channel ``c`` by ``(k + alpha / size * sum of x^2 over channels
    c - size//2 .. c + (size-1)//2) ^ beta`` (channels past the ends count as 0)."""
    require_tensor("local_response_norm", input)
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    channels = input.shape[1]
    widths = [(0, 0)] * input.ndim
    widths[1] = (size // 2, (size - 1) // 2)
    squares = constant_pad(input * input, tuple(widths), 0.0)
    energy = squares.narrow(1, 0, channels)
    for offset in range(1, size):
        energy = energy + squares.narrow(1, offset, channels)
    return input / (energy * (alpha / size) + k).pow(beta)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002
              out: Any = None) -> Tensor:  # fmt: skip
    """``x / max(||x||_p, eps)`` along ``dim``: every slice becomes a unit vector (a zero
    vector stays zero instead of dividing by 0)."""
    require_tensor("normalize", input)
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported; use the returned tensor")
    return input / input.norm(p, dim, keepdim=True).clamp(min=eps)
