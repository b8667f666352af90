"""The small dtypes: uint8, int8, int16, float16 and bfloat16 (issue 14, item 5).

Every value is checked against torch on the CPU: integers exactly (uint8 wraps around,
division rounds as torch's), float16 and bfloat16 bit for bit wherever torch's result is
a correctly rounded float32 result (arithmetic, comparisons, casts, sums of exact values)
and within one 16-bit ulp for the transcendental functions (torch and minitorch use
different float32 exp/log/sin, whose last-bit differences may round apart). Operands are
contiguous, transposed, sliced, expanded, 0-d and empty. Runs on every CPU backend (see
``tests/core/conftest.py``).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

import minitorch as mt

INTS = ("uint8", "int8", "int16")
HALVES = ("float16", "bfloat16")
SMALL = INTS + HALVES
ULP = {"float16": 2.0**-10, "bfloat16": 2.0**-7}  # one ulp at 1.0
LAYOUTS = ("contiguous", "transposed", "sliced", "expanded", "zero_dim", "empty")


def values(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Random values a ``dtype`` tensor holds exactly (float64 or int64 NumPy)."""
    rng = np.random.default_rng(seed)
    if dtype in INTS:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max + 1, size=shape)
    wide = torch.tensor(rng.normal(0, 4, size=shape), dtype=torch.float64)
    return wide.to(getattr(torch, dtype)).double().numpy()  # representable in dtype


def operand(lib, dtype: str, layout: str, seed: int):
    """A (4, 3) operand of ``dtype`` in ``layout`` (0-d and (0, 3) for the edge cases)."""
    shapes = {"contiguous": (4, 3), "transposed": (3, 4), "sliced": (4, 6), "expanded": (1, 3),
              "zero_dim": (), "empty": (0, 3)}  # fmt: skip
    t = lib.tensor(values(dtype, shapes[layout], seed), dtype=getattr(lib, dtype))
    if layout == "transposed":
        return t.t()
    if layout == "sliced":
        return t[:, ::2]
    if layout == "expanded":
        return t.expand(4, 3)
    return t


def as_numpy(t) -> np.ndarray:
    """Values of a torch or minitorch tensor, exactly (16-bit floats widened)."""
    if str(t.dtype).split(".")[1] in HALVES:
        t = t.float()
    return t.detach().numpy()


def check(got, want, ulps: float = 0) -> None:
    """``got`` (minitorch) equals ``want`` (torch): dtype, shape and values, bit for bit
    (the sign of zero included) unless ``ulps`` allows that many 16-bit ulps."""
    name = str(want.dtype).split(".")[1]
    assert str(got.dtype) == str(want.dtype), (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    g, w = as_numpy(got), as_numpy(want)
    if ulps and name in (*ULP, "float32"):  # (float32: exp of an integer tensor)
        np.testing.assert_allclose(g, w, rtol=ulps * ULP.get(name, 2.0**-23), atol=1e-30)
        assert np.array_equal(np.isnan(g), np.isnan(w))
    else:
        assert np.array_equal(g, w, equal_nan=True), f"\n{g}\n!=\n{w}"
        numbers = ~np.isnan(w)  # (a NaN's sign bit means nothing and differs by CPU)
        assert np.array_equal(np.signbit(g[numbers]), np.signbit(w[numbers]))


# ----- creation and conversion --------------------------------------------------------


@pytest.mark.parametrize("dtype", SMALL)
def test_factories(dtype):
    d_m, d_t = getattr(mt, dtype), getattr(torch, dtype)
    check(mt.zeros(2, 3, dtype=d_m), torch.zeros(2, 3, dtype=d_t))
    check(mt.ones(4, dtype=d_m), torch.ones(4, dtype=d_t))
    check(mt.full((2,), 7, dtype=d_m), torch.full((2,), 7, dtype=d_t))
    check(mt.arange(6, dtype=d_m), torch.arange(6, dtype=d_t))
    check(mt.tensor([[1, 2], [3, 4]], dtype=d_m), torch.tensor([[1, 2], [3, 4]], dtype=d_t))
    check(mt.tensor(5, dtype=d_m), torch.tensor(5, dtype=d_t))
    check(mt.tensor([], dtype=d_m), torch.tensor([], dtype=d_t))
    check(mt.zeros_like(mt.ones(2, dtype=d_m)), torch.zeros_like(torch.ones(2, dtype=d_t)))
    assert mt.ones(3, dtype=d_m).element_size() == torch.ones(3, dtype=d_t).element_size()


def test_conversion_methods():
    data = [-1.5, 0.25, 2.75, 300.0]
    for method in ("half", "bfloat16", "short", "char", "byte", "float", "double", "long", "int", "bool"):
        x_m, x_t = mt.tensor(data[:3]), torch.tensor(data[:3])
        check(getattr(x_m, method)(), getattr(x_t, method)())
    for name in SMALL:
        assert mt.ones(1, dtype=getattr(mt, name)).type() == torch.ones(1, dtype=getattr(torch, name)).type()
    assert mt.tensor([1.0]).type("minitorch.HalfTensor").dtype is mt.float16


@pytest.mark.parametrize("target", HALVES)
def test_rounding_to_16_bits_is_torchs_bit_for_bit(target):
    """Casts round to nearest, ties to even; too large becomes inf; subnormals stay; a
    float64 reaches 16 bits through float32 (rounding twice), as torch's casts do."""
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, size=4000, dtype=np.uint64).astype(np.uint32)
    floats = bits.view(np.float32)
    floats = floats[~np.isnan(floats)]
    special = np.array([0.0, -0.0, np.inf, -np.inf, 65504.0, 65520.0, 3.4e38, 1e-8, 6e-8, -1e-40,
                        1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8],
                       np.float32)  # ties of both types (to even: down, up)  # fmt: skip
    for array in (np.concatenate([floats, special]), rng.normal(0, 1e3, 500)):
        check(mt.tensor(array).to(getattr(mt, target)), torch.tensor(array).to(getattr(torch, target)))
    tie = 1.0 + 2.0**-11 + 2.0**-40  # above a float16 tie; through float32 it becomes the tie
    check(mt.tensor([tie], dtype=mt.float64).to(mt.float16), torch.tensor([tie], dtype=torch.float64).half())
    nan = mt.tensor([float("nan")]).to(getattr(mt, target))
    assert np.isnan(nan.float().item())


@pytest.mark.parametrize("source", SMALL)
@pytest.mark.parametrize("target", (*SMALL, "int64", "float32", "bool"))
def test_casts_between_dtypes(source, target):
    x_m = operand(mt, source, "transposed", 1)
    x_t = operand(torch, source, "transposed", 1)
    if source in HALVES and target in INTS:  # torch leaves out-of-range casts undefined
        x_m, x_t = x_m.clamp(-100, 100), x_t.clamp(-100, 100)
        if target == "uint8":
            x_m, x_t = x_m.abs(), x_t.abs()
    check(x_m.to(getattr(mt, target)), x_t.to(getattr(torch, target)))


@pytest.mark.parametrize("target", INTS)
def test_floats_beyond_a_small_integer_wrap_like_torch(target):
    """float -> int8 rounds toward zero into an int64 and keeps the low bits, as PyTorch's
    C++ does (within int32's range; beyond it C leaves the result undefined)."""
    data = [300.0, -1.7, 255.9, -129.5, 70000.0, 2.5, -0.5, -300.25]
    for source in ("float32", "float64", "float16"):
        x_m = mt.tensor(data).to(getattr(mt, source))
        x_t = torch.tensor(data).to(getattr(torch, source))
        check(x_m.to(getattr(mt, target)), x_t.to(getattr(torch, target)))


# ----- elementwise --------------------------------------------------------------------

EXACT_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": lambda a, b: a.maximum(b),
    "minimum": lambda a, b: a.minimum(b),
    "eq": lambda a, b: a == b,
    "lt": lambda a, b: a < b,
    "ge": lambda a, b: a >= b,
}


@pytest.mark.parametrize("dtype", SMALL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", EXACT_BINARY)
def test_binary_ops(dtype, layout, op):
    f = EXACT_BINARY[op]
    other = "empty" if layout == "empty" else "contiguous"
    a_m, b_m = operand(mt, dtype, layout, 1), operand(mt, dtype, other, 2)
    a_t, b_t = operand(torch, dtype, layout, 1), operand(torch, dtype, other, 2)
    if op == "div" and dtype in INTS:
        b_m, b_t = b_m.clamp(1, 100), b_t.clamp(1, 100)
    check(f(a_m, b_m), f(a_t, b_t))
    if op not in ("maximum", "minimum"):  # (which take tensors only)
        check(f(a_m, 3), f(a_t, 3))  # a Python scalar does not upcast


@pytest.mark.parametrize("dtype", SMALL)
def test_floor_division_and_remainder(dtype):
    a = values(dtype, (40,), 3)
    b = values(dtype, (40,), 4)
    b[b == 0] = 1 if dtype != "uint8" else 7
    if dtype in INTS and dtype != "uint8":
        a[:2], b[:2] = np.iinfo(dtype).min, -1  # the smallest integer over -1 wraps to itself
    a_m, b_m = (mt.tensor(v, dtype=getattr(mt, dtype)) for v in (a, b))
    a_t, b_t = (torch.tensor(v, dtype=getattr(torch, dtype)) for v in (a, b))
    check(a_m // b_m, a_t // b_t)
    check(a_m % b_m, a_t % b_t)


def test_uint8_wraps_around_like_torch():
    t_m, t_t = mt.tensor([250, 3, 0], dtype=mt.uint8), torch.tensor([250, 3, 0], dtype=torch.uint8)
    for f in (lambda t: t + 10, lambda t: t + 300, lambda t: t - 251, lambda t: t * 2,
              lambda t: -t, lambda t: t // 3, lambda t: t - 1, lambda t: t == 255,
              lambda t: t > -1, lambda t: t.abs()):  # fmt: skip
        check(f(t_m), f(t_t))
    assert (mt.tensor([250], dtype=mt.uint8) + 10).item() == 4
    check(mt.tensor([100, -100], dtype=mt.int8) * 3, torch.tensor([100, -100], dtype=torch.int8) * 3)
    check(mt.tensor([-1, -255], dtype=mt.uint8), torch.tensor([-1, -255], dtype=torch.uint8))
    for bad in (256, -256, 1e6):
        with pytest.raises(RuntimeError, match="cannot be converted to type uint8"):
            mt.tensor([bad], dtype=mt.uint8)
        with pytest.raises(RuntimeError, match="cannot be converted to type uint8_t"):
            mt.full((1,), bad, dtype=mt.uint8)
    with pytest.raises(RuntimeError, match="int8_t without overflow"):
        mt.full((1,), 128, dtype=mt.int8)


EXACT_UNARY = ("neg", "abs", "sqrt", "relu", "floor", "ceil", "sign", "reciprocal")
CLOSE_UNARY = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "rsqrt", "log1p")


@pytest.mark.parametrize("dtype", SMALL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unary_ops(dtype, layout):
    x_m, x_t = operand(mt, dtype, layout, 5), operand(torch, dtype, layout, 5)
    for op in EXACT_UNARY + CLOSE_UNARY:
        if dtype in INTS and op in ("relu", "floor", "ceil") + CLOSE_UNARY[1:] + ("sqrt", "reciprocal"):
            continue  # (torch has some of these for integers; exp covers the int -> float path)
        if dtype == "uint8" and op in ("neg", "sign"):
            continue
        positive = op in ("log", "sqrt", "rsqrt", "log1p")
        a_m, a_t = (x_m.abs() + 1, x_t.abs() + 1) if positive else (x_m, x_t)
        check(getattr(a_m, op)(), getattr(a_t, op)(), ulps=0 if op in EXACT_UNARY else 1)


@pytest.mark.parametrize("dtype", HALVES)
def test_16_bit_overflow_nan_and_infinity(dtype):
    d_m, d_t = getattr(mt, dtype), getattr(torch, dtype)
    big = 60000.0 if dtype == "float16" else 3e38
    x_m, x_t = mt.tensor([big, -big, 0.0, 1.0], dtype=d_m), torch.tensor([big, -big, 0.0, 1.0], dtype=d_t)
    check(x_m * 2, x_t * 2)  # overflows to +-inf, rounded from float32
    check(x_m / 0, x_t / 0)  # inf, -inf, nan, inf
    check(x_m - x_m * 2, x_t - x_t * 2)
    check((x_m * 2).isinf(), (x_t * 2).isinf())
    check(x_m * 2.5, x_t * 2.5)  # the scalar stays 16-bit


def test_where_and_in_place_writes_into_views():
    for dtype in SMALL:
        a_m, a_t = operand(mt, dtype, "transposed", 6), operand(torch, dtype, "transposed", 6)
        b_m, b_t = operand(mt, dtype, "contiguous", 7), operand(torch, dtype, "contiguous", 7)
        check(mt.where(a_m > b_m, a_m, b_m), torch.where(a_t > b_t, a_t, b_t))
        base_m = mt.zeros(4, 6, dtype=getattr(mt, dtype))
        base_t = torch.zeros(4, 6, dtype=getattr(torch, dtype))
        base_m[:, 1::2].copy_(a_m)
        base_t[:, 1::2].copy_(a_t)
        base_m[:, ::2].add_(b_m)
        base_t[:, ::2].add_(b_t)
        check(base_m, base_t)


# ----- reductions and matmul ----------------------------------------------------------


@pytest.mark.parametrize("dtype", SMALL)
@pytest.mark.parametrize("layout", ("contiguous", "transposed", "sliced", "expanded", "empty"))
def test_reductions(dtype, layout):
    x_m, x_t = operand(mt, dtype, layout, 8), operand(torch, dtype, layout, 8)
    ulps = 1 if dtype in HALVES else 0  # torch sums float32 in another order, then rounds
    check(x_m.sum(), x_t.sum(), ulps)  # int8, uint8, int16 sum to int64, as torch's
    check(x_m.sum(dim=0), x_t.sum(dim=0), ulps)
    check(x_m.sum(dim=1, keepdim=True), x_t.sum(dim=1, keepdim=True), ulps)
    if layout != "empty":
        check(x_m.max(), x_t.max())
        check(x_m.amin(dim=1), x_t.amin(dim=1))
        check(x_m.argmax(dim=0), x_t.argmax(dim=0))
    if dtype in HALVES:
        check(x_m.mean(dim=1), x_t.mean(dim=1), ulps)
        check((x_m / 4).prod(dim=1), (x_t / 4).prod(dim=1), 2)
    else:
        with pytest.raises(RuntimeError, match="mean"):
            x_m.mean()
        torch_error = pytest.raises(RuntimeError)
        with torch_error:
            x_t.mean()


@pytest.mark.parametrize("dtype", HALVES)
def test_sum_accumulates_in_float32(dtype):
    """10000 x 0.1 summed in 16 bits would stall at 256 (float16) or 32 (bfloat16); in
    float32 and rounded once it is torch's answer."""
    check(mt.full((10000,), 0.1, dtype=getattr(mt, dtype)).sum(),
          torch.full((10000,), 0.1, dtype=getattr(torch, dtype)).sum())  # fmt: skip


@pytest.mark.parametrize("dtype", SMALL)
def test_matmul(dtype):
    a_m, a_t = operand(mt, dtype, "transposed", 9), operand(torch, dtype, "transposed", 9)
    b_m = mt.tensor(values(dtype, (3, 5), 10), dtype=getattr(mt, dtype))
    b_t = torch.tensor(values(dtype, (3, 5), 10), dtype=getattr(torch, dtype))
    check(a_m @ b_m, a_t @ b_t, ulps=1)  # integers: exact, wrapped like torch's
    check(a_m[:, :2] @ b_m[:2, ::2], a_t[:, :2] @ b_t[:2, ::2], ulps=1)
    check(a_m[:, :0] @ b_m[:0], a_t[:, :0] @ b_t[:0])


@pytest.mark.parametrize("dtype", SMALL)
def test_sort_and_cumsum(dtype):
    x_m, x_t = operand(mt, dtype, "transposed", 14), operand(torch, dtype, "transposed", 14)
    for dim in (0, 1):
        (v_m, i_m), (v_t, i_t) = x_m.sort(dim=dim, stable=True), x_t.sort(dim=dim, stable=True)
        check(v_m, v_t)
        check(i_m, i_t)
        check(x_m.cumsum(dim), x_t.cumsum(dim), ulps=1)  # integers: int64, as torch's


def test_on_the_numba_simple_backend(backend):
    """numba_simple is a partial backend (the suite runs only test_ops.py on it), so its
    paths for the small dtypes are checked here once: elementwise, casts, a reduction,
    matmul and indexing, on transposed operands."""
    if backend != "numba":
        pytest.skip("checked once, during the numba run")
    with mt.backend("numba_simple"):
        for dtype in SMALL:
            a_m, a_t = operand(mt, dtype, "transposed", 15), operand(torch, dtype, "transposed", 15)
            b_m, b_t = operand(mt, dtype, "sliced", 16), operand(torch, dtype, "sliced", 16)
            check(a_m * b_m + a_m, a_t * b_t + a_t)
            check(a_m < b_m, a_t < b_t)
            check(a_m.to(mt.float32), a_t.to(torch.float32))
            check(a_m.sum(dim=0), a_t.sum(dim=0), ulps=1)
            check(a_m @ b_m.t(), a_t @ b_t.t(), ulps=1)
            check(a_m[[2, 0]], a_t[[2, 0]])


# ----- autograd -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", HALVES)
def test_gradients_keep_the_16_bit_dtype(dtype):
    data = values(dtype, (3, 4), 11)
    x_m = mt.tensor(data, dtype=getattr(mt, dtype), requires_grad=True)
    x_t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True)
    ((x_m * x_m).sum() + (x_m @ x_m.t()).sum()).backward()
    ((x_t * x_t).sum() + (x_t @ x_t.t()).sum()).backward()
    check(x_m.grad, x_t.grad, ulps=1)


# ----- leaving minitorch: printing, NumPy, files --------------------------------------


@pytest.mark.parametrize("dtype", SMALL)
def test_printing_names_the_dtype_like_torch(dtype):
    for data in ([1, 2, 3], [[0, 5], [7, 1]], 3):
        got = str(mt.tensor(data, dtype=getattr(mt, dtype)))
        want = str(torch.tensor(data, dtype=getattr(torch, dtype)))
        assert got == want, (got, want)
    assert repr(mt.half) == "torch.float16" and repr(mt.bfloat16) == "torch.bfloat16"


def test_numpy_round_trips():
    for dtype in ("uint8", "int8", "int16", "float16"):
        array = values(dtype, (2, 3), 12).astype(dtype)
        t = mt.from_numpy(array)
        assert t.dtype is getattr(mt, dtype)
        assert np.shares_memory(t.numpy(), array)  # as torch.from_numpy: no copy
        assert mt.tensor(array).dtype is getattr(mt, dtype)
        assert t.tolist() == array.tolist()
    with pytest.raises(TypeError, match="BFloat16"):
        mt.ones(2, dtype=mt.bfloat16).numpy()
    with pytest.raises(TypeError, match="BFloat16"):
        torch.ones(2, dtype=torch.bfloat16).numpy()
    assert mt.tensor([1.5, -2.25], dtype=mt.bfloat16).tolist() == [1.5, -2.25]
    assert mt.tensor(0.1, dtype=mt.bfloat16).item() == torch.tensor(0.1, dtype=torch.bfloat16).item()
    assert mt.tensor(np.array([7], dtype=np.uint16)).dtype is mt.int64  # no uint16 here


@pytest.mark.parametrize("dtype", SMALL)
def test_save_and_load_keep_the_dtype(dtype, tmp_path):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    data = values(dtype, (3, 4), 13)
    ours = mt.tensor(data, dtype=getattr(mt, dtype)).t()  # saved contiguous
    theirs = torch.tensor(data, dtype=getattr(torch, dtype)).t().contiguous()
    buffer = io.BytesIO()
    mt.save({"w": ours, "v": ours[0]}, buffer)
    loaded = mt.load(io.BytesIO(buffer.getvalue()))
    check(loaded["w"], theirs)
    check(loaded["v"], theirs[0])
    read_by_torch = safetensors_torch.load(buffer.getvalue())
    assert torch.equal(read_by_torch["w"], theirs) and read_by_torch["w"].dtype == theirs.dtype
    safetensors_torch.save_file({"w": theirs}, str(tmp_path / "t.safetensors"))
    check(mt.load(tmp_path / "t.safetensors")["w"], theirs)
