"""The Python side of ``matmul``: which kernel, and its layout arrays, once per layout.

Three kernels compute ``out[z] = a[z] @ b[z]``: the 4x4 tiles of
``matmul_kernel.py`` (cache blocks, threads) and the two small-product kernels of
``small_matmul_kernel.py`` (a row or a column of out at a time, no packing).
``matmul_path`` chooses from a measured table; ``matmul_runner`` decides once per layout.
"""

from __future__ import annotations

import functools

import numpy as np

from minitorch.backends import Strided
from minitorch.backends.half_precision import through_float32
from minitorch.backends.numba import parallel_policy
from minitorch.backends.numba.compile_notice import announce_if_compiling
from minitorch.backends.numba.elementwise_runners import map
from minitorch.backends.numba.layouts import LAYOUT_CACHE_SIZE, nothing_to_run, offsets_array
from minitorch.backends.numba.matmul_kernel import MATMUL_KERNELS
from minitorch.backends.numba.small_matmul_kernel import COLUMNS_MATMUL_KERNEL, ROWS_MATMUL_KERNELS


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def matmul_runner(op: str, shape: tuple[int, ...], depth: int, out_strides: tuple[int, ...],
                  a_strides: tuple[int, ...], b_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, b, out_offset, a_offset, b_offset)``: ``out[z] = a[z] @ b[z]`` for
    an ``out`` of ``shape`` ``(B, n, m)`` and sums ``depth`` (k) long, on storages laid
    out so. Which kernel (``matmul_path``) and the layout arrays it reads are decided here,
    once per layout; ``op`` is always ``"matmul"``."""
    batch, rows, cols = shape
    if batch * rows * cols == 0:
        return nothing_to_run
    if depth == 0:  # an empty sum is 0

        def fill_with_zeros(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
            zero = Strided(np.zeros(1, out.dtype), shape, (0, 0, 0), 0)
            map("copy", Strided(out, shape, out_strides, out_offset), zero)

        return fill_with_zeros
    # The int64 arrays the kernel reads its layout from (it only reads them)
    layout_arrays = (np.array((batch, rows, depth, cols), dtype=np.int64),
                     np.array((out_strides, a_strides, b_strides), dtype=np.int64))  # fmt: skip
    work = batch * rows * cols * depth
    path = matmul_path(work, depth, cols, out_strides[2])
    if path == "tiled":
        announce_if_compiling(MATMUL_KERNELS[0], "matmul")

        def run(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
            args = (out, a, b, *layout_arrays, offsets_array(out_offset, a_offset, b_offset))
            parallel_policy.run("matmul", "matmul", work, MATMUL_KERNELS, args)

        return run
    if path == "rows":
        announce_if_compiling(ROWS_MATMUL_KERNELS[0], "matmul")

        def run_rows(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
            args = (out, a, b, *layout_arrays, offsets_array(out_offset, a_offset, b_offset))
            parallel_policy.run("matmul", "matmul_rows", work, ROWS_MATMUL_KERNELS, args)

        return run_rows
    announce_if_compiling(COLUMNS_MATMUL_KERNEL, "matmul")

    def run_columns(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
        COLUMNS_MATMUL_KERNEL(out, a, b, *layout_arrays, offsets_array(out_offset, a_offset, b_offset), 1)

    return run_columns


@through_float32
def matmul(out: Strided, a: Strided, b: Strided) -> None:
    """``out[z] = a[z] @ b[z]`` for ``a`` ``[B, n, k]``, ``b`` ``[B, k, m]``."""
    run = matmul_runner("matmul", out.shape, a.shape[2], out.strides, a.strides, b.strides)
    run(out.storage, a.storage, b.storage, out.offset, a.offset, b.offset)


def matmul_path(work: int, depth: int, cols: int, out_col_stride: int) -> str:
    """Which kernel computes a product of ``work`` multiply-adds, ``depth`` (k) long sums
    and ``cols`` (m) columns: ``"rows"`` or ``"columns"`` (``small_matmul_kernel.py``: a
    row or a column of out at a time, no set-up) or ``"tiled"`` (``matmul_kernel.py``:
    4x4 tiles along ``k``, cache blocks, threads). The rows kernel needs contiguous output
    rows, and wins while the rows are long enough to vectorize and the sums short:
    ``cols >= 8`` and ``depth <= 2 * cols``, at every size (it has a parallel variant
    too). The columns kernel, serial only, wins below the parallel threshold where there
    are few columns *and* short sums, ``cols * depth <= 8``.

    Measured (one thread, float32), the rows kernel's time over the tiled kernel's, for
    ``n`` rows; the rule picks the entries marked *::

        n    k |  m = 1     2     4     8    16    32    64
        8    2 |   0.93  0.98  0.93  0.86* 0.73* 0.56* 0.39*
        8    8 |   0.92  0.95  0.92  0.83* 0.69* 0.48* 0.33*
        8   16 |   0.89  0.94  0.95  0.82* 0.65* 0.49* 0.33*
        8   32 |   0.86  0.93  1.00  0.86  0.66* 0.51* 0.33*
        8  128 |   0.95  1.10  1.33  1.06  0.82  0.56  0.44*
        64   2 |   1.01  1.00  0.94  0.67* 0.45* 0.27* 0.19*
        64   8 |   0.86  1.59  1.00  0.74* 0.52* 0.33* 0.23*
        64  16 |   0.86  0.77  1.13  0.85* 0.57* 0.38* 0.28*
        64  32 |   0.95  1.05  1.38  1.06  0.95* 0.54* 0.43*
        64  64 |   1.05  1.25  1.72  1.39  1.07  0.80* 0.59*
        64 128 |   1.12  1.43  1.97  1.69  1.31  0.99  0.76*
        500  2 |   0.99  0.94  0.88  0.55* 0.27* 0.18* 0.12*
        500  8 |   0.83  0.91  1.02  0.73* 0.43* 0.27* 0.17*
        500 16 |   0.84  0.97  1.23  0.87* 0.58* 0.35* 0.26*
        500 32 |   0.96  1.14  1.55  1.19  0.82* 0.53* 0.41*
        500 128|   1.19  1.54  2.18  1.89  1.48  1.13  0.76*

    (A few cells off the rule win too, e.g. ``n = 8, k = 128, m = 32``; the rule keeps to
    the region where the rows kernel wins everywhere. Cells near its edge are within a
    few percent of 1 and move by that much from run to run. ``m = 1``, a matrix times a vector,
    leaves its inner loop nothing to vectorize.) Large products, where both kernels have
    threads, keep to the same rule (time of the rows kernel over the tiled kernel's, one
    thread each)::

        batch   n     k     m  | rows / tiled
          32   16    27  1024  |  0.10*   conv2d's W @ cols (3 channels, 3x3 filters)
          32   27    16  1024  |  0.21*   the same convolution's gradient of the columns
           1  512    64   512  |  0.20*
           1  512   512   512  |  0.99*
           1 1024   128  1024  |  0.48*
           1   64    64  8192  |  0.13*
          32   16  1024    27  |  3.0     its weight's gradient: long sums, few columns
           1 2048  2048    64  |  1.2

    The columns kernel's time over the tiled
    kernel's (the rule picks ``m * k <= 8``, marked *; the longer sums lose)::

        n    k |  m = 1     2     3     4
        8    2 |   0.82* 0.89* 0.89* 0.87*
        8    8 |   0.85* 0.99  1.11  1.21
        64   3 |   0.59* 0.76* 0.87  1.01
        64   8 |   0.66* 0.98  1.24  1.54
        500  2 |   0.31* 0.51* 0.63* 0.79*
        500  3 |   0.37* 0.64* 0.80  1.00
        500  8 |   0.53* 1.03  1.33  1.70
        2000 3 |   0.33* 0.61* 0.85  1.15
        2000 8 |   0.53* 1.02  1.48  2.04
        2000 32|   0.94  1.86  3.23  4.10
    """
    if out_col_stride == 1 and 8 <= cols and depth <= 2 * cols:
        return "rows"
    if work >= parallel_policy.THRESHOLDS["matmul"]:
        return "tiled"
    return "columns" if cols * depth <= 8 else "tiled"
