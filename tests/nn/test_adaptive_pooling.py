"""Adaptive average and max pooling (1-D, 2-D, 3-D) against PyTorch: output sizes that
do not divide the input (overlapping windows), None sizes, unbatched and non-contiguous
inputs, return_indices, gradients, errors."""

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F

CASES = [
    ("adaptive_avg_pool1d", (2, 3, 7), 3),
    ("adaptive_avg_pool1d", (3, 10), 4),
    ("adaptive_avg_pool1d", (2, 3, 5), 8),
    ("adaptive_avg_pool3d", (1, 2, 5, 4, 3), (2, 3, None)),
    ("adaptive_avg_pool3d", (2, 3, 3, 4), 2),
    ("adaptive_avg_pool2d", (2, 3, 8, 9), (5, 7)),  # sizes that do not divide: overlapping windows
    ("adaptive_avg_pool2d", (3, 7, 6), (4, None)),
    ("adaptive_avg_pool2d", (2, 3, 8, 6), (4, 3)),  # sizes that divide: avg_pool2d's windows
    ("adaptive_max_pool1d", (2, 3, 7), 3),
    ("adaptive_max_pool2d", (2, 3, 7, 5), (3, 2)),
    ("adaptive_max_pool2d", (3, 5, 6), 4),
    ("adaptive_max_pool2d", (1, 2, 4, 4), (None, 3)),
    ("adaptive_max_pool3d", (1, 2, 5, 4, 3), (2, 3, 2)),
]


@pytest.mark.parametrize("name,shape,size", CASES)
def test_adaptive_pooling_matches_torch(name, shape, size):
    torch.manual_seed(0)
    base = torch.randn(shape[:-2] + (shape[-1], shape[-2]), dtype=torch.float64)
    x = base.transpose(-1, -2).requires_grad_()  # non-contiguous
    leaf = minitorch.tensor(base.numpy(), requires_grad=True)
    xm = leaf.transpose(-1, -2)
    kwargs = {"return_indices": True} if "max" in name else {}
    expected = getattr(torch.nn.functional, name)(x, size, **kwargs)
    got = getattr(F, name)(xm, size, **kwargs)
    if kwargs:
        np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())
        expected, got = expected[0], got[0]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy())
    w = torch.randn(expected.shape, dtype=torch.float64)
    (expected * w).sum().backward()
    (got * minitorch.tensor(w.numpy())).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy().swapaxes(-1, -2), x.grad.numpy())


@pytest.mark.parametrize("layer,args,shape", [
    ("AdaptiveAvgPool1d", (3,), (2, 3, 7)), ("AdaptiveAvgPool3d", ((2, 1, 3),), (1, 2, 5, 4, 3)),
    ("AdaptiveMaxPool1d", (2,), (3, 5)), ("AdaptiveMaxPool2d", ((3, 2), True), (2, 3, 7, 5)),
    ("AdaptiveMaxPool3d", (2,), (2, 3, 3, 4)),
])  # fmt: skip
def test_adaptive_pooling_layers(layer, args, shape):
    x = torch.randn(shape)
    theirs, ours = getattr(torch.nn, layer)(*args), getattr(minitorch.nn, layer)(*args)
    assert repr(ours) == repr(theirs)
    expected, got = theirs(x), ours(minitorch.tensor(x.numpy()))
    if isinstance(expected, tuple):
        np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())
        expected, got = expected[0], got[0]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "name,shape",
    [
        ("adaptive_max_pool2d", (3, 4)),
        ("adaptive_max_pool1d", (2, 3, 0)),
        ("adaptive_avg_pool3d", (2, 0, 3, 4)),
    ],
)
def test_adaptive_pooling_errors(name, shape):
    with pytest.raises(RuntimeError):
        getattr(torch.nn.functional, name)(torch.zeros(shape), 2)
    with pytest.raises(RuntimeError):
        getattr(F, name)(minitorch.zeros(shape), 2)


def test_an_empty_batch_pools_to_empty():
    assert F.adaptive_avg_pool1d(minitorch.zeros(0, 3, 4), 2).shape == (0, 3, 2)
    assert F.adaptive_max_pool2d(minitorch.zeros(0, 2, 3, 4), 2).shape == (0, 2, 2, 2)
