"""The reference ``sort`` kernel: a merge sort of every line, in plain Python.

Part of the reference backend (``reference.py`` imports it): the executable
specification that the fast backends' ``sort`` must agree with, order of ties included.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minitorch.backends import Strided
from minitorch.backends.half_precision import through_float32
from minitorch.layout import index_to_position, numel, ordinal_to_index


def comes_before(x: Any, y: Any, descending: bool) -> bool:
    """Whether ``x`` sorts strictly before ``y``. NaN is larger than every number, as in
    PyTorch: last in an ascending sort, first in a descending one; two NaNs tie."""
    if x != x:  # x is NaN
        return descending and y == y
    if y != y:
        return not descending
    return x > y if descending else x < y


def _key_before(keys: list, descending: bool, p: int, q: int) -> bool:
    return comes_before(keys[p], keys[q], descending)


def merge_sort(items: list[int], before: Callable[[int, int], bool]) -> list[int]:
    """``items`` sorted by ``before``, stable: items that tie keep their order.

    Sort each half, then merge: repeatedly take the front of the left half unless the
    front of the right half comes *strictly* before it, so a tie takes the left one."""
    if len(items) <= 1:
        return items
    middle = len(items) // 2
    left, right = merge_sort(items[:middle], before), merge_sort(items[middle:], before)
    merged: list[int] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if before(right[j], left[i]):
            merged.append(right[j])
            j += 1
        else:
            merged.append(left[i])
            i += 1
    return merged + left[i:] + right[j:]


@through_float32  # float16 and bfloat16 sort as the float32 values they hold
def sort(values: Strided, indices: Strided, a: Strided, dim: int, descending: bool) -> None:
    """Sort every line of ``a`` along ``dim`` (stable)::

        for each line (every index but dim fixed):
            order = merge_sort(range(n), by a[line][j])     ties keep their order
            for i:  values[line][i] = a[line][order[i]];  indices[line][i] = order[i]
    """
    n = a.shape[dim]
    lines = a.shape[:dim] + (1,) + a.shape[dim + 1 :]
    index = [0] * len(a.shape)
    for ordinal in range(numel(lines)):
        ordinal_to_index(ordinal, lines, index)
        keys = []
        for j in range(n):
            index[dim] = j
            keys.append(a.storage[index_to_position(index, a.strides, a.offset)])
        order = merge_sort(list(range(n)), functools.partial(_key_before, keys, descending))
        for i, j in enumerate(order):
            index[dim] = i
            values.storage[index_to_position(index, values.strides, values.offset)] = keys[j]
            indices.storage[index_to_position(index, indices.strides, indices.offset)] = j
        index[dim] = 0
