"""Numba kernels for ``reduce`` and ``arg_reduce``. They must agree with
``reference.reduce`` and ``reference.arg_reduce``.

The caller (``__init__.py``) splits the input's dimensions in two: the *kept* dimensions
(every dimension but ``dim``, merged by ``layout.merge_kept_dims``; ``out`` and ``a`` both
walk them) and the *reduced* one, of ``length`` elements ``a_step`` apart. The kernel sees

* ``shape``, ``strides`` -- the kept layout: int64 ``[rank]`` and ``[2, rank]`` (out, a);
* ``length``, ``a_step`` -- the reduced dimension of ``a``.

Two loop orders, chosen per row of kept elements::

    (A) the reduced dimension is contiguous (a_step == 1), e.g. x.sum(dim=-1):
        for each output o:
            lanes[0..15] = identity
            for each block of 16:  lanes[l] = combine(lanes[l], a[o, block + l])
            acc = combine of the 16 lanes, then of the few leftover elements
        -- 16 independent partial results: the CPU adds 16 at a time (vector
           instructions) instead of waiting for each add to finish before the next

    (B) otherwise, e.g. x.sum(dim=0): walk a whole row of outputs at once
        out[row] = identity
        for i:  for j in row:  out[j] = combine(out[j], a[i, j])
        -- the inner loop runs along the kept, contiguous dimension: vectorized, and each
           output still adds its elements in the reference's order

Max and min have no identity: they start from the first element (``length >= 1`` is
checked before the call).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from minitorch.backends.kernel_source_version import code_version
from minitorch.backends.numba.elementwise_kernels import LayoutKernels, chunk_bounds, row_start
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, PRANGE_ONLY

LANES = 16  # partial results of a contiguous fold (one 512-bit vector of float32)


def make_reduce_kernels(combine, identity):
    """The ``reduce`` kernels for ``combine`` (a zip scalar function) and ``identity``
    (``None``: start from the first element, as max and min do). Returns its
    ``LayoutKernels``: ``kernels[contiguous_run]`` is the ``(serial, parallel)`` pair for
    a reduced dimension walked in steps of 1 (loop order A only) or not (A and B), so a
    kernel holds the loops its layouts need; each compiles on its first call."""
    has_identity = identity is not None
    start_value = float(identity or 0)

    def build(parallel, contiguous_run):
        # Captured values key Numba's disk cache: the serial and parallel kernels differ,
        # so do the layout classes, and so do kernels built from an edited scalar function
        # (see ``code_version``). ``contiguous_run`` (a_step == 1) is a constant of the
        # closure: Numba removes the branches it rules out before compiling.
        variant = (parallel, code_version(combine))

        def reduce_kernel(out, a, shape, strides, out_offset, a_offset, length, a_step, total, chunks):
            """Agrees with ``reference.reduce``. ``total`` outputs, cut into ``chunks``."""
            inner = shape[-1]
            out_inner, a_inner = strides[0, -1], strides[1, -1]
            first = 0 if has_identity else 1  # the first element folded in by combine
            pieces = chunks if variant[0] else 1
            for chunk in prange(pieces):
                begin, end = chunk_bounds(chunk, pieces, total)
                lanes = np.empty(LANES, dtype=out.dtype)
                ordinal = begin
                while ordinal < end:  # outputs row by row
                    row, column = divmod(ordinal, inner)
                    count = min(inner - column, end - ordinal)
                    o = row_start(row, shape, strides[0], out_offset) + column * out_inner
                    p = row_start(row, shape, strides[1], a_offset) + column * a_inner
                    if contiguous_run or count == 1:  # (A): one output at a time
                        for j in range(count):
                            start = p + j * a_inner
                            if has_identity:
                                out[o + j * out_inner] = start_value
                            else:
                                out[o + j * out_inner] = a[start]
                            acc = out[o + j * out_inner]  # the start value, in out's dtype
                            if contiguous_run:
                                run_of_a = a[start : start + length]
                                rest = first  # where the one-by-one fold starts
                                if has_identity and length >= 2 * LANES:
                                    lanes[:] = start_value  # LANES partial results
                                    rest = length - length % LANES
                                    for block in range(0, rest, LANES):
                                        for lane in range(LANES):
                                            lanes[lane] = combine(lanes[lane], run_of_a[block + lane])
                                    for lane in range(LANES):
                                        acc = combine(acc, lanes[lane])
                                for i in range(rest, length):
                                    acc = combine(acc, run_of_a[i])
                            else:
                                for i in range(first, length):
                                    acc = combine(acc, a[start + i * a_step])
                            out[o + j * out_inner] = acc
                    else:  # (B): a row of outputs at a time
                        for j in range(count):
                            if has_identity:
                                out[o + j * out_inner] = start_value
                            else:
                                out[o + j * out_inner] = a[p + j * a_inner]
                        if out_inner == 1 and a_inner == 1:
                            out_row = out[o : o + count]
                            for i in range(first, length):
                                a_row = a[p + i * a_step : p + i * a_step + count]
                                for j in range(count):
                                    out_row[j] = combine(out_row[j], a_row[j])
                        else:
                            for i in range(first, length):
                                q = p + i * a_step
                                for j in range(count):
                                    at = o + j * out_inner
                                    out[at] = combine(out[at], a[q + j * a_inner])
                    ordinal += count

        return njit(parallel=PRANGE_ONLY if variant[0] else False, **JIT_OPTIONS)(reduce_kernel)

    return LayoutKernels(build)


@njit(error_model="numpy")
def arg_reduce_range(is_max, out, a, shape, strides, out_offset, a_offset, length, a_step, begin, end):
    """Outputs ``begin .. end-1``: the index of the first largest (``is_max``) or smallest
    element along the reduced dimension. NaN beats everything (PyTorch's rule)."""
    for ordinal in range(begin, end):
        row, column = divmod(ordinal, shape[-1])
        o = row_start(row, shape, strides[0], out_offset) + column * strides[0, -1]
        p = row_start(row, shape, strides[1], a_offset) + column * strides[1, -1]
        best = a[p]
        best_j = 0
        for j in range(1, length):
            if best != best:  # a NaN was found: it stays the answer
                break
            value = a[p + j * a_step]
            better = value > best if is_max else value < best
            if better or value != value:
                best, best_j = value, j
        out[o] = best_j


def make_arg_reduce_kernels():
    """``(serial, parallel)``: the arg_reduce kernel compiled without and with threads (a
    kernel compiled for threads pays Numba's parallel passes even when run on one)."""

    def build(parallel):
        variant = parallel  # captured: keys Numba's disk cache apart for the two

        def arg_reduce_kernel(
            is_max, out, a, shape, strides, out_offset, a_offset, length, a_step, total, chunks
        ):
            """Agrees with ``reference.arg_reduce`` (``argmax`` when ``is_max``, else ``argmin``)."""
            if not variant or chunks == 1:
                arg_reduce_range(
                    is_max, out, a, shape, strides, out_offset, a_offset, length, a_step, 0, total
                )
                return
            for chunk in prange(chunks):
                begin, end = chunk_bounds(chunk, chunks, total)
                arg_reduce_range(
                    is_max, out, a, shape, strides, out_offset, a_offset, length, a_step, begin, end
                )

        return njit(parallel=PRANGE_ONLY if parallel else False, **JIT_OPTIONS)(arg_reduce_kernel)

    return build(False), build(True)


ARG_REDUCE_KERNELS = make_arg_reduce_kernels()
