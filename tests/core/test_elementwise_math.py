"""The elementwise math of issue 31 (``special_math.py``, ``float_parts.py``,
``exp_log_formulas.py``, ``aliases.py``) against torch at the edges the op table's random
samples do not reach: 0 and -0.0, infinities, NaN, poles, integer inputs, and the names
(aliases are the same function, in-place forms write into their tensor)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch as mt

INF, NAN = math.inf, math.nan
EDGES = [0.0, -0.0, 1e-7, -1e-7, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 7.0, -3.0, 30.0,
         1e4, INF, -INF, NAN]  # fmt: skip


def same(a: mt.Tensor, b: torch.Tensor, rtol: float = 1e-6, atol: float = 0.0) -> None:
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    x, y = a.detach().numpy(), b.detach().numpy()
    np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
    if x.dtype.kind == "f":  # the sign of zero too
        zeros = (y == 0) & (x == 0)
        assert np.array_equal(np.signbit(x[zeros]), np.signbit(y[zeros])), (x, y)


UNARY = ["i0", "expm1", "asinh", "acosh", "atanh", "erfc", "lgamma", "digamma", "trunc", "frac",
         "exp2", "deg2rad", "rad2deg", "sinc", "logit", "signbit", "isposinf", "isneginf",
         "isreal", "fix", "absolute"]  # fmt: skip


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_edges(name, dtype):
    values = EDGES + [-2.0, -1.5, 0.25] if name == "digamma" else EDGES
    a, b = mt.tensor(values, dtype=getattr(mt, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    same(getattr(mt, name)(a), getattr(torch, name)(b), rtol=rtol, atol=1e-30)


@pytest.mark.parametrize("name", ["expm1", "asinh", "acosh", "erfc", "lgamma", "digamma",
                                  "exp2", "deg2rad", "sinc", "trunc", "signbit", "isreal"])
def test_integer_inputs_follow_torchs_dtype(name):
    values = [-3, 0, 1, 2, 5]
    same(getattr(mt, name)(mt.tensor(values)), getattr(torch, name)(torch.tensor(values)),
         rtol=1e-5)  # fmt: skip


def test_expm1_keeps_the_digits_near_zero():
    x = [1e-10, -3e-8, 1e-20]
    same(mt.expm1(mt.tensor(x)), torch.expm1(torch.tensor(x)), rtol=1e-7)


def test_erfinv_edges_and_roundtrip():
    x = [-1.0, -0.999999, -0.5, -0.0, 0.0, 1e-9, 0.3, 0.9, 0.99999, 1.0, 1.5, NAN]
    same(mt.erfinv(mt.tensor(x, dtype=mt.float64)), torch.erfinv(torch.tensor(x, dtype=torch.float64)),
         rtol=1e-10)  # fmt: skip
    same(mt.erfinv(mt.tensor(x)), torch.erfinv(torch.tensor(x)), rtol=1e-5)


@pytest.mark.parametrize("name", ["xlogy", "hypot", "logaddexp", "logaddexp2", "copysign",
                                  "fmax", "fmin", "fmod", "float_power"])
def test_binary_edges(name):
    values = (0.0, -0.0, 1.5, -2.0, INF, -INF, NAN)
    pairs = [(a, b) for a in values for b in values[:2] + (3.0, -0.5) + values[4:]]
    a, b = zip(*pairs, strict=True)
    same(getattr(mt, name)(mt.tensor(a), mt.tensor(b)),
         getattr(torch, name)(torch.tensor(a), torch.tensor(b)), rtol=1e-6)  # fmt: skip


@pytest.mark.parametrize(("name", "a", "b"), [
    ("xlogy", 2.0, [0.5, 0.0, 3.0]), ("xlogy", [0.0, 2.0, -1.0], 3.0),
    ("copysign", [1.5, -2.0, 0.0], -0.0), ("copysign", [1, -2, 0], 1.0),
    ("fmod", [-3.0, 3.0, 5.5, -0.0], 2.0), ("fmod", [-7, 7, 6], -3),
    ("float_power", [2, 3], 2), ("float_power", 2.0, [1, -2]),
])  # fmt: skip
def test_number_operands(name, a, b):
    def lift(lib, v):
        return lib.tensor(v) if isinstance(v, list) else v

    same(getattr(mt, name)(lift(mt, a), lift(mt, b)), getattr(torch, name)(lift(torch, a), lift(torch, b)))


def test_ldexp_heaviside_gcd_lcm():
    x, e = [1.5, -0.0, 3.0, -1.0], [3, -2, 0, 10]
    same(mt.ldexp(mt.tensor(x), mt.tensor(e)), torch.ldexp(torch.tensor(x), torch.tensor(e)))
    same(mt.ldexp(mt.tensor(e), mt.tensor(e)), torch.ldexp(torch.tensor(e), torch.tensor(e)))
    h = [-1.0, -0.0, 0.0, 2.0, NAN]
    same(mt.heaviside(mt.tensor(h), mt.tensor(0.5)), torch.heaviside(torch.tensor(h), torch.tensor(0.5)))
    a, b = [-4, 0, 0, 7, 12, -36], [6, 0, -3, 0, 18, 24]
    for name in ("gcd", "lcm"):
        for dtype in ("int64", "int32"):
            mine = getattr(mt, name)(mt.tensor(a, dtype=getattr(mt, dtype)),
                                     mt.tensor([[v] for v in b], dtype=getattr(mt, dtype)))
            theirs = getattr(torch, name)(torch.tensor(a, dtype=getattr(torch, dtype)),
                                          torch.tensor([[v] for v in b], dtype=getattr(torch, dtype)))
            same(mine, theirs)
        with pytest.raises(NotImplementedError):
            getattr(mt, name)(mt.tensor([1.0]), mt.tensor([2.0]))


def test_mvlgamma_and_its_domain():
    x = [[2.5, 3.0], [7.0, 1.6]]
    for p in (1, 2, 3):
        same(mt.mvlgamma(mt.tensor(x), p), torch.mvlgamma(torch.tensor(x), p), rtol=1e-5)
    outside = [0.9, 0.2, 0.0, -1.0, -0.3]  # below (p - 1) / 2: PyTorch 2.13 no longer refuses
    same(mt.mvlgamma(mt.tensor(outside), 3), torch.mvlgamma(torch.tensor(outside), 3), rtol=1e-5)
    ints = [[3, 4], [5, 6]]  # integers give the default float dtype, as in PyTorch
    for p in (1, 2):
        mine, theirs = mt.mvlgamma(mt.tensor(ints).t(), p), torch.mvlgamma(torch.tensor(ints).t(), p)
        assert str(mine.dtype) == str(theirs.dtype)
        same(mine, theirs, rtol=1e-5)


def test_float_power_is_float64_and_logit_eps():
    assert mt.float_power(mt.tensor([1.0, 2.0]), 2).dtype is mt.float64
    x = [0.0, 0.05, 0.5, 0.97, 1.0]
    same(mt.logit(mt.tensor(x), 0.1), torch.logit(torch.tensor(x), 0.1))


def test_aliases_are_the_same_functions():
    assert mt.Tensor.absolute is mt.Tensor.abs and mt.Tensor.greater is mt.Tensor.gt
    assert mt.Tensor.swapaxes is mt.Tensor.transpose and mt.Tensor.sgn is mt.Tensor.sign
    assert mt.Tensor.arcsinh is mt.Tensor.asinh and mt.Tensor.fix is mt.Tensor.trunc
    x = mt.tensor([1.0, -2.0])
    assert mt.positive(x) is x and x.ndimension() == 1
    with pytest.raises(RuntimeError):
        mt.positive(mt.tensor([True]))


@pytest.mark.parametrize("name", ["expm1_", "trunc_", "frac_", "lgamma_", "digamma_", "erfinv_",
                                  "sinc_", "arccosh_", "sgn_", "absolute_", "exp2_", "logit_"])
def test_inplace_forms_write_into_the_tensor(name):
    values = [1.5, 2.25, 3.0] if name == "arccosh_" else [0.3, -0.7, 0.9]
    if name == "logit_":
        values = [0.3, 0.7, 0.9]
    a, b = mt.tensor(values), torch.tensor(values)
    assert getattr(a, name)() is a
    getattr(b, name)()
    same(a, b, rtol=1e-5)
    if hasattr(torch, name):
        c = mt.tensor(values)
        assert getattr(mt, name)(c) is c


def test_swapaxes_in_place_and_gradients_through_the_formulas():
    a = mt.zeros(2, 3).swapaxes_(0, 1)
    assert a.shape == (3, 2)
    x = [0.0, -0.0, 0.7, -2.0]  # sinc and xlogy at their holes: finite gradients, as torch's
    for name, extra in (("sinc", ()), ("xlogy", (3.0,)), ("trunc", ()), ("logaddexp", None)):
        a, b = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        args_mt = (mt.tensor(x),) if extra is None else extra
        args_t = (torch.tensor(x),) if extra is None else extra
        getattr(mt, name)(a, *args_mt).sum().backward()
        getattr(torch, name)(b, *args_t).sum().backward()
        same(a.grad, b.grad, rtol=1e-6)


def test_out_and_keyword_names_as_torch():
    out = mt.empty(2)
    assert mt.hypot(mt.tensor([3.0, 5.0]), mt.tensor([4.0, 12.0]), out=out) is out
    same(out, torch.tensor([5.0, 13.0]))
    same(mt.xlogy(input=mt.tensor([0.0, 2.0]), other=mt.tensor([0.0, 3.0])),
         torch.xlogy(input=torch.tensor([0.0, 2.0]), other=torch.tensor([0.0, 3.0])))  # fmt: skip
    with pytest.raises(TypeError):
        mt.isreal(mt.tensor([1.0]), out=mt.empty(1, dtype=mt.bool))  # torch's has no out=
