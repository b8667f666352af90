"""PyTorch's other call forms of existing ops, found by its OpInfo samples: ``std(x, True)``
and ``var(x, False)`` (a bool where ``dim`` goes is ``unbiased``), and the gradient of
``div(a, b, rounding_mode="floor")`` (zero, as PyTorch defines it; ``floor_divide``'s own
derivative stays an error there and here)."""

from __future__ import annotations

import warnings

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


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_gather_and_scatter_add_take_int32_indices_as_pytorch(index_dtype):
    x, t = pair((5, 3), 3)
    positions = np.array([[4, 0, 2], [1, 1, 3]])
    index = minitorch.tensor(positions, dtype=getattr(minitorch, index_dtype))
    torch_index = torch.tensor(positions, dtype=getattr(torch, index_dtype))
    x.requires_grad_(True)
    t.requires_grad_(True)
    got, expected = minitorch.gather(x, 0, index), torch.gather(t, 0, torch_index)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    got.sum().backward()
    expected.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    source, torch_source = pair((2, 3), 4)
    added = minitorch.scatter_add(x.detach(), 0, index, source)
    np.testing.assert_array_equal(
        added.numpy(), torch.scatter_add(t.detach(), 0, torch_index, torch_source).numpy()
    )


def test_gather_index_dtypes_pytorch_refuses_are_refused():
    x = minitorch.randn(5, 3)
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        minitorch.gather(x, 0, minitorch.tensor([[1, 2, 0]], dtype=minitorch.uint8))
    empty = minitorch.gather(x, 0, minitorch.zeros(0, 3, dtype=minitorch.uint8))  # empty: taken, as there
    assert empty.shape == (0, 3)


@pytest.mark.parametrize(
    "mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]
)
def test_cdist_takes_pytorchs_compute_modes(mode):
    a, ta = pair((2, 4, 3), 5)
    b, tb = pair((2, 5, 3), 6)
    np.testing.assert_allclose(
        minitorch.cdist(a, b, 2.0, mode).numpy(), torch.cdist(ta, tb, 2.0, mode).numpy(), rtol=1e-10
    )
    with pytest.raises(ValueError, match="compute_mode"):
        minitorch.cdist(a, b, compute_mode="fast")


def test_scatter_with_reduce_add_is_scatter_add_as_in_pytorch():
    x, t = pair((3, 5), 7)
    positions = np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    index, torch_index = minitorch.tensor(positions), torch.tensor(positions)
    source, torch_source = pair((2, 5), 8)
    with warnings.catch_warnings():  # PyTorch deprecates reduce= with a tensor source (warns once)
        warnings.simplefilter("ignore")
        expected = torch.scatter(t, 0, torch_index, torch_source, reduce="add")
    np.testing.assert_allclose(minitorch.scatter(x, 0, index, source, reduce="add").numpy(), expected.numpy())
    number = x.scatter(0, index, 2.5, reduce="add")
    np.testing.assert_allclose(number.numpy(), t.scatter(0, torch_index, 2.5, reduce="add").numpy())
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        x.scatter(0, index, 2.5, reduce="max")
    with pytest.raises(NotImplementedError, match="multiply"):
        x.scatter(0, index, 2.5, reduce="multiply")


def test_to_takes_non_blocking_and_copy_positionally_and_copy_copies():
    x, t = pair((2, 3), 9)
    x, t = x.t(), t.t()
    for args in [("float64", True), ("float64", False, True), ("float64",)]:
        got = x.to(getattr(minitorch, args[0]), *args[1:])
        expected = t.to(getattr(torch, args[0]), *args[1:])
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert x.to(minitorch.float64, False) is x and t.to(torch.float64, False) is t
    copied, torch_copied = x.to(minitorch.float64, False, True), t.to(torch.float64, False, True)
    assert copied is not x and copied.data_ptr() != x.data_ptr()
    assert copied.stride() == torch_copied.stride()  # the copy keeps the transposed order
    assert x.to("cpu", minitorch.float64, False, True).data_ptr() != x.data_ptr()
