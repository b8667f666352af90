"""Layout: how a tensor's logical elements sit in its flat storage.

A tensor is a 1-D *storage* plus three numbers that say how to read it:

* ``shape``   -- how many elements along each dimension, e.g. ``(2, 3)``;
* ``strides`` -- how many storage cells to jump to move one step along each dimension;
* ``offset``  -- where element ``(0, 0, ...)`` lives in the storage.

The element at index ``(i0, i1, ...)`` lives at storage position::

    position = offset + i0 * strides[0] + i1 * strides[1] + ...

Every *view* (``permute``, ``expand``, slicing, ``view``, ``as_strided``...) is just a new
``(shape, strides, offset)`` over the same storage: nothing is copied. The functions in
this file compute those triples. They are pure functions on tuples, with no tensors and
no NumPy, so they are easy to read and to test. Four neighbours hold a part each, and
this file re-exports their names: the index arithmetic (``index_to_position``,
``ordinal_to_index``, in ``index_arithmetic.py``), element counts and their overflow
checks (``element_count.py``), broadcasting (``broadcasting.py``) and dimension merging
(``dimension_merging.py``).

Example::

    >>> contiguous_strides((2, 3))
    (3, 1)
    >>> permute((2, 3), (3, 1), 0, (1, 0))
    ((3, 2), (1, 3), 0)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence

from minitorch.broadcasting import broadcast_shapes  # noqa: F401  (re-exported)
from minitorch.dimension_merging import merge_dims, merge_kept_dims  # noqa: F401  (re-exported)
from minitorch.element_count import (  # noqa: F401  (re-exported: a layout's element count)
    INT64_MAX,
    allocating,
    checked_numel,
    numel,
    out_of_memory,
)
from minitorch.index_arithmetic import index_to_position, ordinal_to_index  # noqa: F401  (re-exported)

Shape = tuple[int, ...]
Strides = tuple[int, ...]
Layout = tuple[Shape, Strides, int]  # (shape, strides, offset)


def contiguous_strides(shape: Sequence[int]) -> Strides:
    """Row-major strides: the last dimension has stride 1, each earlier one jumps over
    a whole block of the later ones. ``(2, 3, 4)`` -> ``(12, 4, 1)``."""
    return _contiguous_strides(tuple(shape))


@functools.lru_cache(maxsize=4096)  # every new tensor asks this: remember the answers
def _contiguous_strides(shape: tuple[int, ...]) -> Strides:
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


@functools.lru_cache(maxsize=4096)  # every op's output asks: remember the answers
def strides_in_order(shape: Shape, strides: Strides) -> Strides:
    """Strides of a new dense tensor of ``shape`` whose dimensions lie in memory in the
    order of ``strides`` (largest stride outermost; ties keep their order).

    An elementwise result copies the memory order of its input (PyTorch's rule), so
    ``x.t().exp()`` is transposed too and its kernel walks input and output alike:
    ``(3, 4)`` with strides ``(1, 3)`` -> ``(1, 3)``; with gaps, ``(1, 6)`` -> ``(1, 3)``."""
    order = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    result = [0] * len(shape)
    step = 1
    for d in reversed(order):  # innermost first: each steps over all inner ones
        result[d] = step
        step *= max(shape[d], 1)
    return tuple(result)


@functools.lru_cache(maxsize=4096)  # every op's output asks this: remember the answers
def new_tensor_layout(shape: Shape, itemsize: int) -> tuple[int, Strides]:
    """What a new contiguous tensor of ``shape`` (a tuple) needs: its element count, after
    ``checked_numel``'s checks (a shape that fails them raises, and is not remembered),
    and its row-major strides."""
    return checked_numel(shape, itemsize), _contiguous_strides(shape)


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """True when the elements sit in storage in row-major order with no gaps.

    Like PyTorch, the stride of a dimension of size 1 does not matter (you never step
    along it), and a tensor with no elements is contiguous.
    """
    if numel(shape) == 0:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def storage_span(shape: Sequence[int], strides: Sequence[int], offset: int) -> tuple[int, int]:
    """The lowest and highest storage position the layout touches (``(offset, offset-1)``
    for an empty tensor, which touches nothing).

    Each dimension on its own reaches ``(size - 1) * stride`` cells away from the start:
    forward for a positive stride, backward for a negative one (``flip``'s kernel)."""
    if 0 in shape:
        return offset, offset - 1
    low = high = offset
    for size, stride in zip(shape, strides):
        reach = (size - 1) * stride
        if reach >= 0:
            high += reach
        else:
            low += reach
    return low, high


def as_int(value: object, what: str = "dim") -> int:
    """``value`` as a Python ``int``. PyTorch takes any integer-like value where it wants
    an int (a dim, a size, ``k``): NumPy's ``np.int64(2)``, a 0-d integer array, a
    one-element integer tensor: whatever has ``__index__``. A bool or a float is refused."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be an int, but got {type(value).__name__}")
    return operator.index(value)  # type: ignore[arg-type]


def normalize_dim(dim: int, ndim: int) -> int:
    """Turn a possibly negative ``dim`` into ``0 <= dim < ndim`` (a 0-d tensor accepts
    ``0`` and ``-1``, like PyTorch). Raises ``IndexError`` naming the valid range."""
    dim = as_int(dim)
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})"
        )
    return dim % rank


def normalize_dims(dims: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Normalize ``dim`` arguments of reductions: ``None`` means every dimension, an int
    one dimension, a sequence several (each at most once)."""
    if dims is None:
        return tuple(range(ndim))
    if not isinstance(dims, (tuple, list)):  # one dim: an int or an integer-like value
        dims = (dims,)
    result = tuple(sorted(normalize_dim(d, ndim) for d in dims))
    if len(set(result)) != len(result):
        raise RuntimeError(f"dim {tuple(dims)} appears multiple times in the list of dims")
    return tuple(d for d in result if d < ndim)


def reduction_dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """The dims a ``sum``-like reduction folds: ``None`` *and an empty list* mean all of
    them (PyTorch: ``x.sum(dim=())`` is the sum of everything)."""
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    return normalize_dims(dim, ndim)


# --------------------------------------------------------------------------------------
# View rules: each returns the new (shape, strides, offset) over the same storage
# --------------------------------------------------------------------------------------


def permute(shape: Shape, strides: Strides, offset: int, dims: Sequence[int]) -> Layout:
    """Reorder the dimensions: dimension ``d`` of the result is ``dims[d]`` of the input."""
    ndim = len(shape)
    if len(dims) != ndim:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match "
            f"the length of the desired ordering of dimensions i.e. input.dim() = {ndim} is "
            f"not equal to len(dims) = {len(dims)}"
        )
    order = [normalize_dim(d, ndim) for d in dims]
    if len(set(order)) != ndim:
        raise RuntimeError(f"permute(): duplicate dims are not allowed in {tuple(dims)}")
    return tuple(shape[d] for d in order), tuple(strides[d] for d in order), offset


def transpose(shape: Shape, strides: Strides, offset: int, dim0: int, dim1: int) -> Layout:
    """Swap dimensions ``dim0`` and ``dim1`` (both already normalized): ``permute`` of
    one swap, without checking a whole ordering."""
    shape, strides = list(shape), list(strides)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    strides[dim0], strides[dim1] = strides[dim1], strides[dim0]
    return tuple(shape), tuple(strides), offset


def expand(shape: Shape, strides: Strides, offset: int, sizes: Sequence[int]) -> Layout:
    """Broadcast to ``sizes`` without copying: a stretched dimension gets stride 0, so
    every index along it reads the same storage cell. ``-1`` keeps a size.

    Walk from the last dimension to the first; a new leading dimension behaves like a
    dimension of size 1 whose stride is what a contiguous tensor would have there.
    """
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(sizes)}): the number of "
            f"sizes provided ({len(sizes)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({len(shape)})"
        )
    ndim = len(sizes)
    new_shape, new_strides = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        d = i - (ndim - len(shape))  # the matching input dimension, or < 0 if new
        if d >= 0:
            size, stride = shape[d], strides[d]
        else:
            size, stride = 1, (new_shape[i + 1] * new_strides[i + 1] if i + 1 < ndim else 0)
        target = sizes[i]
        if target == -1:
            if d < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target = size
        if target != size:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing "
                    f"size ({size}) at non-singleton dimension {i}.  Target sizes: "
                    f"{list(sizes)}.  Tensor sizes: {list(shape)}"
                )
            size, stride = target, 0
        new_shape[i], new_strides[i] = size, stride
    return tuple(new_shape), tuple(new_strides), offset


def squeeze(shape: Shape, strides: Strides, offset: int, dims: Sequence[int]) -> Layout:
    """Drop the listed dimensions that have size 1 (others are kept, as in PyTorch)."""
    keep = [d for d in range(len(shape)) if not (d in dims and shape[d] == 1)]
    return tuple(shape[d] for d in keep), tuple(strides[d] for d in keep), offset


def unsqueeze(shape: Shape, strides: Strides, offset: int, dim: int) -> Layout:
    """Insert a dimension of size 1 at ``dim`` (``0 <= dim <= ndim``). Its stride is
    what a contiguous tensor would have there, like PyTorch."""
    new_stride = shape[dim] * strides[dim] if dim < len(shape) else 1
    return (
        shape[:dim] + (1,) + shape[dim:],
        strides[:dim] + (new_stride,) + strides[dim:],
        offset,
    )


def slice_dim(
    shape: Shape, strides: Strides, offset: int, dim: int, start: int, stop: int, step: int
) -> Layout:
    """Keep ``start:stop:step`` of one dimension (Python's slice rules, step > 0).

    The offset moves to the first kept element and the stride multiplies by ``step``.
    """
    if step <= 0:
        raise ValueError("step must be greater than zero (use flip() to reverse a tensor)")
    start, stop, _ = slice(start, stop, step).indices(shape[dim])
    length = max(0, (stop - start + step - 1) // step)
    return (
        shape[:dim] + (length,) + shape[dim + 1 :],
        strides[:dim] + (strides[dim] * step,) + strides[dim + 1 :],
        offset + start * strides[dim],
    )


def select(shape: Shape, strides: Strides, offset: int, dim: int, index: int) -> Layout:
    """Fix one dimension at ``index`` and drop it (``t[i]`` for ``dim == 0``)."""
    size = shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    index %= size
    return (
        shape[:dim] + shape[dim + 1 :],
        strides[:dim] + strides[dim + 1 :],
        offset + index * strides[dim],
    )


def infer_shape(shape: Sequence[int], count: int) -> Shape:
    """Resolve one ``-1`` in a requested shape so the element count stays ``count``."""
    shape = [int(size) for size in shape]
    unknown = [d for d, size in enumerate(shape) if size == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if any(size < -1 for size in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    known = numel([size for size in shape if size != -1])
    if unknown:
        if known == 0 or count % known != 0:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {count}")
        shape[unknown[0]] = count // known
    elif known != count:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {count}")
    return tuple(shape)


def view_strides(shape: Shape, strides: Strides, new_shape: Shape) -> Strides | None:
    """Strides that read the same elements in the same order with ``new_shape``, or
    ``None`` when no such strides exist (then ``view`` fails and ``reshape`` copies).

    Idea (PyTorch's rule): split the old dimensions into *chunks* that are contiguous
    among themselves (``stride[d] == stride[d+1] * shape[d+1]``). A chunk behaves like
    one flat run of memory, so the new dimensions may split or merge freely inside a
    chunk, but must not straddle two chunks.
    """
    if numel(shape) == 0:
        if numel(new_shape) != 0:
            return None
        return tuple(strides) if tuple(new_shape) == tuple(shape) else contiguous_strides(new_shape)
    if len(shape) == 0:  # a 0-d tensor: any shape of ones reads its single element
        return (1,) * len(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    # Walk the old dimensions from the right, accumulating a chunk.
    chunk_base_stride = strides[-1] if strides else 1
    tensor_numel = 1
    view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        chunk_ends = d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base_stride)
        if chunk_ends:
            # Fill the new dimensions that make up this chunk.
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base_stride = strides[d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def check_as_strided(size: Sequence[int], stride: Sequence[int], offset: int, storage_size: int) -> None:
    """Raise unless ``as_strided(size, stride, offset)`` stays inside a storage of
    ``storage_size`` cells. Users may not ask for negative sizes, strides or offsets;
    the bounds themselves are ``check_in_bounds``'s, the rule every view obeys."""
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: size has {len(size)} dims, stride has {len(stride)}"
        )
    if any(s < 0 for s in size):
        raise RuntimeError(f"as_strided: negative size in {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment")
    if offset < 0:
        raise RuntimeError(f"as_strided: negative storage offset {offset}")
    check_in_bounds(tuple(size), tuple(stride), offset, storage_size)


def check_in_bounds(shape: Shape, strides: Strides, offset: int, storage_size: int) -> None:
    """Raise unless every position the layout reaches lies in ``[0, storage_size)``.

    Kernels never bounds-check (that is what makes them fast), so this is the one guard
    between a wrong layout and reading or writing someone else's memory. Every view the
    library makes passes here (``Tensor._view``), which makes it hot: the reach of a
    ``(shape, strides)`` pair is remembered, so a layout seen before costs one lookup.
    """
    reach = _reach(shape, strides)
    if reach is None:  # no elements: reads nothing, so it cannot read outside
        return
    low, high = reach
    if offset + low < 0 or offset + high >= storage_size:
        raise RuntimeError(
            f"setStorage: sizes {list(shape)}, strides {list(strides)}, storage offset "
            f"{offset} reach storage positions {offset + low} to {offset + high}, but the "
            f"storage has only {storage_size} elements (0 to {storage_size - 1}). Out of "
            "bounds: choose smaller sizes, strides or offset."
        )


@functools.lru_cache(maxsize=4096)
def _reach(shape: Shape, strides: Strides) -> tuple[int, int] | None:
    """``storage_span`` relative to the offset (``None`` when empty), after checking
    that the element count fits in int64."""
    if checked_numel(shape) == 0:
        return None
    return storage_span(shape, strides, 0)
