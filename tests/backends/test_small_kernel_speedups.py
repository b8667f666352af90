"""Tests of the Numba backend's fast paths for small tensors, against PyTorch: the
vectorized ``tanh`` and ``sigmoid`` (edge values, float32 and float64, within 2 ulp),
elementwise rows with broadcast (stride-0) operands, and small or skinny matmuls, each on
contiguous, transposed, sliced and expanded views."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from minitorch.backends import Strided

numba_backend = pytest.importorskip("minitorch.backends.numba")

EDGE_VALUES = [0.0, -0.0, 1e-45, -1e-45, 1e-38, 1e-30, -1e-30, 1e-8, 1e-5, -9.99e-5, 1e-4, -1e-4, 0.1,
               -0.5, 1.0, 5.0, 9.0, -9.1, 10.0, 19.0, 20.0, -21.0, 88.0, 89.0, -90.0, 100.0, 103.9,
               -104.0, 1e30, -1e30, np.inf, -np.inf, np.nan]


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How many float steps (of ``want``'s dtype, at ``want``) lie between got and want;
    0 where both are equal or both NaN, inf where only one is NaN."""
    dtype = want.dtype
    step = np.spacing(np.abs(want).astype(dtype)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        distance = np.abs(got.astype(np.float64) - want.astype(np.float64)) / step
    both_nan = np.isnan(got) & np.isnan(want)
    distance = np.where((got == want) | both_nan, 0.0, distance)
    return np.where(np.isnan(got) != np.isnan(want), np.inf, distance)


def contiguous(array: np.ndarray) -> Strided:
    array = np.ascontiguousarray(array)
    strides = tuple(s // array.itemsize for s in array.strides)
    return Strided(array.reshape(-1), array.shape, strides, 0)


def view_of(array: np.ndarray) -> Strided:
    """The NumPy view ``array`` (transposed, sliced, broadcast...) as a ``Strided``."""
    base = array
    while base.base is not None and isinstance(base.base, np.ndarray):
        base = base.base
    flat = base.reshape(-1)
    offset = (array.__array_interface__["data"][0] - flat.__array_interface__["data"][0]) // array.itemsize
    strides = tuple(s // array.itemsize for s in array.strides)
    return Strided(flat, array.shape, strides, offset)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["tanh", "sigmoid", "exp"])
def test_vectorized_functions_within_2_ulp_of_torch(op, dtype):
    rng = np.random.default_rng(0)
    magnitudes = np.exp(rng.uniform(-80, 4, 20000)) * rng.choice([-1, 1], 20000)
    values = np.concatenate([EDGE_VALUES, rng.normal(0, 3, 20000), magnitudes]).astype(dtype)
    out = np.empty_like(values)
    numba_backend.map(op, contiguous(out), contiguous(values))
    want = getattr(torch, op)(torch.from_numpy(values)).numpy()
    # torch's float32 sigmoid is 0 below -88 (its exp(-x) overflows); ours keeps the
    # denormal answer, which is the float64 result rounded
    exact = getattr(torch, op)(torch.from_numpy(values).double()).to(torch.from_numpy(values).dtype).numpy()
    assert np.minimum(ulp_distance(out, want), ulp_distance(out, exact)).max() <= 2
    zeros = values == 0
    assert np.array_equal(np.signbit(out[zeros]), np.signbit(want[zeros]))  # tanh(-0) = -0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_vectorized_functions_on_strided_views(op, dtype):
    rng = np.random.default_rng(1)
    base = rng.normal(0, 2, (9, 14)).astype(dtype)
    for view in (base.T, base[1::2, ::3], np.broadcast_to(base[2], (5, 14))):
        out = np.zeros(view.shape, dtype)
        numba_backend.map(op, contiguous(out), view_of(view))
        want = getattr(torch, op)(torch.from_numpy(np.ascontiguousarray(view))).numpy()
        assert ulp_distance(out, want).max() <= 2


def broadcast_operands(dtype):
    """(a, b) NumPy views of shape (50, 8) where rows are contiguous or stride 0: a bias
    row, a column, one repeated value, a sliced matrix."""
    rng = np.random.default_rng(2)
    matrix = rng.normal(size=(50, 8)).astype(dtype)
    wide = rng.normal(size=(50, 16)).astype(dtype)
    bias = rng.normal(size=8).astype(dtype)
    column = rng.normal(size=(50, 1)).astype(dtype)
    value = rng.normal(size=1).astype(dtype)
    return [
        (matrix, np.broadcast_to(bias, (50, 8))),
        (np.broadcast_to(bias, (50, 8)), matrix),
        (matrix, np.broadcast_to(column, (50, 8))),
        (np.broadcast_to(value, (50, 8)), wide[:, ::2]),
        (wide[:, 3:11], np.broadcast_to(bias, (50, 8))),
        (np.broadcast_to(bias, (50, 8)), np.broadcast_to(column, (50, 8))),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_zip_with_broadcast_rows(op, dtype):
    for a, b in broadcast_operands(dtype):
        storage = np.full(60 * 8, 77, dtype)  # the output inside a larger storage
        out = Strided(storage, (50, 8), (8, 1), 40)
        numba_backend.zip(op, out, view_of(a), view_of(b))
        want = getattr(torch, op)(torch.from_numpy(a.copy()), torch.from_numpy(b.copy())).numpy()
        np.testing.assert_array_equal(storage[40:440].reshape(50, 8), want)
        assert (storage[:40] == 77).all() and (storage[440:] == 77).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("shape", [(2000,), (4, 5, 6), (3, 7, 9, 2), (300_001,)])
def test_zip_with_a_repeated_first_operand(op, dtype, shape):
    """``w * x`` with ``w`` one value (stride 0 everywhere) and ``x`` rows contiguous or
    sliced, on the odometer's rows (the last size is above the parallel threshold)."""
    rng = np.random.default_rng(3)
    value = rng.normal(size=1).astype(dtype)
    wide = rng.normal(size=(*shape[:-1], 2 * shape[-1])).astype(dtype)
    for b in (wide[..., : shape[-1]], wide[..., 1::2], np.ascontiguousarray(wide[..., ::2])):
        a = np.broadcast_to(value.reshape((1,) * len(shape)), shape)
        count = int(np.prod(shape))
        storage = np.full(count + 10, 77, dtype)  # the output inside a larger storage
        strides = tuple(int(np.prod(shape[d + 1 :])) for d in range(len(shape)))
        numba_backend.zip(op, Strided(storage, shape, strides, 5), view_of(a), view_of(b))
        want = getattr(torch, op)(torch.from_numpy(a.copy()), torch.from_numpy(b.copy())).numpy()
        np.testing.assert_array_equal(storage[5 : 5 + count].reshape(shape), want)
        assert (storage[:5] == 77).all() and (storage[5 + count :] == 77).all()


MATMUL_SHAPES = [(1, 500, 2, 8), (1, 500, 8, 8), (1, 8, 500, 2), (1, 1, 500, 8), (1, 500, 8, 1),
                 (3, 5, 7, 3), (2, 1, 1, 1), (1, 4, 0, 3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch,rows,depth,cols", MATMUL_SHAPES)
def test_small_and_skinny_matmul(batch, rows, depth, cols, dtype):
    rng = np.random.default_rng(3)
    a = rng.normal(size=(batch, depth, rows)).astype(dtype).transpose(0, 2, 1)  # transposed
    b = rng.normal(size=(batch, cols, 2 * depth)).astype(dtype)[:, :, ::2].transpose(0, 2, 1)
    out = np.full((batch, rows, cols), 77, dtype)
    numba_backend.matmul(contiguous(out), view_of(a), view_of(b))
    want = (torch.from_numpy(a.copy()) @ torch.from_numpy(b.copy())).numpy()
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, want, rtol=tolerance, atol=tolerance * max(depth, 1))


# ----- the rows kernel of small products (small_matmul_kernel.py) ------------------------

# (batch, n, k, m) that ``matmul_path`` gives the rows kernel: m >= 8 columns, k <= 2m,
# under the parallel threshold; odd sizes leave rows of out over after the blocks of four
# and rows of b over after the passes of four
ROWS_SHAPES = [(1, 1, 1, 8), (1, 8, 2, 8), (1, 500, 8, 8), (3, 5, 7, 9), (2, 13, 5, 17), (1, 64, 32, 64),
               (2, 7, 18, 9), (1, 66, 128, 64), (1, 3, 16, 8)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("layout_b", ["contiguous", "transposed", "stepped_at_end", "batch_broadcast"])
@pytest.mark.parametrize("layout_a", ["contiguous", "transposed", "stepped_at_end", "batch_broadcast"])
def test_rows_kernel_agrees_with_the_reference(layout_a, layout_b, dtype):
    """The rows kernel, on every layout of ``a`` and ``b`` (a ``b`` without contiguous rows
    is packed first), with the output inside a sentinel-filled storage."""
    from minitorch.backends import reference

    from .test_numba_kernels import assert_same, make_output, matmul_operand, twin

    rng = np.random.default_rng(21)
    for batch, n, k, m in ROWS_SHAPES:
        assert numba_backend.matmul_path(batch * n * k * m, k, m, 1) == "rows"
        a = matmul_operand(layout_a, batch, n, k, dtype, rng)
        b = matmul_operand(layout_b, batch, k, m, dtype, rng)
        out = make_output("contiguous", (batch, n, m), dtype)
        expected = twin(out)
        numba_backend.matmul(out, a, b)
        reference.matmul(expected, a, b)
        # float32 rounding grows with the length of the sums (added in another order)
        assert_same(out, expected, dtype, rtol=1e-5 * max(1, k // 16) if dtype == np.float32 else None)


# Products above the parallel threshold that take the rows kernel: conv2d's W @ cols and
# its gradient of the columns (long rows, short sums), odd sizes at both ends
PARALLEL_ROWS_SHAPES = [(32, 16, 27, 1024), (5, 27, 16, 1031), (1, 203, 64, 517), (20, 6, 9, 2000)]


@pytest.mark.parametrize("path", ["serial", "parallel"])
@pytest.mark.parametrize("layout_b", ["contiguous", "transposed", "batch_broadcast"])
@pytest.mark.parametrize("layout_a", ["contiguous", "transposed", "batch_broadcast"])
def test_rows_kernel_of_large_products_agrees_with_the_reference(layout_a, layout_b, path):
    """Large products with long rows and short sums, both variants of the rows kernel (the
    parallel one hands blocks of four rows of every matrix of the batch to the threads),
    against float64 NumPy, with the output inside a sentinel-filled storage."""
    from minitorch.backends.numba import parallel_policy
    from minitorch.backends.numba.parallel_policy import THRESHOLDS

    from .test_numba_kernels import make_output, matmul_operand

    rng = np.random.default_rng(24)
    for batch, n, k, m in PARALLEL_ROWS_SHAPES:
        assert batch * n * k * m >= THRESHOLDS["matmul"]
        assert numba_backend.matmul_path(batch * n * k * m, k, m, 1) == "rows"
        a = matmul_operand(layout_a, batch, n, k, np.float32, rng)
        b = matmul_operand(layout_b, batch, k, m, np.float32, rng)
        out = make_output("contiguous", (batch, n, m), np.float32)
        before = out.storage.copy()
        with parallel_policy.force(path):
            numba_backend.matmul(out, a, b)
        want = np.matmul(as_array(a).astype(np.float64), as_array(b).astype(np.float64))
        np.testing.assert_allclose(as_array(out), want, rtol=1e-5, atol=1e-5 * k)
        assert (out.storage[0], out.storage[-1]) == (before[0], before[-1])  # the sentinels


def as_array(t: Strided) -> np.ndarray:
    """The values a ``Strided`` operand shows, as a NumPy array (a view)."""
    item = t.storage.itemsize
    return np.lib.stride_tricks.as_strided(t.storage[t.offset :], t.shape, tuple(s * item for s in t.strides))


def test_rows_kernel_only_where_it_wins():
    """The rule of ``matmul_path``: contiguous output rows, at least 8 columns and sums at
    most twice as long as the rows, at any size (the rows kernel has a parallel variant);
    everything else takes the tiled kernel."""
    from minitorch.backends.numba.parallel_policy import THRESHOLDS

    path = numba_backend.matmul_path
    assert path(500 * 8 * 8, 8, 8, 1) == "rows"
    assert path(500 * 8 * 8, 8, 8, 500) == "tiled"  # transposed output
    assert path(500 * 8 * 4, 8, 4, 1) == "tiled"  # few columns
    assert path(64 * 128 * 64, 128, 64, 1) == "rows"  # sums twice as long as the rows
    assert path(64 * 129 * 64, 129, 64, 1) == "tiled"  # longer sums
    assert path(64 * 128 * 10, 128, 10, 1) == "tiled"  # a layer's 10 outputs from 128
    assert path(THRESHOLDS["matmul"] - 1, 64, 64, 1) == "rows"
    assert path(THRESHOLDS["matmul"], 64, 64, 1) == "rows"  # parallel work too
    assert path(32 * 16 * 27 * 1024, 27, 1024, 1) == "rows"  # conv2d's W @ cols
    assert path(32 * 16 * 1024 * 27, 1024, 27, 1) == "tiled"  # and its weight's gradient
    assert path(512**3, 512, 512, 1) == "rows"
    assert path(2048 * 2048 * 64, 2048, 64, 1) == "tiled"


# ----- the columns kernel of skinny products (small_matmul_kernel.py) ----------------------

# (batch, n, k, m) that ``matmul_path`` gives the columns kernel: m * k <= 8, m < 8
COLUMNS_SHAPES = [(1, 2000, 3, 1), (1, 1, 1, 1), (1, 500, 2, 4), (3, 7, 8, 1), (2, 13, 1, 5), (1, 64, 4, 2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("layout_b", ["contiguous", "transposed", "stepped_at_end", "batch_broadcast"])
@pytest.mark.parametrize("layout_a", ["contiguous", "transposed", "stepped_at_end", "batch_broadcast"])
def test_columns_kernel_agrees_with_the_reference(layout_a, layout_b, dtype):
    """The columns kernel, on every layout of ``a`` and ``b``, with the output inside a
    sentinel-filled storage and transposed too (it writes down columns of any stride)."""
    from minitorch.backends import reference

    from .test_numba_kernels import assert_same, make_output, matmul_operand, twin

    rng = np.random.default_rng(22)
    for batch, n, k, m in COLUMNS_SHAPES:
        for out_layout in ("contiguous", "transposed"):
            out = make_output(out_layout, (batch, n, m), dtype)
            assert numba_backend.matmul_path(batch * n * k * m, k, m, out.strides[2]) == "columns"
            a = matmul_operand(layout_a, batch, n, k, dtype, rng)
            b = matmul_operand(layout_b, batch, k, m, dtype, rng)
            expected = twin(out)
            numba_backend.matmul(out, a, b)
            reference.matmul(expected, a, b)
            assert_same(out, expected, dtype, rtol=1e-5 if dtype == np.float32 else None)


def test_columns_kernel_only_where_it_wins():
    """Few columns *and* short sums (m * k <= 8), under the parallel threshold; wide
    rows keep the rows kernel, everything else the tiled one."""
    from minitorch.backends.numba.parallel_policy import THRESHOLDS

    path = numba_backend.matmul_path
    assert path(2000 * 3 * 1, 3, 1, 1) == "columns"  # the polynomial fit's (2000, 3) @ (3, 1)
    assert path(500 * 2 * 4, 2, 4, 4) == "columns"  # any output layout
    assert path(500 * 8 * 2, 8, 2, 1) == "tiled"  # m * k = 16
    assert path(2000 * 32, 32, 1, 1) == "tiled"  # long sums
    assert path(500 * 1 * 8, 1, 8, 1) == "rows"  # 8 columns: the rows kernel
    assert path(THRESHOLDS["matmul"], 4, 2, 1) == "tiled"  # parallel work


# ----- the contiguous kernels of map and zip (elementwise_kernels.py) ---------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("count", [1, 100, 300_001])
def test_one_contiguous_row_takes_the_contiguous_kernels(count, dtype):
    """Same-shape contiguous operands at any offsets make one row: the runners call the
    contiguous kernels (fewer arguments), below the parallel threshold; above it the
    general kernels run. Either way the values are PyTorch's and nothing outside the
    output is written."""
    rng = np.random.default_rng(23)
    a = (rng.normal(size=count + 3) * 10).astype(dtype)
    b = (rng.normal(size=count + 5) * 10 + 0.5).astype(dtype)
    shape = (count,)
    one_row = numba_backend.is_one_row(numba_backend.elementwise_layout(shape, (1,), (1,), (1,))[1])
    assert one_row  # one element too: a size-1 dimension merges to one run of stride 1
    assert numba_backend.is_one_row(numba_backend.elementwise_layout((), (), (), ())[1])  # 0-d
    assert not numba_backend.is_one_row(numba_backend.elementwise_layout((4, 5), (5, 1), (1, 4))[1])
    storage = np.full(count + 4, 77, dtype)
    out = Strided(storage, shape, (1,), 2)
    numba_backend.zip("mul", out, Strided(a, shape, (1,), 3), Strided(b, shape, (1,), 5))
    want = (torch.from_numpy(a[3:]) * torch.from_numpy(b[5:])).numpy()
    np.testing.assert_array_equal(storage[2:-2], want)
    numba_backend.map("neg", out, Strided(a, shape, (1,), 1))
    np.testing.assert_array_equal(storage[2:-2], -a[1 : 1 + count])
    assert (storage[:2] == 77).all() and (storage[-2:] == 77).all()
