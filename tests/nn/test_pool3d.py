"""3-D pooling (``max_pool3d``, ``max_pool3d_with_indices``, ``avg_pool3d`` and their
layers) and ``BatchNorm3d`` against PyTorch: values, indices, divisors and gradients for
strides, paddings, dilations and ``ceil_mode``, on non-contiguous and unbatched inputs;
and PyTorch's exception for each bad argument."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F  # noqa: N812 - PyTorch's spelling

MAX_CASES = [  # (kernel, stride, padding, dilation)
    (2, None, 0, 1),
    ((2, 3, 2), (2, 2, 1), (1, 1, 0), (1, 1, 2)),
    (3, 2, 1, 1),
    ((1, 2, 3), 1, (0, 1, 1), (2, 1, 1)),
]


def _pair(shape: tuple, seed: int, dtype=np.float32) -> tuple[torch.Tensor, minitorch.Tensor]:
    array = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.tensor(array, requires_grad=True), minitorch.tensor(array, requires_grad=True)


def _backward_both(expected: torch.Tensor, got: minitorch.Tensor) -> None:
    weight = np.random.default_rng(9).standard_normal(tuple(expected.shape)).astype(np.float32)
    (expected * torch.tensor(weight)).sum().backward()
    (got * minitorch.tensor(weight)).sum().backward()


@pytest.mark.parametrize(("kernel", "stride", "padding", "dilation"), MAX_CASES)
@pytest.mark.parametrize("ceil_mode", [False, True])
def test_max_pool3d_matches_pytorch(kernel, stride, padding, dilation, ceil_mode):
    tx, mx = _pair((2, 3, 5, 6, 7), 1)
    args = (kernel, stride, padding, dilation, ceil_mode)
    expected, expected_indices = torch.nn.functional.max_pool3d(tx, *args, return_indices=True)
    got, indices = F.max_pool3d_with_indices(mx, *args)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())
    assert indices.dtype == minitorch.int64
    _backward_both(expected, got)
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


AVG_CASES = [  # (kernel, stride, padding)
    (2, None, 0),
    ((2, 3, 2), (2, 2, 1), (1, 1, 0)),
    (3, 2, 1),
    ((1, 2, 3), 1, (0, 1, 1)),
]


COUNTING = [(False, True, None), (True, False, None), (True, True, None), (False, True, 5)]


@pytest.mark.parametrize(("kernel", "stride", "padding"), AVG_CASES)
@pytest.mark.parametrize(("ceil_mode", "count_include_pad", "divisor"), COUNTING)
def test_avg_pool3d_matches_pytorch(kernel, stride, padding, ceil_mode, count_include_pad, divisor):
    tx, mx = _pair((2, 3, 5, 6, 7), 2)
    args = (kernel, stride, padding, ceil_mode, count_include_pad, divisor)
    expected = torch.nn.functional.avg_pool3d(tx, *args)
    got = F.avg_pool3d(mx, *args)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-6, atol=1e-6)
    _backward_both(expected, got)
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_pool3d_reads_non_contiguous_unbatched_and_integer_inputs():
    array = np.random.default_rng(3).standard_normal((6, 2, 5, 4)).astype(np.float32)  # [H, C, W, D]
    t, m = torch.tensor(array).permute(1, 3, 0, 2), minitorch.tensor(array).permute(1, 3, 0, 2)
    assert not m.is_contiguous()  # an unbatched [C, D, H, W] volume
    expected, expected_indices = torch.nn.functional.max_pool3d(t, 2, 1, 1, return_indices=True)
    got, indices = F.max_pool3d(m, 2, 1, 1, return_indices=True)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())
    np.testing.assert_allclose(F.avg_pool3d(m, (2, 3, 2), ceil_mode=True).numpy(),
                               torch.nn.functional.avg_pool3d(t, (2, 3, 2), ceil_mode=True).numpy(),
                               rtol=1e-6)  # fmt: skip
    volume = np.arange(-30, 30).reshape(1, 1, 3, 4, 5)  # int64 (PyTorch averages no integers here)
    got = F.max_pool3d(minitorch.tensor(volume), 2, ceil_mode=True)
    assert got.tolist() == torch.nn.functional.max_pool3d(torch.tensor(volume), 2, ceil_mode=True).tolist()


def test_pool3d_layers_match_pytorch():
    tx, mx = _pair((1, 2, 4, 5, 6), 4)
    options = {"stride": (1, 2, 2), "padding": 1, "return_indices": True, "ceil_mode": True}
    pool, reference = minitorch.nn.MaxPool3d((2, 2, 3), **options), torch.nn.MaxPool3d((2, 2, 3), **options)
    (got, indices), (expected, expected_indices) = pool(mx), reference(tx)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())
    average = minitorch.nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False)
    expected = torch.nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False)(tx)
    np.testing.assert_allclose(average(mx).detach().numpy(), expected.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm3d_matches_pytorch(momentum):
    norm = minitorch.nn.BatchNorm3d(3, momentum=momentum)
    reference = torch.nn.BatchNorm3d(3, momentum=momentum)
    for seed in (5, 6):
        tx, mx = _pair((2, 3, 2, 3, 4), seed)
        expected, got = reference(tx), norm(mx)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)
    _backward_both(expected, got)
    close = {"rtol": 1e-4, "atol": 1e-5}
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), **close)
    np.testing.assert_allclose(norm.weight.grad.numpy(), reference.weight.grad.numpy(), **close)
    np.testing.assert_allclose(norm.running_mean.numpy(), reference.running_mean.numpy(), **close)
    np.testing.assert_allclose(norm.running_var.numpy(), reference.running_var.numpy(), **close)
    norm.eval()
    reference.eval()
    tx, mx = _pair((1, 3, 2, 2, 2), 7)
    np.testing.assert_allclose(norm(mx).detach().numpy(), reference(tx).detach().numpy(), **close)
    for shape in ((3, 2, 2, 2), (2, 3, 4)):
        with pytest.raises(ValueError, match="expected 5D input"):
            norm(minitorch.ones(*shape))


VOLUME = np.ones((1, 2, 4, 4, 4), dtype=np.float32)
BAD = [
    ("max_pool3d", (0,), {}),
    ("max_pool3d", (2,), {"stride": 0}),
    ("max_pool3d", (2,), {"stride": 1, "padding": 2}),  # more than half the kernel
    ("max_pool3d", (2,), {"padding": -1}),
    ("max_pool3d", (2,), {"dilation": 0}),
    ("max_pool3d", (5,), {}),  # a window larger than the input
    ("max_pool3d", ((2, 2),), {}),  # two sizes for three dimensions
    ("avg_pool3d", (0,), {}),
    ("avg_pool3d", (2,), {"stride": 0}),
    ("avg_pool3d", (2,), {"padding": 2}),
    ("avg_pool3d", (5,), {}),
    ("avg_pool3d", ((2, 2),), {}),
    ("avg_pool3d", (2,), {"divisor_override": 0}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), BAD)
def test_pool3d_refuses_what_pytorch_refuses(name, args, kwargs):
    with pytest.raises(Exception) as expected:
        getattr(torch.nn.functional, name)(torch.tensor(VOLUME), *args, **kwargs)
    with pytest.raises(expected.type):
        getattr(F, name)(minitorch.tensor(VOLUME), *args, **kwargs)


@pytest.mark.parametrize("shape", [(4, 4, 4), (1, 1, 1, 4, 4, 4), (1, 0, 4, 4, 4)])
@pytest.mark.parametrize("name", ["max_pool3d", "avg_pool3d"])
def test_pool3d_refuses_other_ranks_and_empty_planes(name, shape):
    with pytest.raises(RuntimeError):
        getattr(torch.nn.functional, name)(torch.ones(shape), 2)
    with pytest.raises(RuntimeError):
        getattr(F, name)(minitorch.ones(*shape), 2)


def test_pool3d_takes_an_empty_batch():
    got = F.max_pool3d(minitorch.ones(0, 2, 4, 4, 4), 2)
    assert tuple(got.shape) == tuple(torch.nn.functional.max_pool3d(torch.ones(0, 2, 4, 4, 4), 2).shape)
