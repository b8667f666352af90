"""Convolution as *im2col + matmul*, and the ``unfold``/``fold`` pair it is built on.

``unfold`` (im2col, ``minitorch/ops/im2col.py``) copies every ``kh x kw`` window of an
image into a column (the windows are a strided view of the padded image, so finding them
costs nothing)::

    x: [N, C, H, W]   ->   cols: [N, C*kh*kw, OH*OW]

A convolution is then one batched matmul with the weight viewed as ``[O, C*kh*kw]``::

    out[n] = W @ cols[n]          # [O, OH*OW], already in [N, O, OH, OW] order

Its backward needs nothing new: the matmul's backward, then ``unfold``'s (``fold``: every
column entry is added back to the pixel it was read from).

``conv3d`` is the same code one dimension up (``_convolution``): a volume
``[N, C, D, H, W]`` unfolds into ``[N, C*kd*kh*kw, OD*OH*OW]`` and the weight views as
``[O, C*kd*kh*kw]``.

This file only reads PyTorch's arguments (ints or tuples, ``'same'``/``'valid'``), checks
them with PyTorch's errors, and composes ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch._tensor import Tensor
from minitorch.nn.functional import padding_modes
from minitorch.ops import im2col
from minitorch.ops.common import require_tensor
from minitorch.ops.pad import constant_pad


def ntuple(value: Any, dims: int, name: str = "value") -> tuple[int, ...]:
    """One int per spatial dimension: ``3 -> (3, 3, 3)`` for ``dims = 3``; ``(3, 2, 1)``
    stays; ``[3] -> (3, 3, 3)``. Any other length is PyTorch's error."""
    values = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        raise TypeError(f"{name} must be an int or a tuple of {dims} ints, but got {value!r}")
    if len(values) not in (1, dims):
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dims} values to match "
            f"the convolution dimensions, but got {name}={list(values)}"
        )
    return tuple(int(v) for v in values) if len(values) == dims else (int(values[0]),) * dims


def pair(value: Any, name: str = "value") -> tuple[int, int]:
    """``3 -> (3, 3)``; ``(3, 2) -> (3, 2)``; ``[3] -> (3, 3)``."""
    return ntuple(value, 2, name)  # type: ignore[return-value]


def triple(value: Any, name: str = "value") -> tuple[int, int, int]:
    """``3 -> (3, 3, 3)``; ``(3, 2, 1) -> (3, 2, 1)``; ``[3] -> (3, 3, 3)``."""
    return ntuple(value, 3, name)  # type: ignore[return-value]


def single(value: Any, name: str) -> int:
    """A 1-D argument: ``3`` or ``(3,)`` -> ``3``."""
    values = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(values) != 1:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of 1 values to match the "
            f"convolution dimensions, but got {name}={list(values)}"
        )
    return pair(values[0], name)[0]


def batched(input: Tensor, dims: int, name: str) -> tuple[Tensor, bool]:  # noqa: A002
    """``[N, C, *spatial]`` with ``dims`` spatial dimensions (an unbatched
    ``[C, *spatial]`` gets a batch of 1), and whether it was unbatched."""
    if input.ndim == dims + 1:
        return input.unsqueeze(0), True
    if input.ndim != dims + 2:
        raise RuntimeError(
            f"{name}: Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input, but got "
            f"input of size: {list(input.shape)}"
        )
    return input, False


def _as_4d(input: Tensor, name: str) -> tuple[Tensor, bool]:  # noqa: A002
    """``[N, C, H, W]`` (an unbatched ``[C, H, W]`` gets a batch of 1)."""
    return batched(input, 2, name)


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:  # noqa: A002
    """Every ``kernel_size`` window of a ``[N, C, H, W]`` input as a column:
    ``[N, C*kh*kw, L]`` (PyTorch's ``F.unfold``, im2col). A ``[C, H, W]`` input gives
    ``[C*kh*kw, L]``."""
    x, unbatched = _as_4d(input, "unfold")
    cols = im2col.unfold(x, pair(kernel_size, "kernel_size"), pair(dilation, "dilation"),
                         pair(padding, "padding"), pair(stride, "stride"))  # fmt: skip
    return cols.squeeze(0) if unbatched else cols


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
         stride: Any = 1) -> Tensor:  # fmt: skip
    """The adjoint of ``unfold``: add the columns ``[N, C*kh*kw, L]`` back into a
    ``[N, C, H, W]`` image (a ``[C*kh*kw, L]`` input gives ``[C, H, W]``)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"fold: Expected 2D (unbatched) or 3D (batched) input [N, C*kh*kw, L], but got input "
            f"of size: {list(input.shape)}"
        )
    cols = input.unsqueeze(0) if input.ndim == 2 else input
    size, kernel = pair(output_size, "output_size"), pair(kernel_size, "kernel_size")
    image = im2col.fold(cols, size, kernel, pair(dilation, "dilation"), pair(padding, "padding"),
                        pair(stride, "stride"))  # fmt: skip
    return image.squeeze(0) if input.ndim == 2 else image


def _padding_widths(padding: Any, kernel: tuple, dilation: tuple, stride: tuple) -> tuple:
    """``(before, after)`` per spatial dimension: ``'valid'`` is no padding; ``'same'``
    pads a total of ``dilation * (kernel - 1)`` per dimension so the output keeps the
    input's size, the odd cell (an even kernel) at the end, as PyTorch does."""
    dims = len(kernel)
    if not isinstance(padding, str):
        return tuple((p, p) for p in ntuple(padding, dims, "padding"))
    if padding == "valid":
        return ((0, 0),) * dims
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: {padding!r}, should be 'valid' or 'same'")
    if stride != (1,) * dims:
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return tuple((t // 2, t - t // 2) for t in totals)


def _check_weight_and_bias(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int,
                           name: str = "conv2d") -> None:  # fmt: skip
    """PyTorch's checks of a ``[O, C / groups, *kernel]`` weight against the input, the
    groups and the bias."""
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'groups' must be int, not {type(groups).__name__}")
    if groups < 1:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != x.ndim:
        axes = ", ".join(("O", "C") + ("kd", "kh", "kw")[5 - x.ndim :])
        raise RuntimeError(f"{name}: expected a {x.ndim}D weight [{axes}], got {list(weight.shape)}")
    if weight.shape[0] < groups or weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0 "
            f"and divisible by groups, but got weight of size {list(weight.shape)} instead"
        )
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[1] * groups} channels, but got "
            f"{x.shape[1]} channels instead"
        )
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead"
        )


def _convolution(name: str, dims: int, input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
                 stride: Any, padding: Any, dilation: Any, groups: Any) -> Tensor:  # fmt: skip
    """The convolution of ``dims`` spatial dimensions, ``W @ unfold(x)``: the same code
    for images (``conv2d``) and volumes (``conv3d``), since ``unfold`` takes any number
    of window dimensions."""
    require_tensor(name, input)
    require_tensor(name, weight, "weight", 2)
    x, unbatched = batched(input, dims, name)
    _check_weight_and_bias(x, weight, bias, groups, name)
    out_channels, group_channels = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    stride, dilation = ntuple(stride, dims, "stride"), ntuple(dilation, dims, "dilation")
    widths = _padding_widths(padding, kernel, dilation, stride)
    if any(a != b for a, b in widths):  # 'same' with an even kernel: pad the extra cell first
        if min(min(w) for w in widths) < 0:
            raise RuntimeError("negative padding is not supported")
        x = constant_pad(x, ((0, 0), (0, 0)) + tuple((0, b - a) for a, b in widths), 0.0)
    padding = tuple(before for before, _ in widths)
    im2col.check_window_args(kernel, dilation, padding, stride)
    grid = im2col.window_grid(tuple(x.shape[2:]), kernel, dilation, padding, stride)
    cols = im2col.unfold(x, kernel, dilation, padding, stride)  # [N, C*prod(kernel), L]
    n, per_group, positions = x.shape[0], cols.shape[1] // groups, cols.shape[2]
    if groups == 1:
        out = weight.reshape(out_channels, per_group) @ cols  # [N, O, L]
    else:
        grouped = cols.reshape(n, groups, per_group, positions)
        out = weight.reshape(groups, out_channels // groups, per_group) @ grouped  # [N, g, O/g, L]
    if bias is not None:
        out = out.reshape(n, out_channels, positions) + bias.reshape(out_channels, 1)
    out = out.reshape((n, out_channels) + tuple(grid))
    return out.squeeze(0) if unbatched else out


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """2-D convolution (cross-correlation, as in PyTorch): ``[N, C, H, W]`` with a weight
    ``[O, C / groups, kh, kw]`` gives ``[N, O, OH, OW]``. Computed as ``W @ unfold(x)``.

    **Groups.** With ``groups = g`` the channels split into ``g`` independent
    convolutions: input channels ``[i C/g, (i+1) C/g)`` feed output channels
    ``[i O/g, (i+1) O/g)`` only (``g = C`` is a *depthwise* convolution, one filter per
    channel). The columns ``[N, C*kh*kw, L]`` are already grouped (channel is their
    slowest index), so they view as ``[N, g, C/g*kh*kw, L]``; the weight views as
    ``[g, O/g, C/g*kh*kw]`` and one batched matmul does every group at once."""
    return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """3-D convolution, for volumes (video frames, medical scans): ``[N, C, D, H, W]``
    with a weight ``[O, C / groups, kd, kh, kw]`` gives ``[N, O, OD, OH, OW]``. The same
    computation as ``conv2d`` one dimension up: the windows are ``kd x kh x kw`` boxes,
    unfolded into columns ``[N, C*kd*kh*kw, OD*OH*OW]``, then one matmul."""
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """1-D convolution: ``[N, C, L]`` with a weight ``[O, C, k]``; a 2-D convolution on
    an image of height 1."""
    require_tensor("conv1d", input)
    require_tensor("conv1d", weight, "weight", 2)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"conv1d: Expected 2D (unbatched) or 3D (batched) input, but got input of size: "
            f"{list(input.shape)}"
        )
    if weight.ndim != 3:
        raise RuntimeError(f"conv1d: expected a 3D weight [O, C, k], got {list(weight.shape)}")
    padding = padding if isinstance(padding, str) else (0, single(padding, "padding"))
    out = conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, single(stride, "stride")),
                 padding, (1, single(dilation, "dilation")), groups)  # fmt: skip
    return out.squeeze(-2)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """Pad with a constant: ``pad = (left, right)`` for the last dimension, then
    ``(left, right, top, bottom)`` for the last two, and so on (PyTorch's order).
    ``mode='reflect'``, ``'replicate'`` or ``'circular'`` copy the input's own elements
    instead (``padding_modes.py``)."""
    require_tensor("pad", input)
    if mode not in ("constant",) + padding_modes.MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = tuple(int(p) for p in pad)
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        return padding_modes.pad_by_mode(input, pad, mode)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError("Padding length must be divisible by 2 and at most twice the number of "
                         f"dimensions of the input, got {len(pad)} for a {input.ndim}D input")  # fmt: skip
    widths = [(0, 0)] * input.ndim
    for k in range(len(pad) // 2):
        widths[input.ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    return constant_pad(input, tuple(widths), 0.0 if value is None else value)
