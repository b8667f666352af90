"""The reflected operators OpInfo calls by name (``t.__rdiv__(2)``, ``__rsub__``, ``__rmod__``,
``__rpow__``, ``__rmatmul__``) agree with torch, and an integer power with negative tensor
exponents is computed as PyTorch computes it (a negative *number* exponent is refused)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def both(values, dtype="float64"):
    return (torch.tensor(values, dtype=getattr(torch, dtype)),
            minitorch.tensor(values, dtype=getattr(minitorch, dtype)))  # fmt: skip


def same(actual, expected):
    assert str(actual.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())


@pytest.mark.parametrize("name", ["__rdiv__", "__rtruediv__", "__rsub__", "__rmod__", "__rpow__"])
def test_reflected_by_name(name):
    t, m = both([[1.5, -2.0, 4.0], [0.5, 3.0, -0.25]])
    same(getattr(m.t(), name)(3), getattr(t.t(), name)(3))  # a strided tensor, a number on the left
    ti, mi = both([[1, -2, 4], [5, 3, -7]], "int64")
    if name not in ("__rdiv__", "__rtruediv__", "__rmod__"):
        same(getattr(mi.t(), name)(3), getattr(ti.t(), name)(3))


def test_rmatmul_by_name():
    (ta, ma), (tb, mb) = both(np.arange(6.0).reshape(2, 3)), both(np.arange(12.0).reshape(3, 4))
    same(mb.__rmatmul__(ma), tb.__rmatmul__(ta))


def test_integer_powers_with_negative_exponents():
    (tb, mb), (te, me) = both([[-3], [-1], [0], [1], [2]], "int64"), both([-3, -2, -1, 0, 2], "int64")
    same(mb**me, tb**te)  # broadcast: 1 for base 1, +-1 for base -1, 0 otherwise
    for base in (-1, 1, 2):
        same(base**me, base**te)  # Tensor.__rpow__
        same(me.__rpow__(base), te.__rpow__(base))
    same(mb.int() ** me.int(), tb.int() ** te.int())
    with pytest.raises(RuntimeError):
        torch.tensor([2]) ** -1
    with pytest.raises(RuntimeError):
        minitorch.tensor([2]) ** -1
