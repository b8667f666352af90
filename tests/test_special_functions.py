"""torch.special's functions, polygamma, igamma/igammac, nextafter and frexp against
PyTorch: values on grids that reach the tails (0, inf, NaN, large and negative x), in
float32 and float64, on non-contiguous views and integer inputs; gradients; the bits of
nextafter and frexp; the errors PyTorch raises."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch

WIDE = np.r_[np.linspace(-30, 30, 121), 0.0, -0.0, 1e-300, 4.999, 5.0, 25.0, 26.0, 100.0, -100.0, 700.0,
             math.inf, -math.inf, math.nan]  # fmt: skip
PROBABILITIES = np.r_[np.linspace(0, 1, 41), 1e-300, 1e-30, 1 - 1e-12, -0.5, 1.5, math.nan]

UNARY = {  # name: (minitorch's, torch's, inputs)
    "ndtr": (minitorch.special.ndtr, torch.special.ndtr, WIDE),
    "log_ndtr": (minitorch.special.log_ndtr, torch.special.log_ndtr, WIDE),
    "erfcx": (minitorch.special.erfcx, torch.special.erfcx, WIDE),
    "ndtri": (minitorch.special.ndtri, torch.special.ndtri, PROBABILITIES),
    "i0e": (minitorch.special.i0e, torch.special.i0e, WIDE),
    "i1": (minitorch.special.i1, torch.special.i1, WIDE[np.isfinite(WIDE)]),  # torch: i1(inf) is NaN
    "i1e": (minitorch.special.i1e, torch.special.i1e, WIDE),
    "entr": (minitorch.special.entr, torch.special.entr, WIDE),
}


def assert_like_torch(actual: minitorch.Tensor, expected: torch.Tensor, rtol=None, atol=None) -> None:
    assert str(actual.dtype) == str(expected.dtype)
    torch.testing.assert_close(torch.from_numpy(actual.numpy().copy()), expected, rtol=rtol, atol=atol,
                               equal_nan=True)  # fmt: skip


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_values_on_a_wide_grid_and_a_transposed_view(name, dtype):
    ours, theirs, values = UNARY[name]
    with np.errstate(over="ignore"):
        x = torch.tensor(values.astype(dtype))
    # a float32 result here is float64's rounded: torch's own float32 arithmetic loses a
    # few digits in the tails (e^(x^2) of erfcx), so compare float32 as its rounding allows
    tolerance = (2e-5, 1e-5) if dtype == "float32" else ()
    assert_like_torch(ours(minitorch.tensor(x.numpy())), theirs(x), *tolerance)
    grid = x[:40].reshape(5, 8)
    assert_like_torch(ours(minitorch.tensor(grid.numpy()).t()), theirs(grid.t()), *tolerance)


def test_integer_inputs_give_the_default_float_dtype():
    n = torch.tensor([0, 1, 2, -3])
    m = minitorch.tensor([0, 1, 2, -3])
    for name in ("ndtr", "log_ndtr", "erfcx", "i0e", "i1", "i1e", "entr"):
        assert_like_torch(getattr(minitorch.special, name)(m), getattr(torch.special, name)(n))
    assert_like_torch(minitorch.polygamma(1, m + 5), torch.polygamma(1, n + 5))
    assert_like_torch(minitorch.special.zeta(m + 5, 2), torch.special.zeta(n + 5, 2))
    assert_like_torch(minitorch.special.xlog1py(2, m + 4), torch.special.xlog1py(2, n + 4))
    assert_like_torch(minitorch.igamma(m + 4, m + 5.0), torch.igamma(n + 4, n + 5.0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_functions_broadcast_against_torch(dtype):
    rng = np.random.default_rng(0)
    s = np.r_[rng.uniform(1.01, 12, 29), 1.0, 0.5, 2.0, 3.0].astype(dtype)[:, None]
    q = np.r_[rng.uniform(-9, 30, 13), 0.0, -2.0, -2.5, 1e8, math.inf, math.nan].astype(dtype)
    a = np.r_[rng.uniform(0, 12, 29), rng.uniform(20, 120, 4)].astype(dtype)[:, None]
    x = np.r_[rng.uniform(0, 20, 13), rng.uniform(20, 140, 3), 0.0, math.inf, -1.0].astype(dtype)
    with np.errstate(invalid="ignore"):  # inf * 0 in the xlog1py grid is NaN, on purpose
        pairs = [(s, q, "zeta"), (a, x, "gammainc"), (a, x, "gammaincc"), (x, q[None, :] * 0 + a, "xlog1py")]
    for left, right, name in pairs:
        expected = getattr(torch.special, name)(torch.tensor(left), torch.tensor(right))
        actual = getattr(minitorch.special, name)(minitorch.tensor(left), minitorch.tensor(right))
        assert_like_torch(actual, expected, *((1e-5, 1e-6) if dtype == "float32" else (1e-7, 1e-12)))
    edges = ([0.0, 1.0, -1.0, 1.0, 0.0, math.inf, 0.0], [1.0, 0.0, 1.0, math.inf, 0.0, 1.0, math.nan])
    for function in ("igamma", "igammac"):
        expected = getattr(torch, function)(torch.tensor(edges[0]), torch.tensor(edges[1]))
        actual = getattr(minitorch, function)(minitorch.tensor(edges[0]), minitorch.tensor(edges[1]))
        assert_like_torch(actual, expected)


def test_polygamma_orders_and_poles():
    values = np.r_[np.linspace(-8.75, 20, 40), 1e-8, 100.0, -2.5, 0.0]
    for dtype in ("float32", "float64"):
        x = torch.tensor(values.astype(dtype))
        for n in (0, 1, 4):  # torch's float32 trigamma is 1e-5 off near -8: float64's is the oracle
            expected = torch.polygamma(n, x.double()).to(x.dtype)
            assert_like_torch(minitorch.polygamma(n, minitorch.tensor(x.numpy())), expected, 1e-6, 1e-6)
    at_poles = minitorch.polygamma(2, minitorch.tensor([0.0, -2.0])).numpy()
    assert np.all(at_poles == -math.inf)  # as torch's (-inf at 0 and the negative integers)
    with pytest.raises(RuntimeError, match="negative n"):
        minitorch.polygamma(-1, minitorch.tensor([1.0]))


def gradients(function, *arrays, torch_function=None, wrt=None):
    """d sum(c * f) / d inputs from both libraries, for the inputs listed in ``wrt``."""
    wrt = range(len(arrays)) if wrt is None else wrt
    ours = [minitorch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
    theirs = [torch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
    out_ours, out_theirs = function(*ours), torch_function(*theirs)
    cotangent = np.linspace(0.5, 1.5, out_theirs.numel()).reshape(out_theirs.shape)
    (out_ours * minitorch.tensor(cotangent)).sum().backward()
    (out_theirs * torch.tensor(cotangent)).sum().backward()
    for i in wrt:
        assert_like_torch(ours[i].grad, theirs[i].grad, 1e-7, 1e-9)


def test_gradients_match_torch():
    x = np.r_[-7.5, -3.0, -1.2, -0.3, 0.0, 0.4, 2.0, 6.5, 30.0]
    positive = np.abs(x[x != 0]) + 0.1
    p = np.array([1e-20, 0.01, 0.3, 0.5, 0.8, 0.999])
    for name in ("ndtr", "log_ndtr", "erfcx", "i0e", "i1", "i1e"):
        gradients(getattr(minitorch.special, name), x, torch_function=getattr(torch.special, name))
    gradients(minitorch.special.ndtri, p, torch_function=torch.special.ndtri)
    gradients(minitorch.special.entr, positive, torch_function=torch.special.entr)
    gradients(lambda t: minitorch.polygamma(2, t), x + 0.5, torch_function=lambda t: torch.polygamma(2, t))
    gradients(minitorch.special.zeta, positive + 1, positive, torch_function=torch.special.zeta, wrt=[1])
    gradients(minitorch.igamma, positive, positive[::-1].copy(), torch_function=torch.igamma, wrt=[1])
    gradients(minitorch.igammac, positive, positive[::-1].copy(), torch_function=torch.igammac, wrt=[1])
    gradients(minitorch.special.xlog1py, np.r_[0.0, 0.0, x], np.r_[-1.0, -2.0, positive, 0.5],
              torch_function=torch.special.xlog1py)  # fmt: skip
    gradients(minitorch.nextafter, x, x[::-1].copy(), torch_function=torch.nextafter, wrt=[0])


def test_second_order_through_polygamma_and_erfcx():
    x = minitorch.tensor([0.7, 2.5], dtype=minitorch.float64, requires_grad=True)
    (first,) = minitorch.autograd.grad(minitorch.special.erfcx(x).sum(), x, create_graph=True)
    (second,) = minitorch.autograd.grad(first.sum(), x)
    t = torch.tensor([0.7, 2.5], dtype=torch.float64, requires_grad=True)
    (first_t,) = torch.autograd.grad(torch.special.erfcx(t).sum(), t, create_graph=True)
    assert_like_torch(second, torch.autograd.grad(first_t.sum(), t)[0])
    y = minitorch.polygamma(1, x)
    (first,) = minitorch.autograd.grad(y.sum(), x, create_graph=True)
    assert_like_torch(minitorch.autograd.grad(first.sum(), x)[0], torch.polygamma(3, t.detach()))


def test_no_derivative_where_torch_has_none():
    s = minitorch.tensor([2.0, 3.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="zeta"):
        minitorch.special.zeta(s, minitorch.tensor([1.0, 2.0])).sum().backward()
    with pytest.raises(NotImplementedError, match="igamma: input"):
        minitorch.igamma(s, minitorch.tensor([1.0, 2.0])).sum().backward()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frexp_and_nextafter_bit_for_bit(dtype):
    info = np.finfo(dtype)
    rng = np.random.default_rng(1)
    with np.errstate(over="ignore"):
        values = np.r_[rng.normal(size=40) * 10.0 ** rng.integers(-40, 40, 40), 0.0, -0.0, 1.0, 0.5, -4.0,
                       info.tiny, info.tiny / 2, info.smallest_subnormal, info.max, -info.max,
                       math.inf, -math.inf, math.nan].astype(dtype)  # fmt: skip
    mantissa, exponent = minitorch.frexp(minitorch.tensor(values))
    expected = torch.frexp(torch.tensor(values))
    assert exponent.dtype == minitorch.int32 and str(mantissa.dtype) == str(expected.mantissa.dtype)
    np.testing.assert_array_equal(mantissa.numpy(), expected.mantissa.numpy())
    np.testing.assert_array_equal(exponent.numpy(), expected.exponent.numpy())
    bits = np.uint32 if dtype == np.float32 else np.uint64
    for toward in (values[::-1].copy(), np.full_like(values, math.inf), np.zeros_like(values), values):
        ours = minitorch.nextafter(minitorch.tensor(values), minitorch.tensor(toward)).numpy()
        theirs = torch.nextafter(torch.tensor(values), torch.tensor(toward)).numpy()
        same = (ours.view(bits) == theirs.view(bits)) | (np.isnan(ours) & np.isnan(theirs))
        assert same.all(), (values[~same], toward[~same])


def test_errors_methods_and_namespace():
    x = minitorch.tensor([1.5, -2.0, 3.0])
    with pytest.raises(RuntimeError, match="floating-point"):
        minitorch.frexp(minitorch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="Long"):
        minitorch.nextafter(minitorch.tensor([1]), minitorch.tensor([2]))
    assert minitorch.nextafter(x, minitorch.tensor([1.0], dtype=minitorch.float64)).dtype == minitorch.float64
    same = np.testing.assert_array_equal  # NaN equals NaN here (polygamma at a pole)
    same(x.polygamma(1).numpy(), minitorch.polygamma(1, x).numpy())
    y = x.clone()
    y.polygamma_(2)
    same(y.numpy(), minitorch.polygamma(2, x).numpy())
    m, e = x.frexp()
    same((m * 2.0 ** e.double()).numpy(), x.numpy())
    z = x.abs()
    z.igamma_(minitorch.tensor(1.0))
    same(z.numpy(), minitorch.igamma(x.abs(), minitorch.tensor(1.0)).numpy())
    same(minitorch.special.psi(x).numpy(), minitorch.digamma(x).numpy())
    out = minitorch.empty(3)
    assert minitorch.special.ndtr(x, out=out) is out
    same(out.numpy(), minitorch.special.ndtr(x).numpy())
    with pytest.raises(AttributeError, match="api-coverage"):
        minitorch.special.bessel_j0  # noqa: B018


def test_angle_of_real_numbers_is_pi_or_zero_with_a_zero_gradient():
    values = np.r_[WIDE, -0.0].astype(np.float32)
    x = minitorch.tensor(values, requires_grad=True)
    assert_like_torch(minitorch.angle(x).detach(), torch.angle(torch.tensor(values)))
    minitorch.angle(x).sum().backward()
    assert_like_torch(x.grad, torch.zeros(len(values)))
    integers = [[-3, 2], [0, -1]]
    assert_like_torch(minitorch.tensor(integers).t().angle(), torch.tensor(integers).t().angle())


def test_polygamma_of_an_order_past_170_is_infinite_as_torch_and_quick():
    values = [0.5, 2.0, -1.5, 10.0]  # float64: float32 overflows n! already from n = 35
    for n in (170, 171, 200, 2**62):  # 2**62! would never finish as an exact integer
        expected = torch.polygamma(n, torch.tensor(values, dtype=torch.float64))
        assert_like_torch(minitorch.polygamma(n, minitorch.tensor(values, dtype=minitorch.float64)), expected)
