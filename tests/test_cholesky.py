"""linalg.cholesky, cholesky_ex, torch.cholesky, cholesky_solve and cholesky_inverse against
torch: batched and transposed input, upper, 0 x 0, LAPACK's info and partial result for a
matrix that is not positive-definite, PyTorch's LinAlgError, gradients in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close


def _spd(rng, shape):
    x = rng.standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + np.eye(shape[-1])


def _pair(array, requires_grad=False):
    return (mt.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))  # fmt: skip


def _backward_both(got, want, *leaves):
    weights = np.random.default_rng(3).standard_normal(tuple(want.shape))
    (got * mt.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()
    for m, t in leaves:
        assert_close(m.grad, t.grad, rtol=1e-6, atol=1e-6)


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
def test_cholesky_values_gradients_and_forms():
    a = _spd(np.random.default_rng(0), (2, 4, 4))
    ma, ta = _pair(a, True)
    got, want = mt.linalg.cholesky(ma.mT), torch.linalg.cholesky(ta.mT)
    assert_close(got, want)
    _backward_both(got, want, (ma, ta))
    assert_close(mt.linalg.cholesky(ma, upper=True), torch.linalg.cholesky(ta, upper=True))
    assert_close(mt.cholesky(ma, True), torch.cholesky(ta, True))
    assert_close(ma.cholesky(), ta.cholesky())
    assert_close(mt.linalg.cholesky(mt.zeros(3, 0, 0)), torch.linalg.cholesky(torch.zeros(3, 0, 0)))
    x = mt.tensor(a[0], requires_grad=True)
    assert mt.autograd.gradcheck(lambda m: mt.linalg.cholesky((m + m.mT) / 2), (x,))


def test_not_positive_definite():
    a = np.stack([np.eye(3), [[4.0, 2, 1], [2, 1, 5], [1, 5, 3]]])  # second: minor of order 2 is 0
    ma, ta = _pair(a)
    assert_close(mt.linalg.cholesky_ex(ma), torch.linalg.cholesky_ex(ta))  # info and LAPACK's partial L
    with pytest.raises(mt.linalg.LinAlgError, match=r"\(Batch element 1\).*leading minor of order 2"):
        mt.linalg.cholesky(ma)
    with pytest.raises(mt.linalg.LinAlgError):
        mt.linalg.cholesky_ex(ma, check_errors=True)
    with pytest.raises(RuntimeError, match="square"):
        mt.linalg.cholesky(mt.ones(2, 3))
    with pytest.raises(RuntimeError, match="floating point"):
        mt.linalg.cholesky(mt.ones(2, 2, dtype=mt.int64))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    rng = np.random.default_rng(1)
    factor = np.linalg.cholesky(_spd(rng, (2, 3, 3)))
    factor = np.swapaxes(factor, -1, -2) if upper else factor
    b = rng.standard_normal((3, 2))  # broadcast over the factors' batch
    (ml, tl), (mb, tb) = _pair(factor, True), _pair(b, True)
    got, want = mt.cholesky_solve(mb, ml, upper), torch.cholesky_solve(tb, tl, upper)
    assert_close(got, want)
    _backward_both(got, want, (ml, tl), (mb, tb))  # every entry of L has one, as in PyTorch
    noise = (np.tril if upper else np.triu)(rng.standard_normal((3, 3)), -1 if upper else 1)
    (ml, tl) = _pair(factor + noise)  # the other triangle is not read
    assert_close(mt.cholesky_solve(mb, ml, upper), torch.cholesky_solve(tb, tl, upper))
    (ml, tl) = _pair(factor[0], True)
    got, want = mt.cholesky_inverse(ml, upper), torch.cholesky_inverse(tl, upper)
    assert_close(got, want)
    _backward_both(got, want, (ml, tl))
