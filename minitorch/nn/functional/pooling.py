"""Pooling: the largest (``max_pool2d``) or the average (``avg_pool2d``) of each window.

The windows are found exactly as for convolution (``unfold``, ``minitorch/ops/im2col.py``),
with each channel treated as an image of its own: ``[N, C, H, W]`` is viewed as ``[N*C, 1, H, W]``,
unfolded to ``[N*C, kh*kw, L]``, and reduced over the window dimension. The backward
needs nothing new: ``max(dim)`` sends each gradient to the window's largest element,
``mean`` spreads it evenly, and ``Unfold``'s backward adds them back into the image.
"""

from __future__ import annotations

from typing import Any

from minitorch import creation, dtypes
from minitorch._tensor import Tensor
from minitorch.nn.functional.conv import _as_4d, pair, single
from minitorch.ops import im2col
from minitorch.ops.shape import cat


def _pool_args(kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool) -> tuple:
    """``(kernel, stride, padding, dilation)`` as pairs, checked with PyTorch's rules
    (``stride`` defaults to ``kernel_size``: windows side by side)."""
    if ceil_mode:
        raise NotImplementedError("minitorch's pooling supports ceil_mode=False only")
    kernel = pair(kernel_size, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else pair(stride, "stride")
    padding, dilation = pair(padding, "padding"), pair(dilation, "dilation")
    im2col.check_window_args(kernel, dilation, padding, stride)
    for k, p in zip(kernel, padding):
        if p > k // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k}"
            )
    return kernel, stride, padding, dilation


def _check_planes(x: Tensor, name: str) -> None:
    """Pooling needs something to pool: only the batch may be empty (PyTorch's rule)."""
    if 0 in x.shape[1:]:
        raise RuntimeError(
            f"{name}: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
            f"input, but got: {list(x.shape)}"
        )


def _windows_per_channel(x: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                         dilation: tuple, pad_value: float) -> tuple[Tensor, tuple]:  # fmt: skip
    """``[N*C, kh*kw, L]`` windows of each channel, and the output shape ``[N, C, OH, OW]``."""
    n, c, h, w = x.shape
    oh, ow = im2col.window_grid((h, w), kernel, dilation, padding, stride)
    planes = x.reshape(n * c, 1, h, w)
    return im2col.unfold(planes, kernel, dilation, padding, stride, pad_value), (n, c, oh, ow)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip
    """The largest value in each window (padding counts as ``-inf``)."""
    x, unbatched = _as_4d(input, "max_pool2d")
    _check_planes(x, "max_pool2d")
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, dilation, False)
    size = tuple(x.shape[2:])
    if ceil_mode:
        x = _extended_for_ceil_mode(x, kernel, stride, padding, dilation)
    cols, shape = _windows_per_channel(x, kernel, stride, padding, dilation, float("-inf"))
    values, where = cols.max(dim=1)  # [N*C, L]
    out = values.reshape(shape)
    out = out.squeeze(0) if unbatched else out
    if not return_indices:
        return out
    indices = _flat_indices(where, shape, size, kernel, stride, padding, dilation)
    return out, (indices.squeeze(0) if unbatched else indices)


def _extended_for_ceil_mode(x: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                            dilation: tuple) -> Tensor:  # fmt: skip
    """``ceil_mode=True``: one more window where a partial one is left at the end, so
    ``out = ceil((L + 2p - d(k-1) - 1) / s) + 1``, less one if that window would start in
    the right padding (PyTorch's rule). The input is extended past its end with the
    lowest value, which no window's max picks over a real element."""
    low = float("-inf") if x.dtype.is_floating_point else dtypes.iinfo(x.dtype).min
    for axis, (length, k, s, p, d) in enumerate(zip(x.shape[2:], kernel, stride, padding, dilation)):
        span = length + 2 * p - d * (k - 1) - 1
        out = -(-span // s) + 1
        if (out - 1) * s >= length + p:
            out -= 1
        extra = (out - 1) * s + d * (k - 1) + 1 - (length + 2 * p)
        if extra > 0:
            shape = list(x.shape)
            shape[2 + axis] = extra
            x = cat([x, x.new_full(tuple(shape), low)], 2 + axis)
    return x


def _flat_indices(where: Tensor, shape: tuple, size: tuple, kernel: tuple, stride: tuple,
                  padding: tuple, dilation: tuple) -> Tensor:  # fmt: skip
    """PyTorch's pooling indices: the position ``h * W + w`` in the input plane."""
    n, c, oh, ow = shape
    where = where.reshape(shape)
    i, j = where // kernel[1], where % kernel[1]
    rows = creation.arange(oh, device=where.device).reshape(oh, 1) * stride[0] - padding[0]
    cols = creation.arange(ow, device=where.device).reshape(1, ow) * stride[1] - padding[1]
    return (rows + i * dilation[0]) * size[1] + cols + j * dilation[1]


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """The mean of each window (padding counts as 0; with ``count_include_pad=False`` it
    is left out of the count)."""
    x, unbatched = _as_4d(input, "avg_pool2d")
    _check_planes(x, "avg_pool2d")
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    cols, shape = _windows_per_channel(x, kernel, stride, padding, dilation, 0.0)
    if divisor_override:
        out = cols.sum(1) / divisor_override
    elif count_include_pad or padding == (0, 0):
        out = cols.mean(1)
    else:
        ones = creation.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
        counts = im2col.unfold(ones, kernel, dilation, padding, stride).sum(1)  # [1, L]
        out = cols.sum(1) / counts
    out = out.reshape(shape)
    return out.squeeze(0) if unbatched else out


def _as_2d_pool(input: Tensor, name: str) -> Tensor:  # noqa: A002
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{name}: Expected 2D or 3D input, got {list(input.shape)}")
    return input.unsqueeze(-2)


def _stride_1d(stride: Any) -> tuple[int, int] | None:
    """A 1-D pooling stride as a 2-D one (``None``, ``[]`` or ``()``: the kernel size)."""
    return None if stride is None or stride == [] or stride == () else (1, single(stride, "stride"))


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip
    out = max_pool2d(_as_2d_pool(input, "max_pool1d"), (1, single(kernel_size, "kernel_size")),
                     _stride_1d(stride), (0, single(padding, "padding")),
                     (1, single(dilation, "dilation")), ceil_mode, return_indices)  # fmt: skip
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    out = avg_pool2d(_as_2d_pool(input, "avg_pool1d"), (1, single(kernel_size, "kernel_size")),
                     _stride_1d(stride), (0, single(padding, "padding")), ceil_mode,
                     count_include_pad)  # fmt: skip
    return out.squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling to a fixed output size (``None`` keeps that input size);
    minitorch supports sizes that divide the input evenly (e.g. ``1``: global average
    pooling)."""
    x, unbatched = _as_4d(input, "adaptive_avg_pool2d")
    h, w = x.shape[2:]
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    oh, ow = pair(tuple(size if size is not None else whole for size, whole in zip(sizes, (h, w))),
                  "output_size")  # fmt: skip
    if oh < 0 or ow < 0:
        raise RuntimeError(
            f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{oh}, {ow}}}"
        )
    if oh == 0 or ow == 0:  # no windows: an empty result that is still part of the graph
        out = x.mean((2, 3), keepdim=True).expand(*x.shape[:2], oh, ow)
    elif h % oh or w % ow:
        raise NotImplementedError(
            f"adaptive_avg_pool2d: minitorch needs the output size {(oh, ow)} to divide the "
            f"input size {(h, w)}"
        )
    else:
        out = avg_pool2d(x, (h // oh, w // ow))
    return out.squeeze(0) if unbatched else out
