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

A volume (``conv_transpose3d``) is the same code with three window dimensions: each
input cell paints a ``kd x kh x kw`` box.

Groups split the channels as in ``conv2d``: group ``i``'s input channels paint group
``i``'s output channels only. Everything is a matmul, ``fold`` and slicing, so autograd
provides the backward (which is an ordinary convolution).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch._tensor import Tensor
from minitorch.nn.functional.conv import batched, ntuple, single
from minitorch.ops import im2col
from minitorch.ops.common import require_tensor
from minitorch.ops.pad import constant_pad


def _check(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int, name: str) -> None:
    """PyTorch's checks of a ``[C_in, C_out / groups, *kernel]`` weight."""
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'groups' must be int, not {type(groups).__name__}")
    if groups < 1:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != x.ndim:
        axes = ", ".join(("C_in", "C_out/groups") + ("kd", "kh", "kw")[5 - x.ndim :])
        raise RuntimeError(f"{name}: expected a {x.ndim}D weight [{axes}], got {list(weight.shape)}")
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


def _product(values: tuple) -> int:
    total = 1
    for v in values:
        total *= v
    return total


def _transposed(name: str, dims: int, input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
                stride: Any, padding: Any, output_padding: Any, groups: Any,
                dilation: Any) -> Tensor:  # fmt: skip
    """The transposed convolution of ``dims`` spatial dimensions: the same code for
    images (``conv_transpose2d``) and volumes (``conv_transpose3d``), since ``fold``
    takes any number of window dimensions."""
    require_tensor(name, input)
    require_tensor(name, weight, "weight", 2)
    x, unbatched = batched(input, dims, name)
    _check(x, weight, bias, groups, name)
    stride, padding = ntuple(stride, dims, "stride"), ntuple(padding, dims, "padding")
    extra = ntuple(output_padding, dims, "output_padding")
    dilation = ntuple(dilation, dims, "dilation")
    in_channels, group_out = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    im2col.check_window_args(kernel, dilation, padding, stride)
    if any(e < 0 or (e >= s and e >= d) for e, s, d in zip(extra, stride, dilation)):
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"output_padding={extra}, stride={stride}, dilation={dilation}"
        )
    n, spatial = x.shape[0], tuple(x.shape[2:])
    full = tuple((size - 1) * s + d * (k - 1) + 1 for size, s, d, k in zip(spatial, stride, dilation, kernel))
    out_size = tuple(f - 2 * p + e for f, p, e in zip(full, padding, extra))
    if min(out_size) <= 0:
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, spatial))}), calculated output "
            f"size per channel: ({' x '.join(map(str, out_size))}). Output size is too small"
        )
    # cols = W^T @ x, group by group: [g, C_out/g*prod(k), C_in/g] @ [N, g, C_in/g, prod(spatial)]
    per_window = group_out * _product(kernel)
    w_t = weight.reshape(groups, in_channels // groups, per_window).transpose(1, 2)
    cols = w_t @ x.reshape(n, groups, in_channels // groups, _product(spatial))
    cols = cols.reshape(n, groups * per_window, _product(spatial))
    image = im2col.fold(cols, full, kernel, dilation, (0,) * dims, stride)  # [N, C_out, *full]
    # crop `padding` from each border; output_padding cells past the image's end are zeros
    beyond = tuple(max(0, p + o - f) for p, o, f in zip(padding, out_size, full))
    if any(beyond):
        image = constant_pad(image, ((0, 0), (0, 0)) + tuple((0, b) for b in beyond), 0.0)
    out = image
    for d in range(dims):
        out = out.narrow(2 + d, padding[d], out_size[d])
    if bias is not None:
        out = out + bias.reshape((groups * group_out,) + (1,) * dims)
    return out.squeeze(0) if unbatched else out


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """``[N, C_in, H, W]`` with a weight ``[C_in, C_out / groups, kh, kw]`` gives
    ``[N, C_out, OH, OW]``: every input pixel adds a kernel-weighted patch to the output."""
    return _transposed("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding,
                       groups, dilation)  # fmt: skip


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """``[N, C_in, D, H, W]`` with a weight ``[C_in, C_out / groups, kd, kh, kw]`` gives
    ``[N, C_out, OD, OH, OW]``: every input cell adds a kernel-weighted box to the output
    (a 3-D U-Net's upsampling)."""
    return _transposed("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding,
                       groups, dilation)  # fmt: skip


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
