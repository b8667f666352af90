"""``max_pool1d``/``max_pool2d`` with ``ceil_mode=True``, against PyTorch: one more window
where a partial one is left at the end (unless it would start in the right padding), with
the values, the indices and the gradient PyTorch gives."""

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


def test_average_pooling_still_says_it_lacks_ceil_mode():
    with pytest.raises(NotImplementedError, match="ceil_mode"):
        minitorch.nn.functional.avg_pool2d(minitorch.randn(1, 1, 5, 5), 2, ceil_mode=True)
