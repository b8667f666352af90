"""LPPool1d/2d and F.lp_pool1d/2d against PyTorch: values and gradients for several powers,
strides and unbatched inputs."""

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("shape,kernel,stride", [((2, 3, 6, 5), (2, 3), (2, 1)), ((3, 5, 4), 2, None)])
def test_lp_pool2d(p, shape, kernel, stride):
    torch.manual_seed(0)
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    xm = minitorch.tensor(x.detach().numpy(), requires_grad=True)
    expected = torch.nn.functional.lp_pool2d(x, p, kernel, stride)
    got = F.lp_pool2d(xm, p, kernel, stride)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), equal_nan=True)
    w = torch.randn(expected.shape, dtype=torch.float64)
    (expected * w).sum().backward()
    (got * minitorch.tensor(w.numpy())).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), x.grad.numpy(), equal_nan=True)


@pytest.mark.parametrize("p,kernel,stride", [(2.0, 3, None), (1.0, 2, 1), (4.0, 3, 2)])
def test_lp_pool1d_and_layers(p, kernel, stride):
    x = torch.rand(2, 3, 8, dtype=torch.float64, requires_grad=True)
    xm = minitorch.tensor(x.detach().numpy(), requires_grad=True)
    expected, got = torch.nn.functional.lp_pool1d(x, p, kernel, stride), F.lp_pool1d(xm, p, kernel, stride)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy())
    expected.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), x.grad.numpy())
    for name, shape in (("LPPool1d", (2, 3, 8)), ("LPPool2d", (2, 3, 6, 6))):
        theirs, ours = (
            getattr(torch.nn, name)(p, kernel, stride),
            getattr(minitorch.nn, name)(p, kernel, stride),
        )
        assert repr(ours) == repr(theirs)
        y = torch.rand(shape)
        np.testing.assert_allclose(ours(minitorch.tensor(y.numpy())).numpy(), theirs(y).numpy(), rtol=1e-5)
