"""Numba kernels for ``matmul`` without packing or tiles, for two shapes of product:

* **rows** (``make_rows_kernel``): four rows of ``out`` at a time, for products with
  rows of at least 8 columns and sums at most twice that long (``x @ w`` of a hidden
  layer, a weight's gradient ``grad.T @ x``, a convolution's ``W @ cols``), at any size:
  its parallel variant hands the blocks of four rows to the threads;
* **columns** (``columns_matmul_kernel``): one column of ``out`` at a time, for products
  with very few columns and short sums (``(2000, 3) @ (3, 1)``, the polynomial fit).

Both must agree with ``reference.matmul``: ``out[z, i, j] = sum_k a[z, i, k] * b[z, k, j]``
(up to rounding: the sums are added in another order).

**Rows.** Row ``i`` of ``out`` is a weighted sum of the rows of ``b``, with the weights in
row ``i`` of ``a``. So the kernel walks the rows of ``b``, adding each, times one number
of ``a``, to the output row. It does so for a block of four output rows at once, and
adds four rows of ``b`` per pass (``four_rows``)::

    for each z, each block of four rows i..i+3:      (in parallel: the blocks on threads)
        out[z, i:i+4, :] = 0
        for p in range(k), four at a time:
            for r in 0..3:
                out[z, i+r, :] += a[z, i+r, p] * b[z, p, :] + ... + a[z, i+r, p+3] * b[z, p+3, :]

The innermost loop runs along rows of ``out`` and of ``b``, all contiguous, so the
compiler turns it into vector instructions; ``a`` is read one number at a time through
its strides, whatever its layout: 16 numbers per pass, kept in registers. What limits
such a loop is memory traffic, not arithmetic: each step of it loads a piece of four rows
of ``b`` and of four rows of ``out`` and stores the four ``out`` pieces, 12 memory
operations for 16 multiply-adds. One output row at a time it was 6 for 4 (and one row
of ``b`` per pass, 3 for 1). docs/backend-guide.md gives the times of the three.

**Columns.** The same sum read the other way: column ``j`` of ``out`` is a weighted sum
of the *columns* of ``a``, with the weights in column ``j`` of ``b``::

    for each z, each column j:
        out[z, :, j] = 0
        for p in range(k):
            out[z, :, j] += b[z, p, j] * a[z, :, p]

With one column and three terms that is three passes down a long column, each a
multiply-add per element with nothing to set up, where the tiled kernel packs the
operands not laid out along ``k`` and fills 4x4 tiles of which one column is used. With
many terms or columns the passes re-read ``out`` too often and the tiled kernel wins
again.

The tiled kernel (``matmul_kernel.py``) sums along ``k`` in 4x4 tiles, after packing any
operand whose lines along ``k`` are not contiguous; for small products that set-up, and
adding up each tile's vector lanes at its end, cost more than the product itself, and
for short sums (27 terms of a 3x3 convolution over 3 channels) the adding up costs more
at any size. These kernels have neither, and do not block for the caches.
``matmul_path`` in ``matmul_runners.py`` chooses among the three (the measurements are
there).

The rows kernel needs the rows of ``out`` and ``b`` contiguous (column stride 1). ``out``
always is (the ops layer makes it); a ``b`` that is not (``x @ w.mT``) is first copied
into contiguous rows (``lines``, shared with the tiled kernel), which costs ``k*m`` next
to the product's ``n*k*m``. The columns kernel reads every operand through its strides.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from minitorch.backends.numba.matmul_kernel import lines
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, PRANGE_ONLY

BLOCK = 4  # rows of out computed together, and rows of b added to them in one pass


def make_rows_kernel(parallel: bool):
    """The rows kernel, serial or parallel (as ``make_matmul_kernel``: two compilations,
    since a kernel compiled for threads starts them on every call). The parallel variant
    hands the blocks of four output rows, of every matrix of the batch, to the threads:
    each block writes its own rows of ``out`` and only reads ``a`` and ``b``."""
    variant = parallel  # captured: keys Numba's disk cache, so the two variants differ

    def rows_matmul_kernel(out, a, b, shape, strides, offsets, chunks):
        """``out[z] = a[z] @ b[z]`` with the arguments of the tiled kernel: ``shape =
        (batch, n, k, m)``, ``strides`` rows the (batch, row, column) strides of out, a,
        b, ``offsets`` their storage offsets; ``chunks`` is not needed (the parallel
        variant hands its blocks to the threads). Requires ``strides[0, 2] == 1``
        (contiguous rows of out)."""
        batch, rows, depth, cols = shape[0], shape[1], shape[2], shape[3]
        # the rows of b as contiguous lines along m (b itself, or each b[z] packed first)
        b_src, b_at, b_matrix, b_step = lines(b, offsets[2], strides[2, 0], strides[2, 1], strides[2, 2],
                                              batch, depth, cols)  # fmt: skip
        blocks = (rows + BLOCK - 1) // BLOCK  # per matrix; the last may have fewer rows
        if variant:
            for item in prange(batch * blocks):  # blocks on threads
                z, block = divmod(np.int64(item), blocks)  # prange's counter is unsigned
                b_z = b_at + z * b_matrix
                row_block(out, a, b_src, b_z, b_step, shape, strides, offsets, z, block * BLOCK)
        else:
            for item in range(batch * blocks):
                z, block = divmod(item, blocks)
                b_z = b_at + z * b_matrix
                row_block(out, a, b_src, b_z, b_step, shape, strides, offsets, z, block * BLOCK)

    return njit(parallel=PRANGE_ONLY if parallel else False, fastmath={"contract"}, **JIT_OPTIONS)(
        rows_matmul_kernel
    )


@njit(error_model="numpy")
def row_block(out, a, b, b_at, b_step, shape, strides, offsets, z, first_row):
    """Rows ``first_row .. first_row + 3`` of ``out[z]``: four at once, or the rows left
    at the end of a matrix one at a time. Row ``p`` of ``b[z]`` is the contiguous line at
    ``b_at + p*b_step``: in ``b`` itself, or in its packed copy."""
    rows, depth, cols = shape[1], shape[2], shape[3]
    out_step, a_row_step, a_step = strides[0, 1], strides[1, 1], strides[1, 2]
    out_at = offsets[0] + z * strides[0, 0] + first_row * out_step
    a_at = offsets[1] + z * strides[1, 0] + first_row * a_row_step
    if first_row + BLOCK <= rows:
        four_rows(out, out_at, out_step, a, a_at, a_row_step, a_step, b, b_at, b_step, depth, cols)
    else:
        for r in range(rows - first_row):
            one_row(out, out_at + r * out_step, a, a_at + r * a_row_step, a_step, b, b_at, b_step,
                    depth, cols)  # fmt: skip


@njit(fastmath={"contract"}, error_model="numpy")
def four_rows(out, out_at, out_step, a, a_at, a_row_step, a_step, b, b_at, b_step, depth, cols):
    """Rows ``r = 0..3`` of a block of ``out`` (the first at ``out_at``): ``out[r, :] =
    sum_p a[r, p] * b[p, :]``, four rows of ``b`` per pass, so that each number of ``b``
    read serves four rows of ``out`` and each pass over the rows of ``out`` adds four
    rows of ``b``. The 16 weights ``a[r, p..p+3]`` are plain numbers the compiler keeps in
    registers."""
    o0 = out[out_at : out_at + cols]
    o1 = out[out_at + out_step : out_at + out_step + cols]
    o2 = out[out_at + 2 * out_step : out_at + 2 * out_step + cols]
    o3 = out[out_at + 3 * out_step : out_at + 3 * out_step + cols]
    o0[:] = 0
    o1[:] = 0
    o2[:] = 0
    o3[:] = 0
    last_pass = depth - depth % BLOCK
    for p in range(0, last_pass, BLOCK):
        at = b_at + p * b_step
        b0 = b[at : at + cols]
        b1 = b[at + b_step : at + b_step + cols]
        b2 = b[at + 2 * b_step : at + 2 * b_step + cols]
        b3 = b[at + 3 * b_step : at + 3 * b_step + cols]
        w = a_at + p * a_step  # a[0, p], then down the block's rows
        x00, x01, x02, x03 = a[w], a[w + a_step], a[w + 2 * a_step], a[w + 3 * a_step]
        w += a_row_step
        x10, x11, x12, x13 = a[w], a[w + a_step], a[w + 2 * a_step], a[w + 3 * a_step]
        w += a_row_step
        x20, x21, x22, x23 = a[w], a[w + a_step], a[w + 2 * a_step], a[w + 3 * a_step]
        w += a_row_step
        x30, x31, x32, x33 = a[w], a[w + a_step], a[w + 2 * a_step], a[w + 3 * a_step]
        for j in range(cols):
            y0, y1, y2, y3 = b0[j], b1[j], b2[j], b3[j]
            o0[j] += x00 * y0 + x01 * y1 + x02 * y2 + x03 * y3
            o1[j] += x10 * y0 + x11 * y1 + x12 * y2 + x13 * y3
            o2[j] += x20 * y0 + x21 * y1 + x22 * y2 + x23 * y3
            o3[j] += x30 * y0 + x31 * y1 + x32 * y2 + x33 * y3
    for p in range(last_pass, depth):  # the rows of b left over, one at a time
        at = b_at + p * b_step
        b_row = b[at : at + cols]
        w = a_at + p * a_step
        x0, x1, x2, x3 = a[w], a[w + a_row_step], a[w + 2 * a_row_step], a[w + 3 * a_row_step]
        for j in range(cols):
            y = b_row[j]
            o0[j] += x0 * y
            o1[j] += x1 * y
            o2[j] += x2 * y
            o3[j] += x3 * y


@njit(fastmath={"contract"}, error_model="numpy")
def one_row(out, out_at, a, a_at, a_step, b, b_at, b_step, depth, cols):
    """One row of ``out``: ``out[:] = sum_p a[p] * b[p, :]``, a row of ``b`` at a time."""
    out_row = out[out_at : out_at + cols]
    out_row[:] = 0
    for p in range(depth):
        x = a[a_at + p * a_step]
        b_row = b[b_at + p * b_step : b_at + p * b_step + cols]
        for j in range(cols):
            out_row[j] += x * b_row[j]


def columns_matmul_kernel(out, a, b, shape, strides, offsets, chunks):
    """``out[z] = a[z] @ b[z]``, serial, a column of ``out`` at a time (see above), with
    the arguments of the tiled kernel; ``chunks`` is unused (always one thread)."""
    batch, rows, depth, cols = shape[0], shape[1], shape[2], shape[3]
    out_step, a_step = strides[0, 1], strides[1, 1]  # down a column of out, of a
    for z in range(batch):
        for j in range(cols):
            out_at = offsets[0] + z * strides[0, 0] + j * strides[0, 2]
            for i in range(rows):
                out[out_at + i * out_step] = 0
            for p in range(depth):
                weight = b[offsets[2] + z * strides[2, 0] + p * strides[2, 1] + j * strides[2, 2]]
                a_at = offsets[1] + z * strides[1, 0] + p * strides[1, 2]  # column p of a
                for i in range(rows):
                    out[out_at + i * out_step] += weight * a[a_at + i * a_step]


ROWS_MATMUL_KERNELS = (make_rows_kernel(False), make_rows_kernel(True))  # (serial, parallel)
COLUMNS_MATMUL_KERNEL = njit(fastmath={"contract"}, **JIT_OPTIONS)(columns_matmul_kernel)
