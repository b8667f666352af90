"""linalg.lu_factor, lu_factor_ex, lu, lu_solve, torch.lu, lu_unpack and torch.lu_solve against
torch: square, wide and tall, batched and transposed input, LAPACK's 1-based pivots, a
singular matrix (info, PyTorch's error), and gradients of the factors in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close


def _pair(array, requires_grad=False):
    return (mt.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))  # fmt: skip


@pytest.mark.parametrize("shape", [(2, 4, 4), (2, 3, 5), (5, 3)], ids=str)
def test_lu_factors_and_their_gradients(shape):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    ma, ta = _pair(a, True)
    got, want = mt.linalg.lu_factor(ma.mT.mT), torch.linalg.lu_factor(ta.mT.mT)
    assert_close(got, want)
    weights = rng.standard_normal(tuple(want.LU.shape))
    (got.LU * mt.tensor(weights)).sum().backward()
    (want.LU * torch.tensor(weights)).sum().backward()
    assert_close(ma.grad, ta.grad, rtol=1e-6, atol=1e-6)
    assert_close(mt.linalg.lu(ma), torch.linalg.lu(ta))
    assert_close(mt.lu_unpack(*got), torch.lu_unpack(*want))


@pytest.mark.filterwarnings("ignore:torch.lu")
def test_lu_solve_forms_and_singular_matrices():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 2))
    (ma, ta), (mb, tb) = _pair(a), _pair(b)
    factors, tfactors = mt.linalg.lu_factor(ma), torch.linalg.lu_factor(ta)
    for left in (True, False):
        for adjoint in (False, True):
            rhs, trhs = (mb, tb) if left else (mb.mT, tb.mT)
            assert_close(mt.linalg.lu_solve(*factors, rhs, left=left, adjoint=adjoint),
                         torch.linalg.lu_solve(*tfactors, trhs, left=left, adjoint=adjoint))  # fmt: skip
    assert_close(mt.lu_solve(mb, *factors), torch.lu_solve(tb, *tfactors))
    assert_close(ma.lu(get_infos=True), ta.lu(get_infos=True))
    singular, tsingular = _pair(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert_close(mt.linalg.lu_factor_ex(singular), torch.linalg.lu_factor_ex(tsingular))
    with pytest.raises(mt.linalg.LinAlgError, match=r"U\[2,2\] is zero"):
        mt.linalg.lu_factor(singular)
    with pytest.raises(RuntimeError, match="floating point"):
        mt.linalg.lu_factor(mt.ones(2, 2, dtype=mt.int64))
