"""Numba kernels for the elementwise primitives: ``map``, ``zip`` and ``where``.

They must agree with ``reference.map``, ``reference.zip`` and ``reference.where``. The
reference walks every element and recomputes its full multi-index; here the caller
(``__init__.py``) first *merges* the layout with ``layout.merge_dims``: it drops size-1
dimensions and merges neighbouring dimensions that every operand walks in one steady
step. A contiguous tensor becomes one dimension; a transposed matrix stays two. The kernels then see

* ``shape``   -- int64 array ``[rank]``, the merged shape (rank >= 1);
* ``strides`` -- int64 array ``[operands, rank]``: row 0 is ``out``, then the inputs;
* one storage offset per operand, the element count ``total`` and ``chunks``.

Each op has kernels compiled from one loop, per *layout class* (below: which way a row
is walked, known from the merged layout before the call, so each kernel compiles the
loop of its class only): a serial one for small tensors (starting threads costs more
than a small loop), and a parallel one that cuts the elements (in
row-major order) into ``chunks`` pieces, one per thread, with ``prange``. Each piece is
walked *row by row* (a row: the innermost dimension): the full index math is done once
per piece, each row is a plain loop with a running position, and moving to the next row
only adds strides. When
every operand steps by 1 along the row, the row is a loop over array slices, which the
compiler vectorizes::

    find the first row's start position in each operand            (index math, once)
    for each row in the chunk:
        if all steps are 1:  out[o:o+n] = f(a[p:p+n], b[q:q+n])    (vectorized)
        else:                for j: out[o + j*so] = f(a[p + j*sa], b[q + j*sb])
        step every start to the next row (an odometer: adds only, no division)

A 2-D layout whose rows are not contiguous in every operand (``a.T + b``) is walked in
32x32 tiles instead: reading a transposed operand row by row would touch a new cache line
for every element and evict it before its neighbours are used; within a tile the 32 lines
stay in the CPU's fastest cache until every element on them has been read.

**Compiled per scalar op.** ``make_zip_kernels(f)`` builds the kernels for one scalar
function ``f``, so ``f`` is inlined into the loop and vectorized. Numba can cache such closures on
disk as long as everything the closure captures pickles the same way in every process:
``f`` is a plain module-level function (``scalar_ops.add``...), pickled by its name, so a
new process finds the compiled kernel in the cache. (Capturing a *compiled* function,
``njit(f)``, would not work: it pickles with a random id and never hits the cache.)
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from minitorch.backends.kernel_source_version import code_version
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, PRANGE_ONLY

TILE = 32  # a transposed 2-D operand is walked in TILE x TILE blocks

# Layout classes. One loop over a whole layout has several ways to walk a row; which one
# depends on the merged layout alone, so the caller knows it before the call. A kernel is
# compiled for one class (a constant of its closure: Numba removes the other branches
# before it compiles), so an op compiles the loop of the layouts a program gives it, not
# every loop: a fresh cache pays for far less code (``benchmarks/first_run.py``).
CONTIGUOUS_ROWS = 0  # rows walked by every operand in steps of 1
B_REPEATED = 1  # zip: out and a in steps of 1, b one value per row (``x * 0.5``)
A_REPEATED = 2  # out in steps of 1, a one value per row: ``w * x`` (zip), ``x.fill_(0)`` (map)
STRIDED_ROWS = 3  # any other steps
SHORT_ROWS = 4  # zip, 2-D: rows contiguous in out, steps 1 or 0 in a and b (``x + bias``)
TILES = 5  # 2-D, some row not contiguous (``a.T + b``): TILE x TILE blocks


def map_layout_class(merged_shape, merged_strides) -> int:
    """The layout class of a merged ``map`` layout (``shape``, ``strides`` [2, rank])."""
    out_step, a_step = (int(step) for step in merged_strides[:, -1])
    if out_step == 1:
        if a_step == 1:
            return CONTIGUOUS_ROWS
        if a_step == 0:  # each row is one value written over and over (a fill)
            return A_REPEATED
    return TILES if len(merged_shape) == 2 else STRIDED_ROWS


def zip_layout_class(merged_shape, merged_strides) -> int:
    """The layout class of a merged ``zip`` layout (``shape``, ``strides`` [3, rank])."""
    out_step, a_step, b_step = (int(step) for step in merged_strides[:, -1])
    if len(merged_shape) == 2:
        return SHORT_ROWS if out_step == 1 and a_step <= 1 and b_step <= 1 else TILES
    if out_step == 1 and a_step == 1:
        return CONTIGUOUS_ROWS if b_step == 1 else B_REPEATED if b_step == 0 else STRIDED_ROWS
    return A_REPEATED if out_step == 1 and a_step == 0 and b_step == 1 else STRIDED_ROWS


class LayoutKernels:
    """The kernels of one scalar op: ``kernels[layout]`` is the ``(serial, parallel)``
    pair for one layout class, built on first use (each compiles on its first call);
    ``kernels.contiguous`` takes one contiguous row in every operand, and fewer arguments."""

    def __init__(self, build, contiguous=None) -> None:
        self.build, self.contiguous, self.pairs = build, contiguous, {}

    def __getitem__(self, layout: int):
        if layout not in self.pairs:
            self.pairs[layout] = (self.build(False, layout), self.build(True, layout))
        return self.pairs[layout]


@njit(error_model="numpy")
def as_index(position):
    """A storage position as an unsigned integer. Positions are never negative here, and
    an unsigned index tells Numba so: it then skips Python's "negative index counts from
    the end" check on every access, which keeps strided loops tight."""
    return np.uint64(position)


@njit(error_model="numpy")
def row_start(row, shape, strides, offset):
    """Storage position of element 0 of row number ``row`` (rows are all the dimensions
    but the last, in row-major order): ``offset + sum(index[d] * strides[d])``."""
    position = offset
    for d in range(shape.size - 2, -1, -1):
        position += (row % shape[d]) * strides[d]
        row //= shape[d]
    return position


@njit(error_model="numpy")
def first_row(ordinal, shape, strides, starts):
    """Prepare to walk from element ``ordinal``: return the odometer ``index`` of its row
    (one counter per dimension but the last) and its ``column``, and move each operand's
    ``starts[k]`` (its offset on entry) to the start of that row."""
    row, column = divmod(ordinal, shape[-1])
    index = np.zeros(shape.size, dtype=np.int64)
    for d in range(shape.size - 2, -1, -1):
        index[d] = row % shape[d]
        row //= shape[d]
        for k in range(starts.size):
            starts[k] += index[d] * strides[k, d]
    return index, column


@njit(error_model="numpy")
def next_row(index, shape, strides, starts):
    """Step the odometer to the next row and move every operand's row start with it:
    add one step of the last outer dimension; where a counter runs past its size, rewind
    it to 0 and carry into the dimension before (like 199 -> 200). No division needed."""
    for d in range(shape.size - 2, -1, -1):
        index[d] += 1
        for k in range(starts.size):
            starts[k] += strides[k, d]
        if index[d] < shape[d]:
            return
        index[d] = 0
        for k in range(starts.size):
            starts[k] -= shape[d] * strides[k, d]


@njit(error_model="numpy")
def chunk_bounds(chunk, chunks, total):
    """The ordinals ``[begin, end)`` of piece ``chunk`` out of ``chunks``."""
    chunk = np.int64(chunk)  # prange's counter may be unsigned; keep the index math signed
    per_chunk = (total + chunks - 1) // chunks
    return chunk * per_chunk, min(total, (chunk + 1) * per_chunk)


def make_map_kernels(f):
    """The ``map`` kernels for scalar function ``f``: ``for i: out[i] = f(a[i])``.
    Returns its ``LayoutKernels``: a serial and a parallel kernel per layout class."""

    def build_contiguous():
        version = code_version(f)  # captured, so it keys Numba's disk cache (see ``build``)

        def map_contiguous_kernel(out, a, out_offset, a_offset, count):
            """``map_kernel`` when out and a are contiguous and alike: one row, and three
            arguments fewer for Numba's dispatcher to check on each call."""
            version  # noqa: B018 (read, so that the closure captures it)
            out_row, a_row = out[out_offset : out_offset + count], a[a_offset : a_offset + count]
            for i in range(count):
                out_row[i] = f(a_row[i])

        return njit(**JIT_OPTIONS)(map_contiguous_kernel)

    def build(parallel, layout):
        # Captured values key Numba's disk cache: the serial and parallel kernels differ,
        # so do the layout classes, and so do kernels built from an edited scalar function
        # (see ``code_version``). ``layout`` is a constant of the closure: Numba drops the
        # branches of the other layout classes before compiling (the layout classes above).
        variant = (parallel, code_version(f))

        def map_kernel(out, a, shape, strides, out_offset, a_offset, total, chunks):
            """Agrees with ``reference.map``."""
            inner = shape[-1]
            out_step, a_step = strides[0, -1], strides[1, -1]
            pieces = chunks if variant[0] else 1
            if layout == TILES:  # e.g. transposed: 2-D, not every row contiguous
                for chunk in prange(pieces):  # tiles, so strided reads stay in cache
                    first, last = chunk_bounds(chunk, pieces, (shape[0] + TILE - 1) // TILE)
                    for i0 in range(first * TILE, min(last * TILE, shape[0]), TILE):
                        for j0 in range(0, shape[1], TILE):
                            count = min(TILE, shape[1] - j0)
                            for i in range(i0, min(i0 + TILE, shape[0])):
                                o = out_offset + i * strides[0, 0] + j0 * out_step
                                p = a_offset + i * strides[1, 0] + j0 * a_step
                                for j in range(count):
                                    out[as_index(o + j * out_step)] = f(a[as_index(p + j * a_step)])
                return
            for chunk in prange(pieces):
                begin, end = chunk_bounds(chunk, pieces, total)
                starts = np.array([out_offset, a_offset])  # of the current row
                index, column = first_row(begin, shape, strides, starts)
                ordinal = begin
                while ordinal < end:  # row by row
                    count = min(inner - column, end - ordinal)
                    o = starts[0] + column * out_step
                    p = starts[1] + column * a_step
                    if layout == CONTIGUOUS_ROWS:
                        out_row, a_row = out[o : o + count], a[p : p + count]
                        for i in range(count):
                            out_row[i] = f(a_row[i])
                    elif layout == A_REPEATED:  # one value for the whole row: f once
                        out_row, value = out[o : o + count], f(a[p])
                        for i in range(count):
                            out_row[i] = value
                    else:
                        for j in range(count):
                            out[o + j * out_step] = f(a[p + j * a_step])
                    ordinal += count
                    column = 0
                    next_row(index, shape, strides, starts)

        return njit(parallel=PRANGE_ONLY if variant[0] else False, **JIT_OPTIONS)(map_kernel)

    return LayoutKernels(build, build_contiguous())


def make_zip_kernels(f):
    """The ``zip`` kernels for scalar function ``f``: ``for i: out[i] = f(a[i], b[i])``.
    Returns its ``LayoutKernels``: a serial and a parallel kernel per layout class."""

    def build_contiguous():
        version = code_version(f)  # captured, so it keys Numba's disk cache (see ``build``)

        def zip_contiguous_kernel(out, a, b, out_offset, a_offset, b_offset, count):
            """``zip_kernel`` when out, a and b are contiguous and alike (``x + y`` of two
            tensors of one shape): one row, and three arguments fewer for Numba's
            dispatcher to check on each call."""
            version  # noqa: B018 (read, so that the closure captures it)
            out_row = out[out_offset : out_offset + count]
            a_row, b_row = a[a_offset : a_offset + count], b[b_offset : b_offset + count]
            for i in range(count):
                out_row[i] = f(a_row[i], b_row[i])

        return njit(**JIT_OPTIONS)(zip_contiguous_kernel)

    def build(parallel, layout):
        # Captured values key Numba's disk cache (see ``make_map_kernels``); ``layout`` is
        # a closure constant, so each kernel holds the loop of its own layout class only.
        variant = (parallel, code_version(f))

        def zip_kernel(out, a, b, shape, strides, out_offset, a_offset, b_offset, total, chunks):
            """Agrees with ``reference.zip``. Besides the contiguous row there are two more
            fast rows: ``b`` is one repeated value (stride 0), as in ``x * 0.5``, or ``a``
            is, as in ``w * x`` with ``w`` a 0-d weight (the polynomial tutorial). A 2-D
            layout whose rows are contiguous in out and contiguous or one repeated value
            in each input (``x + bias``: rows of 8) is a plain double loop: for a short
            row, the odometer would be most of the work. When ``b`` is one value per row
            (each row of ``a`` times its own scale, as in log_softmax's backward), the row
            is a slice of ``a`` and that value, which vectorizes."""
            inner = shape[-1]
            out_step, a_step, b_step = strides[0, -1], strides[1, -1], strides[2, -1]
            pieces = chunks if variant[0] else 1
            if layout == SHORT_ROWS:  # e.g. x + bias: 2-D, rows of steps 1 or 0, no odometer
                for chunk in prange(pieces):
                    first, last = chunk_bounds(chunk, pieces, shape[0])
                    for i in range(first, last):
                        o = out_offset + i * strides[0, 0]
                        p = a_offset + i * strides[1, 0]
                        q = b_offset + i * strides[2, 0]
                        out_row = out[o : o + inner]
                        if a_step == 1 and b_step == 0:  # one value of b per row (x * scale)
                            a_row, b_value = a[p : p + inner], b[q]
                            for j in range(inner):
                                out_row[j] = f(a_row[j], b_value)
                        else:
                            for j in range(inner):
                                x, y = a[as_index(p + j * a_step)], b[as_index(q + j * b_step)]
                                out_row[j] = f(x, y)
                return
            if layout == TILES:  # e.g. transposed inputs
                for chunk in prange(pieces):  # tiles, so strided reads stay in cache
                    first, last = chunk_bounds(chunk, pieces, (shape[0] + TILE - 1) // TILE)
                    for i0 in range(first * TILE, min(last * TILE, shape[0]), TILE):
                        for j0 in range(0, shape[1], TILE):
                            count = min(TILE, shape[1] - j0)
                            for i in range(i0, min(i0 + TILE, shape[0])):
                                o = out_offset + i * strides[0, 0] + j0 * out_step
                                p = a_offset + i * strides[1, 0] + j0 * a_step
                                q = b_offset + i * strides[2, 0] + j0 * b_step
                                if out_step == 1:  # contiguous writes: let stores be vectors
                                    out_row = out[o : o + count]
                                    for j in range(count):
                                        x, y = a[as_index(p + j * a_step)], b[as_index(q + j * b_step)]
                                        out_row[j] = f(x, y)
                                else:
                                    for j in range(count):
                                        value = f(a[as_index(p + j * a_step)], b[as_index(q + j * b_step)])
                                        out[as_index(o + j * out_step)] = value
                return
            for chunk in prange(pieces):
                begin, end = chunk_bounds(chunk, pieces, total)
                starts = np.array([out_offset, a_offset, b_offset])  # of the current row
                index, column = first_row(begin, shape, strides, starts)
                ordinal = begin
                while ordinal < end:  # row by row
                    count = min(inner - column, end - ordinal)
                    o = starts[0] + column * out_step
                    p = starts[1] + column * a_step
                    q = starts[2] + column * b_step
                    if layout == CONTIGUOUS_ROWS:
                        out_row = out[o : o + count]
                        a_row, b_row = a[p : p + count], b[q : q + count]
                        for i in range(count):
                            out_row[i] = f(a_row[i], b_row[i])
                    elif layout == B_REPEATED:  # x * 0.5
                        out_row, a_row, b_value = out[o : o + count], a[p : p + count], b[q]
                        for i in range(count):
                            out_row[i] = f(a_row[i], b_value)
                    elif layout == A_REPEATED:  # w * x, w one value
                        out_row, a_value, b_row = out[o : o + count], a[p], b[q : q + count]
                        for i in range(count):
                            out_row[i] = f(a_value, b_row[i])
                    else:
                        for j in range(count):
                            out[o + j * out_step] = f(a[p + j * a_step], b[q + j * b_step])
                    ordinal += count
                    column = 0
                    next_row(index, shape, strides, starts)

        return njit(parallel=PRANGE_ONLY if variant[0] else False, **JIT_OPTIONS)(zip_kernel)

    return LayoutKernels(build, build_contiguous())


@njit(error_model="numpy")
def where_range(out, cond, a, b, shape, strides, offsets, begin, end):
    """Elements ``begin .. end-1`` of ``out = where(cond, a, b)``, row by row. ``offsets``
    holds the four storage offsets (out, cond, a, b)."""
    inner = shape[-1]
    steps = strides[:, -1]
    starts = offsets.copy()  # of the current row
    index, column = first_row(begin, shape, strides, starts)
    ordinal = begin
    while ordinal < end:
        count = min(inner - column, end - ordinal)
        o, c = starts[0] + column * steps[0], starts[1] + column * steps[1]
        p, q = starts[2] + column * steps[2], starts[3] + column * steps[3]
        for j in range(count):
            if cond[c + j * steps[1]]:
                out[o + j * steps[0]] = a[p + j * steps[2]]
            else:
                out[o + j * steps[0]] = b[q + j * steps[3]]
        ordinal += count
        column = 0
        next_row(index, shape, strides, starts)


def make_where_kernels():
    """``(serial, parallel)``: the ``where`` kernel compiled without and with threads. A
    kernel compiled for threads pays Numba's parallel passes when it compiles, even if it
    is only ever called on one thread, so small programs get the serial one."""

    def build(parallel):
        variant = parallel  # captured: keys Numba's disk cache apart for the two

        def where_kernel(out, cond, a, b, shape, strides, offsets, total, chunks):
            """``for i: out[i] = a[i] if cond[i] else b[i]``. Agrees with ``reference.where``."""
            if not variant or chunks == 1:
                where_range(out, cond, a, b, shape, strides, offsets, 0, total)
                return
            for chunk in prange(chunks):
                begin, end = chunk_bounds(chunk, chunks, total)
                where_range(out, cond, a, b, shape, strides, offsets, begin, end)

        return njit(parallel=PRANGE_ONLY if parallel else False, **JIT_OPTIONS)(where_kernel)

    return build(False), build(True)


WHERE_KERNELS = make_where_kernels()
