"""minitorch.linalg against torch.linalg: solve, inv, det, svd, svdvals, torch.svd and the
norms; batched and broadcast, transposed, empty; gradients against torch's and by
gradcheck in float64; PyTorch's errors (LinAlgError for a singular matrix)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close


def _pair(array, requires_grad=False):
    return (mt.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))  # fmt: skip


def _well_conditioned(rng, shape):
    """Random matrices plus a multiple of the identity: far from singular."""
    n = shape[-1]
    return rng.standard_normal(shape) + 3 * np.eye(n)


def _backward_both(got, want, rng):
    weights = rng.standard_normal(tuple(want.shape))
    (got * mt.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()


# ----- solve ----------------------------------------------------------------------------

SOLVE_SHAPES = [
    ((3, 3), (3,)),  # a vector
    ((3, 3), (3, 2)),
    ((2, 3, 3), (2, 3)),  # a batch of vectors
    ((2, 3, 3), (3, 4)),  # B broadcast over A's batch
    ((3, 3), (2, 3, 1)),  # A broadcast over B's batch
    ((4, 1, 2, 2), (3, 2, 2)),  # both broadcast
    ((0, 2, 2), (0, 2)),  # an empty batch
    ((0, 0), (0, 3)),  # 0 x 0 systems
]


@pytest.mark.parametrize("a_shape,b_shape", SOLVE_SHAPES, ids=[f"{a}{b}" for a, b in SOLVE_SHAPES])
def test_solve_values_and_gradients(a_shape, b_shape):
    rng = np.random.default_rng(0)
    ma, ta = _pair(_well_conditioned(rng, a_shape), True)
    mb, tb = _pair(rng.standard_normal(b_shape), True)
    got, want = mt.linalg.solve(ma, mb), torch.linalg.solve(ta, tb)
    assert_close(got, want)
    _backward_both(got, want, rng)
    assert_close(ma.grad, ta.grad)
    assert_close(mb.grad, tb.grad)


def test_solve_factors_a_broadcast_matrix_once():
    rng = np.random.default_rng(10)
    (ma, ta), (mb, tb) = _pair(_well_conditioned(rng, (2, 1, 3, 3))), _pair(rng.standard_normal((4, 3, 2)))
    with mt.dispatch.trace() as calls:
        got = mt.linalg.solve(ma, mb)
    assert_close(got, torch.linalg.solve(ta, tb))
    factorised = [c for c in calls if c.primitive == "lu_factor"]
    assert [c.shapes[0] for c in factorised] == [(2, 3, 3)]  # A's 2 matrices, not 2 x 4


def test_solve_left_false_transposed_and_float32():
    rng = np.random.default_rng(1)
    a, b = _well_conditioned(rng, (3, 3)), rng.standard_normal((2, 3))
    (ma, ta), (mb, tb) = _pair(a), _pair(b)
    assert_close(mt.linalg.solve(ma, mb, left=False), torch.linalg.solve(ta, tb, left=False))
    assert_close(mt.linalg.solve(ma.T, mb.T), torch.linalg.solve(ta.T, tb.T))  # strided operands
    assert_close(mt.linalg.solve(ma.float(), mb.T.float()), torch.linalg.solve(ta.float(), tb.T.float()),
                 rtol=1e-4, atol=1e-5)  # fmt: skip
    x = mt.tensor(a, requires_grad=True)
    y = mt.tensor(b.T.copy(), requires_grad=True)
    assert mt.autograd.gradcheck(lambda p, q: mt.linalg.solve(p, q), (x, y))
    assert mt.autograd.gradgradcheck(lambda p, q: mt.linalg.solve(p, q), (x, y))


def test_solve_errors_match_torch():
    cases = {
        "singular": lambda lib: lib.linalg.solve(lib.zeros(2, 2), lib.ones(2)),
        "singular in a batch": lambda lib: lib.linalg.solve(
            lib.stack([lib.eye(2), lib.zeros(2, 2)]), lib.ones(2, 2)),
        "not square": lambda lib: lib.linalg.solve(lib.ones(2, 3), lib.ones(2)),
        "incompatible": lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(3)),
        "dtypes": lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(2, dtype=lib.float64)),
        "1-D A": lambda lib: lib.linalg.solve(lib.ones(2), lib.ones(2)),
        "integers": lambda lib: lib.linalg.solve(lib.eye(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64)),
    }
    for name, call in cases.items():
        with pytest.raises(RuntimeError) as expected:
            call(torch)
        with pytest.raises(RuntimeError) as got:
            call(mt)
        assert str(got.value).split(" (convert")[0] == str(expected.value), name
        if "singular" in name:
            assert isinstance(got.value, mt.linalg.LinAlgError)


# ----- inv and det ----------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (0, 0), (2, 0, 0)])
def test_inv_and_det_values_and_gradients(shape):
    rng = np.random.default_rng(2)
    data = _well_conditioned(rng, shape) if shape[-1] else np.ones(shape)
    for function in ("inv", "det"):
        m, t = _pair(data, True)
        got, want = getattr(mt.linalg, function)(m), getattr(torch.linalg, function)(t)
        assert_close(got, want)
        _backward_both(got, want, rng)
        assert_close(m.grad, t.grad, msg=function)
    m, t = _pair(data)
    assert_close(mt.inverse(m.mT), torch.inverse(t.mT))
    assert_close(m.det(), t.det())


def test_det_sign_singular_and_gradcheck():
    rng = np.random.default_rng(3)
    permutation = np.eye(4)[[2, 0, 3, 1]] * np.array([1.0, 2.0, -1.0, 0.5])
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    for data in (permutation, singular, np.zeros((2, 2))):
        assert_close(mt.linalg.det(mt.tensor(data)), torch.linalg.det(torch.tensor(data)))
    x = mt.tensor(_well_conditioned(rng, (2, 3, 3)), requires_grad=True)
    assert mt.autograd.gradcheck(mt.linalg.det, (x,))
    for data in (singular, np.diag([2.0, 0.0, 3.0]), np.zeros((2, 2)), np.stack([singular, np.eye(3)])):
        # the cofactors, which finite differences confirm (PyTorch 2.13 returns zeros here)
        assert mt.autograd.gradcheck(mt.linalg.det, (mt.tensor(data, requires_grad=True),))
    y = mt.tensor(np.diag([2.0, 0.0, 3.0]), requires_grad=True)
    mt.linalg.det(y).backward()
    assert_close(y.grad, torch.diag(torch.tensor([0.0, 6.0, 0.0], dtype=torch.float64)))
    assert mt.autograd.gradcheck(mt.linalg.inv, (x,))
    assert mt.autograd.gradgradcheck(mt.linalg.inv, (x,))


def test_inv_and_det_errors_match_torch():
    for call in (lambda lib: lib.linalg.inv(lib.zeros(2, 2)),
                 lambda lib: lib.linalg.inv(lib.tensor([[1.0, 2.0], [2.0, 4.0]])),
                 lambda lib: lib.linalg.inv(lib.ones(2, 3)),
                 lambda lib: lib.linalg.det(lib.ones(2, 3)),
                 lambda lib: lib.linalg.inv(lib.eye(2, dtype=lib.int64))):  # fmt: skip
        with pytest.raises(RuntimeError) as expected:
            call(torch)
        with pytest.raises(RuntimeError) as got:
            call(mt)
        assert str(got.value).split(" (convert")[0] == str(expected.value)
        assert type(got.value).__name__.endswith("LinAlgError") == type(expected.value).__name__.endswith(
            "LinAlgError")


# ----- svd ------------------------------------------------------------------------------

SVD_SHAPES = [(4, 3), (3, 5), (3, 3), (2, 4, 2), (1, 1), (5, 1)]


def _reconstruct(u, s, vh):
    k = s.shape[-1]
    return (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :]


@pytest.mark.parametrize("shape", SVD_SHAPES)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_factors(shape, full_matrices):
    rng = np.random.default_rng(4)
    m, t = _pair(rng.standard_normal(shape))
    got = mt.linalg.svd(m, full_matrices=full_matrices)
    want = torch.linalg.svd(t, full_matrices=full_matrices)
    assert [tuple(x.shape) for x in got] == [tuple(x.shape) for x in want]
    assert_close(got.S, want.S)
    assert_close(_reconstruct(*got), t)
    for q in (got.U, got.Vh.mT):  # orthonormal columns (signs may differ from torch's)
        identity = torch.eye(q.shape[-1], dtype=torch.float64)
        assert_close(q.mT @ q, identity.expand(q.mT.shape[:-1] + (q.shape[-1],)))
    assert_close(mt.linalg.svdvals(m), torch.linalg.svdvals(t))


def test_svd_rank_deficient_empty_and_strided():
    rank_one = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    rank_two = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    for data in (rank_one, rank_one.T, rank_two, np.zeros((2, 3))):
        m, t = _pair(data)
        u, s, vh = mt.linalg.svd(m)
        assert_close(s, torch.linalg.svd(t).S, atol=1e-12)
        for q in (u, vh.mT):  # the undetermined columns are completed orthonormally
            assert_close(q.mT @ q, torch.eye(q.shape[-1], dtype=torch.float64))
        assert_close(_reconstruct(u, s, vh), t)
    m, t = _pair(np.random.default_rng(5).standard_normal((3, 4)))
    assert_close(mt.linalg.svdvals(m.T[::2]), torch.linalg.svdvals(t.T[::2]))
    for shape in [(0, 3), (3, 0), (2, 0, 0), (0, 2, 2)]:
        for full in (True, False):
            got, want = mt.linalg.svd(mt.ones(shape), full), torch.linalg.svd(torch.ones(shape), full)
            for g, w in zip(got, want):
                assert_close(g, w)


def test_torch_svd_returns_v():
    m, t = _pair(np.random.default_rng(6).standard_normal((4, 3)))
    for some in (True, False):
        got, want = mt.svd(m, some=some), torch.svd(t, some=some)
        assert [tuple(x.shape) for x in got] == [tuple(x.shape) for x in want]
        assert_close(got.S, want.S)
        assert_close((got.U[:, :3] * got.S) @ got.V[:, :3].T, t)
    got, want = mt.svd(m, compute_uv=False), torch.svd(t, compute_uv=False)
    for g, w in zip(got, want):
        assert_close(g, w)
    assert repr(m.svd()).startswith("torch.return_types.svd(\nU=")


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_gradients_match_torch(shape, full_matrices):
    """A loss that does not depend on the signs of the singular vectors (squares of U and
    Vh, and S) has one gradient, whatever signs each library picked."""
    rng = np.random.default_rng(7)
    data = rng.standard_normal(shape)
    m, t = _pair(data, True)
    got, want = mt.linalg.svd(m, full_matrices), torch.linalg.svd(t, full_matrices)
    w_u, w_s, w_v = (rng.standard_normal(tuple(x.shape)) for x in want)
    for lib, (u, s, vh) in ((mt, got), (torch, want)):
        loss = (u**2 * lib.tensor(w_u)).sum() + (s * lib.tensor(w_s)).sum() + (vh**2 * lib.tensor(w_v)).sum()
        loss.backward()
    assert_close(m.grad, t.grad, rtol=1e-6, atol=1e-6)
    x = mt.tensor(data, requires_grad=True)
    assert mt.autograd.gradcheck(lambda a: mt.linalg.svdvals(a), (x,))
    assert mt.autograd.gradcheck(lambda a: (lambda u, s, vh: (u**2).sum(-1) + (vh**2).sum(-2)[..., :1])(
        *mt.linalg.svd(a, full_matrices=False)), (x,))


def test_svd_errors_match_torch():
    for call in (lambda lib: lib.linalg.svd(lib.ones(3)),
                 lambda lib: lib.linalg.svd(lib.tensor([[float("nan"), 1.0], [1.0, 1.0]])),
                 lambda lib: lib.linalg.svdvals(lib.tensor([[float("nan"), 1.0], [1.0, 1.0]])),
                 lambda lib: lib.svd(lib.tensor([[float("nan"), 1.0], [1.0, 1.0]]))):  # fmt: skip
        with pytest.raises(RuntimeError) as expected:
            call(torch)
        with pytest.raises(RuntimeError) as got:
            call(mt)
        assert str(got.value) == str(expected.value)
    infinite = [[[float("inf"), 1.0], [1.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]]]
    got, want = mt.linalg.svd(mt.tensor(infinite)), torch.linalg.svd(torch.tensor(infinite))
    assert_close(got.S, want.S)  # NaN for the matrix with an infinity, as LAPACK in torch
    assert_close(_reconstruct(*got)[1], torch.tensor(infinite[1]))


# ----- norms ----------------------------------------------------------------------------

MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]


@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
def test_matrix_norm(ord):
    rng = np.random.default_rng(8)
    data = rng.standard_normal((2, 3, 4))
    for dim in [(-2, -1), (0, 2), (2, 1)]:
        for keepdim in (False, True):
            m, t = _pair(data, True)
            got = mt.linalg.matrix_norm(m, ord, dim, keepdim)
            want = torch.linalg.matrix_norm(t, ord, dim, keepdim)
            assert_close(got, want, msg=f"{dim} {keepdim}")
            _backward_both(got, want, rng)
            assert_close(m.grad, t.grad, msg=f"{dim} {keepdim}")
    m, t = _pair(data[0])
    assert_close(mt.linalg.norm(m, ord), torch.linalg.norm(t, ord))
    assert_close(mt.linalg.norm(m.T, ord), torch.linalg.norm(t.T, ord))
    assert_close(mt.linalg.norm(m.float(), ord, (1, 0)), torch.linalg.norm(t.float(), ord, (1, 0)))


@pytest.mark.parametrize("ord", [2, 1, math.inf, -math.inf, 0, 3, -1.5, 0.5])
def test_vector_norm(ord):
    rng = np.random.default_rng(9)
    data = rng.standard_normal((3, 4))
    for dim in [None, 0, -1, (0, 1)]:
        for keepdim in (False, True):
            m, t = _pair(data, True)
            got = mt.linalg.vector_norm(m, ord, dim, keepdim)
            want = torch.linalg.vector_norm(t, ord, dim, keepdim)
            assert_close(got, want, msg=f"{dim} {keepdim}")
            if ord != 0:
                _backward_both(got, want, rng)
                assert_close(m.grad, t.grad, msg=f"{dim} {keepdim}")
    m, t = _pair(data[0])
    assert_close(mt.linalg.norm(m, ord), torch.linalg.norm(t, ord))
    assert_close(mt.linalg.norm(mt.tensor(data), ord, 1), torch.linalg.norm(torch.tensor(data), ord, 1))


def test_norm_defaults_dtype_and_errors():
    data = np.arange(24.0).reshape(2, 3, 4) - 10
    m, t = _pair(data)
    assert_close(mt.linalg.norm(m), torch.linalg.norm(t))
    assert_close(mt.linalg.norm(m, keepdim=True), torch.linalg.norm(t, keepdim=True))
    assert_close(mt.linalg.vector_norm(m.float(), dtype=mt.float64),
                 torch.linalg.vector_norm(t.float(), dtype=torch.float64))  # fmt: skip
    assert_close(mt.linalg.norm(mt.zeros(0)), torch.linalg.norm(torch.zeros(0)))
    zero = mt.zeros(3, requires_grad=True)
    mt.linalg.norm(zero).backward()
    assert_close(zero.grad, torch.zeros(3))  # the subgradient 0 at the origin, as torch
    for call in (lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), ord=2),
                 lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), ord=3),
                 lambda lib: lib.linalg.matrix_norm(lib.ones(2)),
                 lambda lib: lib.linalg.vector_norm(lib.ones(2, dtype=lib.int64))):  # fmt: skip
        with pytest.raises(RuntimeError) as expected:
            call(torch)
        with pytest.raises(RuntimeError) as got:
            call(mt)
        assert str(got.value).split(" (convert")[0] == str(expected.value)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_floats_are_refused_as_torch_refuses_them(dtype):
    calls = {
        "solve": lambda lib, a: lib.linalg.solve(a, a),
        "inv": lambda lib, a: lib.linalg.inv(a),
        "det": lambda lib, a: lib.linalg.det(a),
        "svd": lambda lib, a: lib.linalg.svd(a),
        "svdvals": lambda lib, a: lib.linalg.svdvals(a),
        "torch.svd": lambda lib, a: lib.svd(a),
        "nuc": lambda lib, a: lib.linalg.matrix_norm(a, "nuc"),
    }
    data = [[2.0, 1.0], [1.0, 3.0]]
    for name, call in calls.items():
        with pytest.raises((RuntimeError, NotImplementedError)) as expected:
            call(torch, torch.tensor(data, dtype=getattr(torch, dtype)))
        with pytest.raises(type(expected.value)) as got:
            call(mt, mt.tensor(data, dtype=getattr(mt, dtype)))
        assert str(got.value).split(" (convert")[0] == str(expected.value), name
    m, t = mt.tensor(data, dtype=getattr(mt, dtype)), torch.tensor(data, dtype=getattr(torch, dtype))
    assert_close(mt.linalg.matrix_norm(m).float(), torch.linalg.matrix_norm(t).float())  # "fro" works
