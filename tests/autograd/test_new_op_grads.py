"""Gradients of the ops of issue 14 item 6 (first half): against PyTorch's on the same
inputs, and against finite differences with ``minitorch.autograd.gradcheck`` (float64);
second derivatives with ``gradgradcheck`` where the backward is itself differentiable.

cumprod gets the most attention: its gradient divides by the input where the input has
no zero, and needs the special formula at and after a line's first zero.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck
from tests.helpers import assert_close, pair

RNG = np.random.default_rng(2024)


def grads_match(mt_function, torch_function, *arrays, rtol=1e-7, atol=1e-9, seed=0) -> None:
    """``mt_function`` and ``torch_function`` of the same float64 inputs: same value, and
    the same gradients for a random upstream gradient."""
    mt_inputs, torch_inputs = zip(*(pair(a, "float64", requires_grad=True) for a in arrays))
    m_out, t_out = mt_function(*mt_inputs), torch_function(*torch_inputs)
    assert_close(m_out, t_out.detach(), rtol=rtol, atol=atol)
    upstream = np.random.default_rng(seed).standard_normal(tuple(t_out.shape))
    m_up, t_up = pair(upstream, "float64")
    m_out.backward(m_up)
    t_out.backward(t_up)
    for m, t in zip(mt_inputs, torch_inputs):
        assert_close(m.grad, t.grad, rtol=rtol, atol=atol)


def leaf(array) -> mt.Tensor:
    return mt.tensor(np.asarray(array, dtype=np.float64), dtype=mt.float64, requires_grad=True)


# ----- elementwise --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "sinh", "cosh", "arcsin", "arccos", "arctan"])
def test_unary_gradients(name):
    x = RNG.uniform(-0.9, 0.9, (3, 4))
    grads_match(getattr(mt, name), getattr(torch, name), x)
    grads_match(lambda t: getattr(t.t(), name)(), lambda t: getattr(t.t(), name)(), x)
    assert gradcheck(getattr(mt, name), [leaf(x)])
    assert gradgradcheck(getattr(mt, name), [leaf(x)])


def test_atan2_gradients_with_broadcasting():
    a, b = RNG.standard_normal((3, 1)), RNG.standard_normal((4,))
    grads_match(mt.atan2, torch.atan2, a, b)
    grads_match(lambda p, q: p.arctan2(q.t()), lambda p, q: p.arctan2(q.t()), RNG.standard_normal((2, 3)),
                RNG.standard_normal((3, 2)))  # fmt: skip
    assert gradcheck(mt.atan2, [leaf(a), leaf(b)])
    assert gradgradcheck(mt.atan2, [leaf(a), leaf(b)])
    only_b = leaf(b)
    mt.atan2(mt.tensor(a, dtype=mt.float64), only_b).sum().backward()
    assert only_b.grad is not None


def test_nan_to_num_gradient():
    x = [float("nan"), float("inf"), float("-inf"), 1.5, -2.0]
    grads_match(mt.nan_to_num, torch.nan_to_num, x)
    grads_match(lambda t: t.nan_to_num(0.5, 3.0, -3.0), lambda t: t.nan_to_num(0.5, 3.0, -3.0), x)
    assert gradcheck(lambda t: mt.nan_to_num(t, 1.0), [leaf(RNG.standard_normal(5))])


# ----- cumsum, cumprod ----------------------------------------------------------------


@pytest.mark.parametrize("shape, dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -2), ((), 0)])
def test_cumsum_gradient(shape, dim):
    x = RNG.standard_normal(shape)
    grads_match(lambda t: mt.cumsum(t, dim), lambda t: torch.cumsum(t, dim), x)
    assert gradcheck(lambda t: t.cumsum(dim), [leaf(x)])
    assert gradgradcheck(lambda t: (t * t).cumsum(dim), [leaf(x)])


def test_cumsum_gradient_through_dtype_and_layouts():
    x = RNG.standard_normal((4, 3))
    grads_match(lambda t: t.t().cumsum(1), lambda t: t.t().cumsum(1), x)
    grads_match(lambda t: t[:, ::2].cumsum(0), lambda t: t[:, ::2].cumsum(0), x)
    m, t = pair(x, "float32", requires_grad=True)
    m_out, t_out = mt.cumsum(m, 1, dtype=mt.float64), torch.cumsum(t, 1, dtype=torch.float64)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_close(m.grad, t.grad)  # float32, like the input


CUMPROD_INPUTS = {
    "no zero": [0.5, -1.5, 2.0, 0.75, -1.25],
    "one zero": [0.5, -1.5, 0.0, 0.75, -1.25],
    "zero first": [0.0, -1.5, 2.0, 0.75, -1.25],
    "zero last": [0.5, -1.5, 2.0, 0.75, 0.0],
    "two zeros": [0.5, 0.0, 2.0, 0.0, -1.25],
    "adjacent zeros": [0.5, 0.0, 0.0, 0.75, -1.25],
    "all zeros": [0.0, 0.0, 0.0],
}


@pytest.mark.parametrize("case", list(CUMPROD_INPUTS))
def test_cumprod_gradient_with_zeros(case):
    x = np.array(CUMPROD_INPUTS[case])
    grads_match(lambda t: mt.cumprod(t, 0), lambda t: torch.cumprod(t, 0), x)
    assert gradcheck(lambda t: t.cumprod(0), [leaf(x)])


def test_cumprod_gradient_per_line_and_second_order():
    """Each line of a matrix has its own first zero (or none); the backward handles them
    all at once. Second derivatives too, with and without zeros."""
    x = np.array([[0.5, 0.0, 2.0, 1.5], [1.5, -0.5, 2.0, 0.5], [0.0, 2.0, 0.0, -1.0]])
    for dim in (0, 1, -1):
        grads_match(lambda t, d=dim: mt.cumprod(t, d), lambda t, d=dim: torch.cumprod(t, d), x)
        grads_match(lambda t, d=dim: t.t().cumprod(d), lambda t, d=dim: t.t().cumprod(d), x)
        assert gradcheck(lambda t, d=dim: t.cumprod(d), [leaf(x)])
    assert gradgradcheck(lambda t: t.cumprod(1), [leaf(RNG.uniform(0.5, 1.5, (2, 4)))])
    assert gradgradcheck(lambda t: t.cumprod(1), [leaf(x)])
    grads_match(lambda t: mt.cumprod(t, 0), lambda t: torch.cumprod(t, 0), np.float64(1.5))
    grads_match(lambda t: mt.cumprod(t, 1), lambda t: torch.cumprod(t, 1), np.zeros((2, 0)))


# ----- triangles and diagonals --------------------------------------------------------


@pytest.mark.parametrize("k", [-2, 0, 1])
def test_tril_triu_gradients(k):
    x = RNG.standard_normal((2, 3, 4))
    for name in ("tril", "triu"):
        grads_match(lambda t, n=name: getattr(mt, n)(t, k), lambda t, n=name: getattr(torch, n)(t, k), x)
        assert gradcheck(lambda t, n=name: getattr(t, n)(k), [leaf(x[0])])
        assert gradgradcheck(lambda t, n=name: getattr(t, n)(k) ** 2, [leaf(x[0])])


def test_diag_diagonal_diag_embed_gradients():
    for k in (-1, 0, 2):
        grads_match(lambda t, k=k: mt.diag(t, k), lambda t, k=k: torch.diag(t, k), RNG.standard_normal(3))
        grads_match(
            lambda t, k=k: mt.diag(t, k), lambda t, k=k: torch.diag(t, k), RNG.standard_normal((3, 4))
        )
        grads_match(lambda t, k=k: t.diagonal(k, 2, 0), lambda t, k=k: t.diagonal(k, 2, 0),
                    RNG.standard_normal((3, 2, 4)))  # fmt: skip
        grads_match(lambda t, k=k: t.diag_embed(k, 0, 2), lambda t, k=k: t.diag_embed(k, 0, 2),
                    RNG.standard_normal((2, 3)))  # fmt: skip
    matrix, vector = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal(3))
    assert gradcheck(lambda t: mt.diag(t, 1), [matrix])
    assert gradcheck(lambda t: mt.diag(t, -1), [vector])
    assert gradgradcheck(lambda t: mt.diagonal(t * t, 1), [matrix])
    assert gradgradcheck(lambda t: mt.diag_embed(t * t, -1), [vector])


# ----- meshgrid, cross ----------------------------------------------------------------


def test_meshgrid_gradients():
    a, b, c = RNG.standard_normal(3), RNG.standard_normal(2), RNG.standard_normal(())
    for indexing in ("ij", "xy"):

        def mt_grid(x, y, z, indexing=indexing):
            gx, gy, gz = mt.meshgrid(x, y, z, indexing=indexing)
            return gx * 1.0 + gy * 2.0 + gz * gx

        def torch_grid(x, y, z, indexing=indexing):
            gx, gy, gz = torch.meshgrid(x, y, z, indexing=indexing)
            return gx * 1.0 + gy * 2.0 + gz * gx

        grads_match(mt_grid, torch_grid, a, b, c)


def test_cross_gradients():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((1, 3))
    grads_match(lambda p, q: mt.cross(p, q, dim=1), lambda p, q: torch.cross(p, q, dim=1), a, b)
    grads_match(lambda p, q: mt.linalg.cross(p.t(), q.t(), dim=0),
                lambda p, q: torch.linalg.cross(p.t(), q.t(), dim=0), a, b)  # fmt: skip
    assert gradcheck(lambda p, q: mt.linalg.cross(p, q), [leaf(a), leaf(b)])
    assert gradgradcheck(lambda p, q: mt.linalg.cross(p, q), [leaf(a), leaf(b)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cross without dim: deprecated in PyTorch too
        grads_match(mt.cross, torch.cross, RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2)))


# ----- grad_fn names, as PyTorch prints them ------------------------------------------


def test_grad_fn_names():
    x = leaf(RNG.uniform(-0.5, 0.5, (3, 3)))
    expected = {
        "AsinBackward0": mt.asin(x), "AcosBackward0": mt.acos(x), "AtanBackward0": mt.atan(x),
        "SinhBackward0": mt.sinh(x), "CoshBackward0": mt.cosh(x), "Atan2Backward0": mt.atan2(x, x),
        "CumsumBackward0": mt.cumsum(x, 0), "CumprodBackward0": mt.cumprod(x, 1),
        "TrilBackward0": mt.tril(x), "TriuBackward0": mt.triu(x), "DiagonalBackward0": mt.diagonal(x),
        "DiagEmbedBackward0": mt.diag(x[0]), "NanToNumBackward0": mt.nan_to_num(x),
        "LinalgCrossBackward0": mt.cross(x, x, dim=0), "ExpandBackward0": mt.meshgrid(x[0], indexing="ij")[0],
    }  # fmt: skip
    for name, result in expected.items():
        assert result.grad_fn.name() == name
