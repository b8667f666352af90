"""linalg.qr and torch.qr against torch (LAPACK's Householder signs): tall, wide, square and
batched input, a transposed view, the three modes, zero columns, gradients in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close


@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 5), (4, 4)], ids=str)
def test_qr_values_modes_and_gradients(shape):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    ma, ta = mt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    for mode in ("reduced", "complete", "r"):
        assert_close(mt.linalg.qr(ma.mT.mT, mode), torch.linalg.qr(ta.mT.mT, mode))
    got, want = mt.linalg.qr(ma), torch.linalg.qr(ta)
    weights = [rng.standard_normal(tuple(t.shape)) for t in want]
    sum((g * mt.tensor(w)).sum() for g, w in zip(got, weights)).backward()
    sum((t * torch.tensor(w)).sum() for t, w in zip(want, weights)).backward()
    assert_close(ma.grad, ta.grad, rtol=1e-6, atol=1e-6)


@pytest.mark.filterwarnings("ignore:torch.qr is deprecated")
def test_qr_edge_cases_and_errors():
    zeros = np.zeros((3, 2))  # nothing to reflect: tau = 0
    assert_close(mt.linalg.qr(mt.tensor(zeros)), torch.linalg.qr(torch.tensor(zeros)))
    assert_close(mt.qr(mt.tensor(zeros), some=False), torch.linalg.qr(torch.tensor(zeros), "complete"))
    assert_close(mt.tensor(zeros).qr().R, torch.tensor(zeros).qr().R)
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        mt.linalg.qr(mt.tensor(zeros), "full")
    with pytest.raises(RuntimeError, match="floating point"):
        mt.linalg.qr(mt.ones(2, 2, dtype=mt.int64))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        mt.linalg.qr(mt.ones(3))
