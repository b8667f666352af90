"""Rearranging a tensor's elements: ``repeat``, ``tile``, ``roll``, ``movedim``,
``view_as``, ``reshape_as``. Each is written with views and ``cat``, so each one's
gradient comes from theirs: no ``Function``, no kernel of its own.

``repeat`` is the one to understand. Repeating a ``(2, 3)`` tensor ``(4, 5)`` times puts
a copy of it at every position of a ``4 x 5`` grid::

    x.reshape(1, 2, 1, 3)          a size-1 dim in front of each dim of x
     .expand(4, 2, 5, 3)           the grid: stride 0, nothing copied yet
     .reshape(8, 15)               row-major merge: one copy, made here
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.layout import normalize_dim
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat, sizes_from


def repeat(x: Tensor, *repeats: Any) -> Tensor:
    """``x`` repeated ``repeats[d]`` times along each dimension ``d`` (extra leading
    repeats add new leading dimensions), as NumPy's ``tile``."""
    require_tensor("repeat", x)
    counts = sizes_from(repeats)
    if len(counts) < x.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    if any(count < 0 for count in counts):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(counts)}")
    sizes = (1,) * (len(counts) - x.ndim) + tuple(x.shape)
    spaced = [size for s in sizes for size in (1, s)]
    grid = [size for count, s in zip(counts, sizes) for size in (count, s)]
    merged = [count * s for count, s in zip(counts, sizes)]
    return x.reshape(spaced).expand(grid).reshape(merged)


def tile(x: Tensor, dims: Any) -> Tensor:
    """``repeat`` where fewer repeats than dims are padded with leading 1s:
    ``tile(x, (2,))`` on a matrix repeats its columns."""
    require_tensor("tile", x)
    counts = sizes_from((dims,))
    return repeat(x, (1,) * (x.ndim - len(counts)) + counts)


def roll(x: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Elements shifted ``shifts`` places along ``dims``, those pushed off the end
    coming back at the start: ``out[(i + shift) % n] = x[i]``. Without ``dims``,
    the flattened tensor is rolled and given its shape back."""
    require_tensor("roll", x)
    shift_list = [shifts] if isinstance(shifts, int) else list(shifts)
    if dims is None:
        if len(shift_list) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift_list)}, dims:0")
        return roll(x.flatten(), shift_list[0], 0).view(x.shape)
    dim_list = [dims] if isinstance(dims, int) else list(dims)
    if len(shift_list) != len(dim_list):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shift_list)}, dims:{len(dim_list)}"
        )
    out = x
    for shift, dim in zip(shift_list, dim_list):
        d = normalize_dim(dim, x.ndim)
        n = x.shape[d] if x.ndim else 1
        start = (-shift) % n if n else 0
        if start:
            out = cat([out.narrow(d, start, n - start), out.narrow(d, 0, start)], d)
    return out if out is not x else x.clone()


def movedim(x: Tensor, source: Any, destination: Any) -> Tensor:
    """A view with dims ``source`` moved to positions ``destination``; the other dims
    keep their order in the places left (a ``permute`` the function works out)."""
    require_tensor("movedim", x)
    sources = [source] if isinstance(source, int) else list(source)
    targets = [destination] if isinstance(destination, int) else list(destination)
    if len(sources) != len(targets):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({sources} dims) should "
            f"contain the same number of dims as destination ({targets} dims)"
        )
    sources = [normalize_dim(d, x.ndim) for d in sources]
    targets = [normalize_dim(d, x.ndim) for d in targets]
    for name, dims in (("source", sources), ("destination", targets)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    order: list[int | None] = [None] * x.ndim
    for s, t in zip(sources, targets):
        order[t] = s
    rest = iter(d for d in range(x.ndim) if d not in sources)
    return x.permute([d if d is not None else next(rest) for d in order])


def view_as(x: Tensor, other: Tensor) -> Tensor:
    """``x.view(other.shape)``: the same storage seen with ``other``'s shape."""
    require_tensor("view_as", other)
    return x.view(other.shape)


def reshape_as(x: Tensor, other: Tensor) -> Tensor:
    """``x.reshape(other.shape)``: a view when the layout allows it, else a copy."""
    require_tensor("reshape_as", other)
    return x.reshape(other.shape)
