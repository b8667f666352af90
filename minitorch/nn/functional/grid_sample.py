"""``grid_sample``: read an image (or a volume) at the positions a grid gives, as a
spatial transformer does after ``affine_grid``; and ``grid_sampler_2d/3d``, the ATen forms
with integer modes.

For every output cell the grid holds a position ``(x, y)`` (``(x, y, z)`` in a volume) in
*normalised* coordinates: ``-1`` is the left (top, front) edge of the input and ``+1`` the
right (bottom, back) one. Sampling one position is three steps:

1. **Unnormalise** each coordinate to a pixel coordinate along an axis of ``n`` pixels:
   ``(c + 1) / 2 * (n - 1)`` with ``align_corners=True`` (``+-1`` are the centres of the
   corner pixels), ``((c + 1) * n - 1) / 2`` with ``False`` (they are the outer edges).
2. **Pad**: a position outside the image reads ``0`` (``padding_mode="zeros"``), the
   nearest border pixel (``"border"``: the coordinate is clamped into ``[0, n - 1]``), or
   the image mirrored at its borders (``"reflection"``: the coordinate is folded back, as
   many times as it takes, then clamped).
3. **Interpolate** between the pixels around the position: ``"bilinear"`` weighs the
   2 (3-D: 2 per axis, 8 in all) neighbours by how close they are, ``w = 1 - |p - c|``;
   ``"nearest"`` reads the closest one (ties to the even one); ``"bicubic"`` (images only)
   weighs 4 x 4 neighbours with the cubic convolution kernel (``A = -0.75``).

Every neighbour is read with ``gather`` on the input flattened to ``[N, C, pixels]``, at
the flat index ``x + W * y (+ W * H * z)``; a neighbour outside the image is masked to 0.
The weights are differentiable functions of the grid, so the gradient with respect to the
grid (through the weights) and the input (through ``gather``) comes from the ops' own
backward: this file has no backward of its own.
"""

from __future__ import annotations

import itertools
import warnings

from minitorch._tensor import Tensor
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor

MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")
CUBIC_A = -0.75  # the cubic convolution kernel's constant, as PyTorch's bicubic uses


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """From ``[-1, 1]`` to pixel coordinates along an axis of ``size`` pixels."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Fold ``coord`` into ``[low, high]`` by mirroring at both ends, as often as it takes.

    The distance from ``low`` is split into whole spans (``flips``) and what is left
    (``extra``): after an even number of flips the point lands at ``low + extra``, after an
    odd number at ``high - extra``. The bounds come doubled so half-pixels are integers."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coord - low).abs()
    extra = distance.fmod(span)
    flips = (distance / span).floor()
    return where(flips.fmod(2) == 0, extra + low, span - extra + low)


def _pad(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """The pixel coordinate that ``padding_mode`` reads for ``coord`` (unchanged for zeros)."""
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
    if padding_mode in ("border", "reflection"):
        coord = coord.clamp(0, size - 1)
    return coord


def _cubic_weights(t: Tensor) -> list[Tensor]:
    """The weights of the 4 neighbours at ``-1, 0, 1, 2`` of a point ``t`` in ``[0, 1)``
    past the second: ``k(1 + t), k(t), k(1 - t), k(2 - t)`` of the cubic convolution kernel
    ``k(x) = (A + 2)|x|^3 - (A + 3)|x|^2 + 1`` on ``|x| <= 1`` and
    ``A|x|^3 - 5A|x|^2 + 8A|x| - 4A`` on ``1 < |x| < 2``."""
    a = CUBIC_A

    def near(x: Tensor) -> Tensor:
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Tensor) -> Tensor:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _taps(coord: Tensor, size: int, mode: str, padding_mode: str, align_corners: bool) -> list:
    """The neighbours one axis reads: ``(pixel coordinate, weight or None)`` pairs."""
    pixel = _unnormalize(coord, size, align_corners)
    if mode == "bicubic":  # the padding applies to every neighbour, not to the point
        below = pixel.floor()
        weights = _cubic_weights(pixel - below)
        return [(_pad(below + (k - 1), size, padding_mode, align_corners).trunc(), weights[k])
                for k in range(4)]  # fmt: skip
    pixel = _pad(pixel, size, padding_mode, align_corners)
    if mode == "nearest":
        return [(pixel.round(), None)]
    below = pixel.floor()
    return [(below, below + 1 - pixel), (below + 1, pixel - below)]


def _sample(input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool) -> Tensor:  # noqa: A002
    batch, channels = input.shape[0], input.shape[1]
    spatial = tuple(input.shape[2:])  # (D,) H, W
    out_spatial = tuple(grid.shape[1:-1])
    dims = len(spatial)
    flat_input = input.reshape(batch, channels, -1)
    points = 1
    for extent in out_spatial:
        points *= extent
    # axis k of the grid's last dimension runs along input dimension -1 - k (x along W)
    sizes = [spatial[dims - 1 - k] for k in range(dims)]
    strides = [1] * dims
    for k in range(1, dims):
        strides[k] = strides[k - 1] * sizes[k - 1]
    axes = [_taps(grid.select(-1, k), sizes[k], mode, padding_mode, align_corners) for k in range(dims)]
    out = None
    for corner in itertools.product(*axes):
        inside, flat, weight = None, None, None
        for k, (position, tap_weight) in enumerate(corner):
            ok = (position >= 0) & (position <= sizes[k] - 1)
            inside = ok if inside is None else inside & ok
            term = where(ok, position, 0).long() * strides[k]
            flat = term if flat is None else flat + term
            if tap_weight is not None:
                weight = tap_weight if weight is None else weight * tap_weight
        index = flat.reshape(batch, 1, points).expand(batch, channels, points)
        value = flat_input.gather(2, index).reshape((batch, channels) + out_spatial)
        value = where(inside.unsqueeze(1), value, 0)
        if weight is not None:
            value = value * weight.unsqueeze(1)
        out = value if out is None else out + value
    return out


def _check(input: Tensor, grid: Tensor, mode: str) -> None:  # noqa: A002
    """ATen's checks of ``grid_sampler``, with its messages."""
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input "
                           f"has {input.dtype} and grid has {grid.dtype}")  # fmt: skip
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"grid_sampler not implemented for {input.dtype}")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid with "
                           f"sizes {list(grid.shape)}")  # fmt: skip
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")  # fmt: skip
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")  # fmt: skip
    for k in range(2, input.ndim):
        if input.shape[k] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, "
                               f"but input has sizes {list(input.shape)} with dimension {k} being "
                               "empty")  # fmt: skip
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",  # noqa: A002
                align_corners: bool | None = None) -> Tensor:  # fmt: skip
    """Sample ``input`` (``[N, C, H, W]`` or ``[N, C, D, H, W]``) at the normalised
    positions ``grid`` (``[N, H_out, W_out, 2]`` or ``[N, D_out, H_out, W_out, 3]``, the
    last axis ``(x, y[, z])``): an ``[N, C, H_out, W_out]`` (``[N, C, D_out, H_out, W_out]``)
    result. ``mode``: ``"bilinear"`` (trilinear in 3-D), ``"nearest"``, ``"bicubic"``;
    ``padding_mode``: ``"zeros"``, ``"border"``, ``"reflection"``."""
    require_tensor("grid_sample", input)
    require_tensor("grid_sample", grid, "grid", 2)
    if mode not in MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                         f"'bicubic', but got: '{mode}'")  # fmt: skip
    if padding_mode not in PADDING_MODES:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', "
                         f"or 'reflection', but got: '{padding_mode}'")  # fmt: skip
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                      "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                      "See the documentation of grid_sample for details.", stacklevel=2)  # fmt: skip
        align_corners = False
    _check(input, grid, mode)
    return _sample(input, grid, mode, padding_mode, bool(align_corners))


def _sampler(name: str, dims: int, input: Tensor, grid: Tensor, interpolation_mode: int,  # noqa: A002
             padding_mode: int, align_corners: bool) -> Tensor:  # fmt: skip
    require_tensor(name, input)
    require_tensor(name, grid, "grid", 2)
    if not 0 <= int(interpolation_mode) < len(MODES) or not 0 <= int(padding_mode) < len(PADDING_MODES):
        raise RuntimeError(f"{name}(): interpolation_mode {interpolation_mode} or padding_mode "
                           f"{padding_mode} is not one of 0, 1, 2")  # fmt: skip
    mode = MODES[int(interpolation_mode)]
    _check(input, grid, mode)
    if input.ndim != dims + 2:
        raise RuntimeError(f"{name}(): expected {dims + 2}D input, got {list(input.shape)}")
    return _sample(input, grid, mode, PADDING_MODES[int(padding_mode)], bool(align_corners))


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,  # noqa: A002
                    align_corners: bool) -> Tensor:  # fmt: skip
    """``grid_sample`` of an image with ATen's integer modes: ``interpolation_mode`` 0
    bilinear, 1 nearest, 2 bicubic; ``padding_mode`` 0 zeros, 1 border, 2 reflection."""
    return _sampler("grid_sampler_2d", 2, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,  # noqa: A002
                    align_corners: bool) -> Tensor:  # fmt: skip
    """``grid_sample`` of a volume with ATen's integer modes (0 trilinear, 1 nearest;
    padding 0 zeros, 1 border, 2 reflection)."""
    return _sampler("grid_sampler_3d", 3, input, grid, interpolation_mode, padding_mode, align_corners)
