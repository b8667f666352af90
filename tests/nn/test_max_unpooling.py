"""MaxUnpool1d/2d and F.max_unpool1d/2d against PyTorch: the inverse of max pooling with
its indices, default and given output sizes, gradients, bad indices."""

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F


@pytest.mark.parametrize("shape,kernel,stride,padding,output_size", [
    ((2, 3, 7, 6), 2, None, 0, None), ((2, 3, 7, 6), 2, None, 0, (7, 6)), ((3, 8, 8), 3, 2, 1, (8, 8)),
    ((1, 2, 7, 6), (3, 2), (2, 1), (1, 0), (1, 2, 7, 6)),
])  # fmt: skip
def test_max_unpool2d(shape, kernel, stride, padding, output_size):
    torch.manual_seed(0)
    x = torch.randn(shape, dtype=torch.float64)
    values, indices = torch.nn.functional.max_pool2d(x, kernel, stride, padding, return_indices=True)
    v = values.clone().requires_grad_()
    vm = minitorch.tensor(values.numpy(), requires_grad=True)
    expected = torch.nn.functional.max_unpool2d(v, indices, kernel, stride, padding, output_size)
    got = F.max_unpool2d(vm, minitorch.tensor(indices.numpy()), kernel, stride, padding, output_size)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    w = torch.randn(expected.shape, dtype=torch.float64)
    (expected * w).sum().backward()
    (got * minitorch.tensor(w.numpy())).sum().backward()
    np.testing.assert_allclose(vm.grad.numpy(), v.grad.numpy())
    theirs = torch.nn.MaxUnpool2d(kernel, stride, padding)
    ours = minitorch.nn.MaxUnpool2d(kernel, stride, padding)
    assert repr(ours) == repr(theirs)


def test_max_unpool1d_and_layer():
    x = torch.randn(2, 3, 9)
    values, indices = torch.nn.functional.max_pool1d(x, 3, 2, 1, return_indices=True)
    expected = torch.nn.MaxUnpool1d(3, 2, 1)(values, indices)
    layer = minitorch.nn.MaxUnpool1d(3, 2, 1)
    assert repr(layer) == repr(torch.nn.MaxUnpool1d(3, 2, 1))
    got = layer(minitorch.tensor(values.numpy()), minitorch.tensor(indices.numpy()))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_bad_indices_and_sizes():
    values = minitorch.ones(1, 1, 2, 2)
    with pytest.raises(RuntimeError):
        F.max_unpool2d(values, minitorch.tensor([[[[0, 1], [2, 99]]]]), 2)
    with pytest.raises(ValueError):
        F.max_unpool2d(values, minitorch.tensor([[[[0, 1], [2, 3]]]]), 2, output_size=(9, 9))
