"""Transposed convolution (sometimes called "deconvolution"): the adjoint of a
convolution, as ``fold`` is the adjoint of ``unfold``.

A convolution reads each output pixel from a window of input pixels. A transposed
convolution runs the arrows the other way: each *input* pixel paints a whole
``kh x kw`` patch of the output, scaled by the kernel, and overlapping patches add up.
With ``stride = 2`` the patches are painted two pixels apart, so the output is about
twice the input's size (the upsampling layer of a U-Net or a GAN's generator).

It is exactly the backward of ``conv2d`` with respect to its input, and we compute it
the same way that backward is computed: for ``x: [N, C_in, H, W]`` and a weight
``[C_in, C_out / g, kh, kw]``::

    cols = W^T @ x          # [N, C_out*kh*kw, H*W]: each input pixel's patch, as a column
    out  = fold(cols)       # col2im: add every patch into place (stride, dilation apart)

then ``padding`` crops that many cells from each border and ``output_padding`` gives
back cells at the bottom/right (a stride-2 convolution maps sizes 7 and 8 both to 4,
so the inverse needs to be told which one to produce). The output size is::

    (H - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1

Groups split the channels as in ``conv2d``: group ``i``'s input channels paint group
``i``'s output channels only. Everything is a matmul, ``fold`` and slicing, so autograd
provides the backward (which is an ordinary convolution).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch._tensor import Tensor
from minitorch.nn.functional.conv import pair, single
from minitorch.ops import im2col
from minitorch.ops.common import require_tensor
from minitorch.ops.pad import constant_pad


def _check(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int) -> None:
    """PyTorch's checks of a ``[C_in, C_out / groups, kh, kw]`` weight."""
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)):
        raise TypeError(f"conv_transpose2d(): argument 'groups' must be int, not {type(groups).__name__}")
    if groups < 1:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != 4:
        raise RuntimeError(f"conv_transpose2d: expected a 4D weight [C_in, C_out/groups, kh, kw], "
                           f"got {list(weight.shape)}")  # fmt: skip
    if x.shape[1] != weight.shape[0] or weight.shape[0] % groups:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[0]} channels (divisible by groups={groups}), "
            f"but got {x.shape[1]} channels instead"
        )
    out_channels = weight.shape[1] * groups
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
            f"1-dimensional with {out_channels} elements, but got bias of size {list(bias.shape)}"
        )


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """``[N, C_in, H, W]`` with a weight ``[C_in, C_out / groups, kh, kw]`` gives
    ``[N, C_out, OH, OW]``: every input pixel adds a kernel-weighted patch to the output."""
    require_tensor("conv_transpose2d", input)
    require_tensor("conv_transpose2d", weight, "weight", 2)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"conv_transpose2d: Expected 3D (unbatched) or 4D (batched) input, "
                           f"but got input of size: {list(input.shape)}")  # fmt: skip
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    _check(x, weight, bias, groups)
    stride, padding = pair(stride, "stride"), pair(padding, "padding")
    extra, dilation = pair(output_padding, "output_padding"), pair(dilation, "dilation")
    in_channels, group_out, kh, kw = weight.shape
    kernel = (kh, kw)
    im2col.check_window_args(kernel, dilation, padding, stride)
    if any(e < 0 or (e >= s and e >= d) for e, s, d in zip(extra, stride, dilation)):
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"output_padding={extra}, stride={stride}, dilation={dilation}"
        )
    n, _, h, w = x.shape
    full = tuple((size - 1) * s + d * (k - 1) + 1 for size, s, d, k in zip((h, w), stride, dilation, kernel))
    out_size = tuple(f - 2 * p + e for f, p, e in zip(full, padding, extra))
    if min(out_size) <= 0:
        raise RuntimeError(
            f"Given input size per channel: ({h} x {w}), calculated output size per channel: "
            f"({out_size[0]} x {out_size[1]}). Output size is too small"
        )
    # cols = W^T @ x, group by group: [g, C_out/g*kh*kw, C_in/g] @ [N, g, C_in/g, H*W]
    w_t = weight.reshape(groups, in_channels // groups, group_out * kh * kw).transpose(1, 2)
    cols = w_t @ x.reshape(n, groups, in_channels // groups, h * w)
    cols = cols.reshape(n, groups * group_out * kh * kw, h * w)
    image = im2col.fold(cols, full, kernel, dilation, (0, 0), stride)  # [N, C_out, *full]
    # crop `padding` from each border; output_padding cells past the image's end are zeros
    beyond = tuple(max(0, p + o - f) for p, o, f in zip(padding, out_size, full))
    if any(beyond):
        image = constant_pad(image, ((0, 0), (0, 0), (0, beyond[0]), (0, beyond[1])), 0.0)
    out = image[:, :, padding[0] : padding[0] + out_size[0], padding[1] : padding[1] + out_size[1]]
    if bias is not None:
        out = out + bias.reshape(groups * group_out, 1, 1)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """``[N, C_in, L]`` with a weight ``[C_in, C_out / groups, k]``: a 2-D transposed
    convolution of an image of height 1."""
    require_tensor("conv_transpose1d", input)
    require_tensor("conv_transpose1d", weight, "weight", 2)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"conv_transpose1d: Expected 2D (unbatched) or 3D (batched) input, "
                           f"but got input of size: {list(input.shape)}")  # fmt: skip
    if weight.ndim != 3:
        raise RuntimeError(f"conv_transpose1d: expected a 3D weight, got {list(weight.shape)}")
    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias,
                           (1, single(stride, "stride")), (0, single(padding, "padding")),
                           (0, single(output_padding, "output_padding")), groups,
                           (1, single(dilation, "dilation")))  # fmt: skip
    return out.squeeze(-2)
