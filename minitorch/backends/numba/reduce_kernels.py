"""Numba kernels for ``reduce`` and ``arg_reduce``. They must agree with
``reference.reduce`` and ``reference.arg_reduce``.

The caller (``__init__.py``) splits the input's dimensions in two: the *kept* dimensions
(every dimension but ``dim``, merged by ``layout.merge_kept_dims``; ``out`` and ``a`` both
walk them) and the *reduced* one, of ``length`` elements ``a_step`` apart. The kernel sees

* ``shape``, ``strides`` -- the kept layout: int64 ``[rank]`` and ``[2, rank]`` (out, a);
* ``length``, ``a_step`` -- the reduced dimension of ``a``.

Two loop orders, chosen per row of kept elements by one rule: *read ``a`` in memory
order*. Each loop's innermost line runs along a dimension whose elements are neighbours
in memory, so every cache line of ``a`` is read once, in full, and the compiler can use
vector instructions::

    (A) the reduced dimension is contiguous (a_step == 1), e.g. x.sum(dim=-1):
        for each output o:
            acc = identity
            for i:  acc = combine(acc, a[o, i])        -- the run of a is contiguous

    (B) otherwise, e.g. x.sum(dim=0) of a (500, 8) x: walk a row of outputs at once
        out[row] = identity
        for i:  for j in row:  out[j] = combine(out[j], a[i, j])
        -- the inner loop runs along the kept dimension, contiguous in a and out
           (out[:] += a[i, :], vectorized); each output still adds its elements in
           the reference's order. One strided walk per output instead would jump
           ``a_step`` elements at every read and use one float of each cache line.

(B) is also taken when ``a_step`` is not 1 and the kept row is strided too (``x.T[::2]``):
the reads jump either way, and a row of outputs keeps the index math per element small.
A single output per row (``count == 1``) is always (A).

**Why (A) is fast.** A fold ``acc = acc + x`` is a chain: each addition waits for the one
before (4 cycles), so one element per 4 cycles at best. The fold of a contiguous run
(``fold_run``, its own small function) is compiled with the ``reassoc`` fast-math flag:
the compiler may then reorder its additions, and keeps 8-wide vector partial sums
(several of them), combined at the end: the sum of a contiguous 1000-float run 4x faster
than one chain. It only reorders (``nnan``/``ninf`` stay off): NaN and inf propagate as
IEEE says, and the result differs from the in-order sum only by float rounding (as
PyTorch's and NumPy's pairwise sums do). Max and min (a comparison and a select, NaN
wins) keep their order. Every other loop keeps the reference's order, so the serial and
the parallel kernel, which may cut a row of outputs differently and so take (A) where
the other takes (B), still give the same bits.

Max and min have no identity: they start from the first element (``length >= 1`` is
checked before the call).
"""

from __future__ import annotations

from numba import njit, prange

from minitorch.backends.numba.elementwise_kernels import chunk_bounds, row_start
from minitorch.backends.numba.scalar_functions import HELPER_OPTIONS, JIT_OPTIONS, PRANGE_ONLY, code_version


def make_reduce_kernels(combine, identity):
    """The ``reduce`` kernels for ``combine`` (a zip scalar function) and ``identity``
    (``None``: start from the first element, as max and min do). Returns
    ``(serial, parallel)``; each compiles on its first call."""
    has_identity = identity is not None
    start_value = float(identity or 0)

    @njit(fastmath={"reassoc"}, **HELPER_OPTIONS)  # (see "Why (A) is fast" above)
    def fold_run(acc, run):
        """``acc`` combined with every element of the contiguous ``run``, in an order
        the compiler may choose."""
        for i in range(run.size):
            acc = combine(acc, run[i])
        return acc

    def build(parallel):
        # Captured values key Numba's disk cache: the serial and parallel kernels differ,
        # and so do kernels built from an edited scalar function (see ``code_version``).
        variant = (parallel, code_version(combine))

        def reduce_kernel(out, a, shape, strides, out_offset, a_offset, length, a_step, total, chunks):
            """Agrees with ``reference.reduce``. ``total`` outputs, cut into ``chunks``."""
            inner = shape[-1]
            out_inner, a_inner = strides[0, -1], strides[1, -1]
            first = 0 if has_identity else 1  # the first element folded in by combine
            pieces = chunks if variant[0] else 1
            for chunk in prange(pieces):
                begin, end = chunk_bounds(chunk, pieces, total)
                ordinal = begin
                while ordinal < end:  # outputs row by row
                    row, column = divmod(ordinal, inner)
                    count = min(inner - column, end - ordinal)
                    o = row_start(row, shape, strides[0], out_offset) + column * out_inner
                    p = row_start(row, shape, strides[1], a_offset) + column * a_inner
                    for j in range(count):  # every output of the row starts its fold
                        out[o + j * out_inner] = start_value if has_identity else a[p + j * a_inner]
                    if a_step == 1 or count == 1:  # (A): one output at a time
                        for j in range(count):
                            start = p + j * a_inner
                            acc = out[o + j * out_inner]  # the start value, in out's dtype
                            if a_step == 1:
                                acc = fold_run(acc, a[start + first : start + length])
                            else:
                                for i in range(first, length):
                                    acc = combine(acc, a[start + i * a_step])
                            out[o + j * out_inner] = acc
                    elif out_inner == 1 and a_inner == 1:  # (B), contiguous rows
                        out_row = out[o : o + count]
                        for i in range(first, length):
                            a_row = a[p + i * a_step : p + i * a_step + count]
                            for j in range(count):
                                out_row[j] = combine(out_row[j], a_row[j])
                    else:  # (B), strided rows
                        for i in range(first, length):
                            q = p + i * a_step
                            for j in range(count):
                                at = o + j * out_inner
                                out[at] = combine(out[at], a[q + j * a_inner])
                    ordinal += count

        return njit(parallel=PRANGE_ONLY if variant[0] else False, **JIT_OPTIONS)(reduce_kernel)

    return build(False), build(True)


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


@njit(parallel=PRANGE_ONLY, **JIT_OPTIONS)
def arg_reduce_kernel(is_max, out, a, shape, strides, out_offset, a_offset, length, a_step, total, chunks):
    """Agrees with ``reference.arg_reduce`` (``argmax`` when ``is_max``, else ``argmin``)."""
    if chunks == 1:
        arg_reduce_range(is_max, out, a, shape, strides, out_offset, a_offset, length, a_step, 0, total)
        return
    for chunk in prange(chunks):
        begin, end = chunk_bounds(chunk, chunks, total)
        arg_reduce_range(is_max, out, a, shape, strides, out_offset, a_offset, length, a_step, begin, end)
