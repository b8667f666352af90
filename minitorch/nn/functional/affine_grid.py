"""``affine_grid``: where an affine transform sends every cell of an output image or
volume, as the sampling grid a spatial transformer reads the input at.

Positions are *normalised*: ``-1`` is the left (top, front) edge and ``+1`` the right
(bottom, back) one, whatever the size. Along an axis of ``n`` cells the grid's
coordinates are ``linspace(-1, 1, n)``: the centres of the corner cells sit at ``-1``
and ``+1`` with ``align_corners=True``; with ``False`` (the default) ``-1`` and ``+1``
are the outer *edges* of the corner cells, so the centres move in by half a cell:
``linspace(-1, 1, n) * (n - 1) / n``. One cell gives the coordinate ``0``.

Every output cell ``(x, y)`` (``(x, y, z)`` in a volume) then becomes ``theta @ (x, y, 1)``
(``theta @ (x, y, z, 1)``)::

    theta: [N, 2, 3], size (N, C, H, W)     -> grid [N, H, W, 2]
    theta: [N, 3, 4], size (N, C, D, H, W)  -> grid [N, D, H, W, 3]

computed as one matmul of the base grid ``[H*W, 3]`` with ``theta``'s transpose, so the
gradient with respect to ``theta`` is the matmul's own.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import stack


def _coordinates(steps: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalised centres of ``steps`` cells along one axis (PyTorch's formula)."""
    if steps <= 1:
        return creation.zeros(steps, dtype=like.dtype, device=like.device)
    line = creation.linspace(-1.0, 1.0, steps, dtype=like.dtype, device=like.device)
    return line if align_corners else line * (steps - 1) / steps


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (``[N, 2, 3]`` for images,
    ``[N, 3, 4]`` for volumes) for an output of ``size`` (``(N, C, H, W)`` or
    ``(N, C, D, H, W)``): ``[N, H, W, 2]`` or ``[N, D, H, W, 3]`` of ``(x, y[, z])``."""
    require_tensor("affine_grid", theta, "theta")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                      "old behavior is desired.", stacklevel=2)  # fmt: skip
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")  # fmt: skip
    dims = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (dims, dims + 1):
        raise ValueError(f"Expected a batch of {dims}D affine matrices of shape Nx{dims}x{dims + 1} "
                         f"for size {size}. Got {tuple(theta.shape)}.")  # fmt: skip
    spatial = size[2:]
    if not (align_corners and min(spatial) == 1) and min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"affine_grid: theta holds {theta.shape[0]} matrices, but size asks "
                           f"for a batch of {size[0]}")  # fmt: skip
    # the axes of the base grid: x runs along the last spatial axis, y the one before, ...
    axes = []
    for k, steps in enumerate(reversed(spatial)):
        view = [1] * dims
        view[dims - 1 - k] = steps
        axes.append(_coordinates(steps, align_corners, theta).reshape(view).expand(*spatial))
    axes.append(creation.ones(spatial, dtype=theta.dtype, device=theta.device))
    cells = 1
    for steps in spatial:
        cells *= steps
    base = stack(axes, -1).reshape(1, cells, dims + 1)  # rows (x, y[, z], 1)
    grid = base.expand(size[0], cells, dims + 1) @ theta.transpose(1, 2)  # [N, cells, dims]
    return grid.reshape((size[0],) + spatial + (dims,))
