"""The torch.linalg functions that are formulas over LU, SVD and matmul (slogdet, logdet,
inv_ex, solve_ex, cond, tensorinv, tensorsolve, pinv, matrix_rank, lstsq, matrix_exp,
multi_dot, vecdot, vander, diagonal) against torch: batched, transposed (non-contiguous),
singular and empty inputs, gradients against torch's in float64, PyTorch's errors."""

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


def _grads_match(mt_fn, torch_fn, *arrays, rtol=1e-7, atol=1e-7):
    """Values of ``fn(*arrays)`` and the gradients of ``sum(c * fn)`` agree with torch's."""
    rng = np.random.default_rng(7)
    pairs = [_pair(a, True) for a in arrays]
    got, want = mt_fn(*(m for m, _ in pairs)), torch_fn(*(t for _, t in pairs))
    assert_close(got, want, rtol=rtol, atol=atol)
    weights = rng.standard_normal(tuple(want.shape))
    (got * mt.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()
    for m, t in pairs:
        assert_close(m.grad, t.grad, rtol=rtol * 100, atol=atol * 100)


def test_slogdet_logdet_batch_transposed_singular_and_empty():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 4))
    a[1] = -a[1]  # a negative determinant: logdet is NaN
    ma, ta = _pair(a)
    assert_close(mt.linalg.slogdet(ma.mT), torch.linalg.slogdet(ta.mT))
    assert_close(mt.slogdet(ma), torch.slogdet(ta))
    assert_close(ma.logdet(), ta.logdet())
    assert repr(mt.slogdet(ma)).startswith("torch.return_types.slogdet(")
    singular, tsingular = _pair(np.ones((3, 3)))
    assert_close(mt.linalg.slogdet(singular), torch.linalg.slogdet(tsingular))
    assert_close(mt.logdet(singular), torch.logdet(tsingular))
    empty, tempty = _pair(np.zeros((2, 0, 0)))
    assert_close(mt.linalg.slogdet(empty), torch.linalg.slogdet(tempty))
    big = np.eye(120) * 1e3  # det = 1e360 overflows; its logarithm does not
    assert_close(mt.linalg.slogdet(mt.tensor(big)), torch.linalg.slogdet(torch.tensor(big)))
    _grads_match(lambda x: mt.linalg.slogdet(x).logabsdet, lambda x: torch.linalg.slogdet(x).logabsdet, a)
    with pytest.raises(RuntimeError, match="square"):
        mt.linalg.slogdet(mt.ones(2, 3))
    with pytest.raises(RuntimeError, match="floating point"):
        mt.logdet(mt.ones(2, 2, dtype=mt.int64))


def test_inv_ex_and_solve_ex_report_singular_matrices():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3, 3)) + 3 * np.eye(3)
    # Rows 0 and 1 dependent, with multipliers that are powers of two: elimination is exact
    # in any arithmetic, so the zero pivot is exactly zero on every CPU. (With [1, 2, 3] the
    # transposed matrix's multiplier is 1/3, and whether 2 - (1/3) * 6 is zero depends on
    # whether the LAPACK fuses the multiply-add: PyTorch on an Intel Xeon found the zero
    # pivot one column later than on an AMD EPYC.)
    a[1] = [[1, 2, 4], [2, 4, 8], [0, 0, 1]]
    ma, ta = _pair(a)
    got, want = mt.linalg.inv_ex(ma), torch.linalg.inv_ex(ta)
    assert_close(got.info, want.info)
    assert_close(got.inverse[0], want.inverse[0])
    b = rng.standard_normal((3, 2))
    mb, tb = _pair(b)
    got, want = mt.linalg.solve_ex(ma.mT, mb), torch.linalg.solve_ex(ta.mT, tb)
    assert_close(got.info, want.info)
    assert_close(got.result[2], want.result[2])
    vector = mt.linalg.solve_ex(ma[0], mb[:, 0]).result  # a vector B
    assert_close(vector, torch.linalg.solve_ex(ta[0], tb[:, 0]).result)
    with pytest.raises(mt.linalg.LinAlgError):
        mt.linalg.inv_ex(ma, check_errors=True)
    with pytest.raises(mt.linalg.LinAlgError):
        mt.linalg.solve_ex(ma, mb, check_errors=True)
    _grads_match(lambda x: mt.linalg.inv_ex(x).inverse, lambda x: torch.linalg.inv_ex(x).inverse, a[[0, 2]])


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
def test_cond_orders(p):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 3)) + np.eye(3)
    ma, ta = _pair(a)
    assert_close(mt.linalg.cond(ma.mT, p), torch.linalg.cond(ta.mT, p))
    if p not in (None, 2, -2):
        # A singular matrix has no inverse, so its condition number is inf (NumPy's rule).
        # PyTorch's own answer depends on the CPU here: for "nuc", inf on an AMD EPYC and
        # 1.4e48 on an Intel Xeon (the norm of an inverse full of inf and NaN).
        assert mt.linalg.cond(mt.ones(3, 3, dtype=mt.float64), p).item() == math.inf


def test_cond_gradient_and_errors():
    a = np.random.default_rng(3).standard_normal((3, 3)) + 2 * np.eye(3)
    _grads_match(lambda x: mt.linalg.cond(x), lambda x: torch.linalg.cond(x), a)
    x = mt.tensor(a, requires_grad=True)  # (torch 2.13's own cond(x, 1) backward raises)
    assert mt.autograd.gradcheck(lambda m: mt.linalg.cond(m, 1), (x,))
    wide, twide = _pair(np.ones((2, 3)) + np.eye(2, 3))
    assert_close(mt.linalg.cond(wide), torch.linalg.cond(twide))
    with pytest.raises(RuntimeError, match="square"):
        mt.linalg.cond(mt.ones(2, 3), "fro")


def test_tensorinv_and_tensorsolve():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((4, 6, 8, 3))
    a.reshape(24, 24)[:] += 5 * np.eye(24)
    ma, ta = _pair(a)
    assert_close(mt.linalg.tensorinv(ma, ind=2), torch.linalg.tensorinv(ta, ind=2))
    b = rng.standard_normal((4, 6))
    mb, tb = _pair(b)
    assert_close(mt.linalg.tensorsolve(ma, mb), torch.linalg.tensorsolve(ta, tb))
    moved = np.moveaxis(a, 2, 0).copy()  # dims=(0,) moves that dimension to the end again
    mm_, tm = _pair(moved)
    assert_close(mt.linalg.tensorsolve(mm_, mb, dims=(0,)), torch.linalg.tensorsolve(tm, tb, dims=(0,)))
    _grads_match(lambda x, y: mt.linalg.tensorsolve(x, y), lambda x, y: torch.linalg.tensorsolve(x, y), a, b)
    with pytest.raises(RuntimeError, match="strictly positive"):
        mt.linalg.tensorinv(ma, ind=0)
    with pytest.raises(RuntimeError, match="prod"):
        mt.linalg.tensorinv(ma, ind=1)


PINV_SHAPES = [(5, 3), (3, 5), (2, 4, 4)]


@pytest.mark.parametrize("shape", PINV_SHAPES, ids=str)
def test_pinv_values_and_gradients(shape):
    a = np.random.default_rng(5).standard_normal(shape)
    _grads_match(lambda x: mt.linalg.pinv(x.mT), lambda x: torch.linalg.pinv(x.mT), a)
    deficient = a[..., :1] * a[..., :1, :]  # rank one: the small singular values are dropped
    assert_close(mt.linalg.pinv(mt.tensor(deficient)), torch.linalg.pinv(torch.tensor(deficient)))
    _grads_match(mt.linalg.pinv, torch.linalg.pinv, deficient, rtol=1e-6, atol=1e-6)


def test_pinv_tolerances_hermitian_empty_and_rank():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 4, 4))
    ma, ta = _pair(a)
    atol, tatol = _pair(np.array([0.5, 1.0, 2.0]))
    assert_close(mt.linalg.pinv(ma, atol=atol), torch.linalg.pinv(ta, atol=tatol))
    assert_close(mt.linalg.pinv(ma, rtol=0.3), torch.linalg.pinv(ta, rtol=0.3))
    assert_close(mt.pinverse(ma, 0.2), torch.pinverse(ta, 0.2))
    lower = mt.linalg.pinv(ma, hermitian=True)  # only the lower triangle is read
    assert_close(lower, torch.linalg.pinv(ta, hermitian=True))
    assert_close(mt.linalg.pinv(mt.zeros(2, 0, 3)), torch.linalg.pinv(torch.zeros(2, 0, 3)))
    assert_close(mt.linalg.matrix_rank(ma), torch.linalg.matrix_rank(ta))
    assert_close(mt.linalg.matrix_rank(ma, atol=atol), torch.linalg.matrix_rank(ta, atol=tatol))
    assert_close(mt.linalg.matrix_rank(ma, atol=0.5, rtol=0.1),
                 torch.linalg.matrix_rank(ta, atol=0.5, rtol=0.1))  # fmt: skip
    ones, tones = _pair(np.ones((3, 3)))
    assert_close(mt.linalg.matrix_rank(ones, hermitian=True), torch.linalg.matrix_rank(tones, hermitian=True))
    assert_close(mt.linalg.matrix_rank(mt.zeros(0, 3)), torch.linalg.matrix_rank(torch.zeros(0, 3)))
    with pytest.raises(RuntimeError, match="floating point"):
        mt.linalg.pinv(mt.ones(2, 2, dtype=mt.int64))


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_drivers(driver):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    (ma, ta), (mb, tb) = _pair(a), _pair(b)
    assert_close(mt.linalg.lstsq(ma, mb, driver=driver), torch.linalg.lstsq(ta, tb, driver=driver))
    assert_close(mt.linalg.lstsq(ma[0], mb[0, :, 0], driver=driver).solution,
                 torch.linalg.lstsq(ta[0], tb[0, :, 0], driver=driver).solution)  # fmt: skip


def test_lstsq_wide_gradient_and_errors():
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 5)), rng.standard_normal((3, 2))
    _grads_match(lambda x, y: mt.linalg.lstsq(x, y).solution,
                 lambda x, y: torch.linalg.lstsq(x, y).solution, a, b)  # fmt: skip
    with pytest.raises(RuntimeError, match="driver"):
        mt.linalg.lstsq(mt.tensor(a), mt.tensor(b), driver="magic")


def test_matrix_exp_scaling_and_squaring():
    rng = np.random.default_rng(10)
    a = rng.standard_normal((3, 4, 4)) * np.array([0.01, 1.0, 6.0]).reshape(3, 1, 1)  # 0 to 6 squarings
    ma, ta = _pair(a)
    assert_close(mt.matrix_exp(ma.mT), torch.matrix_exp(ta.mT), rtol=1e-10, atol=1e-10)
    assert_close(mt.linalg.matrix_exp(ma.float()), torch.matrix_exp(ta).float(), rtol=1e-6, atol=1e-5)
    assert_close(ma.matrix_exp(), ta.matrix_exp(), rtol=1e-10, atol=1e-10)
    assert_close(mt.matrix_exp(mt.zeros(2, 0, 0)), torch.matrix_exp(torch.zeros(2, 0, 0)))
    _grads_match(mt.matrix_exp, torch.matrix_exp, a, rtol=1e-9, atol=1e-9)
    with pytest.raises(RuntimeError, match="floating point"):
        mt.matrix_exp(mt.ones(2, 2, dtype=mt.int64))
    with pytest.raises(RuntimeError, match="square"):
        mt.matrix_exp(mt.ones(2, 3))


def test_multi_dot_vecdot_vander_diagonal():
    rng = np.random.default_rng(11)
    shapes = [(10,), (10, 100), (100, 5), (5, 50), (50,)]
    arrays = [rng.standard_normal(s) for s in shapes]
    pairs = [_pair(x) for x in arrays]
    for chain in (slice(0, 5), slice(1, 4), slice(0, 2)):
        assert_close(mt.linalg.multi_dot([m for m, _ in pairs[chain]]),
                     torch.linalg.multi_dot([t for _, t in pairs[chain]]))  # fmt: skip
    _grads_match(lambda *xs: mt.linalg.multi_dot(xs), lambda *xs: torch.linalg.multi_dot(xs), *arrays[1:4])
    with pytest.raises(RuntimeError, match="at least 2"):
        mt.linalg.multi_dot([pairs[1][0]])
    x, y = rng.standard_normal((3, 1, 4)), rng.standard_normal((5, 4))
    _grads_match(lambda p, q: mt.linalg.vecdot(p, q), lambda p, q: torch.linalg.vecdot(p, q), x, y)
    assert_close(mt.linalg.vecdot(mt.tensor(x).mT, mt.tensor(x).mT, dim=-2),
                 torch.linalg.vecdot(torch.tensor(x).mT, torch.tensor(x).mT, dim=-2))  # fmt: skip
    v = rng.standard_normal((2, 3))
    _grads_match(lambda p: mt.linalg.vander(p, N=4), lambda p: torch.linalg.vander(p, N=4), v)
    integers, tintegers = _pair(np.array([1, 2, 3], dtype=np.int32))
    assert_close(mt.linalg.vander(integers), torch.linalg.vander(tintegers))  # int64, as cumprod gives
    assert_close(mt.linalg.vander(mt.tensor(2.0), N=3), torch.linalg.vander(torch.tensor(2.0), N=3))
    with pytest.raises(RuntimeError, match="greater than 1"):
        mt.linalg.vander(mt.tensor([1.0]))
    m, t = _pair(rng.standard_normal((2, 3, 4)))
    assert_close(mt.linalg.diagonal(m, offset=1), torch.linalg.diagonal(t, offset=1))
    assert_close(mt.linalg.diagonal(m, dim1=0, dim2=2), torch.linalg.diagonal(t, dim1=0, dim2=2))


def test_gradcheck_of_the_new_gradients():
    rng = np.random.default_rng(12)
    a = mt.tensor(rng.standard_normal((3, 3)) + 2 * np.eye(3), requires_grad=True)
    wide = mt.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert mt.autograd.gradcheck(lambda x: mt.linalg.slogdet(x).logabsdet, (a,))
    assert mt.autograd.gradcheck(lambda x: mt.linalg.pinv(x), (wide,))
    assert mt.autograd.gradcheck(mt.matrix_exp, (a,))


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
def test_solve_triangular_and_triangular_solve():
    rng = np.random.default_rng(13)
    a = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)  # the other triangle holds noise: not read
    b = rng.standard_normal((4, 3))
    for upper in (False, True):
        for unit in (False, True):
            options = {"upper": upper, "unitriangular": unit}
            _grads_match(lambda x, y, o=options: mt.linalg.solve_triangular(x.mT, y, **o),
                         lambda x, y, o=options: torch.linalg.solve_triangular(x.mT, y, **o),
                         a, b)  # fmt: skip
    (ma, ta), (mb, tb) = _pair(a), _pair(b.T.copy())
    assert_close(mt.linalg.solve_triangular(ma, mb, upper=True, left=False),
                 torch.linalg.solve_triangular(ta, tb, upper=True, left=False))  # fmt: skip
    assert_close(mt.triangular_solve(mb.mT, ma, transpose=True),
                 torch.triangular_solve(tb.mT, ta, transpose=True))  # fmt: skip
    singular, tsingular = _pair(np.zeros((2, 2)))
    ones, tones = _pair(np.ones((2, 1)))
    assert_close(mt.linalg.solve_triangular(singular, ones, upper=True),
                 torch.linalg.solve_triangular(tsingular, tones, upper=True))  # fmt: skip
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        mt.linalg.solve_triangular(ma[0], mb[0], upper=True)
