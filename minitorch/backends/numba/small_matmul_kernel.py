"""Numba kernels for small ``matmul``: no packing, no tiles. Two shapes of small:

* **rows** (``small_matmul_kernel``): one row of ``out`` at a time, for products with
  rows of at least 8 columns (``x @ w`` of a hidden layer);
* **columns** (``columns_matmul_kernel``): one column of ``out`` at a time, for products
  with very few columns and short sums (``(2000, 3) @ (3, 1)``, the polynomial fit).

Both must agree with ``reference.matmul``: ``out[z, i, j] = sum_k a[z, i, k] * b[z, k, j]``
(up to rounding: the sums are added in another order).

**Rows.** Row ``i`` of ``out`` is a weighted sum of the rows of ``b``, with the weights in
row ``i`` of ``a``. So the kernel walks the rows of ``b``, adding each, times one number
of ``a``, to the output row::

    for each z, each row i:
        out[z, i, :] = 0
        for p in range(k), four at a time:
            out[z, i, :] += a[z, i, p] * b[z, p, :] + ... + a[z, i, p+3] * b[z, p+3, :]

The innermost loop runs along a row of ``out`` and a row of ``b``, both contiguous, so
the compiler turns it into vector instructions; ``a`` is read one number at a time
through its strides, whatever its layout. Taking four rows of ``b`` per pass reads and
writes the output row a quarter as often (a 64x64 product: 39 -> 19 us).

**Columns.** The same sum read the other way: column ``j`` of ``out`` is a weighted sum
of the *columns* of ``a``, with the weights in column ``j`` of ``b``::

    for each z, each column j:
        out[z, :, j] = 0
        for p in range(k):
            out[z, :, j] += b[z, p, j] * a[z, :, p]

With one column and three terms that is three passes down a long column, each a
multiply-add per element with nothing to set up: ``(2000, 3) @ (3, 1)`` takes 17 us in
the tiled kernel, which packs both operands and fills 4x4 tiles of which one column is
used, and 6 us here. With many terms or columns the passes re-read ``out`` too often and
the tiled kernel wins again.

The tiled kernel (``matmul_kernel.py``) first packs both operands and sums along ``k``
in 4x4 tiles; for small products that set-up, and adding up each tile's vector lanes at
its end, cost more than the product itself. These kernels have neither, and do not block
for the caches. ``matmul_path`` in ``__init__.py`` chooses among the three (the
measurements are there).

The rows kernel needs the rows of ``out`` and ``b`` contiguous (column stride 1). ``out``
always is (the ops layer makes it); a ``b`` that is not (``x @ w.mT``) is first copied
into contiguous rows, which costs ``k*m`` next to the product's ``n*k*m``. The columns
kernel reads every operand through its strides.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from minitorch.backends.numba.matmul_kernel import pack
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS

ROWS_PER_PASS = 4  # rows of b added to an output row in one pass over it


def small_matmul_kernel(out, a, b, shape, strides, offsets, chunks):
    """``out[z] = a[z] @ b[z]``, serial, with the arguments of the tiled kernel:
    ``shape = (batch, n, k, m)``, ``strides`` rows the (batch, row, column) strides of out,
    a, b, ``offsets`` their storage offsets; ``chunks`` is unused (always one thread).
    Requires ``strides[0, 2] == 1`` (contiguous rows of out)."""
    batch, rows, depth, cols = shape[0], shape[1], shape[2], shape[3]
    b_is_rows = strides[2, 2] == 1
    packed = np.empty((0, 0) if b_is_rows else (depth, cols), dtype=out.dtype)
    last_pass = depth - depth % ROWS_PER_PASS
    for z in range(batch):
        b_at, b_step = offsets[2] + z * strides[2, 0], strides[2, 1]
        if not b_is_rows:  # copy b[z] into contiguous rows
            pack(b, b_at, strides[2, 1], strides[2, 2], packed)
            b_at, b_step = 0, cols
        b_rows = b if b_is_rows else packed.ravel()
        for i in range(rows):
            out_at = offsets[0] + z * strides[0, 0] + i * strides[0, 1]
            out_row = out[out_at : out_at + cols]
            out_row[:] = 0
            a_at, a_step = offsets[1] + z * strides[1, 0] + i * strides[1, 1], strides[1, 2]
            for p in range(0, last_pass, ROWS_PER_PASS):  # four rows of b per pass
                x0 = a[a_at + p * a_step]
                x1 = a[a_at + (p + 1) * a_step]
                x2 = a[a_at + (p + 2) * a_step]
                x3 = a[a_at + (p + 3) * a_step]
                start = b_at + p * b_step
                b0 = b_rows[start : start + cols]
                b1 = b_rows[start + b_step : start + b_step + cols]
                b2 = b_rows[start + 2 * b_step : start + 2 * b_step + cols]
                b3 = b_rows[start + 3 * b_step : start + 3 * b_step + cols]
                for j in range(cols):
                    out_row[j] += x0 * b0[j] + x1 * b1[j] + x2 * b2[j] + x3 * b3[j]
            for p in range(last_pass, depth):  # the rows left over, one at a time
                x = a[a_at + p * a_step]
                b_row = b_rows[b_at + p * b_step : b_at + p * b_step + cols]
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


SMALL_MATMUL_KERNEL = njit(fastmath={"contract"}, **JIT_OPTIONS)(small_matmul_kernel)
COLUMNS_MATMUL_KERNEL = njit(fastmath={"contract"}, **JIT_OPTIONS)(columns_matmul_kernel)
