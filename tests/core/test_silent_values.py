"""No silent wrong values (issue 18, items 4c, 4f and 6): each case once gave a plausible
but wrong answer. Every expectation is PyTorch 2.13's answer (or its exception type),
computed here, on both CPU backends.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, pair

import minitorch as mt
from minitorch.ops import common
from minitorch.scalar_ops import MAP_OPS, ZIP_OPS


def raises_like(mt_call, torch_call) -> None:
    """Both calls raise, with the same exception type."""
    with pytest.raises(Exception) as expected:
        torch_call()
    with pytest.raises(type(expected.value)):
        mt_call()


# ----- the cache of Python numbers: keyed by bit pattern ------------------------------


def test_signed_zero_divisors_are_not_confused():
    m, t = pair([1.0, -1.0, 0.5])
    for divisor in (0.0, -0.0, 0.0, -0.0):  # each one after the other, through the cache
        assert_close(m / divisor, t / divisor)
    assert np.signbit((m * -0.0).numpy()).tolist() == np.signbit((t * -0.0).numpy()).tolist()


def test_nan_numbers_are_found_again_in_the_cache():
    m, t = pair([1.0, 2.0])
    assert_close(m + float("nan"), t + float("nan"))
    size = len(common._scalars)
    for _ in range(5):
        m + float("nan")
    assert len(common._scalars) == size


# ----- bitwise operators on integers, logical on bools ---------------------------------

BITWISE = {
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "bitwise_and": lambda a, b: a.bitwise_and(b),
    "bitwise_or": lambda a, b: a.bitwise_or(b),
    "bitwise_xor": lambda a, b: a.bitwise_xor(b),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name", list(BITWISE))
def test_bitwise_binary(name, dtype):
    rng = np.random.default_rng(0)
    data = rng.integers(-40, 40, size=(3, 4)) if dtype != "bool" else rng.random((3, 4)) < 0.5
    other = rng.integers(-40, 40, size=(4,)) if dtype != "bool" else rng.random(4) < 0.5
    (ma, ta), (mb, tb) = pair(data, dtype), pair(other, dtype)
    op = BITWISE[name]
    assert_close(op(ma.t(), mb[:3]), op(ta.t(), tb[:3]))  # non-contiguous, broadcast
    number = True if dtype == "bool" else 6
    assert_close(op(ma, number), op(ta, number))
    if len(name) == 1:  # the reflected operator: 6 & t
        assert_close(op(number, ma), op(number, ta))


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_bitwise_not(dtype):
    m, t = pair([[0, 5], [-6, 1]] if dtype != "bool" else [[True, False], [False, True]], dtype)
    assert_close(~m, ~t)
    assert_close(~m.t(), ~t.t())
    assert_close(mt.bitwise_not(m), torch.bitwise_not(t))
    assert_close(mt.bitwise_and(m, m), torch.bitwise_and(t, t))


def test_bitwise_on_floats_raises_like_torch():
    m, t = pair([1.0, 2.0])
    raises_like(lambda: ~m, lambda: ~t)
    raises_like(lambda: m & m, lambda: t & t)
    raises_like(lambda: mt.tensor([1]) | 1.5, lambda: torch.tensor([1]) | 1.5)
    raises_like(lambda: mt.bitwise_not(m), lambda: torch.bitwise_not(t))


# ----- values that do not fit the dtype -------------------------------------------------

OUT_OF_RANGE = [
    (2**63, None), ([2**63], None), ([-(2**63) - 1], "int64"), ([2**64], "int32"),
    ([1, 2**63], None), ([1.5, 2**63], "int64"), (3e9, "int32"), ([3e9], "int32"),
    (2**40, "int32"), (float("nan"), "int64"), ([float("inf")], "int64"), ([1e300], "int32"),
]  # fmt: skip


@pytest.mark.parametrize("data, dtype", OUT_OF_RANGE, ids=repr)
def test_out_of_range_python_numbers_raise(data, dtype):
    raises_like(lambda: mt.tensor(data, dtype=dtype and getattr(mt, dtype)),
                lambda: torch.tensor(data, dtype=dtype and getattr(torch, dtype)))  # fmt: skip


FITTING = [
    ([1.5, 2**63], None), ([2**63], "float32"), ([2**64], "bool"), ([-(2**63)], "int64"),
    ([1e300], "float32"), ([-3.7, 2.9], "int32"), ([2**31 - 1, -(2**31)], "int32"),
]  # fmt: skip


@pytest.mark.parametrize("data, dtype", FITTING, ids=repr)
def test_python_numbers_that_fit(data, dtype):
    assert_close(mt.tensor(data, dtype=dtype and getattr(mt, dtype)),
                 torch.tensor(data, dtype=dtype and getattr(torch, dtype)))  # fmt: skip


def test_numpy_arrays_are_cast_without_checks_as_in_torch():
    array = np.array([3e9, -1.5])
    assert_close(mt.tensor(array, dtype=mt.int32), torch.tensor(array, dtype=torch.int32))


FILL_VALUES = [1e300, float("inf"), float("nan"), 2**63, 2**40, -(2**31) - 1, 3.7, True]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.parametrize("value", FILL_VALUES, ids=repr)
def test_full_and_fill_check_the_value(value, dtype):
    md, td = getattr(mt, dtype), getattr(torch, dtype)
    for make_mt, make_torch in [
        (lambda: mt.full((2,), value, dtype=md), lambda: torch.full((2,), value, dtype=td)),
        (lambda: mt.zeros(2, dtype=md).fill_(value), lambda: torch.zeros(2, dtype=td).fill_(value)),
    ]:
        try:
            expected = make_torch()
        except RuntimeError:
            with pytest.raises(RuntimeError, match="without overflow"):
                make_mt()
        else:
            assert_close(make_mt(), expected)


@pytest.mark.parametrize("dtype, number", [("int64", 2**63), ("int32", 2**40), ("int32", -(2**32) - 3),
                                           ("float32", 1e300)], ids=repr)  # fmt: skip
def test_number_operands_wrap_like_torch(dtype, number):
    m, t = pair([1, 5], dtype)
    assert_close(m + number, t + number)
    assert_close(number * m, number * t)


# ----- integer division ---------------------------------------------------------------


INTEGER_DIVISIONS = {
    "//": lambda x, y: x // y,
    "%": lambda x, y: x % y,
    "trunc": lambda x, y: x.div(y, rounding_mode="trunc"),
    "floor": lambda x, y: x.div(y, rounding_mode="floor"),
}


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("name", list(INTEGER_DIVISIONS))
def test_integer_division_by_zero_raises(name, dtype):
    call = INTEGER_DIVISIONS[name]
    (m, t), (zero_mt, zero_torch) = pair([7, -7], dtype), pair([0, 1], dtype)
    raises_like(lambda: call(m, 0), lambda: call(t, 0))
    raises_like(lambda: call(m, zero_mt), lambda: call(t, zero_torch))


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_smallest_integer_divided_by_minus_one_wraps(dtype):
    smallest = int(np.iinfo(dtype).min)
    m, t = pair([smallest, smallest + 1, 7], dtype)
    assert_close(m // -1, t // -1)
    assert_close(m % -1, t % -1)
    assert_close(m.div(-1, rounding_mode="floor"), t.div(-1, rounding_mode="floor"))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
def test_trunc_division_matches_torch(dtype):
    rng = np.random.default_rng(1)
    a = rng.integers(-30, 30, size=(4, 5))
    b = rng.choice([-7, -3, -2, -1, 1, 2, 5], size=(5,))
    (ma, ta), (mb, tb) = pair(a, dtype), pair(b, dtype)
    assert_close(mt.div(ma, mb, rounding_mode="trunc"), torch.div(ta, tb, rounding_mode="trunc"))
    assert_close(mt.div(ma.t(), 3, rounding_mode="trunc"), torch.div(ta.t(), 3, rounding_mode="trunc"))
    assert_close(mt.div(ma, -2.5, rounding_mode="trunc"), torch.div(ta, -2.5, rounding_mode="trunc"))
    big_mt, big_torch = pair([2**62 + 1, -(2**62) - 1], "int64")  # not exact in float64
    assert_close(big_mt.div(3, rounding_mode="trunc"), big_torch.div(3, rounding_mode="trunc"))


def test_trunc_division_of_bools_raises_like_torch():
    m, t = pair([True, False])
    raises_like(lambda: m.div(m, rounding_mode="trunc"), lambda: t.div(t, rounding_mode="trunc"))


# ----- arange and linspace ------------------------------------------------------------

ARANGE = [
    (2**53 + 1, 2**53 + 4), (2**62, 2**62 + 3 * 2**40, 2**40), (10, 0, -3), (-5, -20, -4),
    (5, 5), (7,), (0.5, 3), (0, 1, 0.1), (-3.7, 2.2, 0.3), (0, 1, 1 / 3), (1, 2.5, 0.5),
]  # fmt: skip


@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64"])
@pytest.mark.parametrize("args", ARANGE, ids=repr)
def test_arange_matches_torch(args, dtype):
    try:
        expected = torch.arange(*args, dtype=dtype and getattr(torch, dtype))
    except (RuntimeError, ValueError) as error:
        with pytest.raises(type(error)):
            mt.arange(*args, dtype=dtype and getattr(mt, dtype))
        return
    # PyTorch's vectorized float loop rounds some steps differently: one ulp apart.
    assert_close(mt.arange(*args, dtype=dtype and getattr(mt, dtype)), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args", [(0, 5, 0), (0, 5, -1), (5, 0, 1)], ids=repr)
def test_arange_errors(args):
    raises_like(lambda: mt.arange(*args), lambda: torch.arange(*args))


LINSPACE = [(0, 1, 7), (-1, 1, 1), (0, 1, 0), (5, 5, 3), (-3.3, 7.1, 13), (1e-3, 5.5, 100), (2, -7, 33)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("args", LINSPACE, ids=repr)
def test_linspace_matches_torch(args, dtype):
    expected = torch.linspace(*args, dtype=getattr(torch, dtype))
    actual = mt.linspace(*args, dtype=getattr(mt, dtype))
    assert_close(actual, expected, rtol=1e-6, atol=1e-6)
    if args[2]:  # both ends exact
        assert actual[0].item() == expected[0].item() and actual[-1].item() == expected[-1].item()


@pytest.mark.parametrize("args", [(0, 10, 5), (0, 1, 5), (-8, 8, 9), (0, 2**53 + 3, 2)], ids=repr)
def test_integer_linspace_matches_torch(args):
    assert_close(mt.linspace(*args, dtype=mt.int64), torch.linspace(*args, dtype=torch.int64))


def test_linspace_bounds_must_fit_the_dtype():
    raises_like(lambda: mt.linspace(0, 2**40, 3, dtype=mt.int32),
                lambda: torch.linspace(0, 2**40, 3, dtype=torch.int32))  # fmt: skip


# ----- dtypes kept, shapes kept --------------------------------------------------------


def test_masked_fill_keeps_the_integer_dtype():
    (m, t), (mm, tm) = pair([1, 2, 3]), pair([True, False, True])
    assert_close(m.masked_fill(mm, 2.5), t.masked_fill(tm, 2.5))


ZERO_SIZE_VIEWS = {
    "flatten(1)": lambda lib: lib.zeros(0, 2, 3).flatten(1),
    "flatten()": lambda lib: lib.zeros(0, 2, 3).flatten(),
    "flatten(0, 1)": lambda lib: lib.zeros(2, 0, 3).flatten(0, 1),
    "flatten(0, -1)": lambda lib: lib.zeros(2, 3, 0).flatten(0, -1),
    "flatten(0, 0)": lambda lib: lib.zeros(0, 2, 3).flatten(0, 0),
    "transposed flatten(1)": lambda lib: lib.zeros(3, 0, 2).transpose(0, 2).flatten(1),
    "view(2, -1, 3)": lambda lib: lib.zeros(0, 2, 3).view(2, -1, 3),
    "view(6, 0)": lambda lib: lib.zeros(0, 2, 3).view(6, 0),
    "reshape(-1, 2)": lambda lib: lib.zeros(2, 0).reshape(-1, 2),
    "unflatten(1, (2, -1))": lambda lib: lib.zeros(0, 6).unflatten(1, (2, -1)),
    "reshape(-1, 0)": lambda lib: lib.zeros(0, 2, 3).reshape(-1, 0),  # -1 is ambiguous
    "view(0, -1)": lambda lib: lib.zeros(0, 2, 3).view(0, -1),
    "unflatten(0, (0, -1))": lambda lib: lib.zeros(0, 6).unflatten(0, (0, -1)),
}


@pytest.mark.parametrize("name", list(ZERO_SIZE_VIEWS))
def test_views_of_zero_elements(name):
    make = ZERO_SIZE_VIEWS[name]
    try:
        expected = make(torch)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            make(mt)
        return
    actual = make(mt)
    assert (tuple(actual.shape), actual.stride()) == (tuple(expected.shape), expected.stride())


def test_flip_refuses_a_repeated_dim():
    raises_like(lambda: mt.zeros(4, 2).flip(0, 0), lambda: torch.zeros(4, 2).flip(0, 0))
    raises_like(lambda: mt.zeros(4, 2).flip(0, -2), lambda: torch.zeros(4, 2).flip(0, -2))


@pytest.mark.parametrize("target", [float, int, bool, "float64", "int32"], ids=repr)
def test_to_python_types_and_names(target):
    m, t = pair([1.5, -2.0, 0.0])
    mt_target = getattr(mt, target) if isinstance(target, str) else target
    torch_target = getattr(torch, target) if isinstance(target, str) else target
    assert_close(m.to(mt_target), t.to(torch_target))
    assert_close(mt.zeros(2, dtype=mt_target), torch.zeros(2, dtype=torch_target))


def test_type():
    m, t = pair([1.5, -2.0])
    assert m.type() == t.type()  # "torch.FloatTensor": programs print what PyTorch prints
    assert_close(m.type(mt.int32), t.type(torch.int32))
    assert_close(m.type("minitorch.DoubleTensor"), t.type("torch.DoubleTensor"))
    raises_like(lambda: m.type(float), lambda: t.type(float))


# ----- NumPy scalars and arrays meet tensors ------------------------------------------


@pytest.mark.parametrize("number", [np.float32(2), np.float64(2), np.int64(3), np.int32(-2)], ids=repr)
def test_numpy_scalars_act_like_python_numbers(number):
    m, t = pair([1.0, 2.0, 3.0], requires_grad=True)
    for op in (lambda a, s: s * a, lambda a, s: a * s, lambda a, s: s + a, lambda a, s: a - s):
        m.grad, t.grad = None, None
        y_mt, y_torch = op(m, number), op(t, number)
        assert isinstance(y_mt, mt.Tensor)
        assert_close(y_mt, y_torch)
        y_mt.sum().backward()
        y_torch.sum().backward()
        assert_close(m.grad, t.grad)
    mi, ti = pair([1, 2, 3], "int32")
    assert_close(mi * number, ti * number)
    assert_close(number + mi, number + ti)
    assert_close(mi < number, ti < number)


def test_numpy_arrays_do_not_swallow_tensors():
    m, t = pair([1.0, 2.0, 3.0])
    raises_like(lambda: np.ones(3) + m, lambda: np.ones(3) + t)


# ----- gradients of clamp with tensor bounds, and of ties -----------------------------

X = [1.0, 2.0, 3.0, 5.0, 0.0, -1.0]
LOW = [1.0, 1.0, 4.0, 0.0, 0.0, 3.0]
HIGH = [1.0, 3.0, 4.0, 5.0, 0.0, 1.0]  # ties with x and low, and low > high at the end


@pytest.mark.parametrize("low_kind, high_kind", [("tensor", None), (None, "tensor"), ("tensor", "tensor"),
                                                  ("tensor", "number"), ("number", "tensor")])  # fmt: skip
def test_clamp_with_tensor_bounds_is_differentiable(low_kind, high_kind):
    results = {}
    for lib in (mt, torch):
        x = lib.tensor(X, requires_grad=True)
        bounds = []
        for kind, values in ((low_kind, LOW), (high_kind, HIGH)):
            if kind == "tensor":
                bounds.append(lib.tensor(values, requires_grad=True))
            elif kind == "number":  # torch.clamp refuses a tensor beside a number: a 0-d one
                bounds.append(2.0 if lib is mt else torch.tensor(2.0))
            else:
                bounds.append(None)
        y = x.clamp(*bounds)
        (y * lib.arange(1.0, 7.0)).sum().backward()
        results[lib] = [y, x.grad] + [b.grad for b in bounds if getattr(b, "requires_grad", False)]
    for got, expected in zip(results[mt], results[torch], strict=True):
        assert_close(got, expected)


@pytest.mark.parametrize("op", ["maximum", "minimum", "max", "min"])
def test_ties_split_the_gradient(op):
    grads = {}
    for lib in (mt, torch):
        a = lib.tensor([1.0, 2.0, 3.0, -0.5], requires_grad=True)
        b = lib.tensor([1.0, 0.0, 3.0, 4.0], requires_grad=True)
        (getattr(lib, op)(a, b) * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        grads[lib] = (a.grad, b.grad)
    assert_close(grads[mt][0], grads[torch][0])
    assert_close(grads[mt][1], grads[torch][1])


# ----- which ops return floats: one flag in the scalar-op table --------------------------


@pytest.mark.parametrize("name", [n for n, op in MAP_OPS.items() if op.returns_float])
def test_float_valued_unary_ops_promote_integers(name):
    m, t = pair([[1, 2], [3, 4]], "int64")
    assert_close(getattr(mt, name)(m), getattr(torch, name)(t))


def test_float_valued_binary_ops_promote_integers():
    assert [n for n, op in ZIP_OPS.items() if op.returns_float] == ["div", "atan2"]
    (ma, ta), (mb, tb) = pair([1, 2, 3], "int32"), pair([2, 4, 3], "int32")
    assert_close(ma / mb, ta / tb)
    assert_close(mt.atan2(ma, mb), torch.atan2(ta, tb))
    assert_close(ma / 2, ta / 2)
