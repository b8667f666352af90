"""The tiled matmul kernel (``matmul_kernel.py``) called directly, on every path it has.

``matmul_path`` sends most small products to the kernels of ``small_matmul_kernel.py``,
so these tests call ``MATMUL_KERNELS`` themselves, for each way the kernel reaches its
sums: lines read where they lie (``a`` with contiguous rows, ``b`` with contiguous
columns, also inside a wider matrix and at a storage offset) or packed first (any other
layout, a batch broadcast with stride 0); tiles at the bottom and right edges, where
fewer than four rows or columns are left; several row and column blocks; and the three
loops: serial, threads over the matrices of a batch, threads over the row blocks of
each matrix (when there are fewer matrices than threads). The oracle is NumPy's product
in float64; the serial and threaded answers must be identical, since each tile adds in
one order whichever thread computes it. Each output sits inside a larger storage filled
with a sentinel, so a store outside the view is caught.
"""

from __future__ import annotations

import numpy as np
import pytest

matmul_kernel = pytest.importorskip("minitorch.backends.numba.matmul_kernel")

SENTINEL = 77
LAYOUTS = ["rows", "columns", "wide", "stepped", "broadcast"]


def operand(layout, batch, rows, cols, dtype, rng):
    """``(storage, offset, strides, array)`` of a ``[batch, rows, cols]`` operand in
    ``layout``: ``rows`` (C order: contiguous rows), ``columns`` (each matrix transposed:
    contiguous columns), ``wide`` (the first ``cols`` columns of a wider matrix, at an
    offset), ``stepped`` (every other column of a wider matrix) or ``broadcast`` (one
    matrix for the whole batch, batch stride 0)."""
    values = rng.integers(-3, 4, size=(batch, rows, cols)).astype(dtype)
    if layout == "rows":
        return values.reshape(-1), 0, (rows * cols, cols, 1), values
    if layout == "columns":
        storage = np.ascontiguousarray(values.transpose(0, 2, 1)).reshape(-1)
        return storage, 0, (rows * cols, 1, rows), values
    if layout in ("wide", "stepped"):
        step, width, offset = (1, cols + 3, 5) if layout == "wide" else (2, 2 * cols + 1, 2)
        storage = np.full(offset + batch * rows * width, SENTINEL, dtype)
        grid = storage[offset:].reshape(batch, rows, width)
        grid[:, :, : step * cols : step] = values
        return storage, offset, (rows * width, width, step), values
    if layout == "broadcast":
        values = np.broadcast_to(values[:1], values.shape)
        return np.ascontiguousarray(values[0]).reshape(-1), 0, (0, cols, 1), values
    raise ValueError(layout)


def run(variant, chunks, a, b, batch, n, k, m, dtype):
    """The kernel's output ``[batch, n, m]``, written inside a sentinel-filled storage
    with row stride ``m + 2`` at offset 3; checks nothing outside it was touched."""
    out = np.full(3 + batch * n * (m + 2), SENTINEL, dtype)
    shape = np.array((batch, n, k, m), dtype=np.int64)
    strides = np.array(((n * (m + 2), m + 2, 1), a[2], b[2]), dtype=np.int64)
    offsets = np.array((3, a[1], b[1]), dtype=np.int64)
    matmul_kernel.MATMUL_KERNELS[variant](out, a[0], b[0], shape, strides, offsets, chunks)
    grid = out[3:].reshape(batch, n, m + 2)
    assert (out[:3] == SENTINEL).all() and (grid[:, :, m:] == SENTINEL).all(), "wrote outside out"
    return grid[:, :, :m].copy()


SHAPES = [(1, 70, 130, 67), (3, 5, 9, 6), (2, 33, 1, 3), (1, 1, 1, 1), (2, 4, 8, 4), (4, 7, 3, 2)]


@pytest.mark.parametrize("batch, n, k, m", SHAPES, ids=str)
@pytest.mark.parametrize("layout_b", LAYOUTS)
@pytest.mark.parametrize("layout_a", LAYOUTS)
def test_every_layout_and_loop_agrees_with_numpy(layout_a, layout_b, batch, n, k, m):
    rng = np.random.default_rng(n * 1000 + k * 10 + m)
    a = operand(layout_a, batch, n, k, np.float64, rng)
    b = operand(layout_b, batch, k, m, np.float64, rng)
    expected = a[3] @ b[3]
    serial = run(0, 1, a, b, batch, n, k, m, np.float64)
    np.testing.assert_allclose(serial, expected, rtol=1e-12, atol=1e-12)
    for chunks in (1, batch + 1):  # threads over matrices; threads over row blocks
        threaded = run(1, chunks, a, b, batch, n, k, m, np.float64)
        np.testing.assert_array_equal(threaded, serial)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32])
def test_other_dtypes_are_exact(dtype):
    """Small integers in every dtype: each sum is exact, so the answer is NumPy's."""
    rng = np.random.default_rng(5)
    a = operand("rows", 2, 9, 37, dtype, rng)
    b = operand("columns", 2, 37, 10, dtype, rng)
    for variant, chunks in ((0, 1), (1, 1), (1, 3)):
        np.testing.assert_array_equal(run(variant, chunks, a, b, 2, 9, 37, 10, dtype), a[3] @ b[3])


def test_an_edge_tile_keeps_the_last_lines_special_values_to_themselves():
    """A tile at an edge reads the last row (or column) again in place of the missing
    ones; a NaN or infinity there must reach only its own sums, as in NumPy."""
    a_values = np.arange(5 * 6, dtype=np.float64).reshape(1, 5, 6)
    a_values[0, 4, 2] = np.nan  # the last row: the bottom tile has one real row
    b_values = np.ones((1, 6, 5))
    b_values[0, 1, 4] = np.inf  # the last column: the right tile has one real column
    a = (a_values.reshape(-1), 0, (30, 6, 1), a_values)
    b = (b_values.reshape(-1), 0, (30, 5, 1), b_values)
    for variant, chunks in ((0, 1), (1, 1), (1, 2)):
        np.testing.assert_array_equal(run(variant, chunks, a, b, 1, 5, 6, 5, np.float64), a_values @ b_values)
