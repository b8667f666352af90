"""Reductions at their edges (issues 18.4b and 18.6), against PyTorch 2.13: the gradient
of ``norm`` and ``std`` where they are 0, ``std``/``var`` with too few elements for the
correction, float32 statistics of huge values, and ``dim=()`` meaning "every dim"."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt

CASES = {
    "norm of zeros": ([0.0, 0.0, 0.0], lambda t: t.norm()),
    "norm p=3 of zeros": ([0.0, 0.0, 0.0], lambda t: t.norm(p=3)),
    "norm p=1 of zeros": ([0.0, 0.0], lambda t: t.norm(p=1)),
    "norm p=inf of zeros": ([0.0, 0.0], lambda t: t.norm(p=float("inf"))),
    "row norms, one row zero": ([[0.0, 0.0], [3.0, 4.0]], lambda t: t.norm(dim=1)),
    "std of a constant": ([2.0, 2.0, 2.0], lambda t: t.std()),
    "var of a constant": ([2.0, 2.0, 2.0], lambda t: t.var()),
    "std, correction=0, constant": ([1.0, 1.0], lambda t: t.std(correction=0)),
    "std of one element": ([1.0], lambda t: t.std()),
    "var of one element": ([1.0], lambda t: t.var()),
    "std, correction = n, constant": ([1.0, 1.0, 1.0], lambda t: t.std(correction=3)),
    "std, correction = n": ([1.0, 2.0], lambda t: t.std(correction=2)),
    "std along a dim, one row constant": ([[1.0, 1.0], [1.0, 3.0]], lambda t: t.std(dim=1)),
    "std of ordinary values": ([1.0, 2.0, 4.0], lambda t: t.std()),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(CASES))
def test_value_and_gradient_match_torch(name, dtype):
    data, fn = CASES[name]
    results = []
    for lib in (mt, torch):
        x = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns when correction >= n
            y = fn(x)
            y.sum().backward()
        results.append((y, x.grad))
    (my, mgrad), (ty, tgrad) = results
    assert_close(my, ty, equal_nan=True)
    assert_close(mgrad, tgrad, equal_nan=True)


@pytest.mark.parametrize("name", ["std", "var"])
def test_float32_statistics_of_huge_values_do_not_overflow_early(name):
    """Squares of 1e30 overflow float32; PyTorch accumulates in float64 (std is 1.41e30;
    var, 2e60, is inf in float32 for both)."""
    data = [1e30, 3e30, -2e30]
    m = getattr(mt.tensor(data, dtype=mt.float32), name)()
    t = getattr(torch.tensor(data, dtype=torch.float32), name)()
    assert m.dtype == mt.float32
    assert_close(m, t)


def test_variance_is_computed_in_two_passes():
    """E[x^2] - E[x]^2 loses all digits of a small spread around a large mean."""
    data = np.float64(1e9) + np.array([0.0, 1.0, 2.0, 3.0])
    assert_close(mt.tensor(data).var(), torch.tensor(data).var())


@pytest.mark.parametrize("dim", [(), []])
@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "norm", "amax", "amin"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_an_empty_dim_list_reduces_every_dim(name, dim, keepdim):
    data = np.arange(6.0).reshape(2, 3) ** 1.5
    m = getattr(mt.tensor(data), name)(dim=dim, keepdim=keepdim)
    t = getattr(torch.tensor(data), name)(dim=dim, keepdim=keepdim)
    assert_close(m, t)


def test_sum_over_an_empty_dim_list_has_torchs_gradient():
    results = []
    for lib in (mt, torch):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        (x.sum(dim=()) * 2 + x.mean(dim=[])).backward()
        results.append(x.grad)
    assert_close(*results)
