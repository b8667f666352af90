"""Layouts as the Numba kernels read them: merged once per distinct layout, remembered.

A kernel takes its layout as small int64 arrays (the merged shape, one row of strides per
operand, the storage offsets), so tensors of every rank share one compilation. Building
those arrays and merging dimensions (``layout.merge_dims``) is Python work, so each
distinct layout is worked out once and kept in a bounded LRU cache: a program uses a
handful of shapes again and again, and one that makes ever new shapes evicts the least
recently used.
"""

from __future__ import annotations

import functools

import numpy as np

from minitorch.layout import merge_dims, merge_kept_dims, numel

# How many distinct layouts each cache remembers.
LAYOUT_CACHE_SIZE = 4096


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def elementwise_layout(shape: tuple[int, ...], *all_strides: tuple[int, ...]):
    """For ``shape`` and the strides of out, then of each input: ``(shape, strides,
    total)`` with the merged layout (``layout.merge_dims``) as int64 arrays and the
    number of elements."""
    new_shape, new_strides = merge_dims(shape, *all_strides)
    return np.array(new_shape, dtype=np.int64), np.array(new_strides, dtype=np.int64), numel(shape)


def is_one_row(merged_strides: np.ndarray) -> bool:
    """Whether a merged layout is one contiguous row in every operand (same-shape
    contiguous tensors): then a runner calls the op's contiguous kernel, which takes
    three arguments fewer than the general one (Numba checks each argument's type on
    every call)."""
    return merged_strides.shape[1] == 1 and bool((merged_strides == 1).all())


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def reduce_layout(shape: tuple[int, ...], dim: int, out_strides: tuple[int, ...], a_strides: tuple[int, ...]):
    """``(shape, strides, total, length, a_step)`` of a reduction of ``a`` (of ``shape``)
    along ``dim``: the kept dimensions merged for out and a (``layout.merge_kept_dims``)
    as int64 arrays, how many outputs there are, and the reduced run of ``a``: ``length``
    elements ``a_step`` apart. A 0-d input is one run of one element."""
    new_shape, new_strides = merge_kept_dims(shape, dim, out_strides, a_strides)
    length, a_step = (shape[dim], a_strides[dim]) if shape else (1, 0)
    total = numel(shape[:dim] + shape[dim + 1 :])
    return np.array(new_shape, dtype=np.int64), np.array(new_strides, dtype=np.int64), total, length, a_step


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def offsets_array(*offsets: int) -> np.ndarray:
    """The storage offsets of a call's operands as the int64 array a kernel reads, made
    once per combination (a training step's are the same, usually all 0)."""
    return np.array(offsets, dtype=np.int64)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def indexing_arrays(shape: tuple, all_strides: tuple):
    """``shape`` and the strides of each operand (one row each) as int64 arrays."""
    return (np.array(shape, dtype=np.int64),
            np.array(all_strides, dtype=np.int64).reshape(len(all_strides), len(shape)))  # fmt: skip


def nothing_to_run(*storages_and_offsets: object) -> None:
    """The runner of a layout with no elements."""
