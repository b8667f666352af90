"""Views and shape operations: ``view``, ``reshape``, ``permute``, ``expand``, ``narrow``,
``as_strided``, ``split`` ... (the shape ops that must copy live beside: ``contiguous``,
``clone`` and ``flip`` in ``copying.py``, ``cat`` and ``stack`` in ``joining.py``).

A *view* computes a new ``(shape, strides, offset)`` with the rules of
``minitorch/layout.py`` and returns a tensor over the **same storage**: writing through
it changes the original. Each view's backward sends the gradient back through the
opposite view:

* ``view``/``reshape``/``squeeze``/``unsqueeze``/``flatten``: elements keep their order,
  so the gradient is reshaped back;
* ``permute``: permute the gradient back with the inverse order;
* ``expand``: one input element was read many times: sum those gradients;
* slicing/``narrow``/``select``: the gradient fills its region of a zero tensor;
* ``as_strided``: any layout at all: scatter into a zero *storage*, then read back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.engine import sum_to
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import int64
from minitorch.ops.common import require_tensor, sizes_from
from minitorch.ops.copying import Copy, clone, contiguous, flip, in_memory_format  # noqa: F401 (copies)
from minitorch.ops.joining import cat, stack  # noqa: F401 (imported from here since before the split)


class View(Function):
    """A view that keeps the row-major order of the elements (view, squeeze, ...)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, new_layout: tuple) -> Tensor:
        ctx.shape = x._shape
        return x._view(*new_layout)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return grad.reshape(ctx.shape), None


class Unsqueeze(View):
    """``unsqueeze``: a ``View`` with PyTorch's node name, ``UnsqueezeBackward0``."""


class Squeeze(View):
    """``squeeze()`` of all size-1 dims: a ``View`` named ``SqueezeBackward0``."""


class SqueezeDim(View):
    """``squeeze(dim)``: a ``View``; PyTorch names its node ``SqueezeBackward1``."""

    node_name = "SqueezeBackward1"


class SqueezeDims(View):
    """``squeeze((d0, d1))``: a ``View``; PyTorch names its node ``SqueezeBackward2``."""

    node_name = "SqueezeBackward2"


class Permute(Function):
    """y = x with dimensions reordered;  the gradient is permuted back."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dims: tuple) -> Tensor:
        new_layout = layout.permute(x._shape, x._strides, x._offset, dims)
        inverse = [0] * len(dims)  # where each dimension went, to put it back
        for position, d in enumerate(dims):
            inverse[d % max(x.ndim, 1)] = position
        ctx.inverse = tuple(inverse)
        return x._view(*new_layout)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return grad.permute(ctx.inverse), None


class Transpose(Permute):
    """``transpose(d0, d1)``: a ``Permute`` of one swap, named ``TransposeBackward0`` as in
    PyTorch. A swap undoes itself, so the order is its own inverse."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dims: tuple) -> Tensor:
        ctx.inverse = dims
        return x._view(*layout.permute(x._shape, x._strides, x._offset, dims))


class MatrixTranspose(Permute):
    """``t()`` of a matrix: a ``Permute`` of ``(1, 0)``, its view written out (every
    ``nn.Linear`` forward records one); PyTorch names its node ``TBackward0``."""

    node_name = "TBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dims: tuple) -> Tensor:
        ctx.inverse = (1, 0)
        return matrix_transpose_view(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return MatrixTranspose.apply(grad, (1, 0)), None  # (a transpose undoes itself)


def matrix_transpose_view(x: Tensor) -> Tensor:
    """A matrix's transpose as a view, made at once (no graph node: ``t()`` records one)."""
    return x._view(*layout.transpose(x._shape, x._strides, x._offset, 0, 1))


class Expand(Function):
    """y = x stretched (stride 0);  each input element's gradient is the sum of the
    gradients of all the places it was read."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, sizes: tuple) -> Tensor:
        ctx.shape = x._shape
        return x._view(*layout.expand(x._shape, x._strides, x._offset, sizes))

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return sum_to(grad, ctx.shape), None


class RegionView(Function):
    """A view of a region (slicing, ``narrow``, ``select``). ``relative`` is the same
    region's layout inside a fresh contiguous tensor of the input's shape."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, new_layout: tuple, relative: tuple) -> Tensor:
        ctx.shape, ctx.relative = x._shape, relative
        return x._view(*new_layout)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return FillRegion.apply(grad, ctx.shape, ctx.relative), None, None


class Slice(RegionView):
    """``x[1:]``, ``narrow``: a ``RegionView`` named ``SliceBackward0``, as in PyTorch."""


class Select(RegionView):
    """``x[1]``, ``select``: a ``RegionView`` named ``SelectBackward0``, as in PyTorch."""


class UnsqueezeRegion(RegionView):
    """``x[None]``: a ``RegionView``; PyTorch names its node ``UnsqueezeBackward0``."""

    node_name = "UnsqueezeBackward0"


class FillRegion(Function):
    """A zero tensor of ``shape`` with ``values`` written into one region of it (the
    backward of ``RegionView``; its own backward reads the region back)."""

    @staticmethod
    def forward(ctx: FunctionCtx, values: Tensor, shape: tuple, relative: tuple) -> Tensor:
        ctx.relative = relative
        out = Tensor._full(shape, 0, values.dtype, values.device)
        dispatch.map("copy", out._view(*relative), values)
        return out

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        grad = grad.contiguous()
        shape, strides, offset = ctx.relative
        return grad.as_strided(shape, strides, grad.storage_offset() + offset), None, None


def storage_positions(shape: tuple, strides: tuple, offset: int, like: Tensor) -> Tensor:
    """An int64 tensor holding, for every element of a layout, its storage position."""
    positions = np.full(shape, offset, dtype=np.int64)
    for d, (size, stride) in enumerate(zip(shape, strides)):
        steps = np.arange(size, dtype=np.int64) * stride
        positions = positions + steps.reshape((size,) + (1,) * (len(shape) - d - 1))
    storage = dispatch.from_numpy(np.ascontiguousarray(positions).reshape(-1), like.device.type)
    return Tensor._make(storage, shape, layout.contiguous_strides(shape), 0, int64, like.device)


class AsStrided(Function):
    """Any layout over the input's storage. Backward: add the gradient into a zero
    buffer the size of the storage at the positions the view read, then read the
    input's own positions back out of it."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, size: tuple, stride: tuple, offset: int) -> Tensor:
        ctx.x_layout = (x._shape, x._strides, x._offset)
        ctx.layout = (size, stride, offset)
        ctx.storage_size = x.untyped_storage_size()
        return x._view(size, stride, offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        buffer = grad.new_zeros((ctx.storage_size,))
        written = storage_positions(*ctx.layout, grad).reshape(-1)
        buffer = buffer.scatter_add(0, written, grad.reshape(-1))
        shape = ctx.x_layout[0]
        read = storage_positions(*ctx.x_layout, grad).reshape(-1)
        return buffer.gather(0, read).reshape(shape), None, None, None


# ----- the functions users call -------------------------------------------------------


def view(x: Tensor, *shape: Any) -> Tensor:
    """The same storage read with another shape; fails (suggesting ``reshape``) when the
    strides cannot express it without a copy."""
    new_shape = layout.infer_shape(sizes_from(shape), x.numel())
    strides = layout.view_strides(x._shape, x._strides, new_shape)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return View.apply(x, (new_shape, strides, x._offset))


def reshape(x: Tensor, *shape: Any) -> Tensor:
    """Like ``view`` when possible; otherwise copies into a contiguous tensor first."""
    require_tensor("reshape", x)
    new_shape = layout.infer_shape(sizes_from(shape), x.numel())
    strides = layout.view_strides(x._shape, x._strides, new_shape)
    if strides is None:
        return view(contiguous(x), new_shape)
    return View.apply(x, (new_shape, strides, x._offset))


def permute(x: Tensor, *dims: Any) -> Tensor:
    require_tensor("permute", x)
    return Permute.apply(x, sizes_from(dims))


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    a, b = layout.normalize_dim(dim0, x.ndim), layout.normalize_dim(dim1, x.ndim)
    if x.ndim == 0:
        return View.apply(x, (x._shape, x._strides, x._offset))
    order = list(range(x.ndim))
    order[a], order[b] = order[b], order[a]
    return Transpose.apply(x, tuple(order))


def t(x: Tensor) -> Tensor:
    """Transpose a matrix (a 0-d or 1-d tensor is returned as it is)."""
    require_tensor("t", x)
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    if x.ndim == 2:
        return MatrixTranspose.apply(x, (1, 0))
    return View.apply(x, (x._shape, x._strides, x._offset))


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    d = layout.normalize_dim(dim, x.ndim + 1)
    return Unsqueeze.apply(x, layout.unsqueeze(x._shape, x._strides, x._offset, d))


def squeeze(x: Tensor, dim: Any = None) -> Tensor:
    require_tensor("squeeze", x)
    dims = layout.normalize_dims(dim, x.ndim) if x.ndim else ()
    node = Squeeze if dim is None else SqueezeDims if isinstance(dim, (tuple, list)) else SqueezeDim
    return node.apply(x, layout.squeeze(x._shape, x._strides, x._offset, dims))


def expand(x: Tensor, *sizes: Any) -> Tensor:
    return Expand.apply(x, sizes_from(sizes))


def expand_as(x: Tensor, other: Tensor) -> Tensor:
    require_tensor("expand_as", other, "other")
    return Expand.apply(x, tuple(other.shape))


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    require_tensor("flatten", x)
    if x.ndim == 0:
        return reshape(x, (1,))
    start, end = layout.normalize_dim(start_dim, x.ndim), layout.normalize_dim(end_dim, x.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    merged = math.prod(x._shape[start : end + 1])  # not -1: (0, 2, 3).flatten(1) is (0, 6)
    return reshape(x, x._shape[:start] + (merged,) + x._shape[end + 1 :])


def unflatten(x: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    d = layout.normalize_dim(dim, x.ndim)
    inner = layout.infer_shape(list(sizes), x._shape[d])
    return view(x, x._shape[:d] + inner + x._shape[d + 1 :])


def region(x: Tensor, steps: list) -> Tensor:
    """Apply layout steps (``("slice", dim, start, stop, step)``, ``("select", dim, i)``,
    ``("unsqueeze", dim)``) to ``x`` and to a contiguous stand-in (for the backward).

    One node for all the steps, named after the last (PyTorch chains one node per step:
    ``x[1:, 2]`` is ``SelectBackward0`` over ``SliceBackward0`` there)."""
    actual = (x._shape, x._strides, x._offset)
    relative = (x._shape, layout.contiguous_strides(x._shape), 0)
    for kind, *args in steps:
        rule = {"slice": layout.slice_dim, "select": layout.select,
                "unsqueeze": layout.unsqueeze}[kind]  # fmt: skip
        actual, relative = rule(*actual, *args), rule(*relative, *args)
    last = steps[-1][0] if steps else "slice"
    node = {"slice": Slice, "select": Select, "unsqueeze": UnsqueezeRegion}[last]
    return node.apply(x, actual, relative)


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    d = layout.normalize_dim(dim, x.ndim)
    size = x._shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")  # fmt: skip
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return region(x, [("slice", d, start, start + length, 1)])


def select(x: Tensor, dim: int, index: int) -> Tensor:
    d = layout.normalize_dim(dim, x.ndim)
    return region(x, [("select", d, index)])


def as_strided(x: Tensor, size: Sequence[int], stride: Sequence[int],
               storage_offset: int | None = None) -> Tensor:  # fmt: skip
    """Any ``(size, stride, offset)`` over the storage, checked to stay inside it."""
    offset = x._offset if storage_offset is None else int(storage_offset)
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    layout.check_as_strided(size, stride, offset, x.untyped_storage_size())
    return AsStrided.apply(x, size, stride, offset)


def split(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    d = layout.normalize_dim(dim, x.ndim)
    size = x._shape[d]
    if not isinstance(split_size_or_sections, (tuple, list)):
        step = layout.as_int(split_size_or_sections, "split_size")
        if step <= 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got {step}")
        sections = [min(step, size - start) for start in range(0, size, step)] or [0]
    else:
        sections = list(split_size_or_sections)
        if sum(sections) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                f"tensor's size at dimension {d}), but got split_sizes={sections}"
            )
    pieces, start = [], 0
    for length in sections:
        pieces.append(narrow(x, d, start, length))
        start += length
    return tuple(pieces)


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = x._shape[layout.normalize_dim(dim, x.ndim)]
    if size == 0:  # PyTorch: `chunks` empty pieces (a split of size 0 would give one)
        return split(x, [0] * chunks, dim)
    return split(x, math.ceil(size / chunks), dim)


def unbind(x: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    require_tensor("unbind", x)
    d = layout.normalize_dim(dim, x.ndim)
    return tuple(select(x, d, i) for i in range(x._shape[d]))
