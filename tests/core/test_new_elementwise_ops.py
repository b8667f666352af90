"""The ops of issue 14 item 6 (first half) against PyTorch: asin, acos, atan, sinh, cosh
(and the arc* aliases), atan2, the bit shifts, cumsum, cumprod, tril, triu, diag,
diagonal, diag_embed, meshgrid, nan_to_num and cross.

Values and dtypes are compared with torch on contiguous, transposed, stepped (sliced)
and expanded inputs, 0-d and empty ones; errors by exception type and message. Every
test runs on each CPU backend (``tests/core/conftest.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close, pair, random_array

RNG_SEED = 1414


def values(shape: tuple, dtype: str, rng: np.random.Generator, low: float, high: float) -> np.ndarray:
    """Random values of any dtype: ``random_array``'s, and for the small integer types
    integers in ``[low, high]`` clipped to the type's range."""
    if dtype in ("int8", "int16", "uint8"):
        info = np.iinfo(np.dtype(dtype))
        return np.clip(rng.integers(int(low), int(high) + 1, size=shape), info.min, info.max).astype(dtype)
    return random_array(shape, dtype, rng, low, high)


def any_pair(data, dtype: str) -> tuple:
    """``pair`` for any dtype NumPy has, the small integer types included."""
    array = np.asarray(data).astype(np.dtype(dtype))
    return mt.tensor(array.copy(), dtype=getattr(mt, dtype)), torch.tensor(
        array.copy(), dtype=getattr(torch, dtype)
    )


def layouts(shape: tuple, dtype: str, rng: np.random.Generator, low: float = -2.0,
            high: float = 2.0) -> list:  # fmt: skip
    """``(name, minitorch tensor, torch tensor)`` of ``shape`` in several memory layouts
    holding random values: contiguous, transposed, stepped and expanded (stride 0)."""
    cases = [("contiguous", *any_pair(values(shape, dtype, rng, low, high), dtype))]
    if len(shape) >= 2:
        order = tuple(reversed(range(len(shape))))
        m, t = any_pair(values(tuple(reversed(shape)), dtype, rng, low, high), dtype)
        cases.append(("transposed", m.permute(order), t.permute(order)))
    if len(shape) >= 1:
        m, t = any_pair(values(shape[:-1] + (2 * shape[-1],), dtype, rng, low, high), dtype)
        cases.append(("stepped", m[..., ::2], t[..., ::2]))
        m, t = any_pair(values((1,) + shape[1:], dtype, rng, low, high), dtype)
        cases.append(("expanded", m.expand(shape), t.expand(shape)))
    return cases


def same_error(mt_call, torch_call, match: str | None = None) -> None:
    """Both calls raise the same exception type (minitorch's message matching ``match``)."""
    with pytest.raises(Exception) as expected:
        torch_call()
    with pytest.raises(type(expected.value), match=match):
        mt_call()


SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4)]
INT_DTYPES = [name for name in ("int8", "int16", "int32", "int64", "uint8") if hasattr(mt, name)]


# ----- asin, acos, atan, sinh, cosh ---------------------------------------------------

UNARY = ["asin", "acos", "atan", "sinh", "cosh", "arcsin", "arccos", "arctan"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_matches_torch(name, dtype, shape):
    rng = np.random.default_rng(RNG_SEED)
    for layout, m, t in layouts(shape, dtype, rng, -1.5, 1.5):  # asin is NaN beyond +-1
        expected = getattr(torch, name)(t)
        assert_close(getattr(mt, name)(m), expected, msg=f"{name} {layout}")
        assert_close(getattr(m, name)(), expected, msg=f"{name} method {layout}")


def test_unary_special_values():
    values = [0.0, -0.0, 1.0, -1.0, 1.0000001, float("inf"), float("-inf"), float("nan"), 100.0, -100.0]
    for name in ("asin", "acos", "atan", "sinh", "cosh"):
        for dtype in ("float32", "float64"):
            m, t = pair(values, dtype)
            assert_close(getattr(mt, name)(m), getattr(torch, name)(t), msg=name)
    with pytest.raises(TypeError, match="must be Tensor"):
        mt.asin([0.5])


# ----- atan2 --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_atan2_matches_torch(dtype):
    rng = np.random.default_rng(RNG_SEED)
    for shape in [(), (0,), (3, 4)]:
        for (name_a, ma, ta), (name_b, mb, tb) in zip(
            layouts(shape, dtype, rng), layouts(shape, dtype, rng)[::-1]
        ):
            assert_close(mt.atan2(ma, mb), torch.atan2(ta, tb), msg=f"{name_a}, {name_b}")
            assert_close(ma.arctan2(mb), ta.arctan2(tb))
    ma, ta = pair(random_array((3, 1), dtype, rng), dtype)  # broadcasting
    mb, tb = pair(random_array((4,), dtype, rng), dtype)
    assert_close(mt.arctan2(ma, mb), torch.arctan2(ta, tb))


def test_atan2_quadrants_and_errors():
    values = [0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan")]
    ys, xs = np.meshgrid(values, values)
    my, ty = pair(ys.ravel())
    mx, tx = pair(xs.ravel())
    assert_close(mt.atan2(my, mx), torch.atan2(ty, tx))
    mi, ti = pair([1, 2], "int32")
    md, td = pair([2.0, 0.5], "float64")
    assert_close(mt.atan2(mi, md), torch.atan2(ti, td))  # promotion
    same_error(lambda: mt.atan2(my, 2), lambda: torch.atan2(ty, 2), "'other' \\(position 2\\) must be Tensor")
    same_error(lambda: mt.atan2(2.0, my), lambda: torch.atan2(2.0, ty), "must be Tensor")


# ----- bit shifts ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_shifts_match_torch_for_every_count(dtype):
    """Every value against every count from -3 to twice the type's width: negative and
    too-large counts follow PyTorch (0, or -1 for a right shift of a negative number)."""
    bits = np.iinfo(np.dtype(dtype)).bits
    info = np.iinfo(np.dtype(dtype))
    candidates = {info.min, info.min + 1, -5, -1, 0, 1, 3, 100, info.max}
    numbers = np.array(sorted(v for v in candidates if info.min <= v <= info.max), dtype=np.int64)
    counts = np.arange(max(-3, int(info.min)), min(2 * bits + 2, int(info.max)), dtype=np.int64)
    grid_values, grid_counts = (g.ravel() for g in np.meshgrid(numbers, counts))
    ma, ta = any_pair(grid_values, dtype)
    mb, tb = any_pair(grid_counts, dtype)
    assert_close(ma << mb, ta << tb, msg="<<")
    assert_close(ma >> mb, ta >> tb, msg=">>")
    assert_close(mt.bitwise_left_shift(ma, mb), torch.bitwise_left_shift(ta, tb))
    assert_close(ma.bitwise_right_shift(mb), ta.bitwise_right_shift(tb))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_shift_layouts_scalars_and_promotion(dtype):
    rng = np.random.default_rng(RNG_SEED)
    for shape in [(), (0,), (3, 4)]:
        for (name, ma, ta), (_, mb, tb) in zip(
            layouts(shape, dtype, rng, -20, 20), layouts(shape, dtype, rng, -2, 9)
        ):
            assert_close(ma << mb, ta << tb, msg=name)
            assert_close(ma >> mb, ta >> tb, msg=name)
            assert_close(ma << 3, ta << 3, msg=name)
            assert_close(ma >> 1, ta >> 1, msg=name)
            assert_close(5 << mb, 5 << tb, msg=name)  # __rlshift__
            assert_close(-64 >> mb, -64 >> tb, msg=name)  # __rrshift__
    ma, ta = any_pair([[1], [-3]], dtype)
    m64, t64 = pair([0, 1, 2], "int64")  # broadcasting, and promotion to int64
    assert_close(ma << m64, ta << t64)
    assert_close(mt.bitwise_left_shift(3, m64), torch.bitwise_left_shift(3, t64))
    mbool, tbool = pair([True, False])
    assert_close(mbool << 1, tbool << 1)  # a bool tensor and an int: int64


def test_shift_errors():
    mf, tf = pair([1.0, 2.0])
    mi, ti = pair([1, 2])
    mb, tb = pair([True, False])
    same_error(lambda: mf << 1, lambda: tf << 1, "\"lshift_cpu\" not implemented for 'Float'")
    same_error(lambda: mi << 1.5, lambda: ti << 1.5, "not implemented for 'Float'")
    same_error(lambda: mf >> mi, lambda: tf >> ti, "\"rshift_cpu\" not implemented for 'Float'")
    same_error(lambda: mb << mb, lambda: tb << tb, "not implemented for 'Bool'")
    same_error(lambda: mi << None, lambda: ti << None, "unsupported operand")
    same_error(lambda: mi >> [1], lambda: ti >> [1], "unsupported operand")
    assert mi.__lshift__(None) is NotImplemented
    same_error(lambda: mt.bitwise_right_shift(4, 1), lambda: torch.bitwise_right_shift(4, 1))


def test_inplace_shifts():
    for dtype in ("int32", "int64"):
        m, t = pair([1, -8, 5], dtype)
        m_view, t_view = m, t
        m <<= 2
        t <<= 2
        assert m is m_view and t is t_view
        assert_close(m, t)
        m >>= pair([1, 40, -1], "int64")[0]
        t >>= torch.tensor([1, 40, -1])
        assert_close(m, t)  # the int64 counts do not change the int32 target's dtype
    m, t = pair([1, 2], "int32")
    with pytest.raises(NotImplementedError):
        m <<= 1.5  # PyTorch: RuntimeError (can't cast); both refuse


# ----- cumsum, cumprod ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("shape", SHAPES + [(3, 0, 2)])
def test_scan_matches_torch(name, dtype, shape):
    rng = np.random.default_rng(RNG_SEED)
    for layout, m, t in layouts(shape, dtype, rng, -2, 2):
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            expected = getattr(torch, name)(t, dim)
            assert_close(getattr(mt, name)(m, dim), expected, msg=f"{name} {layout} dim {dim}")
            assert_close(getattr(m, name)(dim=dim), expected, msg=f"{name} {layout} method")


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_dtype_argument(name):
    rng = np.random.default_rng(RNG_SEED)
    for source in ("float32", "int32", "bool", "float64"):
        m, t = pair(random_array((3, 4), source, rng), source)
        for target in ("float64", "float32", "int32", "int64"):
            assert_close(getattr(mt, name)(m, 1, dtype=getattr(mt, target)),
                         getattr(torch, name)(t, 1, dtype=getattr(torch, target)))  # fmt: skip
    m, t = pair([1e30, 1e30, -1e30], "float32")  # float32 sums overflow where float64 does not
    assert_close(getattr(mt, name)(m, 0, dtype=mt.float64), getattr(torch, name)(t, 0, dtype=torch.float64))


def test_scan_long_lines_and_errors():
    rng = np.random.default_rng(RNG_SEED)
    m, t = pair(random_array((2, 300), "float64", rng, 0.9, 1.1))
    assert_close(mt.cumsum(m, 1), torch.cumsum(t, 1))
    assert_close(mt.cumprod(m.t(), 0), torch.cumprod(t.t(), 0))
    m, t = pair(np.full(70, 2**40), "int64")  # int64 wraps around, as in PyTorch
    assert_close(mt.cumprod(m, 0), torch.cumprod(t, 0))
    m, t = pair([-0.0, -0.0])
    assert_close(mt.cumsum(m, 0), torch.cumsum(t, 0))
    m, t = pair([[1.0, 2.0]])
    same_error(lambda: mt.cumsum(m, 2), lambda: torch.cumsum(t, 2), "Dimension out of range")
    same_error(lambda: mt.cumsum(m), lambda: torch.cumsum(t), "required")
    same_error(lambda: mt.cumsum(m, 0, dtype=mt.bool), lambda: torch.cumsum(t, 0, dtype=torch.bool),
               "\"cumsum_out_cpu\" not implemented for 'Bool'")  # fmt: skip
    same_error(lambda: mt.cumprod(m, 0, dtype=mt.bool), lambda: torch.cumprod(t, 0, dtype=torch.bool),
               "\"cumprod_out_cpu\" not implemented for 'Bool'")  # fmt: skip
    same_error(lambda: mt.cumsum([1.0], 0), lambda: torch.cumsum([1.0], 0), "must be Tensor")


# ----- tril, triu ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 4), (0, 3), (3, 0), (2, 0, 1, 2)])
def test_triangles_match_torch(name, dtype, shape):
    rng = np.random.default_rng(RNG_SEED)
    for layout, m, t in layouts(shape, dtype, rng):
        for k in range(-5, 6):
            assert_close(getattr(mt, name)(m, k), getattr(torch, name)(t, k), msg=f"{layout} k={k}")
        assert_close(getattr(m, name)(diagonal=1), getattr(t, name)(diagonal=1), msg=layout)
        assert_close(getattr(m, name)(), getattr(t, name)(), msg=layout)


def test_diagonal_numbers_are_checked_like_torch():
    """A diagonal number is an int64: bools, floats and numbers beyond int64 are refused;
    one far outside the matrix is fine (everything or nothing is kept)."""
    m, t = pair(np.ones((2, 3)))
    for function in ("tril", "triu", "diag", "diagonal"):
        for k in (2**62, -(2**62), np.int64(1)):
            assert_close(getattr(mt, function)(m, k), getattr(torch, function)(t, k), msg=f"{function} {k}")
        for k in (2**63, -(2**63) - 1, 1.5, True):
            same_error(lambda f=function, k=k: getattr(mt, f)(m, k),
                       lambda f=function, k=k: getattr(torch, f)(t, k))  # fmt: skip
    same_error(lambda: mt.diag_embed(m, 2**64), lambda: torch.diag_embed(t, 2**64), "Overflow")


def test_triangle_errors():
    m, t = pair([1.0, 2.0])
    same_error(
        lambda: mt.tril(m), lambda: torch.tril(t), "tril: input tensor must have at least 2 dimensions"
    )
    same_error(
        lambda: mt.triu(m), lambda: torch.triu(t), "triu: input tensor must have at least 2 dimensions"
    )
    m, t = pair([[1.0, 2.0]])
    same_error(lambda: mt.tril(m, 1.5), lambda: torch.tril(t, 1.5), "'diagonal' must be int")


# ----- diag, diagonal, diag_embed -----------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_diag_matches_torch(dtype):
    rng = np.random.default_rng(RNG_SEED)
    for shape in [(0,), (1,), (4,), (3, 4), (4, 3), (0, 2)]:
        for layout, m, t in layouts(shape, dtype, rng):
            for k in range(-5, 6):
                assert_close(mt.diag(m, k), torch.diag(t, k), msg=f"{shape} {layout} k={k}")
                assert_close(m.diag(diagonal=k), t.diag(diagonal=k), msg=f"{shape} {layout} k={k}")
    m, t = pair(np.arange(12.0).reshape(3, 4))
    copy = mt.diag(m)
    copy[0] = 100.0  # diag of a matrix is a copy, as in PyTorch
    assert m[0, 0].item() == 0.0


def test_diagonal_is_a_view_and_matches_torch():
    rng = np.random.default_rng(RNG_SEED)
    for layout, m, t in layouts((2, 3, 4), "float32", rng):
        for dim1, dim2 in [(0, 1), (1, 0), (0, 2), (2, 1), (-1, -3), (1, 2)]:
            for k in range(-4, 5):
                assert_close(mt.diagonal(m, k, dim1, dim2), torch.diagonal(t, k, dim1, dim2),
                             msg=f"{layout} {dim1},{dim2} k={k}")  # fmt: skip
    m, t = pair(np.arange(12.0).reshape(3, 4))
    assert_close(m.diagonal(offset=1), t.diagonal(offset=1))
    view = m.diagonal(1)
    view.mul_(-1)  # writes through to the matrix
    t.diagonal(1).mul_(-1)
    assert_close(m, t)
    assert view._storage is m._storage


def test_diag_embed_matches_torch():
    rng = np.random.default_rng(RNG_SEED)
    for layout, m, t in layouts((2, 3), "float64", rng):
        for dim1, dim2 in [(-2, -1), (0, 2), (2, 0), (1, 0)]:
            for k in (-2, 0, 1):
                assert_close(mt.diag_embed(m, k, dim1, dim2), torch.diag_embed(t, k, dim1, dim2),
                             msg=f"{layout} {dim1},{dim2} k={k}")  # fmt: skip
    assert_close(m.diag_embed(), t.diag_embed())


def test_diag_errors():
    for shape in [(), (2, 2, 2)]:
        m, t = pair(np.zeros(shape))
        same_error(lambda m=m: mt.diag(m), lambda t=t: torch.diag(t), "Supports 1D or 2D tensors")
    m, t = pair(np.zeros((2, 3)))
    same_error(
        lambda: mt.diagonal(m, 0, 0, 0), lambda: torch.diagonal(t, 0, 0, 0), "cannot be identical 0, 0"
    )
    same_error(lambda: mt.diagonal(m, 0, 0, 2), lambda: torch.diagonal(t, 0, 0, 2), "Dimension out of range")
    same_error(lambda: mt.diag_embed(m, 0, 1, 1), lambda: torch.diag_embed(t, 0, 1, 1), "cannot be identical")
    m, t = pair(3.0)
    same_error(lambda: mt.diag_embed(m), lambda: torch.diag_embed(t), "Dimension out of range")


# ----- meshgrid -----------------------------------------------------------------------


def test_meshgrid_matches_torch():
    rng = np.random.default_rng(RNG_SEED)
    inputs = [pair(random_array(shape, "float32", rng)) for shape in [(3,), (2,), (), (4,), (0,)]]
    for count in (1, 2, 3, 4, 5):
        ms, ts = [m for m, _ in inputs[:count]], [t for _, t in inputs[:count]]
        for indexing in ("ij", "xy"):
            got = mt.meshgrid(*ms, indexing=indexing)
            assert isinstance(got, tuple)
            assert_close(list(got), list(torch.meshgrid(*ts, indexing=indexing)), msg=f"{count} {indexing}")
            assert_close(
                list(mt.meshgrid(ms, indexing=indexing)), list(torch.meshgrid(ts, indexing=indexing))
            )
            for grid, source in zip(got, ms):
                assert grid._storage is source._storage  # views: nothing copied
    m, t = pair([1.0, 2.0, 3.0])
    stepped_m, stepped_t = m[::2], t[::2]
    assert_close(
        list(mt.meshgrid(stepped_m, m, indexing="xy")), list(torch.meshgrid(stepped_t, t, indexing="xy"))
    )


def test_meshgrid_default_warns_and_errors():
    m, t = pair([1, 2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grids = mt.meshgrid(m, m)
    assert any("it will be required to pass the indexing argument" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(list(grids), list(torch.meshgrid(t, t)))  # "ij"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.meshgrid(m, m, indexing="ij")  # no warning with the argument
    mf, tf = pair([1.0])
    m2, t2 = pair([[1, 2]])
    same_error(lambda: mt.meshgrid(), lambda: torch.meshgrid(), "non-empty TensorList")
    same_error(lambda: mt.meshgrid([]), lambda: torch.meshgrid([]), "non-empty TensorList")
    same_error(
        lambda: mt.meshgrid(m, mf, indexing="ij"), lambda: torch.meshgrid(t, tf, indexing="ij"), "same dtype"
    )
    same_error(
        lambda: mt.meshgrid(m2, indexing="ij"), lambda: torch.meshgrid(t2, indexing="ij"), "Expected 0D or 1D"
    )
    same_error(
        lambda: mt.meshgrid(m, indexing="xx"), lambda: torch.meshgrid(t, indexing="xx"), "indexing must be"
    )
    same_error(lambda: mt.meshgrid(m, [1], indexing="ij"), lambda: torch.meshgrid(t, [1], indexing="ij"),
               "expected Tensor as element 1")  # fmt: skip


# ----- nan_to_num ---------------------------------------------------------------------


def test_nan_to_num_matches_torch():
    special = [float("nan"), float("inf"), float("-inf"), 1.5, -0.0, 3e38]
    floats = ["float32", "float64"] + [n for n in ("float16", "bfloat16") if hasattr(mt, n)]
    for dtype in floats:
        m = mt.tensor(special, dtype=getattr(mt, dtype))
        t = torch.tensor(special, dtype=getattr(torch, dtype))
        for got, want in [
            (mt.nan_to_num(m), torch.nan_to_num(t)),
            (m.nan_to_num(nan=1.0, posinf=2.0), t.nan_to_num(nan=1.0, posinf=2.0)),
            (mt.nan_to_num(m, 0.5, 1e300, -1e300), torch.nan_to_num(t, 0.5, 1e300, -1e300)),
        ]:
            assert str(got.dtype) == f"torch.{dtype}"
            assert_close(got.float(), want.float(), rtol=0, atol=0, msg=dtype)  # bfloat16: no NumPy type
    rng = np.random.default_rng(RNG_SEED)
    for layout, m, t in layouts((3, 4), "float32", rng):
        assert_close(mt.nan_to_num(m.log()), torch.nan_to_num(t.log()), msg=layout)
    for dtype in ("int32", "int64", "bool"):
        m, t = pair(random_array((3,), dtype, rng), dtype)
        result = mt.nan_to_num(m, nan=3.5)
        assert_close(result, torch.nan_to_num(t, nan=3.5))
        assert result._storage is not m._storage  # a copy
    m, t = pair(np.zeros((0, 2)))
    assert_close(mt.nan_to_num(m), torch.nan_to_num(t))


# ----- cross --------------------------------------------------------------------------


def test_cross_matches_torch():
    rng = np.random.default_rng(RNG_SEED)
    for dtype in ("float32", "float64", "int64", "int32"):
        for (name, ma, ta), (_, mb, tb) in zip(layouts((4, 3), dtype, rng), layouts((4, 3), dtype, rng)):
            assert_close(mt.cross(ma, mb, dim=1), torch.cross(ta, tb, dim=1), msg=name)
            assert_close(mt.linalg.cross(ma, mb), torch.linalg.cross(ta, tb), msg=name)
            assert_close(ma.cross(mb, dim=-1), ta.cross(tb, dim=-1), msg=name)
        for layout, ma, ta in layouts((3, 2, 3), dtype, rng):
            mb, tb = pair(random_array((3, 1, 3), dtype, rng), dtype)  # broadcast along dim 1
            assert_close(mt.cross(ma, mb, 0), torch.cross(ta, tb, 0), msg=layout)
            assert_close(mt.cross(ma, mb, dim=2), torch.cross(ta, tb, dim=2), msg=layout)
    ma, ta = pair(np.zeros((0, 3)))
    assert_close(mt.cross(ma, ma, dim=1), torch.cross(ta, ta, dim=1))


def test_cross_default_dim_rule_and_errors():
    rng = np.random.default_rng(RNG_SEED)
    for shape_a, shape_b in [((3, 4), (3, 4)), ((1, 3), (3, 3)), ((3, 1), (3, 3)), ((2, 3, 3), (2, 3, 3))]:
        ma, ta = pair(random_array(shape_a, "float64", rng))
        mb, tb = pair(random_array(shape_b, "float64", rng))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = mt.cross(ma, mb)
        assert any("without specifying the dim arg is deprecated" in str(w.message) for w in caught)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_close(got, torch.cross(ta, tb), msg=f"{shape_a} {shape_b}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [((3, 3), (1, 3), None, "dimension 0 must have length 3. Got 3 and 1"),
                 ((4, 2), (4, 2), None, "no dimension of size 3 in input"),
                 ((4, 3), (4, 3), 0, "dimension 0 must have length 3. Got 4 and 4"),
                 ((4, 3), (4, 3), 2, "Dimension out of range"),
                 ((2, 3, 3), (3, 3), None, "same number of dimensions")]  # fmt: skip
        for shape_a, shape_b, dim, message in cases:
            ma, ta = pair(np.ones(shape_a))
            mb, tb = pair(np.ones(shape_b))
            same_error(
                lambda ma=ma, mb=mb, dim=dim: mt.cross(ma, mb, dim),
                lambda ta=ta, tb=tb, dim=dim: torch.cross(ta, tb, dim),
                message,
            )
        ma, ta = pair(np.ones((3, 4)))
        same_error(
            lambda: mt.linalg.cross(ma, ma),
            lambda: torch.linalg.cross(ta, ta),
            "dimension -1 must have length 3",
        )
        mi, ti = pair([1, 2, 3])
        mf, tf = pair([1.0, 2.0, 3.0])
        same_error(
            lambda: mt.cross(mi, mf, 0),
            lambda: torch.cross(ti, tf, 0),
            "expected scalar type Long but found Float",
        )
        mb, tb = pair([True, False, True])
        same_error(
            lambda: mt.cross(mb, mb, 0),
            lambda: torch.cross(tb, tb, 0),
            "\"cross\" not implemented for 'Bool'",
        )
        same_error(
            lambda: mt.cross(mf, [1, 2, 3], 0), lambda: torch.cross(tf, [1, 2, 3], 0), "must be Tensor"
        )


# ----- 16-bit floats ------------------------------------------------------------------

HALF_DTYPES = [name for name in ("float16", "bfloat16") if hasattr(mt, name)]


@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_half_precision_matches_torch_bit_for_bit(dtype):
    """16-bit floats compute in float32 and round each result once, as PyTorch does on
    the CPU: the running sums and products too (accumulated in float32)."""
    rng = np.random.default_rng(RNG_SEED)
    source = rng.standard_normal((3, 200)).astype(np.float32)
    m = mt.tensor(source, dtype=getattr(mt, dtype))
    t = torch.tensor(source, dtype=getattr(torch, dtype))
    near_one = 1 + 0.05 * source
    near_one_m = mt.tensor(near_one, dtype=getattr(mt, dtype))
    near_one_t = torch.tensor(near_one, dtype=getattr(torch, dtype))
    results = [
        (mt.cumsum(m, 1), torch.cumsum(t, 1)),
        (mt.cumsum(m.t(), 0), torch.cumsum(t.t(), 0)),
        (mt.cumprod(near_one_m, 1), torch.cumprod(near_one_t, 1)),
        (mt.asin(m.clamp(-1, 1)), torch.asin(t.clamp(-1, 1))),
        (mt.cosh(m), torch.cosh(t)),
        (mt.atan2(m, m.flip(1)), torch.atan2(t, t.flip(1))),
        (mt.tril(m, 3), torch.tril(t, 3)),
        (mt.diag(m[:, :3]), torch.diag(t[:, :3])),
        (mt.cross(m[:, :3], m[:, 3:6], dim=1), torch.cross(t[:, :3], t[:, 3:6], dim=1)),
    ]
    for number, (got, want) in enumerate(results):
        assert str(got.dtype) == f"torch.{dtype}", number
        assert_close(got.float(), want.float(), rtol=0, atol=0, msg=f"result {number}")


# ----- the CUDA kernels (on a GPU or the CPU emulator) --------------------------------


@pytest.mark.skipif(not mt.cuda.is_available(), reason="no CUDA device or emulator")
def test_cuda_kernels_match_torch():
    """The new scalar-op rows as CUDA C, and kernels/scan.cu, on strided layouts."""
    rng = np.random.default_rng(RNG_SEED)
    for dtype in ("float32", "float64", "int32", "int64"):
        for layout, m, t in layouts((3, 5), dtype, rng, -3, 3):
            on_gpu = m.to("cuda")
            for dim in (0, 1):
                assert_close(mt.cumsum(on_gpu, dim).cpu(), torch.cumsum(t, dim), msg=f"{dtype} {layout}")
                assert_close(on_gpu.cumprod(dim).cpu(), t.cumprod(dim), msg=f"{dtype} {layout}")
            for name in ("asin", "acos", "atan", "sinh", "cosh"):
                assert_close(getattr(mt, name)(on_gpu).cpu(), getattr(torch, name)(t), msg=name)
            assert_close(mt.atan2(on_gpu, on_gpu.flip(0)).cpu(), torch.atan2(t, t.flip(0)))
    for dtype in ("int32", "int64"):
        bits = np.iinfo(np.dtype(dtype)).bits
        numbers, counts = np.meshgrid([-7, -1, 0, 1, 5], np.arange(-2, bits + 3))
        ma, ta = any_pair(numbers.ravel(), dtype)
        mb, tb = any_pair(counts.ravel(), dtype)
        ma, mb = ma.to("cuda"), mb.to("cuda")
        assert_close((ma << mb).cpu(), ta << tb, msg=dtype)
        assert_close((ma >> mb).cpu(), ta >> tb, msg=dtype)
