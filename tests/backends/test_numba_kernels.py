"""Differential tests: every Numba kernel (the tuned ``numba`` backend and ``numba_simple``)
against the reference kernel it must agree with.

The operands are ``Strided`` views of NumPy storage in adversarial layouts: transposed,
sliced with steps, expanded (stride 0), size-0 and size-1 dimensions, 0-d, and views that
end exactly at the end of their storage (a kernel ignoring strides or offsets would read
or write past it). Each output lives inside a larger storage filled with a sentinel, so a
kernel writing outside its view is caught too.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from minitorch import dispatch
from minitorch.backends import Strided
from minitorch.backends import reference as ref
from minitorch.scalar_ops import MAP_OPS, REDUCE_OPS, ZIP_OPS

tuned = pytest.importorskip("minitorch.backends.numba")


@pytest.fixture(scope="module", params=["numba", "numba_simple"])
def kernels(request):
    """The compiled backend under test: the tuned ``numba`` one, or ``numba_simple`` (the
    reference's loops, compiled). Tests of the tuned one's own paths use ``tuned``."""
    return dispatch.load_backend(request.param)

FLOATS = (np.float32, np.float64)
INTS = (np.int64, np.int32)
ALL_DTYPES = (*FLOATS, *INTS, np.bool_)
SENTINEL = 77

# --------------------------------------------------------------------------------------
# Building operands
# --------------------------------------------------------------------------------------


def values(shape, dtype, rng, special=True, low=-3, high=4):
    """Random values of ``dtype``; floats include NaN, +-inf and -0.0 when ``special``."""
    size = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.random(size) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(low, high, size).astype(dtype)
    data = (rng.standard_normal(size) * 2).astype(dtype)
    if special and size >= 6:
        data[rng.choice(size, 4, replace=False)] = [np.nan, np.inf, -np.inf, -0.0]
    return data


def storage_for(view: np.ndarray) -> Strided:
    """The ``Strided`` operand of a NumPy view: its base array's flat storage, the view's
    element strides and offset."""
    base = view
    while base.base is not None:
        base = base.base
    flat = base.reshape(-1)
    item = view.itemsize
    offset = (view.__array_interface__["data"][0] - flat.__array_interface__["data"][0]) // item
    return Strided(flat, view.shape, tuple(s // item for s in view.strides), offset)


LAYOUTS = ["contiguous", "transposed", "stepped_at_end", "expanded", "offset"]


def make_input(layout, shape, dtype, rng, **kw) -> Strided:
    """An operand of ``shape`` and ``dtype`` laid out as ``layout``."""
    ndim = len(shape)
    if layout == "contiguous" or ndim == 0:
        return storage_for(values(shape, dtype, rng, **kw).reshape(shape))
    if layout == "transposed":  # reversed dimension order in memory
        data = values(shape[::-1], dtype, rng, **kw).reshape(shape[::-1])
        return storage_for(data.transpose(tuple(range(ndim))[::-1]))
    if layout == "stepped_at_end":  # every 2nd element, the view ending at the storage end
        big = tuple(2 * size for size in shape)
        data = values(big, dtype, rng, **kw).reshape(big)
        return storage_for(data[tuple(slice(1, None, 2) for _ in shape)])
    if layout == "expanded":  # size-1 dims stretched with stride 0 (first dim if none)
        small = tuple(1 if d == 0 else size for d, size in enumerate(shape))
        data = values(small, dtype, rng, **kw).reshape(small)
        return storage_for(np.broadcast_to(data, shape))
    if layout == "offset":  # starts in the middle of its storage
        data = values((int(np.prod(shape)) + 5,), dtype, rng, **kw)
        return storage_for(data[5:].reshape(shape))
    raise ValueError(layout)


def make_output(layout, shape, dtype):
    """An output view (contiguous, transposed or stepped) inside a sentinel-filled storage."""
    ndim = len(shape)
    if layout == "transposed" and ndim >= 2:
        flat = np.full(int(np.prod(shape)) + 3, SENTINEL, dtype=dtype)
        view = flat[3:].reshape(shape[::-1]).transpose(tuple(range(ndim))[::-1])
    elif layout == "stepped" and ndim >= 1:
        big = tuple(2 * size for size in shape)
        flat = np.full(int(np.prod(big)) + 1, SENTINEL, dtype=dtype)
        view = flat[1:].reshape(big)[tuple(slice(None, None, 2) for _ in shape)]
    else:
        flat = np.full(int(np.prod(shape)) + 2, SENTINEL, dtype=dtype)
        view = flat[1 : 1 + int(np.prod(shape))].reshape(shape)
    return storage_for(view)


def assert_same(numba_out: Strided, ref_out: Strided, dtype, rtol=None):
    """Both storages (the whole of them, sentinel included) agree; floats up to a few ulp,
    NaN equal to NaN."""
    got, want = numba_out.storage, ref_out.storage
    if np.issubdtype(dtype, np.floating):
        rtol = rtol if rtol is not None else (4e-6 if dtype == np.float32 else 1e-13)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def twin(out: Strided) -> Strided:
    """A copy of an output operand (same layout, own storage) for the reference kernel."""
    return Strided(out.storage.copy(), out.shape, out.strides, out.offset)


SHAPES = [(3, 4), (2, 3, 5), (1, 4), (4, 1, 3), (0, 3), (), (7,)]


# --------------------------------------------------------------------------------------
# map
# --------------------------------------------------------------------------------------

FLOAT_ONLY_MAP = {
    "exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
    "floor", "ceil", "reciprocal", "expm1", "asinh", "acosh", "atanh", "erfc", "lgamma",
}  # fmt: skip


INTEGER_ONLY = {"bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
                "bitwise_left_shift", "bitwise_right_shift"}  # fmt: skip (bools use logical_*)


def map_dtypes(op):
    if op in INTEGER_ONLY:
        return INTS
    if op in FLOAT_ONLY_MAP:
        return FLOATS
    if op == "logical_not":
        return ALL_DTYPES
    return (*FLOATS, *INTS)


@pytest.mark.parametrize("op", list(MAP_OPS))
def test_map_every_op_and_dtype(kernels, op):
    rng = np.random.default_rng(1)
    for dtype in map_dtypes(op):
        out_dtype = np.bool_ if MAP_OPS[op].returns_bool else dtype
        for shape, layout in itertools.product(SHAPES, ["contiguous", "transposed", "offset"]):
            a = make_input(layout, shape, dtype, rng)
            out = make_output("contiguous", shape, out_dtype)
            expected = twin(out)
            kernels.map(op, out, a)
            ref.map(op, expected, a)
            assert_same(out, expected, out_dtype)


@pytest.mark.parametrize("in_layout", LAYOUTS)
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed", "stepped"])
def test_map_layouts(kernels, in_layout, out_layout):
    rng = np.random.default_rng(2)
    for shape in SHAPES:
        a = make_input(in_layout, shape, np.float32, rng)
        out = make_output(out_layout, shape, np.float32)
        expected = twin(out)
        kernels.map("neg", out, a)
        ref.map("neg", expected, a)
        assert_same(out, expected, np.float32)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("out_dtype", ALL_DTYPES)
def test_copy_converts_between_every_dtype(kernels, dtype, out_dtype):
    rng = np.random.default_rng(3)
    a = make_input("transposed", (3, 4), dtype, rng, special=False)
    out = make_output("contiguous", (3, 4), out_dtype)
    expected = twin(out)
    kernels.map("copy", out, a)
    ref.map("copy", expected, a)
    assert_same(out, expected, out_dtype)


def test_exp_ieee_edge_cases_and_accuracy(kernels):
    """The vectorized exp keeps IEEE rules and is accurate: float64 within a couple of ulp
    of NumPy, float32 (computed in float32) within 1 ulp of the exact value, from the
    denormal answers near -104 to the overflow near 88.7."""
    edge = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 88.72, 88.73, -87.3, -103.9,
            -104.0, -150.0, 709.78, 709.79, -745.1, -745.2, 1e30, -1e30, 1e-30]  # fmt: skip
    rng = np.random.default_rng(4)
    for dtype in FLOATS:
        sample = [np.array(edge), rng.uniform(-100, 100, 5000), np.linspace(-104, 89, 20000)]
        data = np.concatenate(sample).astype(dtype)
        a = storage_for(data)
        out = make_output("contiguous", data.shape, dtype)
        kernels.map("exp", out, a)
        got = out.storage[1:-1]
        with np.errstate(all="ignore"):
            want = np.exp(data)
            exact = np.exp(data.astype(np.float64))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
        finite = np.isfinite(want)
        step = np.spacing(np.maximum(np.abs(want[finite]), np.finfo(dtype).tiny))
        if dtype == np.float32:
            assert (np.abs(got[finite] - exact[finite]) / step).max() <= 1
        else:
            assert (np.abs(got[finite].astype(np.float64) - want[finite]) / step).max() <= 2


def test_large_tensors_take_the_parallel_path():
    """The kernels split the work over threads (forced, whatever the machine's load
    says): same answers. Rows not a multiple of anything."""
    from minitorch.backends.numba.parallel_policy import force

    rng = np.random.default_rng(5)
    shape = (520, 509)
    for layout in ["contiguous", "transposed", "expanded"]:
        a = make_input(layout, shape, np.float32, rng)
        b = make_input("contiguous", shape, np.float32, rng)
        out = make_output("contiguous", shape, np.float32)
        with force("parallel"):
            tuned.zip("mul", out, a, b)
        view = np.lib.stride_tricks.as_strided
        want = view(a.storage[a.offset :], shape, [s * 4 for s in a.strides]) * view(
            b.storage[b.offset :], shape, [s * 4 for s in b.strides]
        )
        np.testing.assert_array_equal(out.storage[1:-1].reshape(shape), want)
        with force("parallel"):
            tuned.map("exp", out, a)
        with np.errstate(all="ignore"):
            want = np.exp(view(a.storage[a.offset :], shape, [s * 4 for s in a.strides]))
        np.testing.assert_allclose(out.storage[1:-1].reshape(shape), want, rtol=3e-7)
        total = Strided(np.zeros(shape[0]), (shape[0], 1), (1, 1), 0)
        expected = twin(total)
        with force("parallel"):
            tuned.reduce("sum", total, b, 1)
        ref.reduce("sum", expected, b, 1)
        assert_same(total, expected, np.float32, rtol=1e-5)


# --------------------------------------------------------------------------------------
# zip
# --------------------------------------------------------------------------------------


def zip_dtypes(op):
    if op in INTEGER_ONLY:
        return INTS
    if op in ("div",):
        return FLOATS
    if op in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or"):
        return ALL_DTYPES
    if op in ("maximum", "minimum"):
        return (*FLOATS, *INTS, np.bool_)
    return (*FLOATS, *INTS)


def zip_inputs(op, dtype, layout_a, layout_b, shape, rng):
    a = make_input(layout_a, shape, dtype, rng)
    if op in ("floordiv", "remainder") and np.issubdtype(dtype, np.integer):
        b = make_input(layout_b, shape, dtype, rng, low=1, high=5)  # the ops layer rejects 0
    elif op == "pow" and np.issubdtype(dtype, np.integer):
        b = make_input(layout_b, shape, dtype, rng, low=0, high=4)  # and negative powers
    else:
        b = make_input(layout_b, shape, dtype, rng)
    return a, b


@pytest.mark.parametrize("op", list(ZIP_OPS))
def test_zip_every_op_and_dtype(kernels, op):
    rng = np.random.default_rng(6)
    for dtype in zip_dtypes(op):
        out_dtype = np.bool_ if ZIP_OPS[op].returns_bool else dtype
        for shape in SHAPES:
            for layout_b in ["contiguous", "expanded"]:
                a, b = zip_inputs(op, dtype, "contiguous", layout_b, shape, rng)
                out = make_output("contiguous", shape, out_dtype)
                expected = twin(out)
                kernels.zip(op, out, a, b)
                with np.errstate(all="ignore"):
                    ref.zip(op, expected, a, b)
                assert_same(out, expected, out_dtype)


@pytest.mark.parametrize("layout_a", LAYOUTS)
@pytest.mark.parametrize("layout_b", LAYOUTS)
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed", "stepped"])
def test_zip_layouts(kernels, layout_a, layout_b, out_layout):
    rng = np.random.default_rng(7)
    for shape in SHAPES:
        a, b = zip_inputs("sub", np.float64, layout_a, layout_b, shape, rng)
        out = make_output(out_layout, shape, np.float64)
        expected = twin(out)
        kernels.zip("sub", out, a, b)
        ref.zip("sub", expected, a, b)
        assert_same(out, expected, np.float64)


def test_zip_in_place_same_layout(kernels):
    """``out`` may be the very same view as an input (in-place ops): ``a += b``."""
    rng = np.random.default_rng(8)
    a = make_input("transposed", (4, 5), np.float32, rng, special=False)
    b = make_input("expanded", (4, 5), np.float32, rng, special=False)
    expected = twin(a)
    kernels.zip("add", a, a, b)
    ref.zip("add", expected, twin(expected), b)
    assert_same(a, expected, np.float32)


# --------------------------------------------------------------------------------------
# where
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_where(kernels, dtype):
    rng = np.random.default_rng(9)
    for shape in SHAPES:
        for layouts in [("contiguous",) * 3, ("transposed", "expanded", "stepped_at_end")]:
            cond = make_input(layouts[0], shape, np.bool_, rng)
            a = make_input(layouts[1], shape, dtype, rng)
            b = make_input(layouts[2], shape, dtype, rng)
            out = make_output("transposed", shape, dtype)
            expected = twin(out)
            kernels.where(out, cond, a, b)
            ref.where(expected, cond, a, b)
            assert_same(out, expected, dtype)


# --------------------------------------------------------------------------------------
# reduce and arg_reduce
# --------------------------------------------------------------------------------------


def reduce_cases(dtype, rng, reduce_op=None):
    """(a, dim, out shape) for every dim of several shapes and layouts."""
    for shape in [(3, 4), (2, 3, 5), (1, 4), (4, 1), (7,), (3, 0)]:  # (0-d: no dim to fold)
        for layout in ["contiguous", "transposed", "stepped_at_end", "expanded"]:
            if reduce_op in ("max", "min") and 0 in shape:
                continue  # the ops layer rejects max of an empty dimension
            high = 3 if reduce_op == "prod" else 4
            a = make_input(layout, shape, dtype, rng, low=-2, high=high)
            for dim in range(max(len(shape), 1)):
                out_shape = tuple(1 if d == dim else s for d, s in enumerate(shape))
                yield a, dim, out_shape


@pytest.mark.parametrize("op", list(REDUCE_OPS))
def test_reduce_every_op(kernels, op):
    rng = np.random.default_rng(10)
    dtypes = ALL_DTYPES if op in ("any", "all") else (*FLOATS, *INTS)
    for dtype in dtypes:
        out_dtype = np.bool_ if op in ("any", "all") else dtype
        for a, dim, out_shape in reduce_cases(dtype, rng, op):
            for out_layout in ["contiguous", "transposed"]:
                out = make_output(out_layout, out_shape, out_dtype)
                expected = twin(out)
                kernels.reduce(op, out, a, dim)
                with np.errstate(all="ignore"):
                    ref.reduce(op, expected, a, dim)
                assert_same(out, expected, out_dtype, rtol=1e-5 if dtype == np.float32 else None)


def test_sum_of_bool_and_int32_into_int64(kernels):
    """Sums may accumulate in a wider dtype than their input (the ops layer decides)."""
    rng = np.random.default_rng(11)
    for dtype in (np.bool_, np.int32):
        for a, dim, out_shape in reduce_cases(dtype, rng):
            out = make_output("contiguous", out_shape, np.int64)
            expected = twin(out)
            kernels.reduce("sum", out, a, dim)
            ref.reduce("sum", expected, a, dim)
            assert_same(out, expected, np.int64)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", [*FLOATS, *INTS])
def test_arg_reduce_first_index_and_nan(kernels, op, dtype):
    rng = np.random.default_rng(12)
    for a, dim, out_shape in reduce_cases(dtype, rng, "max"):
        out = make_output("contiguous", out_shape, np.int64)
        expected = twin(out)
        kernels.arg_reduce(op, out, a, dim)
        ref.arg_reduce(op, expected, a, dim)
        assert_same(out, expected, np.int64)
    ties = storage_for(np.array([[1, 3, 3, 0, 0]], dtype=dtype))  # first index wins
    out = make_output("contiguous", (1, 1), np.int64)
    kernels.arg_reduce(op, out, ties, 1)
    assert out.storage[1] == (1 if op == "argmax" else 3)
    if dtype in FLOATS:
        nan_row = storage_for(np.array([[1, np.nan, 5, np.nan]], dtype=dtype))
        kernels.arg_reduce(op, out, nan_row, 1)
        assert out.storage[1] == 1


# --------------------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------------------


def matmul_operand(layout, batch, rows, cols, dtype, rng):
    """A ``[batch, rows, cols]`` operand: contiguous, transposed in its last two dims,
    sliced with steps at the end of its storage, or broadcast over the batch (stride 0)."""
    kw = {"special": False, "low": -3, "high": 4}
    if layout == "contiguous":
        return make_input("contiguous", (batch, rows, cols), dtype, rng, **kw)
    if layout == "transposed":
        data = values((batch, cols, rows), dtype, rng, **kw).reshape(batch, cols, rows)
        return storage_for(data.transpose(0, 2, 1))
    if layout == "stepped_at_end":
        return make_input("stepped_at_end", (batch, rows, cols), dtype, rng, **kw)
    if layout == "batch_broadcast":
        data = values((1, rows, cols), dtype, rng, **kw).reshape(1, rows, cols)
        return storage_for(np.broadcast_to(data, (batch, rows, cols)))
    raise ValueError(layout)


MATMUL_LAYOUTS = ["contiguous", "transposed", "stepped_at_end", "batch_broadcast"]


@pytest.mark.parametrize("dtype", [*FLOATS, *INTS])
def test_matmul_shapes_and_dtypes(kernels, dtype):
    rng = np.random.default_rng(13)
    for batch, n, k, m in [(1, 1, 1, 1), (2, 5, 7, 6), (1, 4, 8, 4), (3, 1, 9, 2), (1, 13, 3, 9)]:
        a = matmul_operand("contiguous", batch, n, k, dtype, rng)
        b = matmul_operand("contiguous", batch, k, m, dtype, rng)
        out = make_output("contiguous", (batch, n, m), dtype)
        expected = twin(out)
        kernels.matmul(out, a, b)
        ref.matmul(expected, a, b)
        assert_same(out, expected, dtype)


@pytest.mark.parametrize("layout_a", MATMUL_LAYOUTS)
@pytest.mark.parametrize("layout_b", MATMUL_LAYOUTS)
def test_matmul_layouts(kernels, layout_a, layout_b):
    rng = np.random.default_rng(14)
    a = matmul_operand(layout_a, 2, 6, 5, np.float64, rng)
    b = matmul_operand(layout_b, 2, 5, 7, np.float64, rng)
    for out_layout in ["contiguous", "transposed", "stepped"]:
        out = make_output(out_layout, (2, 6, 7), np.float64)
        expected = twin(out)
        kernels.matmul(out, a, b)
        ref.matmul(expected, a, b)
        assert_same(out, expected, np.float64)


def test_matmul_empty_and_blocked(kernels):
    rng = np.random.default_rng(15)
    for batch, n, k, m in [(1, 3, 0, 4), (0, 2, 2, 2), (1, 0, 3, 2)]:  # k = 0: all zeros
        a = matmul_operand("contiguous", batch, n, k, np.float32, rng)
        b = matmul_operand("contiguous", batch, k, m, np.float32, rng)
        out = make_output("contiguous", (batch, n, m), np.float32)
        expected = twin(out)
        kernels.matmul(out, a, b)
        ref.matmul(expected, a, b)
        assert_same(out, expected, np.float32)
    # several row and column blocks, edges not multiples of the tile, parallel path
    a = matmul_operand("transposed", 1, 70, 130, np.float64, rng)
    b = matmul_operand("stepped_at_end", 1, 130, 67, np.float64, rng)
    out = make_output("contiguous", (1, 70, 67), np.float64)
    kernels.matmul(out, a, b)
    view = np.lib.stride_tricks.as_strided
    a_np = view(a.storage[a.offset :], a.shape, [s * 8 for s in a.strides])
    b_np = view(b.storage[b.offset :], b.shape, [s * 8 for s in b.strides])
    np.testing.assert_allclose(out.storage[1:-1].reshape(1, 70, 67), a_np @ b_np, rtol=1e-12, atol=1e-11)


# --------------------------------------------------------------------------------------
# gather and scatter_add
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [*FLOATS, *INTS])
def test_gather_and_scatter_add(kernels, dtype):
    rng = np.random.default_rng(16)
    for a_shape, index_shape in [((4, 5), (4, 3)), ((2, 3, 4), (2, 3, 2)), ((6,), (9,))]:
        for dim in range(len(a_shape)):
            index_shape_d = tuple(s if d == dim else min(s, a_shape[d]) for d, s in enumerate(index_shape))
            a = make_input("transposed", a_shape, dtype, rng, special=False)
            index = storage_for(rng.integers(0, a_shape[dim], index_shape_d).astype(np.int64).T.copy().T)
            out = make_output("stepped", index_shape_d, dtype)
            expected = twin(out)
            kernels.gather(out, a, dim, index)
            ref.gather(expected, a, dim, index)
            assert_same(out, expected, dtype)

            src = make_input("offset", index_shape_d, dtype, rng, special=False)
            target = make_output("transposed", a_shape, dtype)
            target.storage[:] = 0
            expected = twin(target)
            kernels.scatter_add(target, dim, index, src)
            ref.scatter_add(expected, dim, index, src)
            assert_same(target, expected, dtype)


# --------------------------------------------------------------------------------------
# The kernels are cached on disk
# --------------------------------------------------------------------------------------


CACHE_PROBE = """
import numpy as np
from minitorch.backends import Strided
from minitorch.backends import numba as tuned

out = Strided(np.zeros(6), (2, 3), (3, 1), 0)
a = Strided(np.arange(6.0), (2, 3), (1, 2), 0)
tuned.map("neg", out, a)
tuned.zip("add", out, a, a)
tuned.reduce("sum", Strided(np.zeros(2), (2, 1), (1, 1), 0), a, 1)
tuned.matmul(Strided(np.zeros(4), (1, 2, 2), (4, 2, 1), 0),  # tiled
             Strided(np.arange(32.0), (1, 2, 16), (32, 16, 1), 0),
             Strided(np.arange(32.0), (1, 16, 2), (32, 2, 1), 0))
tuned.matmul(Strided(np.zeros(4), (1, 2, 2), (4, 2, 1), 0),  # columns
             Strided(np.arange(6.0), (1, 2, 3), (6, 3, 1), 0),
             Strided(np.arange(6.0), (1, 3, 2), (6, 2, 1), 0))
from minitorch.backends.numba.elementwise_kernels import TILES  # a (1, 2)-strided 2-D operand
kernels = [tuned.MAP_KERNELS["neg"][TILES][0], tuned.ZIP_KERNELS["add"][TILES][0],
           tuned.REDUCE_KERNELS["sum"][False][0], tuned.MATMUL_KERNELS[0], tuned.COLUMNS_MATMUL_KERNEL]
print(sum(sum(k.stats.cache_hits.values()) for k in kernels),
      sum(sum(k.stats.cache_misses.values()) for k in kernels))
"""


def test_kernels_are_loaded_from_the_disk_cache_in_a_new_process():
    """Kernels are ``cache=True`` and capture only values that pickle the same way in every
    process, so a second process loads them instead of compiling them again."""
    import subprocess
    import sys

    def hits_and_misses():
        result = subprocess.run(
            [sys.executable, "-c", CACHE_PROBE], capture_output=True, text=True, check=True
        )
        hits, misses = result.stdout.split()
        return int(hits), int(misses)

    hits_and_misses()  # fills the cache if it is empty
    hits, misses = hits_and_misses()
    assert (hits, misses) == (5, 0)


def test_large_arg_reduce_gather_and_matmul_take_the_parallel_path():
    rng = np.random.default_rng(18)
    data = rng.standard_normal((600, 500))
    a = storage_for(data)
    for dim in (0, 1):
        out_shape = (1, 500) if dim == 0 else (600, 1)
        out = make_output("contiguous", out_shape, np.int64)
        tuned.arg_reduce("argmax", out, a, dim)
        np.testing.assert_array_equal(
            out.storage[1:-1].reshape(out_shape), data.argmax(axis=dim).reshape(out_shape)
        )
    index_data = rng.integers(0, 500, (600, 500))
    out = make_output("contiguous", (600, 500), np.float64)
    tuned.gather(out, a, 1, storage_for(index_data))
    want = np.take_along_axis(data, index_data, axis=1)
    np.testing.assert_array_equal(out.storage[1:-1].reshape(600, 500), want)
    left, right = rng.standard_normal((2, 130, 140)), rng.standard_normal((2, 140, 120))
    out = make_output("contiguous", (2, 130, 120), np.float64)
    tuned.matmul(out, storage_for(left), storage_for(right))
    np.testing.assert_allclose(out.storage[1:-1].reshape(2, 130, 120), left @ right, rtol=1e-12, atol=1e-11)


def test_layout_caches_stay_bounded():
    """20,000 distinct shapes (a program making ever new shapes) keep each layout cache at
    its bound: the least recently used layouts are dropped (issue 18.5)."""
    tuned.reduce_layout.cache_clear()
    tuned.elementwise_layout.cache_clear()
    one = np.ones(1)
    for length in range(1, 20_001):
        a = Strided(one, (length,), (0,), 0)  # one cell read `length` times
        out = Strided(np.zeros(1), (1,), (1,), 0)
        tuned.reduce("sum", out, a, 0)
        tuned.map("neg", Strided(np.zeros(1), (length,), (0,), 0), a)
        assert out.storage[0] == length
    for cache in (tuned.reduce_layout, tuned.elementwise_layout):
        assert cache.cache_info().currsize == tuned.LAYOUT_CACHE_SIZE
