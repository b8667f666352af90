"""im2col (``unfold``) and its adjoint col2im (``fold``): every window of an image as a
column, the op convolution and pooling are built on.

A 2-D convolution slides a ``kh x kw`` window over the image. ``unfold`` (im2col) copies
every window into a column::

    x: [N, C, H, W]   ->   cols: [N, C*kh*kw, L]      (L = number of window positions)

and no copy loop is needed to find the windows: they are a *strided view* of the (padded)
input. For output position ``(y, x)`` and kernel offset ``(i, j)`` the element is
``padded[n, c, y*stride + i*dilation, x*stride + j*dilation]``, so the view of shape
``[N, C, kh, kw, OH, OW]`` has strides ``(sN, sC, sH*dilation, sW*dilation, sH*stride,
sW*stride)``. One ``copy`` kernel turns that view into the contiguous columns.

A convolution is then a single batched matmul with the weight viewed as
``[O, C*kh*kw]``: ``out[n] = W @ cols[n]``, already in ``[N, O, OH*OW]`` order
(``nn/functional/conv.py``). Pooling reduces each column (``nn/functional/pooling.py``).

**Backward.** ``fold`` is the adjoint of ``unfold``: every column entry is *added* back to
the input pixel it was read from (pixels inside several windows collect several
gradients). We do that with one ``zip("add")`` per kernel offset ``(i, j)``, into a strided
view of the padded gradient, instead of the generic ``as_strided`` backward (which would
scatter through an index the size of the whole storage). ``Unfold.backward`` is ``fold``
and ``Fold.backward`` is ``unfold``, so both are differentiable to any order.

**Safety.** The window view is only inside the padded image when the arguments make
sense: a negative padding or dilation would aim it at memory before or after the image,
and kernels do not bounds-check. ``unfold`` and ``fold`` therefore check every argument
before running anything (``check_window_args``, ``window_grid``), and ``Tensor._view``
checks every view once more.
"""

from __future__ import annotations

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.layout import contiguous_strides
from minitorch.ops.pad import padded_copy

Pair = tuple[int, int]  # (height, width)


def output_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """How many window positions fit along one dimension: the window spans
    ``dilation * (kernel - 1) + 1`` cells and steps by ``stride`` through
    ``size + 2 * padding`` cells."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def check_window_args(kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> None:
    """PyTorch's rules for window arguments: kernel, stride and dilation > 0, padding >= 0."""
    rules = (("kernel size", "kernel", kernel, 1), ("stride", "stride", stride, 1),
             ("dilation", "dilation", dilation, 1), ("padding", "pad", padding, 0))  # fmt: skip
    for name, label, values, smallest in rules:
        if len(values) != 2 or not all(isinstance(v, int) for v in values):
            raise TypeError(f"{name} must be a pair of ints, but got {values!r}")
        if min(values) < smallest:
            rule = "greater than zero" if smallest else "non-negative"
            raise RuntimeError(
                f"{name} should be {rule}, but got {label}_height: {values[0]} "
                f"{label}_width: {values[1]}"
            )


def window_grid(size: Pair, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Pair:
    """``(OH, OW)``: the window positions in an image of ``size``, raising when there are
    none (the kernel, dilated, is larger than the padded image)."""
    oh, ow = (output_size(size[d], kernel[d], stride[d], padding[d], dilation[d]) for d in (0, 1))
    if oh <= 0 or ow <= 0:
        raise RuntimeError(
            f"Calculated output size: ({oh}x{ow}) is too small: input {size[0]}x{size[1]} with "
            f"padding {padding}, kernel {kernel}, dilation {dilation}, stride {stride} leaves "
            "no complete window. Kernel size can't be greater than actual input size: use a "
            "smaller kernel or more padding."
        )
    return oh, ow


def _windows(padded: Tensor, kernel: Pair, dilation: Pair, stride: Pair, grid: Pair) -> Tensor:
    """The ``[N, C, kh, kw, OH, OW]`` strided view of every window (no copy)."""
    sn, sc, sh, sw = padded._strides
    shape = padded._shape[:2] + kernel + grid
    strides = (sn, sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1])
    return padded._view(shape, strides, padded._offset)


def _pick(windows: Tensor, i: int, j: int) -> Tensor:
    """``windows[:, :, i, j]`` of a ``[N, C, kh, kw, OH, OW]`` layout: ``[N, C, OH, OW]``."""
    st = windows._strides
    offset = windows._offset + i * st[2] + j * st[3]
    return windows._view(windows._shape[:2] + windows._shape[4:], st[:2] + st[4:], offset)


class Unfold(Function):
    """im2col: ``[N, C, H, W] -> [N, C*kh*kw, OH*OW]``.  Backward: ``Fold``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, kernel: Pair, dilation: Pair, padding: Pair,
                stride: Pair, pad_value: float = 0.0) -> Tensor:  # fmt: skip
        n, c, h, w = x._shape
        grid = window_grid((h, w), kernel, dilation, padding, stride)
        ctx.args = ((h, w), kernel, dilation, padding, stride)
        border = ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1]))
        windows = _windows(padded_copy(x, border, pad_value), kernel, dilation, stride, grid)
        cols = dispatch.map("copy", Tensor._empty(windows._shape, x.dtype, x.device), windows)
        shape = (n, c * kernel[0] * kernel[1], grid[0] * grid[1])
        return cols._view(shape, contiguous_strides(shape), 0)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return Fold.apply(grad, *ctx.args), None, None, None, None, None


class Fold(Function):
    """col2im, the adjoint of ``Unfold``: ``[N, C*kh*kw, L] -> [N, C, H, W]``, adding
    overlapping window entries.  Backward: ``Unfold``."""

    @staticmethod
    def forward(ctx: FunctionCtx, cols: Tensor, size: Pair, kernel: Pair, dilation: Pair,
                padding: Pair, stride: Pair) -> Tensor:  # fmt: skip
        ctx.args = (kernel, dilation, padding, stride)
        n, k, _ = cols._shape
        c = k // (kernel[0] * kernel[1])
        grid = window_grid(size, kernel, dilation, padding, stride)
        cols = cols.contiguous()
        (h, w), (ph, pw) = size, padding
        padded = Tensor._full((n, c, h + 2 * ph, w + 2 * pw), 0, cols.dtype, cols.device)
        targets = _windows(padded, kernel, dilation, stride, grid)  # [N, C, kh, kw, OH, OW]
        sources = cols._view(targets._shape, contiguous_strides(targets._shape), cols._offset)
        for i in range(kernel[0]):
            for j in range(kernel[1]):  # padded[window (i, j)] += cols[:, :, i, j]
                target = _pick(targets, i, j)
                dispatch.zip("add", target, target, _pick(sources, i, j))
        if ph == 0 and pw == 0:
            return padded
        st = padded._strides
        interior = padded._view((n, c, h, w), st, ph * st[2] + pw * st[3])
        return dispatch.map("copy", Tensor._empty(interior._shape, cols.dtype, cols.device), interior)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return Unfold.apply(grad, *ctx.args), None, None, None, None, None


def unfold(x: Tensor, kernel: Pair, dilation: Pair = (1, 1), padding: Pair = (0, 0),
           stride: Pair = (1, 1), pad_value: float = 0.0) -> Tensor:  # fmt: skip
    """Every ``kernel`` window of a ``[N, C, H, W]`` tensor as a column:
    ``[N, C*kh*kw, OH*OW]``. The border of ``padding`` cells reads ``pad_value``
    (0 for convolution, ``-inf`` for max pooling)."""
    if x.ndim != 4:
        raise RuntimeError(f"unfold: expected a 4D input [N, C, H, W], got {list(x.shape)}")
    check_window_args(kernel, dilation, padding, stride)
    window_grid(tuple(x.shape[2:]), kernel, dilation, padding, stride)
    return Unfold.apply(x, kernel, dilation, padding, stride, pad_value)


def fold(cols: Tensor, size: Pair, kernel: Pair, dilation: Pair = (1, 1), padding: Pair = (0, 0),
         stride: Pair = (1, 1)) -> Tensor:  # fmt: skip
    """The adjoint of ``unfold``: add the columns of ``[N, C*kh*kw, L]`` back into a
    ``[N, C, *size]`` image (entries of overlapping windows add up)."""
    if cols.ndim != 3:
        raise RuntimeError(f"fold: expected a 3D input [N, C*kh*kw, L], got {list(cols.shape)}")
    check_window_args(kernel, dilation, padding, stride)
    if len(size) != 2 or min(size) < 1:
        raise RuntimeError(f"fold: output_size must be two sizes >= 1, but got {size}")
    per_window = kernel[0] * kernel[1]
    if cols.shape[1] % per_window:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={cols.shape[1]} and kernel_size={kernel}."
        )
    oh, ow = window_grid(size, kernel, dilation, padding, stride)
    if cols.shape[2] != oh * ow:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, expected size of input's dimension 2 to "
            f"match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
            f"input.size(2)={cols.shape[2]}."
        )
    return Fold.apply(cols, size, kernel, dilation, padding, stride)
