"""PyTorch's other call forms of existing ops, found by its OpInfo samples: ``std(x, True)``
and ``var(x, False)`` (a bool where ``dim`` goes is ``unbiased``), and the gradient of
``div(a, b, rounding_mode="floor")`` (zero, as PyTorch defines it; ``floor_divide``'s own
derivative stays an error there and here)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch


def pair(shape, seed=0):
    array = np.random.default_rng(seed).standard_normal(shape)
    return minitorch.tensor(array), torch.tensor(array)


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("unbiased", [True, False])
def test_a_bool_in_place_of_dim_is_unbiased(name, unbiased):
    x, t = pair((4, 5))
    x, t = x.t(), t.t()  # non-contiguous
    for got, expected in [
        (getattr(minitorch, name)(x, unbiased), getattr(torch, name)(t, unbiased)),
        (getattr(x, name)(unbiased), getattr(t, name)(unbiased)),
        (getattr(x, name)(1, unbiased, True), getattr(t, name)(1, unbiased, True)),
    ]:
        assert tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)
    with pytest.raises(TypeError):
        getattr(minitorch, name)(x, True, unbiased=False)


def test_floor_rounded_division_has_a_zero_gradient_as_in_pytorch():
    a, ta = pair((3, 1), 1)
    b, tb = pair((4,), 2)
    for leaf in (a, b, ta, tb):
        leaf.requires_grad_(True)
    got = minitorch.div(a, b, rounding_mode="floor")
    expected = torch.div(ta, tb, rounding_mode="floor")
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    assert type(got.grad_fn).__name__ == type(expected.grad_fn).__name__ == "DivBackward2"
    (got * 2).sum().backward()
    (expected * 2).sum().backward()
    for leaf, reference in ((a, ta), (b, tb)):
        assert leaf.grad.shape == reference.grad.shape
        np.testing.assert_array_equal(leaf.grad.numpy(), reference.grad.numpy())
    with pytest.raises(RuntimeError, match="floor_divide"):
        minitorch.floor_divide(a, b).sum().backward()
