"""Pooling with ``ceil_mode=True`` (``max_pool1d/2d``, ``avg_pool1d/2d``), against PyTorch:
one more window where a partial one is left at the end (unless it would start in the right
padding), with the values, the indices, the divisors and the gradient PyTorch gives."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import minitorch

CASES = [
    (size, k, s, p, d)
    for size, k, s, p, d in itertools.product([(5, 7), (6, 6), (4, 9)], [1, 2, 3], [1, 2, 3], [0, 1], [1, 2])
    if p <= k // 2 and min(size) + 2 * p - d * (k - 1) - 1 >= 0  # PyTorch refuses the rest
]


@pytest.mark.parametrize(("size", "kernel", "stride", "padding", "dilation"), CASES)
def test_max_pool2d_ceil_mode_matches_pytorch(size, kernel, stride, padding, dilation):
    array = (
        np.random.default_rng(sum(size) + kernel + stride).standard_normal((2, 3, *size)).astype(np.float32)
    )
    t = torch.tensor(array, requires_grad=True)
    x = minitorch.tensor(array, requires_grad=True)
    args = (kernel, stride, padding, dilation)
    expected, expected_indices = torch.nn.functional.max_pool2d(t, *args, ceil_mode=True, return_indices=True)
    got, indices = minitorch.nn.functional.max_pool2d(x, *args, ceil_mode=True, return_indices=True)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())
    weight = np.random.default_rng(1).standard_normal(tuple(expected.shape)).astype(np.float32)
    (expected * torch.tensor(weight)).sum().backward()
    (got * minitorch.tensor(weight)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_max_pool1d_and_integers_take_ceil_mode():
    line = np.arange(7.0).reshape(1, 1, 7)
    got = minitorch.nn.functional.max_pool1d(minitorch.tensor(line), 3, 2, ceil_mode=True)
    assert got.tolist() == torch.nn.functional.max_pool1d(torch.tensor(line), 3, 2, ceil_mode=True).tolist()
    image = np.arange(-20, 15).reshape(1, 1, 5, 7)  # int64: the lowest int64 pads, not -inf
    got = minitorch.nn.functional.max_pool2d(minitorch.tensor(image), 2, 2, ceil_mode=True)
    assert got.tolist() == torch.nn.functional.max_pool2d(torch.tensor(image), 2, 2, ceil_mode=True).tolist()


AVG_CASES = [
    (size, k, s, p)
    for size, k, s, p in itertools.product([(5, 7), (6, 6), (1, 4), (9, 3)], [1, 2, 3], [1, 2, 3], [0, 1])
    if p <= k // 2 and min(size) + 2 * p - k >= 0
]


@pytest.mark.parametrize(("size", "kernel", "stride", "padding"), AVG_CASES)
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool2d_ceil_mode_matches_pytorch(size, kernel, stride, padding, count_include_pad):
    """The last, partial window's count leaves out the cells past the right padding, with
    or without the padding counted (PyTorch's divisor); values and gradients."""
    rng = np.random.default_rng(sum(size) + 3 * kernel + stride)
    array = rng.standard_normal((2, 3, *size[::-1])).astype(np.float32).transpose(0, 1, 3, 2)  # strided
    t = torch.tensor(array, requires_grad=True)
    x = minitorch.tensor(array, requires_grad=True)
    settings = {"ceil_mode": True, "count_include_pad": count_include_pad}
    expected = torch.nn.functional.avg_pool2d(t, kernel, stride, padding, **settings)
    got = minitorch.nn.functional.avg_pool2d(x, kernel, stride, padding, **settings)
    assert got.shape == expected.shape and got.dtype == minitorch.float32
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-6, atol=1e-6)
    weight = rng.standard_normal(tuple(expected.shape)).astype(np.float32)
    (expected * torch.tensor(weight)).sum().backward()
    (got * minitorch.tensor(weight)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("divisor_override", [None, 2])
def test_avg_pooling_of_integers_truncates_as_pytorch(ceil_mode, count_include_pad, divisor_override):
    image = np.random.default_rng(1).integers(-50, 50, (2, 1, 5, 7))
    settings = {"ceil_mode": ceil_mode, "count_include_pad": count_include_pad}
    for library in (torch, minitorch):
        pool = library.nn.functional.avg_pool2d
        out = pool(library.tensor(image), 3, 2, 1, divisor_override=divisor_override, **settings)
        line = library.nn.functional.avg_pool1d(library.tensor(image[:, 0]), 3, 2, 1, **settings)
        if library is torch:
            expected = (out.tolist(), line.tolist(), str(out.dtype))
    assert (out.tolist(), line.tolist(), str(out.dtype)) == expected


def test_avg_pool1d_ceil_mode_matches_pytorch():
    line = np.random.default_rng(2).standard_normal((3, 2, 8))
    for kernel, stride, padding in itertools.product([2, 3, 4], [1, 2, 3], [0, 1, 2]):
        if padding > kernel // 2:
            continue
        args = (kernel, stride, padding, True, False)
        expected = torch.nn.functional.avg_pool1d(torch.tensor(line), *args)
        got = minitorch.nn.functional.avg_pool1d(minitorch.tensor(line), *args)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)


def test_max_pool_with_indices_are_return_indices_true():
    image = np.random.default_rng(3).standard_normal((2, 3, 6, 5))
    for name, data, args in (("max_pool2d_with_indices", image, (3, 2, 1, 1, True)),
                             ("max_pool1d_with_indices", image[0], (2, 1, 1, 2, False))):  # fmt: skip
        expected = getattr(torch.nn.functional, name)(torch.tensor(data), *args)
        got = getattr(minitorch.nn.functional, name)(minitorch.tensor(data), *args)
        np.testing.assert_array_equal(got[0].numpy(), expected[0].numpy())
        assert got[1].tolist() == expected[1].tolist() and got[1].dtype == minitorch.int64
