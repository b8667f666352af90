"""grid_sample (and torch.grid_sampler_2d/3d) against PyTorch: every mode and padding mode,
both align_corners, images and volumes, a non-contiguous input and grid, positions far
outside the image; gradients for the input and the grid; torch's errors."""

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F


def _pair(shape, grid_shape, seed):
    generator = torch.Generator().manual_seed(seed)
    x = torch.rand(shape, generator=generator, dtype=torch.float64) * 4 - 2
    grid = torch.rand(grid_shape, generator=generator, dtype=torch.float64) * 5 - 2.5  # some outside
    return x, grid


def _mt(t):
    return minitorch.tensor(t.detach().numpy(), requires_grad=True)


CASES = [  # (mode, padding_mode, align_corners, input shape, grid shape)
    ("bilinear", "zeros", False, (2, 3, 5, 4), (2, 3, 4, 2)),
    ("bilinear", "border", True, (1, 2, 4, 6), (1, 5, 3, 2)),
    ("bilinear", "reflection", False, (2, 1, 5, 5), (2, 4, 4, 2)),
    ("nearest", "reflection", True, (2, 2, 4, 5), (2, 3, 3, 2)),
    ("nearest", "zeros", False, (1, 2, 3, 3, 4), (1, 2, 3, 2, 3)),
    ("bicubic", "zeros", True, (2, 2, 5, 6), (2, 3, 4, 2)),
    ("bicubic", "reflection", False, (1, 2, 4, 5), (1, 4, 3, 2)),
    ("bilinear", "reflection", True, (2, 2, 3, 4, 5), (2, 2, 3, 2, 3)),  # trilinear
    ("bilinear", "border", False, (1, 3, 4, 3, 2), (1, 3, 2, 2, 3)),
]


@pytest.mark.parametrize("mode,padding_mode,align_corners,shape,grid_shape", CASES)
def test_grid_sample_matches_torch(mode, padding_mode, align_corners, shape, grid_shape):
    x, grid = _pair(shape, grid_shape, len(shape) * 7 + len(mode))
    x.requires_grad_(), grid.requires_grad_()
    expected = torch.nn.functional.grid_sample(x, grid, mode, padding_mode, align_corners)
    cotangent = torch.randn(expected.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    grad_x, grad_grid = torch.autograd.grad((expected * cotangent).sum(), [x, grid])
    mx, mgrid = _mt(x), _mt(grid)
    actual = F.grid_sample(mx, mgrid, mode, padding_mode, align_corners)
    (actual * minitorch.tensor(cotangent.numpy())).sum().backward()
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mx.grad.numpy(), grad_x.numpy(), rtol=1e-10, atol=1e-12)
    actual_grid_grad = np.zeros(grid.shape) if mgrid.grad is None else mgrid.grad.numpy()  # nearest: none
    np.testing.assert_allclose(actual_grid_grad, grad_grid.numpy(), rtol=1e-9, atol=1e-10)


def test_non_contiguous_inputs_and_integer_modes():
    x, grid = _pair((2, 5, 3, 4), (2, 3, 6, 2), 3)
    expected = torch.grid_sampler_2d(x.transpose(1, 3), grid.transpose(1, 2), 0, 2, False)  # reflection
    mx, mgrid = _mt(x).transpose(1, 3), _mt(grid).transpose(1, 2)  # [2, 4, 3, 5], [2, 6, 3, 2]: strided
    assert not mx.is_contiguous() and not mgrid.is_contiguous()
    actual = minitorch.grid_sampler_2d(mx, mgrid, 0, 2, False)
    np.testing.assert_allclose(actual.detach().numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)
    x3, grid3 = _pair((1, 2, 3, 3, 3), (1, 2, 2, 2, 3), 4)
    expected = torch.grid_sampler_3d(x3, grid3, 1, 1, True)  # nearest, border
    actual = minitorch.grid_sampler_3d(_mt(x3), _mt(grid3), 1, 1, True)
    np.testing.assert_allclose(actual.detach().numpy(), expected.numpy())


@pytest.mark.parametrize("kwargs,grid_shape,error", [
    (dict(mode="cubic"), (2, 3, 3, 2), ValueError),
    (dict(padding_mode="wrap"), (2, 3, 3, 2), ValueError),
    (dict(), (1, 3, 3, 2), RuntimeError),  # batch sizes differ
    (dict(), (2, 3, 3, 3), RuntimeError),  # a 3-D position for an image
])  # fmt: skip
def test_errors_match_torch(kwargs, grid_shape, error):
    x, grid = _pair((2, 3, 4, 4), grid_shape, 5)
    with pytest.raises(error):
        torch.nn.functional.grid_sample(x, grid, align_corners=False, **kwargs)
    with pytest.raises(error):
        F.grid_sample(_mt(x), _mt(grid), align_corners=False, **kwargs)
