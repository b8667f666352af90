"""Differential tests: every CUDA kernel, run on the emulator, against the reference
backend (the executable spec), on strided operands built from NumPy arrays.

Adversarial layouts (transposed, stepped slices with an offset, stride 0, dimensions of
size 0 and 1, 0-d tensors), every dtype, and every test in forward and reversed thread
order (the ``order`` fixture). Shapes stay small: the reference is plain Python loops.
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda_cases import DTYPES, FLOATS, LAYOUTS, Operand, assert_same, operand, output, run_both

from minitorch.backends import cuda, cuda_emulator
from minitorch.backends.cuda import device, launcher
from minitorch.layout import contiguous_strides
from minitorch.scalar_ops import MAP_OPS, ZIP_OPS

SHAPES = [(3, 5), (2, 1, 4), (1, 6), (0, 3), ()]
FLOAT_OUT_MAP = [o for o in MAP_OPS if MAP_OPS[o].returns_float]


@pytest.fixture
def rng():
    return np.random.default_rng(5)


def _out_dtype(op: str, dtype: str, table: dict) -> str:
    return "bool" if table[op].returns_bool else dtype


def _reference_allows(check) -> bool:
    """NumPy refuses some ops on bools (``-True``), and the shifts ask ``np.iinfo`` for the
    width of a float (ValueError); the ops layer never asks for them."""
    try:
        with np.errstate(all="ignore"):
            check()
    except (TypeError, ValueError):
        return False
    return True


# --------------------------------------------------------------------------------------
# map
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", list(MAP_OPS))
def test_map_every_op_and_dtype(order, rng, op, dtype):
    if dtype not in FLOATS and op in FLOAT_OUT_MAP:
        if dtype == "bool":
            pytest.skip("NumPy computes exp(bool) in float16; the ops layer casts first")
        out_dtype = "float32"  # exp of an integer: the kernel computes in double
    else:
        out_dtype = _out_dtype(op, dtype, MAP_OPS)
    if not _reference_allows(lambda: MAP_OPS[op].fn(np.ones(1, dtype)[0])):
        pytest.skip(f"NumPy has no {op} for {dtype}")
    a = operand(rng, dtype, (4, 6), "transposed", low=-3, high=3)
    if dtype in FLOATS:
        a.storage[:4] = [np.nan, np.inf, -np.inf, -0.0]
    expected, actual = run_both("map", output(out_dtype, (4, 6)), op, a)
    assert_same(expected, actual, rtol=1e-5 if out_dtype == "float32" else None)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("in_layout", LAYOUTS)
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed", "stepped"])
def test_map_layouts(order, rng, shape, in_layout, out_layout):
    a = operand(rng, "float32", shape, in_layout)
    expected, actual = run_both("map", output("float32", shape, out_layout), "neg", a)
    assert_same(expected, actual)


@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.parametrize("target", DTYPES)
def test_copy_converts_between_every_pair_of_dtypes(order, rng, source, target):
    a = operand(rng, source, (3, 4), "stepped", low=-5, high=5)
    expected, actual = run_both("map", output(target, (3, 4)), "copy", a)
    assert_same(expected, actual)


def test_map_grid_stride_loop_covers_more_elements_than_threads(emulator, rng):
    """More elements than the emulator's grid has threads (64 blocks x 256)."""
    count = 64 * 256 * 2 + 77
    values = rng.standard_normal(count).astype(np.float32)
    a = Operand(values, (count,), (1,), 0)
    out = Operand(np.zeros(count, np.float32), (count,), (1,), 0)
    device_out = out.device()
    cuda.map("exp", device_out, a.device())
    np.testing.assert_allclose(cuda.to_numpy(device_out.storage), np.exp(values), rtol=1e-6)
    strided = Operand(np.repeat(values, 2), (count,), (2,), 0)  # the strided path
    cuda.map("neg", device_out, strided.device())
    np.testing.assert_array_equal(cuda.to_numpy(device_out.storage), -values)


# --------------------------------------------------------------------------------------
# zip and where
# --------------------------------------------------------------------------------------


def _zip_operands(rng, op: str, dtype: str, shape, layouts=("stepped", "broadcast")):
    a = operand(rng, dtype, shape, layouts[0], low=-5, high=5)
    b = operand(rng, dtype, shape, layouts[1], low=-5, high=5)
    if dtype not in FLOATS and dtype != "bool":
        if op in ("floordiv", "remainder"):
            b.storage[b.storage == 0] = 3  # the ops layer rejects integer division by 0
        if op == "pow":
            b.storage[:] = np.abs(b.storage) % 4  # and negative integer powers
    if dtype in FLOATS:  # zeros, signed zeros, NaN and infinities meet every op
        a.storage[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 7.0]
        b.storage[:5] = [0.0, 1.0, 2.0, np.inf, -np.inf]
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", list(ZIP_OPS))
def test_zip_every_op_and_dtype(order, rng, op, dtype):
    ones = np.ones(1, dtype)[0]
    if not _reference_allows(lambda: ZIP_OPS[op].fn(ones, ones)):
        pytest.skip(f"NumPy has no {op} for {dtype}")
    if dtype == "bool" and op == "atan2":
        pytest.skip(f"NumPy computes {op}(bool, bool) in float16; the ops layer casts first")
    out_dtype = _out_dtype(op, dtype, ZIP_OPS)
    if dtype not in FLOATS and ZIP_OPS[op].returns_float:
        out_dtype = "float32"  # true division of integers
    a, b = _zip_operands(rng, op, dtype, (4, 5))
    expected, actual = run_both("zip", output(out_dtype, (4, 5)), op, a, b)
    assert_same(expected, actual, rtol=1e-5 if out_dtype == "float32" else None)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"), ("transposed", "broadcast"),
                                     ("broadcast", "stepped"), ("stepped", "transposed")])  # fmt: skip
def test_zip_layouts(order, rng, shape, layouts):
    a, b = _zip_operands(rng, "sub", "int64", shape, layouts)
    expected, actual = run_both("zip", output("int64", shape, "stepped"), "sub", a, b)
    assert_same(expected, actual)


def test_integer_floor_division_and_remainder_follow_python(emulator):
    a = np.array([7, -7, 7, -7, 0, np.iinfo(np.int64).min, 5], np.int64)
    b = np.array([2, 2, -2, -2, 3, -1, 1], np.int64)
    for op, python in [("floordiv", lambda x, y: x // y), ("remainder", lambda x, y: x % y)]:
        out = Operand(np.zeros(7, np.int64), (7,), (1,), 0).device()
        cuda.zip(op, out, Operand(a, (7,), (1,), 0).device(), Operand(b, (7,), (1,), 0).device())
        with np.errstate(all="ignore"):
            expected = [python(np.int64(x), np.int64(y)) for x, y in zip(a, b)]
        np.testing.assert_array_equal(cuda.to_numpy(out.storage), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layouts", [("contiguous",) * 3, ("broadcast", "transposed", "stepped")])
def test_where(order, rng, dtype, layouts):
    cond = operand(rng, "bool", (3, 4), layouts[0])
    a = operand(rng, dtype, (3, 4), layouts[1])
    b = operand(rng, dtype, (3, 4), layouts[2])
    expected, actual = run_both("where", output(dtype, (3, 4), "transposed"), cond, a, b)
    assert_same(expected, actual)


# --------------------------------------------------------------------------------------
# reduce and arg_reduce
# --------------------------------------------------------------------------------------

REDUCTIONS = [("sum", None), ("prod", None), ("max", None), ("min", None), ("any", "bool"),
              ("all", "bool"), ("sum", "int64"), ("prod", "int64")]  # fmt: skip


def _reduce_case(rng, op, dtype, shape, dim, layout):
    a = operand(rng, dtype, shape, layout, low=-3, high=3)
    if op == "prod" and dtype in FLOATS:
        a.storage[:] = rng.uniform(0.8, 1.25, a.storage.size)  # no overflow over long lines
    out_shape = tuple(1 if d == dim else s for d, s in enumerate(shape))
    return a, out_shape


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "out_dtype"), REDUCTIONS)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_reduce_every_op_dtype_and_dim(order, rng, op, out_dtype, dtype, dim):
    if out_dtype == "int64" and dtype not in ("bool", "int32"):
        pytest.skip("sums of int64 and floats keep their dtype")
    out_dtype = out_dtype or dtype
    a, out_shape = _reduce_case(rng, op, dtype, (3, 4, 5), dim, "transposed")
    if dtype in FLOATS:
        a.storage[7] = np.nan  # NaN wins max/min and poisons sums
    expected, actual = run_both("reduce", output(out_dtype, out_shape), op, a, dim)
    assert_same(expected, actual, atol=1e-5 if out_dtype == "float32" else None)


@pytest.mark.parametrize(
    ("shape", "dim", "layout"),
    [((300,), 0, "stepped"),  # longer than a block: each thread folds several elements
     ((600, 3), 1, "contiguous"),  # more outputs than the grid has rows: grid-stride loop
     ((5, 0, 2), 1, "contiguous"),  # an empty line: the identity
     ((4, 1, 3), 1, "broadcast"),
     ((7, 40), 0, "broadcast"),  # a stride-0 reduced dimension
     ((), 0, "contiguous"),  # a 0-d tensor (dim 0 of a 0-d tensor is itself)
     ((65, 9), 0, "transposed")],
)  # fmt: skip
@pytest.mark.parametrize("op", ["sum", "max", "all"])
def test_reduce_shapes(order, rng, shape, dim, layout, op):
    if shape == ():
        pytest.skip("a 0-d tensor is never reduced by the ops layer")
    if op == "max" and 0 in shape:
        pytest.skip("max of an empty line is rejected by the ops layer")
    dtype = "bool" if op == "all" else "float64"
    a, out_shape = _reduce_case(rng, op, dtype, shape, dim, layout)
    expected, actual = run_both("reduce", output(dtype, out_shape, "stepped"), op, a, dim)
    assert_same(expected, actual, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize(("shape", "dim"), [((4, 37), 1), ((37, 4), 0), ((3, 300), 1), ((2, 1, 3), 1)])
def test_arg_reduce(order, rng, op, dtype, shape, dim):
    a = operand(rng, dtype, shape, "transposed", low=-2, high=2)  # many ties: first wins
    if dtype in FLOATS and shape[dim] > 10:
        a.storage[[5, 9]] = np.nan  # the first NaN wins
    out_shape = tuple(1 if d == dim else s for d, s in enumerate(shape))
    expected, actual = run_both("arg_reduce", output("int64", out_shape), op, a, dim)
    assert_same(expected, actual)


# --------------------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------------------


def _matrix(rng, dtype, shape, layout):
    if layout == "transposed":  # each matrix stored transposed: [b, k, n] read as [b, n, k]
        batch, rows, cols = shape
        storage = operand(rng, dtype, (batch, cols, rows), "contiguous", low=-3, high=3).storage
        return Operand(storage, shape, (rows * cols, 1, rows), 0)
    return operand(rng, dtype, shape, layout, low=-3, high=3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("batch", "rows", "inner", "cols"),
    [(1, 1, 1, 1), (2, 17, 19, 23), (1, 16, 16, 16), (3, 5, 33, 2), (1, 4, 0, 3), (2, 1, 40, 1)],
)
def test_matmul_sizes_and_dtypes(order, rng, dtype, batch, rows, inner, cols):
    a = _matrix(rng, dtype, (batch, rows, inner), "transposed")
    b = _matrix(rng, dtype, (batch, inner, cols), "stepped")
    expected, actual = run_both("matmul", output(dtype, (batch, rows, cols)), a, b)
    assert_same(expected, actual, rtol=1e-5, atol=1e-5)


def test_matmul_broadcast_batch_and_strided_out(order, rng):
    a = _matrix(rng, "float64", (3, 18, 7), "broadcast")  # every batch reads one matrix
    b = _matrix(rng, "float64", (3, 7, 21), "transposed")
    expected, actual = run_both("matmul", output("float64", (3, 18, 21), "transposed"), a, b)
    assert_same(expected, actual)


def test_matmul_more_batches_than_the_grid_and_empty(emulator, rng):
    a = _matrix(rng, "float32", (3, 2, 3), "contiguous")
    b = _matrix(rng, "float32", (3, 3, 0), "contiguous")
    expected, actual = run_both("matmul", output("float32", (3, 2, 0)), a, b)
    assert_same(expected, actual)


# --------------------------------------------------------------------------------------
# gather and scatter_add
# --------------------------------------------------------------------------------------


def _index(rng, shape, size, layout="contiguous"):
    index = operand(rng, "int64", shape, layout)
    index.storage[:] = rng.integers(0, size, index.storage.size)
    return index


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gather(order, rng, dtype, dim):
    a = operand(rng, dtype, (4, 5, 3), "transposed")
    shape = tuple(2 if d != dim else 6 for d in range(3))  # smaller elsewhere, longer along dim
    index = _index(rng, shape, a.shape[dim], "stepped")
    expected, actual = run_both("gather", output(dtype, shape, "transposed"), a, dim, index)
    assert_same(expected, actual)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_scatter_add_with_repeated_targets(order, rng, dtype, dim):
    out_shape = (3, 4, 2)
    out = operand(rng, dtype, out_shape, "contiguous")
    src = operand(rng, dtype, (3, 4, 2), "transposed")
    index = _index(rng, src.shape, out_shape[dim], "transposed")  # many sources per cell
    expected, actual = run_both("scatter_add", out, dim, index, src)
    assert_same(expected, actual, rtol=1e-5, atol=1e-5)


def test_scatter_add_bool_next_to_other_bytes(emulator):
    """bool atomics set one byte inside a 4-byte word; its neighbours must survive."""
    out = Operand(np.array([True, False, False, True, False], bool), (5,), (1,), 0)
    src = Operand(np.array([True, False, True], bool), (3,), (1,), 0)
    index = Operand(np.array([2, 0, 4], np.int64), (3,), (1,), 0)
    expected, actual = run_both("scatter_add", out, 0, index, src)
    assert_same(expected, actual)


# --------------------------------------------------------------------------------------
# launches, storage and errors
# --------------------------------------------------------------------------------------


def test_shuffled_order_agrees_too(emulator, rng):
    a = operand(rng, "float32", (37, 70), "transposed")
    with cuda_emulator.thread_order("shuffled", seed=3):
        expected, actual = run_both("reduce", output("float32", (37, 1)), "sum", a, 1)
    assert_same(expected, actual, atol=1e-5)


def test_too_many_dimensions_is_a_clear_error(emulator):
    shape = (2,) * 11
    a = Operand(np.zeros(2**12, np.float32), shape, tuple(2 * s for s in contiguous_strides(shape)), 0)
    out = Operand(np.zeros(2**11, np.float32), shape, contiguous_strides(shape)[::-1], 0)
    with pytest.raises(RuntimeError, match="at most 10 dimensions"):
        cuda.map("neg", out.device(), a.device())


def test_host_storage_is_rejected(emulator):
    a = Operand(np.zeros(3, np.float32), (3,), (1,), 0)
    with pytest.raises(TypeError, match="CUDA storage"):
        cuda.map("neg", a.device(), a.host())


def test_storage_round_trip_and_memory_stats(emulator):
    before = device.runtime().allocator.stats()["allocated_bytes.all.current"]
    storage = cuda.from_numpy(np.arange(10, dtype=np.int32))
    assert isinstance(storage, cuda_emulator.DeviceArray)
    assert device.runtime().allocator.stats()["allocated_bytes.all.current"] >= before + 40
    host = cuda.to_numpy(storage)
    assert type(host) is np.ndarray and host.tolist() == list(range(10))
    host[0] = 99  # a copy: the device is untouched
    assert cuda.to_numpy(storage)[0] == 0


def test_compile_errors_name_the_kernel_and_show_the_compiler_log(emulator, monkeypatch):
    from minitorch.scalar_ops import ScalarOp

    monkeypatch.setitem(MAP_OPS, "broken", ScalarOp("broken", 1, lambda a: a, "no_such_function(a)"))
    a = Operand(np.zeros(3, np.float32), (3,), (1,), 0)
    with pytest.raises(cuda.CudaCompileError, match="map_broken_float32_float32") as error:
        cuda.map("broken", a.device(), a.device())
    assert "no_such_function" in str(error.value) and "map.cu:" in str(error.value)


@pytest.mark.parametrize(
    ("grid", "block", "shared"),
    [((0,), (32,), 0), ((1, 70000), (32,), 0), ((1,), (64, 32), 0), ((1,), (32,), 1 << 20)],
)
def test_invalid_launch_sizes_are_python_errors(grid, block, shared):
    def never_called(*args, **kwargs):
        raise AssertionError("the kernel must not run")

    with pytest.raises(RuntimeError, match="invalid CUDA launch"):
        launcher.launch(never_called, grid, block, (), shared)
