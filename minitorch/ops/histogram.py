"""Counting: ``bincount``, ``histc``, ``histogram``, ``histogramdd``, and the
``searchsorted`` they rest on.

``searchsorted(edges, x)`` says where each ``x`` would go in the sorted ``edges``: the
number of edges below it (``right=True``: at or below it). A histogram is then one
count per bin: ``x`` lies in bin ``i`` when ``edges[i] <= x < edges[i + 1]`` (the last
bin also holds ``x == edges[-1]``), so its bin is ``searchsorted(edges, x, right=True) - 1``.
Counting is a comparison against every bin, ``bins x values`` booleans summed, written
with ops we have. None of these is differentiable (counts are flat steps).

``histogramdd`` bins N-dimensional points (the rows of an ``(M, N)`` input): each
coordinate gets its bin along its own dim as above, and the point's cell of the
``bins[0] x bins[1] x ...`` grid is the row-major combination of the N bin numbers,
``((i0 * bins[1]) + i1) * bins[2] + ...``; a point outside any dim's edges is not counted.
"""

from __future__ import annotations

import builtins
from typing import Any

from minitorch._tensor import Tensor
from minitorch.creation import arange, linspace, zeros
from minitorch.dtypes import float64, int32, int64
from minitorch.ops import return_types
from minitorch.ops.common import require_tensor


def searchsorted(sorted_sequence: Tensor, input: Tensor, *, out_int32: bool = False,  # noqa: A002
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Tensor:  # fmt: skip
    """For each value of ``input``, how many entries of ``sorted_sequence`` (along its
    last dim) are below it (``right=True`` or ``side="right"``: at or below it): the
    index where it would be inserted to keep the order."""
    require_tensor("searchsorted", sorted_sequence)
    if not isinstance(input, Tensor):
        input = sorted_sequence.new_tensor(input)  # noqa: A001
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter)
    if sorted_sequence.ndim > 1 and tuple(sorted_sequence.shape[:-1]) != tuple(input.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
            f"{list(input.shape)}"
        )
    edges = sorted_sequence if sorted_sequence.ndim == 1 else sorted_sequence.unsqueeze(-2)
    values = input.unsqueeze(-1)
    below = edges <= values if right else edges < values
    return below.sum(-1).to(int32 if out_int32 else int64)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:  # noqa: A002
    """``out[v]`` = how many times ``v`` occurs in the 1-D non-negative integer
    ``input`` (with ``weights``: the sum of their weights); ``max(input) + 1`` entries,
    at least ``minlength``."""
    require_tensor("bincount", input)
    if input.dtype.is_floating_point or input.dtype.category == 0:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{input.dtype.type_name}'")
    if input.ndim != 1 or (input.numel() and int(input.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = builtins.max(int(input.max()) + 1 if input.numel() else 0, minlength)
    hits = input.unsqueeze(1) == arange(length, device=input.device)
    if weights is None:
        return hits.sum(0)
    dtype = weights.dtype if weights.dtype.is_floating_point else float64
    return (hits.to(dtype) * weights.to(dtype).unsqueeze(1)).sum(0)


def _counts(x: Tensor, edges: Tensor, weight: Tensor | None) -> Tensor:
    """How many values of ``x`` (or their total weight) fall in each bin of ``edges``."""
    values = x.reshape(-1)
    bins = edges.numel() - 1
    inside = (values >= edges[0]) & (values <= edges[-1])
    index = (searchsorted(edges, values, right=True) - 1).clamp(0, bins - 1)
    hits = (index.unsqueeze(1) == arange(bins, device=x.device)) & inside.unsqueeze(1)
    if weight is None:
        return hits.to(x.dtype).sum(0)
    return (hits.to(x.dtype) * weight.reshape(-1, 1).to(x.dtype)).sum(0)


def _require_float(name: str, x: Tensor) -> None:
    require_tensor(name, x)
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{x.dtype.type_name}'")


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """Counts of ``input`` in ``bins`` equal bins from ``min`` to ``max`` (both 0: the
    data's own smallest and largest value); values outside are left out."""
    _require_float("histc", input)
    if isinstance(bins, bool) or not isinstance(bins, int):
        raise TypeError(f"histc(): argument 'bins' (position 2) must be int, not {type(bins).__name__}")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    low, high = float(min), float(max)
    if low == high and input.numel():
        low, high = float(input.min()), float(input.max())
    if low == high:
        low, high = low - 1, high + 1
    edges = linspace(low, high, bins + 1, dtype=input.dtype, device=input.device)
    return _counts(input, edges, None)


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None,  # noqa: A002
              weight: Tensor | None = None, density: bool = False) -> Any:  # fmt: skip
    """``(hist, bin_edges)``: counts of ``input`` per bin. ``bins`` is a number of equal
    bins over ``range`` (default: the data's extent), or a 1-D tensor of increasing
    edges. ``density=True`` divides by ``total * bin width``, so the bars' area is 1."""
    _require_float("histogram", input)
    if isinstance(bins, Tensor):
        edges = bins.to(input.dtype)
    else:
        if range is not None:
            low, high = float(range[0]), float(range[1])
        elif input.numel():
            low, high = float(input.min()), float(input.max())
        else:
            low, high = 0.0, 0.0
        if low > high:
            raise ValueError(f"torch.histogram(): min should not exceed max, but got min {low} max {high}")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges = linspace(low, high, int(bins) + 1, dtype=input.dtype, device=input.device)
    hist = _counts(input, edges, weight)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return return_types.histogram(hist, edges)


def _edges_dd(points: Tensor, bins: Any, range: Any) -> list[Tensor]:  # noqa: A002
    """One increasing 1-D tensor of edges per coordinate of ``points`` (``(M, N)``)."""
    n = points.shape[1]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        if len(bins) != n:
            raise RuntimeError(f"torch.histogramdd(): expected {n} sequences of bin edges for each of the "
                               f"{n} input dimensions, but got {len(bins)} bin sequences")  # fmt: skip
        return [edges.to(points.dtype) for edges in bins]
    counts = [int(bins)] * n if isinstance(bins, int) else [int(b) for b in bins]
    if len(counts) != n:
        raise RuntimeError(f"torch.histogramdd(): expected {n} bin counts, one for each of the {n} input "
                           f"dimensions, but got {len(counts)} bin counts")  # fmt: skip
    if range is not None and len(range) != 2 * n:
        raise RuntimeError(f"torch.histogramdd(): expected {2 * n} values for range (a min and a max for "
                           f"each of the {n} input dimensions), but got {len(range)}")  # fmt: skip
    edges = []
    for k, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {count} for dimension {k}")
        if range is not None:
            low, high = float(range[2 * k]), float(range[2 * k + 1])
        elif points.shape[0]:
            column = points[:, k]
            low, high = float(column.min()), float(column.max())
        else:
            low, high = 0.0, 0.0
        if low > high:
            raise ValueError(f"torch.histogramdd(): min should not exceed max, but got min {low} max {high} "
                             f"for dimension {k}")  # fmt: skip
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges.append(linspace(low, high, count + 1, dtype=points.dtype, device=points.device))
    return edges


def histogramdd(input: Tensor, bins: Any = 10, *, range: Any = None,  # noqa: A002
                weight: Tensor | None = None, density: bool = False) -> Any:  # fmt: skip
    """``(hist, bin_edges)``: how many of the N-dimensional points (the rows of
    ``input``, whose last dim is N) fall in each cell of a grid of bins. ``bins`` is one
    count, a count per dim, or a 1-D tensor of edges per dim; ``range`` is
    ``[min0, max0, min1, max1, ...]``; ``density=True`` divides by total * cell volume."""
    _require_float("histogramdd", input)
    if input.ndim < 2:
        raise RuntimeError(
            f"torch.histogramdd: input tensor should have at least 2 dimensions, but got {input.ndim}"
        )
    points = input.reshape(-1, input.shape[-1])
    edges = _edges_dd(points, bins, range)
    sizes = [e.numel() - 1 for e in edges]
    cell = zeros(points.shape[0], dtype=int64, device=input.device)
    inside = None
    for k, (e, size) in enumerate(zip(edges, sizes)):
        column = points[:, k]
        fits = (column >= e[0]) & (column <= e[-1])
        inside = fits if inside is None else inside & fits
        cell = cell * size + (searchsorted(e, column, right=True) - 1).clamp(0, size - 1)
    total = 1
    for size in sizes:
        total *= size
    hits = (cell.unsqueeze(1) == arange(total, device=input.device)) & inside.unsqueeze(1)
    hits = hits.to(input.dtype)
    hist = (hits if weight is None else hits * weight.reshape(-1, 1).to(input.dtype)).sum(0).reshape(sizes)
    if density:
        volume = None
        for k, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[k] = sizes[k]
            width = (e[1:] - e[:-1]).reshape(shape)
            volume = width if volume is None else volume * width
        hist = hist / (hist.sum() * volume)
    return HISTOGRAMDD(hist, tuple(edges))


HISTOGRAMDD = return_types._return_type("histogramdd", ["hist", "bin_edges"])
