"""Numba kernel for ``matmul``: our own cache-blocked matrix product, no BLAS.

Must agree with ``reference.matmul``: ``out[z, i, j] = sum_k a[z, i, k] * b[z, k, j]``
(up to rounding: the sum is added in a different order).

How it is fast, in three steps:

1. **Lines along k.** Every sum runs along ``k``: row ``i`` of ``a[z]`` against column
   ``j`` of ``b[z]``. The tiles below read each as a contiguous *line* of ``k`` numbers.
   An operand already laid out so is read where it lies: ``a`` with contiguous rows
   (column stride 1), ``b`` with contiguous columns (row stride 1, as ``x.mT``, or a
   convolution's ``cols.mT`` in its weight's gradient). Any other layout (transposed,
   sliced, broadcast) is first *packed*: copied into contiguous lines, ``O(n*k + k*m)``
   next to the ``O(n*k*m)`` product, once, before the threads start.
2. **Register tile.** ``tile_4x4`` computes a 4x4 block of ``out`` at once: 16 running
   sums over ``k``. Each step loads 4 values of ``a`` and 4 of ``b`` and does 16
   multiply-adds, and because the 16 sums run along contiguous lines the compiler turns
   the loop into vector instructions (several ``k`` at a time). A tile at the bottom or
   right edge, where fewer than 4 rows or columns are left, reads the last line again in
   place of the missing ones, and those sums are not stored.
3. **Cache blocks.** Threads take blocks of ``ROW_BLOCK`` rows (``prange``); inside a
   block the tiles sweep ``COL_BLOCK`` columns at a time, so the lines of ``a`` and ``b``
   being combined stay in the CPU caches while they are reused.

    for each (z, row block) in parallel:
        for each block of COL_BLOCK columns:
            for each 4 rows i, for each 4 columns j in the blocks:
                out[z, i:i+4, j:j+4] = tile_4x4(rows i.. of a[z], columns j.. of b[z])
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, PRANGE_ONLY

TILE = 4  # a 4x4 tile of out: 16 sums held in registers
ROW_BLOCK = 32  # rows of out per parallel work item
COL_BLOCK = 64  # columns swept while a row block stays in cache
# The 16 sums may be added in any order ("reassoc"), and a*b+c may be one fused
# instruction ("contract"): that is what lets the compiler vectorize the loop over k.
# NaN and infinity still follow IEEE rules (no "nnan"/"ninf").
TILE_FASTMATH = {"reassoc", "contract"}


@njit(error_model="numpy")
def pack(src, offset, row_stride, col_stride, dest):
    """``dest[r, c] = src[offset + r*row_stride + c*col_stride]``: copy a strided matrix
    into contiguous rows."""
    rows, cols = dest.shape
    for r in range(rows):
        row = dest[r]
        start = offset + r * row_stride
        for c in range(cols):
            row[c] = src[start + c * col_stride]


@njit(error_model="numpy")
def lines(x, at, matrix_step, line_step, step, batch, count, length):
    """The ``count`` lines of ``length`` numbers of each of ``batch`` matrices, line ``l`` of
    matrix ``z`` being ``x[at + z*matrix_step + l*line_step + e*step]`` for e < length, as
    contiguous lines: ``(src, at, matrix_step, line_step)`` locating them the same way
    with ``step`` 1. That is ``x`` itself when ``step`` already is 1; otherwise all of them
    packed into a new array, once, before the threads start. (The rows kernel of
    ``small_matmul_kernel.py`` reads the rows of ``b`` through it too.)"""
    if step == 1:
        return x, at, matrix_step, line_step
    size = count * length
    packed = np.empty(batch * size, x.dtype)
    for z in range(batch):
        matrix = packed[z * size : (z + 1) * size].reshape((count, length))
        pack(x, at + z * matrix_step, line_step, step, matrix)
    return packed, 0, size, length


@njit(fastmath=TILE_FASTMATH, error_model="numpy")
def tile_4x4(a, a_at, a_step, a_left, b, b_at, b_step, b_left, depth):
    """The 16 sums ``sum_k a[a_at + r*a_step + k] * b[b_at + c*b_step + k]`` for r, c in
    0..3: four lines of ``a`` against four of ``b``. Only ``a_left`` lines of ``a`` and
    ``b_left`` of ``b`` exist (at least 1); a missing one repeats the last."""
    p0, p1, p2, p3 = line_starts(a_at, a_step, a_left)
    q0, q1, q2, q3 = line_starts(b_at, b_step, b_left)
    a0, a1, a2, a3 = a[p0 : p0 + depth], a[p1 : p1 + depth], a[p2 : p2 + depth], a[p3 : p3 + depth]
    b0, b1, b2, b3 = b[q0 : q0 + depth], b[q1 : q1 + depth], b[q2 : q2 + depth], b[q3 : q3 + depth]
    zero = a.dtype.type(0)
    c00 = c01 = c02 = c03 = c10 = c11 = c12 = c13 = zero
    c20 = c21 = c22 = c23 = c30 = c31 = c32 = c33 = zero
    for k in range(depth):
        x0, x1, x2, x3 = a0[k], a1[k], a2[k], a3[k]
        y0, y1, y2, y3 = b0[k], b1[k], b2[k], b3[k]
        c00 += x0 * y0
        c01 += x0 * y1
        c02 += x0 * y2
        c03 += x0 * y3
        c10 += x1 * y0
        c11 += x1 * y1
        c12 += x1 * y2
        c13 += x1 * y3
        c20 += x2 * y0
        c21 += x2 * y1
        c22 += x2 * y2
        c23 += x2 * y3
        c30 += x3 * y0
        c31 += x3 * y1
        c32 += x3 * y2
        c33 += x3 * y3
    return (
        (c00, c01, c02, c03),
        (c10, c11, c12, c13),
        (c20, c21, c22, c23),
        (c30, c31, c32, c33),
    )


@njit(error_model="numpy")
def line_starts(at, step, left):
    """Where four lines ``at + l*step`` (l in 0..3) start, when only the first ``left``
    exist: the last of those stands in for the others."""
    last = left - 1
    return at, at + min(1, last) * step, at + min(2, last) * step, at + min(3, last) * step


@njit(error_model="numpy")
def row_block(out, out_at, out_strides, a, a_at, a_step, b, b_at, b_step, first_row, shape):
    """Rows ``first_row ..`` (up to ``ROW_BLOCK``) of one matrix of ``out``, tile by tile:
    row ``i`` of ``out`` starts at ``out_at + i*out_strides[1]``, line ``i`` of ``a`` (its
    row) at ``a_at + i*a_step``, line ``j`` of ``b`` (its column) at ``b_at + j*b_step``."""
    rows, depth, cols = shape[1], shape[2], shape[3]
    last_row = min(first_row + ROW_BLOCK, rows)
    row_step, col_step = out_strides[1], out_strides[2]
    for first_col in range(0, cols, COL_BLOCK):
        last_col = min(first_col + COL_BLOCK, cols)
        for i in range(first_row, last_row, TILE):
            rows_left = min(TILE, rows - i)
            for j in range(first_col, last_col, TILE):
                cols_left = min(TILE, cols - j)
                tile = tile_4x4(a, a_at + i * a_step, a_step, rows_left,
                                b, b_at + j * b_step, b_step, cols_left, depth)  # fmt: skip
                at = out_at + i * row_step + j * col_step
                for r in range(rows_left):
                    store_row(out, at + r * row_step, col_step, cols_left, tile[r])


@njit(error_model="numpy")
def store_row(out, at, step, count, sums):
    """``out[at + c*step] = sums[c]`` for the first ``count`` (1 to 4) of the four sums of
    a tile row. One statement per sum, not a loop over the tuple: indexing a tuple by a
    loop counter is a branch per element, and the store needs one position per row
    instead of one per element."""
    s0, s1, s2, s3 = sums
    out[at] = s0
    if count > 1:
        out[at + step] = s1
    if count > 2:
        out[at + 2 * step] = s2
    if count > 3:
        out[at + 3 * step] = s3


def make_matmul_kernel(parallel: bool):
    """The matmul kernel, serial or parallel. Two compilations, not one kernel with a
    serial branch: a kernel compiled for threads starts them on every call, even on its
    serial branch, which a small product cannot afford (docs/backend-guide.md)."""
    variant = parallel  # captured: keys Numba's disk cache, so the two variants differ

    def matmul_kernel(out, a, b, shape, strides, offsets, chunks):
        """``out[z] = a[z] @ b[z]``. ``shape = (batch, n, k, m)``; ``strides`` rows are the
        (batch, row, column) strides of out, a, b; ``offsets`` their storage offsets.
        ``chunks`` (the policy's piece count) is not needed: the parallel variant hands
        its row blocks to the threads. Agrees with ``reference.matmul``."""
        batch, rows, depth, cols = shape[0], shape[1], shape[2], shape[3]
        # the rows of a and the columns of b, as lines along k (packed where they are not)
        a_src, a_at, a_matrix, a_step = lines(a, offsets[1], strides[1, 0], strides[1, 1], strides[1, 2],
                                              batch, rows, depth)  # fmt: skip
        b_src, b_at, b_matrix, b_step = lines(b, offsets[2], strides[2, 0], strides[2, 2], strides[2, 1],
                                              batch, cols, depth)  # fmt: skip
        blocks = (rows + ROW_BLOCK - 1) // ROW_BLOCK  # per matrix
        if variant:
            for item in prange(batch * blocks):  # row blocks on threads
                z, block = divmod(np.int64(item), blocks)  # prange's counter is unsigned
                row_block(out, offsets[0] + z * strides[0, 0], strides[0], a_src, a_at + z * a_matrix, a_step,
                          b_src, b_at + z * b_matrix, b_step, block * ROW_BLOCK, shape)  # fmt: skip
        else:
            for item in range(batch * blocks):
                z, block = divmod(item, blocks)
                row_block(out, offsets[0] + z * strides[0, 0], strides[0], a_src, a_at + z * a_matrix, a_step,
                          b_src, b_at + z * b_matrix, b_step, block * ROW_BLOCK, shape)  # fmt: skip

    return njit(parallel=PRANGE_ONLY if parallel else False, **JIT_OPTIONS)(matmul_kernel)


MATMUL_KERNELS = (make_matmul_kernel(False), make_matmul_kernel(True))  # (serial, parallel)
