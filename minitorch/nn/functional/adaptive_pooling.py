"""Adaptive pooling to any output size: ``adaptive_avg_pool1d/2d/3d`` and
``adaptive_max_pool1d/2d/3d`` (with ``return_indices``).

Adaptive pooling fixes the output size instead of the window. Along a dimension of input
size ``L`` pooled to ``O`` outputs, output ``i`` covers the input positions

    ``floor(i L / O) <= j < ceil((i + 1) L / O)``,

windows that tile the input and overlap by one where ``O`` does not divide ``L`` (PyTorch's
rule). A window of several dimensions is the product of the per-dimension ranges. Each
window is sliced out and reduced (``mean``, or ``max`` with the position of the largest
element as ``h * W + w``, PyTorch's flat index in the input plane), and the results are
stacked: slicing and reducing have their backward already.
"""

from __future__ import annotations

import itertools
from typing import Any

from minitorch._tensor import Tensor
from minitorch.layout import checked_numel
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import stack


def _window_ranges(size: int, out: int) -> list[tuple[int, int]]:
    """The ``[start, end)`` range of each of ``out`` windows over ``size`` positions."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _output_size(output_size: Any, spatial: tuple, name: str) -> tuple:
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * len(spatial)
    if len(sizes) != len(spatial):
        raise RuntimeError(f"{name}: output_size must be {len(spatial)}, got {list(sizes)}")
    sizes = tuple(whole if size is None else int(size) for size, whole in zip(sizes, spatial))
    if any(size < 0 for size in sizes):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0")
    return sizes


def _adaptive_pool(input: Tensor, output_size: Any, dims: int, name: str, reduce: str,  # noqa: A002
                   return_indices: bool = False) -> Any:  # fmt: skip
    require_tensor(name, input)
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}"
        )
    spatial = tuple(input.shape[-dims:])
    non_batch = range(1, input.ndim) if input.ndim == dims + 2 else range(input.ndim)
    if any(input.shape[k] == 0 for k in non_batch):  # only a batch may be empty
        empty = next(k for k in non_batch if input.shape[k] == 0)
        raise RuntimeError(
            f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has "
            f"sizes {list(input.shape)} with dimension {empty} being empty"
        )
    sizes = _output_size(output_size, spatial, name)
    lead = tuple(input.shape[:-dims])
    checked_numel(lead + sizes, input.element_size())  # one window per output: refuse 2**62 first
    if 0 in sizes or input.numel() == 0:  # nothing to pool: an empty result, still in the graph
        empty = input.sum(tuple(range(-dims, 0))).reshape(lead + (1,) * dims).expand(*lead, *sizes) * 0
        return (empty, empty.long()) if return_indices else empty
    values, indices = [], []
    for window in itertools.product(*(_window_ranges(n, o) for n, o in zip(spatial, sizes))):
        piece = input
        for k, (start, end) in enumerate(window):
            piece = piece.narrow(input.ndim - dims + k, start, end - start)
        flat = piece.reshape(lead + (-1,))
        if reduce == "avg":
            values.append(flat.mean(-1))
            continue
        value, where = flat.max(-1)
        values.append(value)
        if return_indices:  # the window's flat position -> the input plane's flat position
            extents = [end - start for start, end in window]
            position, rest = 0, where
            for k in reversed(range(dims)):
                coordinate = rest % extents[k] + window[k][0]
                rest = rest // extents[k]
                stride = 1
                for size in spatial[k + 1 :]:
                    stride *= size
                position = position + coordinate * stride
            indices.append(position)
    out = stack(values, -1).reshape(lead + sizes)
    if not return_indices:
        return out
    return out, stack(indices, -1).reshape(lead + sizes)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return _adaptive_pool(input, output_size, 1, "adaptive_avg_pool1d", "avg")


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return _adaptive_pool(input, output_size, 3, "adaptive_avg_pool3d", "avg")


def adaptive_avg_pool2d_any_size(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """``adaptive_avg_pool2d`` for output sizes that need not divide the input."""
    return _adaptive_pool(input, output_size, 2, "adaptive_avg_pool2d", "avg")


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    return _adaptive_pool(input, output_size, 1, "adaptive_max_pool1d", "max", return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    return _adaptive_pool(input, output_size, 2, "adaptive_max_pool2d", "max", return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    return _adaptive_pool(input, output_size, 3, "adaptive_max_pool3d", "max", return_indices)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:  # noqa: A002
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:  # noqa: A002
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = True) -> Any:  # noqa: A002
    return adaptive_max_pool3d(input, output_size, True)
