"""einsum against PyTorch: values and gradients for matrix products, batches, traces,
diagonals, outer products, ``...`` broadcasting, implicit outputs and three or more
operands, on transposed, sliced, expanded, empty and 0-d operands; and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(2, 2, 3)]),
    ("ijji->ij", [(2, 3, 3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ba", [(2, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(3,), (3,)]),
    ("i,i", [(3,), (3,)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 2)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ab,ab,ab->ab", [(2, 3), (2, 3), (1, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...i,...i", [(2, 3), (3,)]),
    ("i...,i...->...", [(2, 3, 4), (2, 1, 4)]),
    ("...", [(2, 3)]),
    ("a...b->b...a", [(2, 3, 4, 5)]),
    ("ij,kl->", [(0, 3), (2, 2)]),
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    (",i->i", [(), (3,)]),
    ("->", [()]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]),
    (" i j , j k -> i k ", [(2, 3), (3, 4)]),
]

def _operands(shapes, rng):
    return [rng.standard_normal(shape) for shape in shapes]


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_values_and_gradients(equation, shapes):
    rng = np.random.default_rng(abs(hash(equation)) % 2**32)
    arrays = _operands(shapes, rng)
    ms = [mt.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, want = mt.einsum(equation, *ms), torch.einsum(equation, *ts)
    assert_close(got, want)
    weights = rng.standard_normal(tuple(want.shape))
    (got * mt.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()
    for m, t in zip(ms, ts):
        assert_close(m.grad, t.grad, msg=equation)


def test_einsum_on_strided_operands_and_a_list():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 5))
    for view in (lambda lib, x: lib.tensor(x).T,                       # transposed
                 lambda lib, x: lib.tensor(np.repeat(x, 2, 0))[::2].T,  # sliced
                 lambda lib, x: lib.tensor(x[:1]).expand(4, x.shape[1]).T):  # expanded
        assert_close(mt.einsum("ij,kj->ik", [view(mt, a), view(mt, a)]),
                     torch.einsum("ij,kj->ik", [view(torch, a), view(torch, a)]))  # fmt: skip
        assert_close(mt.einsum("ji,jk", view(mt, a).T, mt.tensor(b)),
                     torch.einsum("ji,jk", view(torch, a).T, torch.tensor(b)))  # fmt: skip
    x = mt.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    assert mt.autograd.gradcheck(lambda v: mt.einsum("ij,jk,ki->i", v, v.T, v), (x,))


def test_einsum_float32_and_integers():
    rng = np.random.default_rng(6)
    a = rng.integers(-3, 4, size=(2, 3))
    b = rng.integers(-3, 4, size=(3, 2))
    got = mt.einsum("ij,jk", mt.tensor(a), mt.tensor(b))
    assert_close(got, torch.einsum("ij,jk", torch.tensor(a), torch.tensor(b)))
    f = a.astype(np.float32)
    assert_close(mt.einsum("ij->j", mt.tensor(f)), torch.einsum("ij->j", torch.tensor(f)))
    flags = [a > 0, b[:, 0] > 0]
    for equation, operands in (("ij,k->ijk", flags), ("ij->j", flags[:1]), ("ij,ij->ij", [flags[0]] * 2)):
        # bool products stay bool, sums count (int64); with a matmul both refuse 'Bool'
        assert_close(mt.einsum(equation, *[mt.tensor(x) for x in operands]),
                     torch.einsum(equation, *[torch.tensor(x) for x in operands]))  # fmt: skip
    with pytest.raises(NotImplementedError, match="Bool"):
        mt.einsum("ij,jk", mt.tensor(a > 0), mt.tensor(b > 0))
    for other in (mt.float64, mt.int64):
        with pytest.raises(RuntimeError, match=f"expected scalar type Float but found {other.type_name}"):
            mt.einsum("i,i", mt.ones(2), mt.ones(2, dtype=other))


ERRORS = [
    ("ij,jk", [(2, 3)]),
    ("ij", [(2, 3), (3, 4)]),
    ("ij,jk->ik", [(2, 3), (2, 3)]),
    ("ij->k", [(2, 3)]),
    ("ij", [(2, 3, 4)]),
    ("ijk", [(2, 3)]),
    ("ii", [(2, 3)]),
    ("ij->ii", [(2, 3)]),
    ("i1", [(2, 3)]),
    ("i.j", [(2, 3)]),
]


@pytest.mark.parametrize("equation,shapes", ERRORS, ids=[e[0] + str(e[1]) for e in ERRORS])
def test_einsum_errors_match_torch(equation, shapes):
    arrays = [np.ones(shape) for shape in shapes]
    with pytest.raises(RuntimeError) as expected:
        torch.einsum(equation, *[torch.tensor(a) for a in arrays])
    with pytest.raises(RuntimeError) as got:
        mt.einsum(equation, *[mt.tensor(a) for a in arrays])
    assert str(got.value).split(":")[0] == str(expected.value).split(":")[0]
    assert str(got.value)[:40] == str(expected.value)[:40], (str(got.value), str(expected.value))
    with pytest.raises(TypeError, match="Tensor"):
        mt.einsum("i", [1, 2])


def test_einsum_sublist_form():
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    for make in (lambda lib, x, y: (x, [0, 1], y, [1, 2], [0, 2]),
                 lambda lib, x, y: (x, [0, 1], y, [1, 2]),
                 lambda lib, x, y: (x, [0, 27], [27, 0]),
                 lambda lib, x, y: (x, [Ellipsis, 1], [1, Ellipsis])):  # fmt: skip
        assert_close(mt.einsum(*make(mt, mt.tensor(a), mt.tensor(b))),
                     torch.einsum(*make(torch, torch.tensor(a), torch.tensor(b))))  # fmt: skip
    with pytest.raises(RuntimeError, match=r"valid range \[0, 52\)"):
        mt.einsum(mt.tensor(a), [0, 60])
