"""Index arithmetic: from a multi-index to a storage position, and from an ordinal to a multi-index.

Loops and indexing only, so the Numba backends compile the very same functions. Re-exported
by ``minitorch/layout.py``.
"""

from __future__ import annotations


def index_to_position(index, strides, offset):
    """Storage position of a multi-index: ``offset + sum(index[d] * strides[d])``."""
    position = offset
    for d in range(len(index)):
        position += index[d] * strides[d]
    return position


def ordinal_to_index(ordinal, shape, out_index):
    """Write into ``out_index`` the multi-index of the ``ordinal``-th element in row-major
    order. For shape ``(2, 3)``: ordinal 4 -> index ``(1, 1)``.

    The last dimension changes fastest, like the digits of a number whose bases are the
    sizes: we peel digits off from the right.
    """
    remaining = ordinal
    for d in range(len(shape) - 1, -1, -1):
        out_index[d] = remaining % shape[d]
        remaining = remaining // shape[d]
