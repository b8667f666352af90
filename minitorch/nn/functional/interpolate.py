"""Resizing images: ``interpolate`` (``nearest``, ``nearest-exact``, ``linear``,
``bilinear``, ``trilinear``), ``pixel_shuffle`` and ``pixel_unshuffle``.

**Where does output pixel ``j`` read from?** Resizing ``n`` cells to ``m`` maps output
index ``j`` to a *source coordinate* ``s`` in the input, with ``scale = n / m`` (or
``1 / scale_factor`` when a scale factor is given, as PyTorch does)::

    nearest              s = floor(j * scale)
    nearest-exact        s = floor((j + 0.5) * scale)       (pixel centres line up)
    linear, align_corners=False   s = (j + 0.5) * scale - 0.5   (clamped at 0)
    linear, align_corners=True    s = j * (n - 1) / (m - 1)     (the corner pixels line up)

Nearest modes read ``x[min(s, n - 1)]``. Linear modes blend the two neighbours
``i = floor(s)`` and ``i + 1`` with weights ``1 - (s - i)`` and ``s - i``. A 2-D or 3-D
resize is the 1-D one applied along each spatial dimension in turn (bilinear is linear
along H, then along W), so each step is two ``index_select`` and a weighted sum, and
autograd gives the backward (``index_select``'s is a scatter-add). The source indices
are computed in float32 as PyTorch's CPU kernels compute them, so nearest picks the same
pixels.

**Pixel shuffle** (the sub-pixel convolution of Shi et al., 2016) moves ``r * r``
channels into an ``r x r`` block of pixels: ``[*, C r^2, H, W] -> [*, C, H r, W r]``; it
is a reshape, a permute and a reshape. ``pixel_unshuffle`` is its inverse.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import float64, int64
from minitorch.ops.common import require_tensor

MODES = {"nearest": 0, "nearest-exact": 0, "linear": 1, "bilinear": 2, "trilinear": 3}


def _sizes(input: Tensor, size: Any, scale_factor: Any, dims: int) -> tuple[list[int], list[float | None]]:  # noqa: A002
    """The output sizes, and the scale factors to compute source indices with (``None``:
    use ``in / out``)."""
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined, and not both")
    if size is not None:
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * dims
        if len(sizes) != dims:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got "
                             f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                             f"{sizes}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             "output size in (o1, o2, ...,oK) format.")  # fmt: skip
        return [int(s) for s in sizes], [None] * dims
    scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * dims
    if len(scales) != dims:
        raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but "
                         f"got input with spatial dimensions of {list(input.shape[2:])} and "
                         f"scale_factor of shape {scales}.")  # fmt: skip
    sizes = [math.floor(n * float(s)) for n, s in zip(input.shape[2:], scales)]
    return sizes, [float(s) for s in scales]


def _step(n: int, m: int, scale_factor: float | None, align_corners: bool, real: type = np.float32) -> Any:
    """The distance in input cells between neighbouring output cells, as a ``real``
    (float32, or float64 for a float64 image's linear modes, as PyTorch computes it)."""
    if align_corners:
        return real((n - 1) / (m - 1)) if m > 1 else real(0)
    return real(1.0 / scale_factor) if scale_factor else real(n / m)


def _nearest(x: Tensor, dim: int, m: int, scale_factor: float | None, exact: bool) -> Tensor:
    n = x.shape[dim]
    j = np.arange(m, dtype=np.float32)
    offset = np.float32(0.5) if exact else np.float32(0)
    source = np.minimum(np.floor((j + offset) * _step(n, m, scale_factor, False)).astype(np.int64), n - 1)
    return x.index_select(dim, creation.tensor(source, dtype=int64, device=x.device))


def _linear(x: Tensor, dim: int, m: int, scale_factor: float | None, align_corners: bool) -> Tensor:
    n = x.shape[dim]
    real = np.float64 if x.dtype == float64 else np.float32
    j = np.arange(m, dtype=real)
    step = _step(n, m, scale_factor, align_corners, real)
    if align_corners:
        source = j * step
    else:
        source = np.maximum((j + real(0.5)) * step - real(0.5), real(0))
    low = np.minimum(np.floor(source).astype(np.int64), n - 1)
    high = np.minimum(low + 1, n - 1)
    frac = (source - low).astype(real)
    shape = [1] * x.ndim
    shape[dim] = m
    w_high = creation.tensor(frac.reshape(shape), dtype=x.dtype, device=x.device)
    pick_low = x.index_select(dim, creation.tensor(low, dtype=int64, device=x.device))
    pick_high = x.index_select(dim, creation.tensor(high, dtype=int64, device=x.device))
    return pick_low * (1 - w_high) + pick_high * w_high


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:  # fmt: skip
    """Resize the spatial dimensions of ``[N, C, *spatial]`` to ``size`` (or by
    ``scale_factor``), reading each output pixel as the module docstring says."""
    require_tensor("interpolate", input)
    if mode not in MODES:
        raise NotImplementedError(f"interpolate mode {mode!r} is not supported by minitorch "
                                  f"(it has {', '.join(MODES)}); see docs/api-coverage.md")  # fmt: skip
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported by minitorch")
    dims = input.ndim - 2
    if dims < 1 or dims > 3:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
            f"modes: nearest | linear | bilinear | trilinear (got {mode})"
        )
    linear = MODES[mode] > 0
    if linear and MODES[mode] != dims:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{MODES[mode] + 2}D input")  # fmt: skip
    if align_corners is not None and not linear:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")  # fmt: skip
    sizes, scales = _sizes(input, size, scale_factor, dims)
    if recompute_scale_factor:
        scales = [None] * dims
    if min(sizes) <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"{list(input.shape[2:])} and output {sizes}")  # fmt: skip
    out = input
    for d, (m, scale) in enumerate(zip(sizes, scales)):
        if linear:
            out = _linear(out, 2 + d, m, scale, bool(align_corners))
        else:
            out = _nearest(out, 2 + d, m, scale, mode == "nearest-exact")
    return out


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
             align_corners: bool | None = None) -> Tensor:  # fmt: skip
    """The old name of ``interpolate``."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    """The old name of ``interpolate(mode='nearest')``."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    """The old name of ``interpolate(mode='bilinear', align_corners=True)``."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """``[*, C r^2, H, W] -> [*, C, H r, W r]``: each group of ``r^2`` channels becomes an
    ``r x r`` block of pixels."""
    require_tensor("pixel_shuffle", input)
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")  # fmt: skip
    *batch, c, h, w = input.shape
    if r <= 0 or c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")  # fmt: skip
    k = len(batch)
    blocks = input.reshape(*batch, c // (r * r), r, r, h, w)  # [*, C, r, r, H, W]
    order = list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2]  # [*, C, H, r, W, r]
    return blocks.permute(*order).reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """``[*, C, H r, W r] -> [*, C r^2, H, W]``, the inverse of ``pixel_shuffle``."""
    require_tensor("pixel_unshuffle", input)
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")  # fmt: skip
    *batch, c, h, w = input.shape
    if r <= 0 or h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by "
                           f"downscale_factor, but got {h}x{w} and {r}")  # fmt: skip
    k = len(batch)
    blocks = input.reshape(*batch, c, h // r, r, w // r, r)  # [*, C, H, r, W, r]
    order = list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3]  # [*, C, r, r, H, W]
    return blocks.permute(*order).reshape(*batch, c * r * r, h // r, w // r)
