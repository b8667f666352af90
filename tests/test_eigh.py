"""linalg.eigh and eigvalsh against torch: batched, the triangle read (UPLO), a transposed
view, repeated eigenvalues, 0 x 0, and PyTorch's gradients (which reach every entry of
A, and use only the skew part of V^T G_V). Eigenvector signs are arbitrary, so the tests
compare V diag(L) V^T and sign-invariant functions of V."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close


def _pair(array, requires_grad=False):
    return (mt.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))  # fmt: skip


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_values_vectors_and_gradients(uplo):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 4))  # not symmetric: only one triangle is read
    ma, ta = _pair(a, True)
    (values, vectors), (tvalues, tvectors) = mt.linalg.eigh(ma.mT, uplo), torch.linalg.eigh(ta.mT, uplo)
    assert_close(values, tvalues)
    rebuilt = (vectors * values.unsqueeze(-2)) @ vectors.mT
    assert_close(rebuilt, (tvectors * tvalues.unsqueeze(-2)) @ tvectors.mT)
    assert_close(vectors.mT @ vectors, torch.eye(4, dtype=torch.float64).expand(2, 4, 4))
    weights, g = rng.standard_normal((2, 4)), rng.standard_normal((2, 4, 4))
    spread = np.diag([1.0, 2.0, 3.0, 4.0])  # V D V^T does not depend on the signs
    ((values * mt.tensor(weights)).sum()
     + ((vectors @ mt.tensor(spread) @ vectors.mT) * mt.tensor(g)).sum()).backward()  # fmt: skip
    ((tvalues * torch.tensor(weights)).sum()
     + ((tvectors @ torch.tensor(spread) @ tvectors.mT) * torch.tensor(g)).sum()).backward()  # fmt: skip
    assert_close(ma.grad, ta.grad, rtol=1e-6, atol=1e-6)
    assert_close(mt.linalg.eigvalsh(ma.float(), uplo), torch.linalg.eigvalsh(ta.float(), uplo),
                 rtol=1e-5, atol=1e-5)  # fmt: skip


def test_eigvalsh_edge_cases_and_errors():
    repeated, trepeated = _pair(np.diag([2.0, 2.0, -1.0]))
    assert_close(mt.linalg.eigvalsh(repeated), torch.linalg.eigvalsh(trepeated))
    assert_close(mt.linalg.eigvalsh(mt.zeros(2, 0, 0)), torch.linalg.eigvalsh(torch.zeros(2, 0, 0)))
    x = mt.tensor(np.random.default_rng(1).standard_normal((3, 3)), requires_grad=True)
    assert mt.autograd.gradcheck(lambda m: mt.linalg.eigvalsh(m + m.mT), (x,))
    with pytest.raises(RuntimeError, match="square"):
        mt.linalg.eigh(mt.ones(2, 3))
    with pytest.raises(RuntimeError, match="UPLO"):
        mt.linalg.eigh(mt.eye(2), "X")
