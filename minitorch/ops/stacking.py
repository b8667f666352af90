"""Joining, splitting and turning tensors the NumPy way: ``hstack``, ``vstack``,
``dstack``, ``column_stack``, ``row_stack``; ``tensor_split``, ``hsplit``, ``vsplit``,
``dsplit``, ``split_with_sizes``; ``ravel``, ``broadcast_to``, ``fliplr``, ``flipud``,
``rot90``; ``diagflat``; ``select_scatter``, ``slice_scatter``, ``diagonal_scatter``.

Each is ``cat``, ``narrow``, ``flip`` or a view, chosen by the input's rank: ``hstack``
joins 1-D tensors end to end but matrices side by side, because it first makes every
input at least 1-D and then joins along dim 1 (dim 0 for vectors). The splits return
views (``narrow``), so writing into a piece writes into the input, as in PyTorch.

The ``*_scatter`` ops are the out-of-place forms of writing into a view:
``select_scatter(x, src, 0, 1)`` is a copy of ``x`` whose row 1 is ``src``, made as
``out = x.clone(); out.select(0, 1).copy_(src)``; autograd follows the copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch._tensor import Tensor
from minitorch.layout import normalize_dim
from minitorch.ops.common import require_tensor, require_tensors
from minitorch.ops.diagonals import diag
from minitorch.ops.shape import cat, sizes_from


def _at_least(rank: int, x: Tensor) -> Tensor:
    """``x`` viewed with at least ``rank`` dims, as NumPy's ``atleast_2d``/``atleast_3d``
    place them: a vector ``(n,)`` becomes the row ``(1, n)`` (or ``(1, n, 1)``), a matrix
    ``(m, n)`` becomes ``(m, n, 1)``."""
    if x.ndim >= rank:
        return x
    if x.ndim == 0:
        return x.reshape((1,) * rank)
    if x.ndim == 1:
        return x.reshape((1, x.shape[0]) if rank == 2 else (1, x.shape[0], 1))
    return x.unsqueeze(-1)


def _joined(function: str, tensors: Sequence[Tensor], rank: int, dim: int) -> Tensor:
    if isinstance(tensors, Tensor):
        raise TypeError(f"{function}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    require_tensors(function, tensors)
    if not tensors:
        raise RuntimeError(f"{function} expects a non-empty TensorList")
    return cat([_at_least(rank, t) for t in tensors], dim)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join side by side: vectors end to end (dim 0), anything larger along dim 1."""
    vectors = not isinstance(tensors, Tensor) and all(getattr(t, "ndim", 2) <= 1 for t in tensors)
    return _joined("hstack", tensors, 1, 0 if vectors else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join one below another (dim 0), vectors first made rows ``(1, n)``."""
    return _joined("vstack", tensors, 2, 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join depth-wise (dim 2), every input first made at least 3-D."""
    return _joined("dstack", tensors, 3, 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Join as columns: each vector (or number) becomes a column ``(n, 1)``, then all are
    joined along dim 1."""
    if isinstance(tensors, Tensor):
        raise TypeError(
            "column_stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    require_tensors("column_stack", tensors)
    columns = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors]
    return _joined("column_stack", columns, 2, 1)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """Views of ``input`` cut along ``dim``. An int ``n``: ``n`` pieces as equal as they
    can be, the first ``size % n`` one element longer. A list of indices: cut before each
    (``[2, 5]`` gives ``[:2]``, ``[2:5]``, ``[5:]``; indices past the end give empty pieces)."""
    require_tensor("tensor_split", input)
    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d]
    cut = indices_or_sections
    if isinstance(cut, Tensor):
        if cut.dtype.is_floating_point or cut.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {cut.ndim} dims"
            )
        cut = int(cut) if cut.ndim == 0 else [int(i) for i in cut.tolist()]
    if isinstance(cut, int):
        if cut <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {cut}")
        if cut > size + 2**32:  # PyTorch's list of views would not fit in memory either
            raise RuntimeError(f"tensor_split: cannot make {cut} sections: out of memory")
        small, extra = divmod(size, cut)
        lengths = [small + 1] * extra + [small] * (cut - extra)
        starts = [sum(lengths[:i]) for i in range(cut)]
        return tuple(input.narrow(d, s, n) for s, n in zip(starts, lengths))
    bounds = [min(max(i + size if i < 0 else i, 0), size) for i in cut]
    edges = [0, *bounds, size]
    return tuple(input.narrow(d, a, max(b - a, 0)) for a, b in zip(edges[:-1], edges[1:]))


def _split_along(function: str, input: Tensor, sections: Any, rank: int, dim: int) -> tuple[Tensor, ...]:
    require_tensor(function, input)
    if input.ndim < rank:
        raise RuntimeError(
            f"torch.{function} requires a tensor with at least {rank} dimension"
            f"{'s' if rank > 1 else ''}, but got a tensor with {input.ndim} dimensions!"
        )
    if isinstance(sections, int) and (sections == 0 or input.shape[dim] % sections):
        raise RuntimeError(
            f"torch.{function} attempted to split along dimension {dim}, but the size of the "
            f"dimension {input.shape[dim]} is not divisible by the split_size {sections}!"
        )
    return tensor_split(input, sections, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:  # noqa: A002
    """``tensor_split`` along dim 1 (dim 0 for a vector); an int must divide evenly."""
    require_tensor("hsplit", input)
    return _split_along("hsplit", input, indices_or_sections, 1, 1 if input.ndim > 1 else 0)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:  # noqa: A002
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims."""
    return _split_along("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:  # noqa: A002
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims."""
    return _split_along("dsplit", input, indices_or_sections, 3, 2)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """Views of lengths ``split_sizes`` along ``dim``, which must add up to its size."""
    require_tensor("split_with_sizes", input)
    d = normalize_dim(dim, input.ndim)
    sizes = [int(s) for s in split_sizes]
    if sum(sizes) != input.shape[d] or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input "
            f"tensor's size at dimension {d}), but got split_sizes={sizes}"
        )
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return tuple(input.narrow(d, s, n) for s, n in zip(starts, sizes))


def ravel(input: Tensor) -> Tensor:  # noqa: A002
    """The elements in row-major order as one vector (a view when the layout allows)."""
    require_tensor("ravel", input)
    return input.reshape(-1)


def broadcast_to(input: Tensor, *size: Any) -> Tensor:  # noqa: A002
    """``input`` viewed with shape ``size`` by broadcasting (``expand``: stride 0)."""
    require_tensor("broadcast_to", input)
    return input.expand(sizes_from(size))


def fliplr(input: Tensor) -> Tensor:  # noqa: A002
    """Columns in reverse order (``flip`` of dim 1)."""
    require_tensor("fliplr", input)
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input: Tensor) -> Tensor:  # noqa: A002
    """Rows in reverse order (``flip`` of dim 0)."""
    require_tensor("flipud", input)
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:  # noqa: A002
    """Rotate by ``k`` quarter turns in the plane ``dims``, from the first axis towards
    the second: one turn is "reverse along ``dims[1]``, then swap the two axes"."""
    require_tensor("rot90", input)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    a, b = normalize_dim(dims[0], input.ndim), normalize_dim(dims[1], input.ndim)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    turns = k % 4
    if turns == 1:
        return input.flip(b).transpose(a, b)
    if turns == 2:
        return input.flip(a, b)
    if turns == 3:
        return input.flip(a).transpose(a, b)
    return input.clone()


def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    """A square matrix with the flattened ``input`` on diagonal ``offset``, zeros elsewhere."""
    require_tensor("diagflat", input)
    return diag(input.reshape(-1), offset)


def _written_into(function: str, input: Tensor, src: Tensor, view: Any) -> Tensor:
    """A copy of ``input`` with ``view(copy)`` overwritten by ``src`` (same shape)."""
    require_tensor(function, input)
    require_tensor(function, src, "src", 2)
    out = input.clone()
    target = view(out)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(target.shape)}"
        )
    target.copy_(src)
    return out


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """A copy of ``input`` whose ``select(dim, index)`` is ``src``."""
    return _written_into("select_scatter", input, src, lambda t: t.select(dim, index))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,  # noqa: A002
                  step: int = 1) -> Tensor:  # fmt: skip
    """A copy of ``input`` whose slice ``start:end:step`` along ``dim`` is ``src``."""
    require_tensor("slice_scatter", input)
    d = normalize_dim(dim, input.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    return _written_into("slice_scatter", input, src, lambda t: t[key])


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """A copy of ``input`` whose ``diagonal(offset, dim1, dim2)`` is ``src``."""
    return _written_into("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2))


METHODS = {
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "split_with_sizes": split_with_sizes, "ravel": ravel, "broadcast_to": broadcast_to,
    "fliplr": fliplr, "flipud": flipud, "rot90": rot90, "diagflat": diagflat,
    "select_scatter": select_scatter, "slice_scatter": slice_scatter,
    "diagonal_scatter": diagonal_scatter,
}  # fmt: skip
