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

**Volumes.** Nothing above is particular to two dimensions: a ``[N, C, D, H, W]`` volume
with a ``kd x kh x kw`` kernel has the window view ``[N, C, kd, kh, kw, OD, OH, OW]``, one
kernel axis and one grid axis per spatial axis, and its columns are
``[N, C*kd*kh*kw, OD*OH*OW]``. Every function here takes one size per spatial dimension,
so ``conv3d`` and the 3-D pooling use the same code as their 2-D forms.

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

import itertools

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.layout import contiguous_strides
from minitorch.ops.pad import padded_copy

Pair = tuple[int, ...]  # one size per spatial dimension: (height, width) or (depth, height, width)

_AXES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def output_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """How many window positions fit along one dimension: the window spans
    ``dilation * (kernel - 1) + 1`` cells and steps by ``stride`` through
    ``size + 2 * padding`` cells."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def check_window_args(kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> None:
    """PyTorch's rules for window arguments: kernel, stride and dilation > 0, padding >= 0,
    one value of each per spatial dimension (two for images, three for volumes)."""
    dims = len(kernel)
    rules = (("kernel size", "kernel", kernel, 1), ("stride", "stride", stride, 1),
             ("dilation", "dilation", dilation, 1), ("padding", "pad", padding, 0))  # fmt: skip
    for name, label, values, smallest in rules:
        if dims not in _AXES or len(values) != dims or not all(isinstance(v, int) for v in values):
            raise TypeError(f"{name} must be a tuple of {dims} ints, but got {values!r}")
        if min(values) < smallest:
            rule = "greater than zero" if smallest else "non-negative"
            named = " ".join(f"{label}_{axis}: {v}" for axis, v in zip(_AXES[dims], values))
            raise RuntimeError(f"{name} should be {rule}, but got {named}")


def window_grid(size: Pair, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Pair:
    """``(OH, OW)`` (``(OD, OH, OW)`` for a volume): the window positions in an input of
    ``size``, raising when there are none (the kernel, dilated, is larger than the padded
    input)."""
    grid = tuple(output_size(size[d], kernel[d], stride[d], padding[d], dilation[d])
                 for d in range(len(kernel)))  # fmt: skip
    if min(grid) <= 0:
        raise RuntimeError(
            f"Calculated output size: ({'x'.join(map(str, grid))}) is too small: input "
            f"{'x'.join(map(str, size))} with padding {padding}, kernel {kernel}, dilation "
            f"{dilation}, stride {stride} leaves no complete window. Kernel size can't be "
            "greater than actual input size: use a smaller kernel or more padding."
        )
    return grid


def _windows(padded: Tensor, kernel: Pair, dilation: Pair, stride: Pair, grid: Pair) -> Tensor:
    """The ``[N, C, *kernel, *grid]`` strided view of every window (no copy): one step
    along a kernel axis moves ``dilation`` cells, one step along a grid axis ``stride``
    cells. The same view serves images (``[N, C, kh, kw, OH, OW]``) and volumes
    (``[N, C, kd, kh, kw, OD, OH, OW]``)."""
    spatial = padded._strides[2:]
    shape = padded._shape[:2] + tuple(kernel) + tuple(grid)
    strides = (padded._strides[:2] + tuple(s * d for s, d in zip(spatial, dilation))
               + tuple(s * t for s, t in zip(spatial, stride)))  # fmt: skip
    return padded._view(shape, strides, padded._offset)


def _pick(windows: Tensor, offsets: tuple) -> Tensor:
    """``windows[:, :, *offsets]`` of a ``[N, C, *kernel, *grid]`` layout: ``[N, C, *grid]``."""
    st, dims = windows._strides, len(offsets)
    offset = windows._offset + sum(o * s for o, s in zip(offsets, st[2 : 2 + dims]))
    return windows._view(windows._shape[:2] + windows._shape[2 + dims :], st[:2] + st[2 + dims :], offset)


def _product(values: Pair) -> int:
    total = 1
    for v in values:
        total *= v
    return total


class Unfold(Function):
    """im2col: ``[N, C, *size] -> [N, C*prod(kernel), prod(grid)]`` (an image
    ``[N, C, H, W]`` gives ``[N, C*kh*kw, OH*OW]``).  Backward: ``Fold``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, kernel: Pair, dilation: Pair, padding: Pair,
                stride: Pair, pad_value: float = 0.0) -> Tensor:  # fmt: skip
        n, c, size = x._shape[0], x._shape[1], tuple(x._shape[2:])
        grid = window_grid(size, kernel, dilation, padding, stride)
        ctx.args = (size, kernel, dilation, padding, stride)
        border = ((0, 0), (0, 0)) + tuple((p, p) for p in padding)
        windows = _windows(padded_copy(x, border, pad_value), kernel, dilation, stride, grid)
        cols = dispatch.map("copy", Tensor._empty(windows._shape, x.dtype, x.device), windows)
        shape = (n, c * _product(kernel), _product(grid))
        return cols._view(shape, contiguous_strides(shape), 0)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return Fold.apply(grad, *ctx.args), None, None, None, None, None


class Fold(Function):
    """col2im, the adjoint of ``Unfold``: ``[N, C*prod(kernel), L] -> [N, C, *size]``,
    adding overlapping window entries.  Backward: ``Unfold``."""

    @staticmethod
    def forward(ctx: FunctionCtx, cols: Tensor, size: Pair, kernel: Pair, dilation: Pair,
                padding: Pair, stride: Pair) -> Tensor:  # fmt: skip
        ctx.args = (kernel, dilation, padding, stride)
        n, k, _ = cols._shape
        c = k // _product(kernel)
        grid = window_grid(size, kernel, dilation, padding, stride)
        cols = cols.contiguous()
        padded_size = tuple(s + 2 * p for s, p in zip(size, padding))
        padded = Tensor._full((n, c) + padded_size, 0, cols.dtype, cols.device)
        targets = _windows(padded, kernel, dilation, stride, grid)  # [N, C, *kernel, *grid]
        sources = cols._view(targets._shape, contiguous_strides(targets._shape), cols._offset)
        for offsets in itertools.product(*(range(k) for k in kernel)):
            target = _pick(targets, offsets)  # padded[window at offsets] += cols[:, :, *offsets]
            dispatch.zip("add", target, target, _pick(sources, offsets))
        if not any(padding):
            return padded
        st = padded._strides
        offset = sum(p * s for p, s in zip(padding, st[2:]))
        interior = padded._view((n, c) + tuple(size), st, offset)
        return dispatch.map("copy", Tensor._empty(interior._shape, cols.dtype, cols.device), interior)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return Unfold.apply(grad, *ctx.args), None, None, None, None, None


def unfold(x: Tensor, kernel: Pair, dilation: Pair = (1, 1), padding: Pair = (0, 0),
           stride: Pair = (1, 1), pad_value: float = 0.0) -> Tensor:  # fmt: skip
    """Every ``kernel`` window of a ``[N, C, H, W]`` image (or ``[N, C, D, H, W]``
    volume, with a kernel of three) as a column: ``[N, C*kh*kw, OH*OW]``. The border of
    ``padding`` cells reads ``pad_value`` (0 for convolution, ``-inf`` for max pooling)."""
    if x.ndim != 2 + len(kernel):
        raise RuntimeError(f"unfold: expected a {2 + len(kernel)}D input [N, C, *size] for a "
                           f"{len(kernel)}-D kernel, got {list(x.shape)}")  # fmt: skip
    check_window_args(kernel, dilation, padding, stride)
    window_grid(tuple(x.shape[2:]), kernel, dilation, padding, stride)
    return Unfold.apply(x, kernel, dilation, padding, stride, pad_value)


def fold(cols: Tensor, size: Pair, kernel: Pair, dilation: Pair = (1, 1), padding: Pair = (0, 0),
         stride: Pair = (1, 1)) -> Tensor:  # fmt: skip
    """The adjoint of ``unfold``: add the columns of ``[N, C*kh*kw, L]`` back into a
    ``[N, C, *size]`` image or volume (entries of overlapping windows add up)."""
    if cols.ndim != 3:
        raise RuntimeError(f"fold: expected a 3D input [N, C*kh*kw, L], got {list(cols.shape)}")
    check_window_args(kernel, dilation, padding, stride)
    if len(size) != len(kernel) or min(size) < 1:
        raise RuntimeError(f"fold: output_size must be {len(kernel)} sizes >= 1, but got {size}")
    per_window = _product(kernel)
    if cols.shape[1] % per_window:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={cols.shape[1]} and kernel_size={kernel}."
        )
    grid = window_grid(size, kernel, dilation, padding, stride)
    if cols.shape[2] != _product(grid):
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, expected size of input's dimension 2 to "
            f"match the calculated number of sliding blocks {' * '.join(map(str, grid))} = "
            f"{_product(grid)}, but got input.size(2)={cols.shape[2]}."
        )
    return Fold.apply(cols, size, kernel, dilation, padding, stride)
