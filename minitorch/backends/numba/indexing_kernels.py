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
    """Elements ``begin .. end-1`` of ``out`` (operands: out, a, index)."""
    for ordinal in range(begin, end):
        o, p_without_dim, i = positions(ordinal, shape, strides, offsets, dim)
        out[o] = a[p_without_dim + index[i] * strides[1, dim]]


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
