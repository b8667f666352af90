"""``sort`` on the CPU: NumPy's stable sort, run on the storage in place.

Sorting is not a loop that compiling makes fast: NumPy's sort (a radix sort for small
integers, timsort otherwise when ``kind="stable"``) is already compiled, sorts every
line of a strided array at once, and puts NaN last, as PyTorch does. So this kernel
views the operands' storage as NumPy arrays with their strides (no copy) and calls it.
It agrees with ``reference_sort.sort``, order of ties included.
"""

from __future__ import annotations

import numpy as np

from minitorch.backends import Strided
from minitorch.backends.half_precision import through_float32


def strided_array(t: Strided) -> np.ndarray:
    """The operand as a NumPy array over its storage (a view: writing to it writes the
    storage). Shape and strides are the operand's; NumPy counts strides in bytes."""
    itemsize = t.storage.itemsize
    return np.lib.stride_tricks.as_strided(
        t.storage[t.offset :], t.shape, tuple(step * itemsize for step in t.strides)
    )


@through_float32  # float16 and bfloat16 sort as the float32 values they hold
def sort(values: Strided, indices: Strided, a: Strided, dim: int, descending: bool) -> None:
    """Agrees with ``reference_sort.sort``: every line along ``dim``, stable, NaN largest.

    A stable *descending* order is not the ascending one reversed (that would reverse the
    order of ties too). It is the reversed ascending order of the reversed line: reversing
    the line first puts ties in reverse order, the final reversal restores it, and a
    position ``j`` of the reversed line is position ``n - 1 - j`` of the line."""
    line = strided_array(a)
    if descending:
        reversed_order = np.argsort(np.flip(line, dim), axis=dim, kind="stable")
        order = (a.shape[dim] - 1) - np.flip(reversed_order, dim)
    else:
        order = np.argsort(line, axis=dim, kind="stable")
    strided_array(indices)[...] = order
    strided_array(values)[...] = np.take_along_axis(line, order, axis=dim)
