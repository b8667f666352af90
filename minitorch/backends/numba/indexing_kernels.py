"""Numba kernels for ``gather`` and ``scatter_add``. They must agree with
``reference.gather`` and ``reference.scatter_add``.

Both walk the elements of one tensor (``out`` for gather, ``src`` for scatter_add) and
copy its multi-index, except along ``dim``, where the index tensor names the position::

    gather:       out[i][j][k]  = a[i][index[i][j][k]][k]          (dim == 1)
    scatter_add:  out[i][index[i][j][k]][k] += src[i][j][k]

The layouts arrive as int64 arrays: ``shape`` ``[rank]`` and ``strides`` ``[3, rank]``, one
row per operand in the order of the arguments. Every index was checked by the caller.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from minitorch.backends.numba.elementwise_kernels import chunk_bounds
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, PRANGE_ONLY


@njit(error_model="numpy")
def positions(ordinal, shape, strides, offsets, dim):
    """For the ``ordinal``-th element (row-major): the storage positions of that
    multi-index in operands 0, 1 and 2, and the index along ``dim`` (which operand 1
    will not use: the index tensor replaces it)."""
    first, second, third = offsets[0], offsets[1], offsets[2]
    along_dim = 0
    for d in range(shape.size - 1, -1, -1):
        i = ordinal % shape[d]
        ordinal //= shape[d]
        first += i * strides[0, d]
        third += i * strides[2, d]
        if d == dim:
            along_dim = i
        second += i * strides[1, d]
    return first, second - along_dim * strides[1, dim], third


@njit(error_model="numpy")
def gather_range(out, a, index, shape, strides, offsets, dim, begin, end):
    """Elements ``begin .. end-1`` of ``out`` (operands: out, a, index), a row of the last
    dimension at a time. ``positions`` runs once, at ``begin``; after that each element is
    one stride step (along ``dim`` itself ``a``'s position comes from the index alone) and
    each new row an odometer step: the row's counter goes up by one and its start
    positions by that dimension's strides, carrying into the dimension before when it
    wraps. It is the elementwise kernels' ``next_row``, written out for three operands
    whose row starts are three plain numbers: an embedding's rows are short (``C[X]`` has
    10 elements in each of 546,000), so the step to the next row is much of the work::

        o, p, i = the start of begin's row
        while ordinal < end:
            for each element left in this row (and before end):
                out[o] = a[p + index[i] * strides[1, dim]]
                o, p, i += the last dimension's strides (p: 0 when dim is the last)
            advance the row counter, carrying; move o, p, i to the new row's start

    A row whose index does not change along it (``index`` broadcast along the last
    dimension, as ``C[X]`` gathers whole rows of ``C``) reads its index once.
    """
    last = shape.size - 1
    row = shape[last]
    step_out, step_index = strides[0, last], strides[2, last]
    step_a = strides[1, last] if last != dim else 0
    along = strides[1, dim]
    column = begin % row
    o, p, i = positions(begin, shape, strides, offsets, dim)
    o_row, p_row, i_row = o - column * step_out, p - column * step_a, i - column * step_index
    counter = np.empty(max(last, 1), np.int64)  # the multi-index of the row (dims before the last)
    rest = begin // row
    for d in range(last - 1, -1, -1):
        counter[d] = rest % shape[d]
        rest //= shape[d]
    ordinal = begin
    while ordinal < end:
        stop = min(end, ordinal + row - column)
        o, p, i = o_row + column * step_out, p_row + column * step_a, i_row + column * step_index
        if step_index == 0:  # one index for the whole row (an embedding's lookup): read once
            source = p + index[i] * along
            for _ in range(stop - ordinal):
                out[o] = a[source]
                o += step_out
                source += step_a
        else:
            for _ in range(stop - ordinal):
                out[o] = a[p + index[i] * along]
                o += step_out
                p += step_a
                i += step_index
        ordinal, column = stop, 0
        for d in range(last - 1, -1, -1):  # the next row: the odometer's step
            step_a_d = strides[1, d] if d != dim else 0
            counter[d] += 1
            o_row, p_row, i_row = o_row + strides[0, d], p_row + step_a_d, i_row + strides[2, d]
            if counter[d] < shape[d]:
                break
            counter[d] = 0  # wrapped: back to this dimension's start, carry into the one before
            o_row -= shape[d] * strides[0, d]
            p_row -= shape[d] * step_a_d
            i_row -= shape[d] * strides[2, d]


def make_gather_kernels():
    """``(serial, parallel)``: the gather kernel compiled without and with threads (a
    kernel compiled for threads pays Numba's parallel passes even when run on one)."""

    def build(parallel):
        variant = parallel  # captured: keys Numba's disk cache apart for the two

        def gather_kernel(out, a, index, shape, strides, offsets, dim, total, chunks):
            """Agrees with ``reference.gather``; parallel over the output."""
            if not variant or chunks == 1:
                gather_range(out, a, index, shape, strides, offsets, dim, 0, total)
                return
            for chunk in prange(chunks):
                begin, end = chunk_bounds(chunk, chunks, total)
                gather_range(out, a, index, shape, strides, offsets, dim, begin, end)

        return njit(parallel=PRANGE_ONLY if parallel else False, **JIT_OPTIONS)(gather_kernel)

    return build(False), build(True)


GATHER_KERNELS = make_gather_kernels()


@njit(**JIT_OPTIONS)
def scatter_add_kernel(out, index, src, shape, strides, offsets, dim, total):
    """Agrees with ``reference.scatter_add``. Operands: src, out, index (in that order in
    ``strides``/``offsets``); ``shape`` is ``src``'s. Serial: several sources may add into
    one cell, and threads adding at once would lose updates."""
    for ordinal in range(total):
        s, o_without_dim, i = positions(ordinal, shape, strides, offsets, dim)
        target = o_without_dim + index[i] * strides[1, dim]
        out[target] += src[s]
