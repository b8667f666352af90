"""Assigning ``x.grad`` by hand is checked as PyTorch checks it (issue 14): a number is
a TypeError, a gradient of another shape, dtype or device a RuntimeError."""

from __future__ import annotations

import pytest
import torch

import minitorch as mt

BAD = {
    "a float": (lambda lib: 0.0, TypeError,
                "assigned grad expected to be a Tensor or None but got grad of type float"),
    "a list": (lambda lib: [1.0, 2.0, 3.0], TypeError, "but got grad of type list"),
    "another shape": (lambda lib: lib.ones(2), RuntimeError,
                      r"attempting to assign a gradient of size '\[2\]' to a tensor of size '\[3\]'"),
    "one element": (lambda lib: lib.ones(1), RuntimeError, "attempting to assign a gradient of size"),
    "another dtype": (lambda lib: lib.ones(3, dtype=lib.float64), RuntimeError,
                      "attempting to assign a gradient with dtype"),
    "an integer dtype": (lambda lib: lib.ones(3, dtype=lib.int64), RuntimeError,
                         "attempting to assign a gradient with dtype"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(BAD))
def test_bad_grads_are_refused(name):
    make, error, message = BAD[name]
    for lib in (mt, torch):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(error, match=message):
            x.grad = make(lib)
        assert x.grad is None


def test_own_grad_is_refused():
    for lib in (mt, torch):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
            x.grad = x


def test_good_grads_are_kept():
    for lib in (mt, torch):
        x = lib.ones(3, requires_grad=True)
        g = lib.full((3,), 2.0)
        x.grad = g
        assert x.grad is g
        (x * 3).sum().backward()  # accumulates into the assigned gradient
        assert x.grad.tolist() == [5.0, 5.0, 5.0]
        x.grad = lib.ones(3, 2)[:, 0]  # any layout of the right shape
        x.grad = None
        assert x.grad is None
        y = lib.ones(3)  # a tensor that does not require grad may hold one too
        y.grad = lib.ones(3)
        assert y.grad.tolist() == [1.0, 1.0, 1.0]


def test_setitem_value_with_leading_ones_into_a_0d_target():
    """``v[..., -1] = tensor([5.])`` on a 1-D tensor: the value's leading size-1
    dimensions are dropped, as in PyTorch."""
    results = []
    for lib in (mt, torch):
        v = lib.zeros(3)
        v[..., -1] = lib.tensor([5.0])
        v[0] = lib.tensor([[7.0]])
        results.append(v.tolist())
    assert results[0] == results[1]
