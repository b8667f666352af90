"""Pooling: the largest (``max_pool2d``) or the average (``avg_pool2d``) of each window,
of images (2-D) and, by the same code, of volumes (``max_pool3d``, ``avg_pool3d``).

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
from minitorch.nn.functional import adaptive_pooling
from minitorch.nn.functional.conv import _as_4d, batched, ntuple, pair, single
from minitorch.ops import im2col
from minitorch.ops.shape import cat


def _pool_args(kernel_size: Any, stride: Any, padding: Any, dilation: Any, dims: int = 2) -> tuple:
    """``(kernel, stride, padding, dilation)``, one int per spatial dimension, checked
    with PyTorch's rules (``stride`` defaults to ``kernel_size``: windows side by side)."""
    kernel = ntuple(kernel_size, dims, "kernel_size")
    empty = stride is None or stride == [] or stride == ()
    stride = kernel if empty else ntuple(stride, dims, "stride")
    padding, dilation = ntuple(padding, dims, "padding"), ntuple(dilation, dims, "dilation")
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
            f"{name}: Expected {x.ndim - 1}D or {x.ndim}D (batch mode) tensor with optional 0 dim "
            f"batch size for input, but got: {list(x.shape)}"
        )


def _windows_per_channel(x: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                         dilation: tuple, pad_value: float) -> tuple[Tensor, tuple]:  # fmt: skip
    """``[N*C, prod(kernel), L]`` windows of each channel, and the output shape
    ``[N, C, *grid]`` (``[N, C, OH, OW]`` for an image)."""
    n, c, size = x.shape[0], x.shape[1], tuple(x.shape[2:])
    grid = im2col.window_grid(size, kernel, dilation, padding, stride)
    planes = x.reshape((n * c, 1) + size)
    return im2col.unfold(planes, kernel, dilation, padding, stride, pad_value), (n, c) + tuple(grid)


def _max_pool(name: str, dims: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any,  # noqa: A002
              dilation: Any, ceil_mode: bool, return_indices: bool) -> Any:  # fmt: skip
    """The largest value in each window (padding counts as ``-inf``), for ``dims``
    spatial dimensions: images (``max_pool2d``) and volumes (``max_pool3d``)."""
    x, unbatched = batched(input, dims, name)
    _check_planes(x, name)
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, dilation, dims)
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


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip
    """The largest value in each window of an image (padding counts as ``-inf``)."""
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)  # fmt: skip


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip
    """The largest value in each ``kd x kh x kw`` box of a volume ``[N, C, D, H, W]``;
    the indices are flat positions ``(d * H + h) * W + w`` in the input volume."""
    return _max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)  # fmt: skip


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = True) -> tuple:  # fmt: skip
    """``max_pool3d(..., return_indices=True)``: the values and their flat positions."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _ceil_mode_extra(size: tuple, kernel: tuple, stride: tuple, padding: tuple,
                     dilation: tuple) -> tuple:  # fmt: skip
    """``ceil_mode=True``: how many positions to add past each spatial end for one more
    window where a partial one is left, so ``out = ceil((L + 2p - d(k-1) - 1) / s) + 1``,
    less one if that window would start in the right padding (PyTorch's rule)."""
    extras = []
    for length, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        span = length + 2 * p - d * (k - 1) - 1
        out = -(-span // s) + 1
        if (out - 1) * s >= length + p:
            out -= 1
        extras.append(max(0, (out - 1) * s + d * (k - 1) + 1 - (length + 2 * p)))
    return tuple(extras)


def _padded(x: Tensor, before: tuple, after: tuple, value: float) -> Tensor:
    """``x`` with ``before[i]``/``after[i]`` cells of ``value`` around spatial axis ``i``."""
    for axis, (low, high) in enumerate(zip(before, after)):
        parts = []
        for width in (low, high):
            shape = list(x.shape)
            shape[2 + axis] = width
            parts.append(x.new_full(tuple(shape), value) if width else None)
        x = cat([piece for piece in (parts[0], x, parts[1]) if piece is not None], 2 + axis)
    return x


def _extended_for_ceil_mode(x: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                            dilation: tuple) -> Tensor:  # fmt: skip
    """The input extended past its end for ``ceil_mode=True`` with the lowest value, which
    no window's max picks over a real element."""
    low = float("-inf") if x.dtype.is_floating_point else dtypes.iinfo(x.dtype).min
    extra = _ceil_mode_extra(tuple(x.shape[2:]), kernel, stride, padding, dilation)
    return _padded(x, (0,) * len(extra), extra, low) if any(extra) else x


def _flat_indices(where: Tensor, shape: tuple, size: tuple, kernel: tuple, stride: tuple,
                  padding: tuple, dilation: tuple) -> Tensor:  # fmt: skip
    """PyTorch's pooling indices: the flat position in the input plane (``h * W + w``,
    or ``(d * H + h) * W + w`` in a volume). ``where`` counts through the window in
    row-major order, so its last kernel axis is ``where % kw``, the one before
    ``(where // kw) % kh``, and so on; window ``g`` starts at ``g * stride - padding``."""
    dims = len(kernel)
    where = where.reshape(shape)
    flat: Any = 0
    for d in range(dims - 1, -1, -1):
        offset = where % kernel[d]
        where = where // kernel[d]
        view = [1] * dims
        view[d] = shape[2 + d]
        starts = creation.arange(shape[2 + d], device=where.device).reshape(view) * stride[d] - padding[d]
        cells = 1
        for later in size[d + 1 :]:
            cells *= later
        flat = flat + (starts + offset * dilation[d]) * cells
    return flat


def _avg_pool(name: str, dims: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any,  # noqa: A002
              ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:  # fmt: skip
    """The mean of each window: its sum over its count, PyTorch's way, for ``dims``
    spatial dimensions (``avg_pool2d``, ``avg_pool3d``).

    The count is the window's cells inside the padded input (``count_include_pad=True``)
    or inside the input itself (``False``); with ``ceil_mode=True`` the last window may
    run past the right padding, and those cells count for nothing either way. So the
    input is padded explicitly (zeros, and the ceil-mode cells after the padding), and a
    plane of ones where cells count, zeros elsewhere, is pooled alike to give the counts.
    Integer inputs divide and truncate toward zero, as PyTorch does.
    """
    x, unbatched = batched(input, dims, name)
    _check_planes(x, name)
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, 1, dims)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    size, none = tuple(x.shape[2:]), (0,) * dims
    extra = _ceil_mode_extra(size, kernel, stride, padding, dilation) if ceil_mode else none
    after = tuple(p + e for p, e in zip(padding, extra))
    padded = _padded(x, padding, after, 0)
    grid = im2col.window_grid(tuple(padded.shape[2:]), kernel, dilation, none, stride)
    n, c = x.shape[:2]
    cols = im2col.unfold(padded.reshape((n * c, 1) + tuple(padded.shape[2:])), kernel, dilation,
                         none, stride)  # fmt: skip
    sums = cols.sum(1)  # [N*C, L]
    integer = not x.dtype.is_floating_point
    if divisor_override:
        counts: Any = divisor_override
    else:
        ones = creation.ones((1, 1) + size, dtype=x.dtype, device=x.device)
        mask = _padded(ones, padding, padding, 1 if count_include_pad else 0)
        mask = _padded(mask, none, extra, 0)
        counts = im2col.unfold(mask, kernel, dilation, none, stride).sum(1)  # [1, L]
    out = sums.div(counts, rounding_mode="trunc") if integer else sums / counts
    out = out.reshape((n, c) + tuple(grid))
    return out.squeeze(0) if unbatched else out


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """The mean of each window of an image (``_avg_pool`` says how it is counted)."""
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)  # fmt: skip


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """The mean of each ``kd x kh x kw`` box of a volume ``[N, C, D, H, W]``."""
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)  # fmt: skip


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


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = True) -> tuple:  # fmt: skip
    """``max_pool2d(..., return_indices=True)``: the values and their flat positions."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = True) -> tuple:  # fmt: skip
    """``max_pool1d(..., return_indices=True)``: the values and their positions."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    out = avg_pool2d(_as_2d_pool(input, "avg_pool1d"), (1, single(kernel_size, "kernel_size")),
                     _stride_1d(stride), (0, single(padding, "padding")), ceil_mode,
                     count_include_pad)  # fmt: skip
    return out.squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling to a fixed output size (``None`` keeps that input size). Where the
    output size divides the input (``1``: global average pooling), the windows are those
    of ``avg_pool2d`` side by side; otherwise they overlap as PyTorch's adaptive windows do
    (``adaptive_pooling.py``)."""
    x, unbatched = _as_4d(input, "adaptive_avg_pool2d")
    h, w = x.shape[2:]
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if len(sizes) != 2 or 0 in (h, w) or not x.dtype.is_floating_point:
        return adaptive_pooling.adaptive_avg_pool2d_any_size(input, output_size)
    oh, ow = pair(tuple(size if size is not None else whole for size, whole in zip(sizes, (h, w))),
                  "output_size")  # fmt: skip
    if oh <= 0 or ow <= 0 or h % oh or w % ow:
        return adaptive_pooling.adaptive_avg_pool2d_any_size(input, output_size)
    out = avg_pool2d(x, (h // oh, w // ow))
    return out.squeeze(0) if unbatched else out
