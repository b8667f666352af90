"""Numba kernel for ``matmul``: our own cache-blocked matrix product, no BLAS.

Must agree with ``reference.matmul``: ``out[z, i, j] = sum_k a[z, i, k] * b[z, k, j]``
(up to rounding: the sum is added in a different order).

How it is fast, in three steps:

1. **Pack.** Copy ``a[z]`` into ``a_rows`` (``[n, k]``, each row contiguous) and ``b[z]``
   *transposed* into ``b_cols`` (``[m, k]``: column ``j`` of ``b`` becomes a contiguous
   row). Packing costs ``O(n*k + k*m)``, nothing next to the ``O(n*k*m)`` product, and
   afterwards every operand layout (transposed, sliced, broadcast) looks the same.
2. **Register tile.** ``tile_4x4`` computes a 4x4 block of ``out`` at once: 16 running
   sums over ``k``. Each step loads 4 values of ``a`` and 4 of ``b`` and does 16
   multiply-adds, and because the 16 sums run along contiguous rows the compiler turns
   the loop into vector instructions (several ``k`` at a time).
3. **Cache blocks.** Threads take blocks of ``ROW_BLOCK`` rows (``prange``); inside a
   block the tiles sweep ``COL_BLOCK`` packed columns at a time, so the rows of ``a`` and
   columns of ``b`` being combined stay in the CPU caches while they are reused.

    for each (z, row block) in parallel:
        for each block of COL_BLOCK columns:
            for each 4 rows i, for each 4 columns j in the blocks:
                out[z, i:i+4, j:j+4] = tile_4x4(a_rows[i:i+4], b_cols[j:j+4])
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, PRANGE_ONLY

TILE = 4  # a 4x4 tile of out: 16 sums held in registers
ROW_BLOCK = 32  # rows of out per parallel work item
COL_BLOCK = 64  # packed columns swept while a row block stays in cache
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


@njit(fastmath=TILE_FASTMATH, error_model="numpy")
def tile_4x4(a_rows, b_cols, i, j):
    """The 16 sums ``sum_k a_rows[i + r, k] * b_cols[j + c, k]`` for r, c in 0..3."""
    a0, a1, a2, a3 = a_rows[i], a_rows[i + 1], a_rows[i + 2], a_rows[i + 3]
    b0, b1, b2, b3 = b_cols[j], b_cols[j + 1], b_cols[j + 2], b_cols[j + 3]
    zero = a_rows.dtype.type(0)
    c00 = c01 = c02 = c03 = c10 = c11 = c12 = c13 = zero
    c20 = c21 = c22 = c23 = c30 = c31 = c32 = c33 = zero
    for k in range(a0.size):
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
def row_block(out, a_rows, b_cols, out_strides, out_offset, z, first_row, rows, cols):
    """Rows ``first_row ..`` (up to ``ROW_BLOCK``) of ``out[z]``, tile by tile."""
    last_row = min(first_row + ROW_BLOCK, rows)
    for first_col in range(0, cols, COL_BLOCK):
        last_col = min(first_col + COL_BLOCK, cols)
        for i in range(first_row, last_row, TILE):
            for j in range(first_col, last_col, TILE):
                tile = tile_4x4(a_rows, b_cols, i, j)
                at = out_offset + z * out_strides[0] + i * out_strides[1] + j * out_strides[2]
                tile_cols = min(TILE, cols - j)
                for r in range(min(TILE, rows - i)):
                    store_row(out, at + r * out_strides[1], out_strides[2], tile_cols, tile[r])


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
        padded_rows = (rows + TILE - 1) // TILE * TILE
        padded_cols = (cols + TILE - 1) // TILE * TILE
        a_rows = np.zeros((batch, padded_rows, depth), dtype=out.dtype)
        b_cols = np.zeros((batch, padded_cols, depth), dtype=out.dtype)
        for z in range(batch):
            a_at = offsets[1] + z * strides[1, 0]
            b_at = offsets[2] + z * strides[2, 0]
            pack(a, a_at, strides[1, 1], strides[1, 2], a_rows[z, :rows])
            pack(b, b_at, strides[2, 2], strides[2, 1], b_cols[z, :cols])  # transposed
        blocks_per_matrix = (rows + ROW_BLOCK - 1) // ROW_BLOCK
        work_items = batch * blocks_per_matrix
        if variant:
            for item in prange(work_items):  # row blocks on threads
                z, block = divmod(np.int64(item), blocks_per_matrix)  # prange's counter is unsigned
                row_block(out, a_rows[z], b_cols[z], strides[0], offsets[0], z, block * ROW_BLOCK, rows, cols)
        else:
            for item in range(work_items):
                z, block = divmod(item, blocks_per_matrix)
                row_block(out, a_rows[z], b_cols[z], strides[0], offsets[0], z, block * ROW_BLOCK, rows, cols)

    return njit(parallel=PRANGE_ONLY if parallel else False, **JIT_OPTIONS)(matmul_kernel)


MATMUL_KERNELS = (make_matmul_kernel(False), make_matmul_kernel(True))  # (serial, parallel)
