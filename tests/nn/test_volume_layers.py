"""The rest of the 3-D family against PyTorch: ``lp_pool3d``, ``max_unpool3d``,
``conv_transpose3d`` (and ``nn.LPPool3d``, ``nn.MaxUnpool3d``, ``nn.ConvTranspose3d``),
and ``affine_grid`` for images and volumes: values and gradients, non-contiguous inputs,
and PyTorch's exception for each bad argument."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F  # noqa: N812 - PyTorch's spelling


def _pair(shape: tuple, seed: int, dtype=np.float64) -> tuple[torch.Tensor, minitorch.Tensor]:
    array = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.tensor(array, requires_grad=True), minitorch.tensor(array, requires_grad=True)


def _check_backward(expected: torch.Tensor, got: minitorch.Tensor, pairs: list, tol: float = 1e-9) -> None:
    weight = np.random.default_rng(9).standard_normal(tuple(expected.shape))
    (expected * torch.tensor(weight)).sum().backward()
    (got * minitorch.tensor(weight)).sum().backward()
    for theirs, mine in pairs:
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=tol, atol=tol)


LP_CASES = [(2.0, 2, None, False), (3.0, (2, 3, 1), (1, 2, 1), True), (1.0, 3, 2, True)]


@pytest.mark.parametrize(("norm_type", "kernel", "stride", "ceil_mode"), LP_CASES)
def test_lp_pool3d_matches_pytorch(norm_type, kernel, stride, ceil_mode):
    array = np.abs(np.random.default_rng(1).standard_normal((2, 3, 4, 5, 6))) + 0.1
    t, m = torch.tensor(array, requires_grad=True), minitorch.tensor(array, requires_grad=True)
    expected = torch.nn.functional.lp_pool3d(t, norm_type, kernel, stride, ceil_mode)
    got = F.lp_pool3d(m, norm_type, kernel, stride, ceil_mode)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10)
    _check_backward(expected, got, [(t, m)])
    layer = minitorch.nn.LPPool3d(norm_type, kernel, stride, ceil_mode)
    reference = torch.nn.LPPool3d(norm_type, kernel, stride, ceil_mode)
    np.testing.assert_allclose(layer(m).detach().numpy(), reference(t).detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize(("kernel", "stride", "padding"), [(2, None, 0), ((2, 3, 2), (2, 2, 1), (1, 1, 0))])
def test_max_unpool3d_inverts_max_pool3d_as_pytorch(kernel, stride, padding):
    t, m = _pair((2, 3, 5, 6, 4), 2)
    pooled, indices = torch.nn.functional.max_pool3d(t, kernel, stride, padding, return_indices=True)
    mine, my_indices = F.max_pool3d(m, kernel, stride, padding, return_indices=True)
    expected = torch.nn.functional.max_unpool3d(pooled, indices, kernel, stride, padding, t.shape[2:])
    got = F.max_unpool3d(mine, my_indices, kernel, stride, padding, tuple(m.shape[2:]))
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    _check_backward(expected, got, [(t, m)])
    layer = minitorch.nn.MaxUnpool3d(kernel, stride, padding)
    reference = torch.nn.MaxUnpool3d(kernel, stride, padding)
    np.testing.assert_array_equal(layer(mine, my_indices, tuple(m.shape)).detach().numpy(),
                                  reference(pooled, indices, t.shape).detach().numpy())  # fmt: skip
    with pytest.raises(RuntimeError):
        F.max_unpool3d(mine, my_indices + 10_000, kernel, stride, padding)


TRANSPOSED = [  # (in, out per group, kernel, stride, padding, output_padding, groups, dilation)
    (2, 3, 2, 1, 0, 0, 1, 1),
    (4, 1, (2, 3, 2), (2, 1, 2), (1, 0, 1), (1, 0, 0), 2, 1),
    (2, 2, 3, 2, 1, (0, 1, 1), 1, (1, 1, 2)),
]


TRANSPOSED_NAMES = ("cin", "gout", "kernel", "stride", "padding", "extra", "groups", "dilation")


@pytest.mark.parametrize(TRANSPOSED_NAMES, TRANSPOSED)
def test_conv_transpose3d_matches_pytorch(cin, gout, kernel, stride, padding, extra, groups, dilation):
    k = kernel if isinstance(kernel, tuple) else (kernel,) * 3
    big = np.random.default_rng(3).standard_normal((2, cin, 3, 8, 4))
    t = torch.tensor(big)[:, :, :, ::2].requires_grad_()  # a stepped, non-contiguous view
    m = minitorch.tensor(big)[:, :, :, ::2]
    m.requires_grad_(True)
    tw, mw = _pair((cin, gout, *k), 4)
    tb, mb = _pair((gout * groups,), 5)
    args = (stride, padding, extra, groups, dilation)
    expected = torch.nn.functional.conv_transpose3d(t, tw, tb, *args)
    got = F.conv_transpose3d(m, mw, mb, *args)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    _check_backward(expected, got, [(t, m), (tw, mw), (tb, mb)])


def test_conv_transpose3d_layer_and_output_size():
    layer = minitorch.nn.ConvTranspose3d(2, 4, (3, 2, 3), stride=2, padding=1, dtype=minitorch.float64)
    reference = torch.nn.ConvTranspose3d(2, 4, (3, 2, 3), stride=2, padding=1, dtype=torch.float64)
    assert tuple(layer.weight.shape) == tuple(reference.weight.shape) == (2, 4, 3, 2, 3)
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(layer.weight.detach().numpy()))
        reference.bias.copy_(torch.tensor(layer.bias.detach().numpy()))
    t, m = _pair((2, 3, 4, 3), 6)  # unbatched
    expected, got = reference(t), layer(m)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    t, m = _pair((1, 2, 3, 4, 3), 6)
    for size in ((6, 7, 6), (1, 4, 5, 6, 5)):  # output_size picks the output padding
        expected, got = reference(t, size), layer(m, size)
        assert tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError):
        layer(m, (20, 20, 20))


BAD_TRANSPOSED = [
    {"stride": 0},
    {"padding": -1},
    {"dilation": 0},
    {"output_padding": 2},  # not smaller than the stride or the dilation
    {"stride": (1, 1)},
    {"groups": 0},
]


@pytest.mark.parametrize("kwargs", BAD_TRANSPOSED)
def test_conv_transpose3d_refuses_what_pytorch_refuses(kwargs):
    x, w = np.ones((1, 2, 3, 3, 3)), np.ones((2, 3, 2, 2, 2))
    with pytest.raises(Exception) as expected:
        torch.nn.functional.conv_transpose3d(torch.tensor(x), torch.tensor(w), **kwargs)
    with pytest.raises(expected.type):
        F.conv_transpose3d(minitorch.tensor(x), minitorch.tensor(w), **kwargs)
    with pytest.raises(RuntimeError):
        F.conv_transpose3d(minitorch.ones(2, 3, 3), minitorch.tensor(w))


@pytest.mark.parametrize("size", [(2, 1, 3, 4), (2, 3, 2, 3, 5), (2, 1, 1, 4), (2, 1, 1, 1, 3)])
@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_matches_pytorch(size, align_corners):
    dims = len(size) - 2
    t, m = _pair((2, dims, dims + 1), 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's note on unit-size grids
        expected = torch.nn.functional.affine_grid(t, size, align_corners=align_corners)
    got = F.affine_grid(m, size, align_corners=align_corners)
    assert tuple(got.shape) == tuple(expected.shape) == (2, *size[2:], dims)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    _check_backward(expected, got, [(t, m)], 1e-12)


def test_affine_grid_of_a_transposed_theta_and_float32():
    array = np.random.default_rng(8).standard_normal((3, 2, 2)).astype(np.float32)  # [x/y/1, N, row]
    t = torch.tensor(array).permute(1, 2, 0)
    m = minitorch.tensor(array).permute(1, 2, 0)
    expected = torch.nn.functional.affine_grid(t, (2, 1, 4, 5), align_corners=False)
    got = F.affine_grid(m, (2, 1, 4, 5), align_corners=False)
    assert got.dtype == minitorch.float32
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)
    with pytest.warns(UserWarning, match="align_corners"):
        F.affine_grid(m, (2, 1, 4, 5))


BAD_GRIDS = [
    ((1, 2, 3), (1, 1, 4, 4, 4)),  # a 2-D matrix for a volume
    ((1, 3, 4), (1, 1, 4, 4)),  # a 3-D matrix for an image
    ((1, 2, 3), (1, 1, 4)),  # neither an image nor a volume
    ((1, 2, 3), (1, 1, 0, 4)),
    ((2, 3), (1, 1, 4, 4)),
]


@pytest.mark.parametrize(("theta", "size"), BAD_GRIDS)
def test_affine_grid_refuses_what_pytorch_refuses(theta, size):
    with pytest.raises(Exception) as expected:
        torch.nn.functional.affine_grid(torch.ones(theta), size, align_corners=False)
    with pytest.raises(expected.type):
        F.affine_grid(minitorch.ones(*theta), size, align_corners=False)
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(minitorch.ones(1, 2, 3, dtype=minitorch.int64), (1, 1, 4, 4), align_corners=False)
