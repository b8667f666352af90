"""``geqrf``, ``linalg.householder_product`` (``orgqr``) and ``ormqr`` against PyTorch:
packed factors, products from either side, gradients, batched and transposed inputs,
tall, square and wide matrices, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

RNG = np.random.default_rng(7)


def same(ours, theirs, **tolerance) -> None:
    actual = torch.from_numpy(np.array(ours.detach().numpy()))
    torch.testing.assert_close(actual, theirs.detach(), **tolerance)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 5), (2, 6, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_geqrf_packs_lapacks_factors(shape, dtype):
    x = RNG.standard_normal(shape[:-2] + shape[:-3:-1]).astype(dtype)  # transposed below
    ours = minitorch.geqrf(minitorch.tensor(x).mT)
    theirs = torch.geqrf(torch.tensor(x).mT)
    same(ours.a, theirs.a, rtol=1e-4, atol=1e-5)
    same(ours.tau, theirs.tau, rtol=1e-4, atol=1e-5)
    assert minitorch.tensor(x).mT.geqrf().tau.shape == theirs.tau.shape


def packed(shape):
    a, tau = torch.geqrf(torch.tensor(RNG.standard_normal(shape)))
    ours = minitorch.tensor(a.numpy(), requires_grad=True), minitorch.tensor(tau.numpy(), requires_grad=True)
    return (a, tau), ours


@pytest.mark.parametrize("shape", [(6, 3), (4, 4), (2, 5, 2)])
def test_householder_product_and_its_gradient(shape):
    (a, tau), (ma, mtau) = packed(shape)
    a.requires_grad_(), tau.requires_grad_()
    expected = torch.linalg.householder_product(a, tau)
    got = minitorch.linalg.householder_product(ma, mtau)
    same(got, expected)
    same(minitorch.orgqr(ma, mtau), expected)
    g = RNG.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(g))
    got.backward(minitorch.tensor(g))
    same(ma.grad, a.grad)
    same(mtau.grad, tau.grad)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_multiplies_by_q_from_either_side(left, transpose):
    (a, tau), (ma, mtau) = packed((5, 3))
    c = RNG.standard_normal((5, 2) if left else (2, 5))
    tc, mc = torch.tensor(c, requires_grad=True), minitorch.tensor(c, requires_grad=True)
    expected = torch.ormqr(a, tau, tc, left, transpose)
    got = ma.detach().ormqr(mtau.detach(), mc, left, transpose)
    same(got, expected)
    expected.sum().backward()
    got.sum().backward()
    same(mc.grad, tc.grad)


def test_errors_as_pytorch():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        minitorch.geqrf(minitorch.ones(3))
    with pytest.raises(NotImplementedError, match="Long"):
        minitorch.geqrf(minitorch.ones(3, 3, dtype=minitorch.int64))
    with pytest.raises(TypeError):
        minitorch.geqrf([[1.0]])
    a, tau = minitorch.geqrf(minitorch.randn(5, 3, requires_grad=True))
    with pytest.raises(NotImplementedError, match="derivative for 'geqrf'"):
        a.sum().backward()
    with pytest.raises(RuntimeError, match="greater than or equal"):
        minitorch.linalg.householder_product(minitorch.randn(3, 5), minitorch.randn(3))
    with pytest.raises(RuntimeError, match="one dimension less"):
        minitorch.linalg.householder_product(minitorch.randn(5, 3), minitorch.randn(2, 3))
    with pytest.raises(RuntimeError, match="does not match"):
        minitorch.linalg.householder_product(minitorch.randn(5, 3), minitorch.randn(3).double())
    with pytest.raises(RuntimeError, match="must be equal"):
        minitorch.ormqr(minitorch.randn(5, 3), minitorch.randn(3), minitorch.randn(4, 2))
