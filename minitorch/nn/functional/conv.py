"""Convolution as *im2col + matmul*, and the ``unfold``/``fold`` pair it is built on.

A 2-D convolution slides a ``kh x kw`` window over the image. ``unfold`` (im2col) copies
every window into a column::

    x: [N, C, H, W]   ->   cols: [N, C*kh*kw, L]      (L = number of window positions)

and no copy loop is needed to find the windows: they are a *strided view* of the (padded)
input. For output position ``(y, x)`` and kernel offset ``(i, j)`` the element is
``padded[n, c, y*stride + i*dilation, x*stride + j*dilation]``, so the view of shape
``[N, C, kh, kw, OH, OW]`` has strides ``(sN, sC, sH*dilation, sW*dilation, sH*stride,
sW*stride)``. One ``copy`` kernel turns that view into the contiguous columns.

The convolution is then a single batched matmul with the weight viewed as
``[O, C*kh*kw]``: ``out[n] = W @ cols[n]``, already in ``[N, O, OH*OW]`` order.

**Backward.** ``fold`` is the adjoint of ``unfold``: every column entry is *added* back to
the input pixel it was read from (pixels inside several windows collect several
gradients). We do that with one ``zip("add")`` per kernel offset ``(i, j)``, into a strided
view of the padded gradient, instead of the generic ``as_strided`` backward (which would
scatter through an index the size of the whole storage). ``Unfold.backward`` is ``fold``
and ``Fold.backward`` is ``unfold``, so both are differentiable to any order.
"""

from __future__ import annotations

from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.layout import contiguous_strides


def pair(value: Any, name: str = "value") -> tuple[int, int]:
    """``3 -> (3, 3)``; ``(3, 2) -> (3, 2)``."""
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return (value[0], value[0])
    if len(value) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {value}")
    return value  # type: ignore[return-value]


def output_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """How many window positions fit along one dimension."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _geometry(shape: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple:
    """``(OH, OW)`` for an input ``[N, C, H, W]``, with PyTorch's error when empty."""
    n, c, h, w = shape
    oh = output_size(h, kernel[0], stride[0], padding[0], dilation[0])
    ow = output_size(w, kernel[1], stride[1], padding[1], dilation[1])
    if oh <= 0 or ow <= 0:
        raise RuntimeError(
            f"Calculated output size: ({oh}x{ow}) is too small: input {h}x{w} with padding "
            f"{padding}, kernel {kernel}, dilation {dilation}, stride {stride} leaves no "
            "complete window. Use a smaller kernel or more padding."
        )
    return oh, ow


def _padded(x: Tensor, padding: tuple, value: float) -> Tensor:
    """``x`` inside a border of ``value`` (``x`` itself when there is no padding)."""
    ph, pw = padding
    if ph == 0 and pw == 0:
        return x
    n, c, h, w = x._shape
    out = Tensor._full((n, c, h + 2 * ph, w + 2 * pw), value, x.dtype, x.device)
    strides = out._strides
    interior = out._view(x._shape, strides, ph * strides[2] + pw * strides[3])
    dispatch.map("copy", interior, x)
    return out


def _windows(padded: Tensor, kernel: tuple, dilation: tuple, stride: tuple, oh: int, ow: int) -> Tensor:
    """The ``[N, C, kh, kw, OH, OW]`` strided view of every window (no copy)."""
    sn, sc, sh, sw = padded._strides
    shape = (padded._shape[0], padded._shape[1], kernel[0], kernel[1], oh, ow)
    strides = (sn, sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1])
    return Tensor(padded._storage, shape, strides, padded._offset, padded.dtype, padded.device)


class Unfold(Function):
    """im2col: ``[N, C, H, W] -> [N, C*kh*kw, OH*OW]``.  Backward: ``Fold``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, kernel: tuple, dilation: tuple, padding: tuple,
                stride: tuple, pad_value: float = 0.0) -> Tensor:  # fmt: skip
        oh, ow = _geometry(x._shape, kernel, dilation, padding, stride)
        ctx.args = (tuple(x._shape[2:]), kernel, dilation, padding, stride)
        windows = _windows(_padded(x, padding, pad_value), kernel, dilation, stride, oh, ow)
        cols = Tensor._empty(windows._shape, x.dtype, x.device)
        dispatch.map("copy", cols, windows)
        shape = (x._shape[0], x._shape[1] * kernel[0] * kernel[1], oh * ow)
        return cols._view(shape, contiguous_strides(shape), 0)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return Fold.apply(grad, *ctx.args), None, None, None, None, None


class Fold(Function):
    """col2im, the adjoint of ``Unfold``: ``[N, C*kh*kw, L] -> [N, C, H, W]``, adding
    overlapping window entries.  Backward: ``Unfold``."""

    @staticmethod
    def forward(ctx: FunctionCtx, cols: Tensor, size: tuple, kernel: tuple, dilation: tuple,
                padding: tuple, stride: tuple) -> Tensor:  # fmt: skip
        ctx.args = (kernel, dilation, padding, stride)
        n, k, length = cols._shape
        c = k // (kernel[0] * kernel[1])
        h, w = size
        oh, ow = _geometry((n, c, h, w), kernel, dilation, padding, stride)
        if oh * ow != length or c * kernel[0] * kernel[1] != k:
            raise RuntimeError(
                f"fold: expected input of shape [N, C*{kernel[0]}*{kernel[1]}, {oh * ow}] for "
                f"output size {size}, got {list(cols.shape)}"
            )
        if not cols.is_contiguous():
            cols = dispatch.map("copy", Tensor._empty(cols._shape, cols.dtype, cols.device), cols)
        ph, pw = padding
        padded = Tensor._full((n, c, h + 2 * ph, w + 2 * pw), 0, cols.dtype, cols.device)
        targets = _windows(padded, kernel, dilation, stride, oh, ow)  # [N, C, kh, kw, OH, OW]
        window_shape = (n, c, kernel[0], kernel[1], oh, ow)
        sources = cols._view(window_shape, contiguous_strides(window_shape), cols._offset)
        for i in range(kernel[0]):
            for j in range(kernel[1]):  # padded[window (i, j)] += cols[:, :, i, j]
                target = _pick(targets, i, j)
                dispatch.zip("add", target, target, _pick(sources, i, j))
        if ph == 0 and pw == 0:
            return padded
        interior = _padded_interior(padded, (h, w), padding)
        return dispatch.map("copy", Tensor._empty(interior._shape, cols.dtype, cols.device), interior)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return Unfold.apply(grad, *ctx.args), None, None, None, None, None


def _pick(windows: Tensor, i: int, j: int) -> Tensor:
    """``windows[:, :, i, j]`` of a ``[N, C, kh, kw, OH, OW]`` layout: ``[N, C, OH, OW]``."""
    st = windows._strides
    shape = windows._shape[:2] + windows._shape[4:]
    offset = windows._offset + i * st[2] + j * st[3]
    return Tensor(windows._storage, shape, st[:2] + st[4:], offset, windows.dtype, windows.device)


def _padded_interior(padded: Tensor, size: tuple, padding: tuple) -> Tensor:
    st = padded._strides
    offset = padded._offset + padding[0] * st[2] + padding[1] * st[3]
    return padded._view(padded._shape[:2] + tuple(size), st, offset)


def _as_4d(input: Tensor, name: str) -> tuple[Tensor, bool]:  # noqa: A002
    """``[N, C, H, W]`` (an unbatched ``[C, H, W]`` gets a batch of 1)."""
    if input.ndim == 3:
        return input.unsqueeze(0), True
    if input.ndim != 4:
        raise RuntimeError(
            f"{name}: Expected 3D (unbatched) or 4D (batched) input, but got input of size: "
            f"{list(input.shape)}"
        )
    return input, False


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:  # noqa: A002
    """Every ``kernel_size`` window of a ``[N, C, H, W]`` input as a column:
    ``[N, C*kh*kw, L]`` (PyTorch's ``F.unfold``, im2col)."""
    if input.ndim != 4:
        raise RuntimeError(f"unfold: expected a 4D input [N, C, H, W], got {list(input.shape)}")
    return Unfold.apply(input, pair(kernel_size, "kernel_size"), pair(dilation, "dilation"),
                        pair(padding, "padding"), pair(stride, "stride"))  # fmt: skip


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
         stride: Any = 1) -> Tensor:  # fmt: skip
    """The adjoint of ``unfold``: add the columns back into a ``[N, C, H, W]`` image."""
    if input.ndim != 3:
        raise RuntimeError(f"fold: expected a 3D input [N, C*kh*kw, L], got {list(input.shape)}")
    size, kernel = pair(output_size, "output_size"), pair(kernel_size, "kernel_size")
    return Fold.apply(input, size, kernel, pair(dilation, "dilation"), pair(padding, "padding"),
                      pair(stride, "stride"))  # fmt: skip


def _same_padding(kernel: tuple, dilation: tuple, stride: tuple) -> tuple:
    if stride != (1, 1):
        raise ValueError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if any(t % 2 for t in total):
        raise NotImplementedError(
            "padding='same' with an even kernel needs uneven padding, which minitorch does not "
            "support; pad the input with F.pad first"
        )
    return (total[0] // 2, total[1] // 2)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """2-D convolution (cross-correlation, as in PyTorch): ``[N, C, H, W]`` with a weight
    ``[O, C, kh, kw]`` gives ``[N, O, OH, OW]``. Computed as ``W @ unfold(x)``."""
    if groups != 1:
        raise NotImplementedError("minitorch's conv2d supports groups=1 only")
    x, unbatched = _as_4d(input, "conv2d")
    if weight.ndim != 4:
        raise RuntimeError(f"conv2d: expected a 4D weight [O, C, kh, kw], got {list(weight.shape)}")
    out_channels, in_channels, kh, kw = weight.shape
    if x.shape[1] != in_channels:
        raise RuntimeError(
            f"Given groups=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {in_channels} channels, but got {x.shape[1]} channels "
            "instead"
        )
    kernel, stride, dilation = (kh, kw), pair(stride, "stride"), pair(dilation, "dilation")
    if padding == "valid":
        padding = 0
    elif padding == "same":
        padding = _same_padding(kernel, dilation, stride)
    padding = pair(padding, "padding")
    n, _, h, w = x.shape
    oh, ow = _geometry(tuple(x.shape), kernel, dilation, padding, stride)
    cols = Unfold.apply(x, kernel, dilation, padding, stride)  # [N, C*kh*kw, OH*OW]
    out = weight.reshape(out_channels, in_channels * kh * kw) @ cols  # [N, O, OH*OW]
    if bias is not None:
        out = out + bias.reshape(out_channels, 1)
    out = out.reshape(n, out_channels, oh, ow)
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """1-D convolution: ``[N, C, L]`` with a weight ``[O, C, k]``; a 2-D convolution on
    an image of height 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"conv1d: Expected 2D (unbatched) or 3D (batched) input, but got input of size: "
            f"{list(input.shape)}"
        )
    if weight.ndim != 3:
        raise RuntimeError(f"conv1d: expected a 3D weight [O, C, k], got {list(weight.shape)}")
    single = lambda v: v if isinstance(v, (int, str)) else tuple(v)[0]  # noqa: E731
    padding = single(padding)
    if padding == "same":
        padding = _same_padding((1, weight.shape[2]), (1, single(dilation)), (1, single(stride)))[1]
    elif padding == "valid":
        padding = 0
    out = conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, single(stride)),
                 (0, padding), (1, single(dilation)), groups)  # fmt: skip
    return out.squeeze(-2)


class ConstantPad(Function):
    """``x`` inside a border of ``value``;  gradient: the interior of ``grad``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, widths: tuple, value: float) -> Tensor:
        ctx.widths = widths
        shape = tuple(size + before + after for size, (before, after) in zip(x._shape, widths))
        out = Tensor._full(shape, value, x.dtype, x.device)
        offset = sum(before * stride for (before, _), stride in zip(widths, out._strides))
        dispatch.map("copy", out._view(x._shape, out._strides, offset), x)
        return out

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        for dim, (before, after) in enumerate(ctx.widths):
            if before or after:
                grad = grad.narrow(dim, before, grad.shape[dim] - before - after)
        return grad, None, None


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """Pad with a constant: ``pad = (left, right)`` for the last dimension, then
    ``(left, right, top, bottom)`` for the last two, and so on (PyTorch's order)."""
    if mode != "constant":
        raise NotImplementedError(f"minitorch's pad supports mode='constant' only, not {mode!r}")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError("Padding length must be divisible by 2 and at most twice the number of "
                         f"dimensions of the input, got {len(pad)} for a {input.ndim}D input")  # fmt: skip
    if any(p < 0 for p in pad):
        raise NotImplementedError("minitorch's pad does not crop (negative padding)")
    widths = [(0, 0)] * input.ndim
    for k in range(len(pad) // 2):
        widths[input.ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    return ConstantPad.apply(input, tuple(widths), 0.0 if value is None else value)
