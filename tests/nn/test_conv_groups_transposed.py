"""Grouped and depthwise convolutions, padding='same' with even kernels, and the
transposed convolutions, against PyTorch: values, gradients of the input, weight and
bias, the same-seed initialisation, output_size, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.nn.functional as F
from tests.nn.twins import assert_close, check_module

rng = np.random.default_rng(0)


def _same_seed(name: str, *args, **kwargs):
    """The layer built in both libraries after the same seed."""
    mt.manual_seed(7), torch.manual_seed(7)
    return getattr(mt.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


CONV2D = [  # in, out, kernel, keyword arguments
    (4, 6, 3, {"groups": 2}),
    (6, 6, 3, {"groups": 6, "padding": 1}),  # depthwise
    (3, 6, (3, 2), {"groups": 3, "stride": 2, "dilation": (2, 1)}),  # channel multiplier 2
    (4, 4, 2, {"padding": "same"}),  # even kernel: the extra cell at the end
    (4, 8, (4, 3), {"padding": "same", "dilation": (1, 2), "groups": 4}),
    (2, 3, 3, {"padding": "valid", "bias": False}),
]


@pytest.mark.parametrize("c,o,k,kwargs", CONV2D)
def test_conv2d_groups_and_same_padding(c, o, k, kwargs):
    ours, theirs = _same_seed("Conv2d", c, o, k, **kwargs)
    assert_close(ours.weight, theirs.weight, 0)  # same seed, same weights, bit for bit
    check_module(ours, theirs, rng.standard_normal((2, c, 7, 8)).astype(np.float32))
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize(
    "kwargs", [{"groups": 3}, {"groups": 3, "padding": "same"}, {"stride": 2, "groups": 1}]
)
def test_conv1d_groups(kwargs):
    ours, theirs = _same_seed("Conv1d", 3, 6, 4, **kwargs)
    check_module(ours, theirs, rng.standard_normal((2, 3, 11)).astype(np.float32))
    check_module(ours, theirs, rng.standard_normal((3, 9)).astype(np.float32))  # unbatched


TRANSPOSED2D = [  # in, out, kernel, keyword arguments
    (3, 2, 3, {}),
    (4, 6, 3, {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    (4, 4, (3, 2), {"stride": (3, 2), "padding": (2, 0), "output_padding": (2, 1), "groups": 4}),
    (2, 3, 3, {"stride": 2, "dilation": 2, "padding": 3, "output_padding": 1, "bias": False}),
    (2, 2, 2, {"stride": 1, "dilation": 3, "output_padding": 2}),  # output_padding < dilation
]


@pytest.mark.parametrize("c,o,k,kwargs", TRANSPOSED2D)
def test_conv_transpose2d(c, o, k, kwargs):
    ours, theirs = _same_seed("ConvTranspose2d", c, o, k, **kwargs)
    assert_close(ours.weight, theirs.weight, 0)
    check_module(ours, theirs, rng.standard_normal((2, c, 4, 5)).astype(np.float32))
    check_module(ours, theirs, rng.standard_normal((c, 3, 3)).astype(np.float32))  # unbatched
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("kwargs", [{}, {"stride": 3, "padding": 1, "output_padding": 2, "groups": 2}])
def test_conv_transpose1d(kwargs):
    ours, theirs = _same_seed("ConvTranspose1d", 4, 2, 3, **kwargs)
    check_module(ours, theirs, rng.standard_normal((2, 4, 6)).astype(np.float32))


def test_functional_transpose_on_a_non_contiguous_input_is_convs_adjoint():
    x = rng.standard_normal((2, 6, 5, 4))
    w = rng.standard_normal((3, 4, 3, 3))  # conv weight [O=3, C=4, 3, 3]: transpose maps 3 -> 4
    ours = mt.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    view, view_t = ours[:, ::2].transpose(2, 3), theirs[:, ::2].transpose(2, 3)  # [2, 3, 4, 5]
    out = F.conv_transpose2d(view, mt.tensor(w), stride=2, padding=1)
    expected = torch.nn.functional.conv_transpose2d(view_t, torch.tensor(w), stride=2, padding=1)
    assert_close(out, expected)
    (out * out).sum().backward(), (expected * expected).sum().backward()
    assert_close(ours.grad, theirs.grad)
    # <conv(a), b> == <a, conv_transpose(b)> with the same weight
    a, b = rng.standard_normal((1, 4, 9, 7)), rng.standard_normal((1, 3, 5, 4))
    conv = F.conv2d(mt.tensor(a), mt.tensor(w), stride=2, padding=1).numpy()
    back = F.conv_transpose2d(mt.tensor(b), mt.tensor(w), stride=2, padding=1, output_padding=(0, 0))
    assert back.shape == a.shape
    assert np.isclose((conv * b).sum(), (a * back.numpy()).sum())


def test_output_size_picks_the_output_padding():
    ours, theirs = _same_seed("ConvTranspose2d", 2, 2, 3, stride=2, padding=1)
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    for size in [(7, 7), (8, 8), (1, 2, 8, 7)]:
        assert_close(ours(mt.tensor(x), output_size=size), theirs(torch.tensor(x), output_size=size))
    with pytest.raises(ValueError):
        ours(mt.tensor(x), output_size=(9, 9))


def test_errors_as_torch():
    x = mt.randn(1, 4, 5, 5)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        mt.nn.Conv2d(4, 6, 3, groups=3)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        mt.nn.ConvTranspose2d(4, 6, 3, groups=4)
    with pytest.raises(RuntimeError):  # 4 channels, weight expects 2 * 3
        F.conv2d(x, mt.randn(6, 2, 3, 3), groups=3)
    with pytest.raises(RuntimeError):
        F.conv2d(x, mt.randn(6, 2, 3, 3), groups=0)
    with pytest.raises(RuntimeError, match="output padding must be smaller"):
        F.conv_transpose2d(x, mt.randn(4, 2, 3, 3), stride=2, output_padding=2)
    with pytest.raises(RuntimeError):
        F.conv_transpose2d(x, mt.randn(3, 2, 3, 3))
    with pytest.raises(TypeError):
        F.conv_transpose2d(None, mt.randn(4, 2, 3, 3))
    with pytest.raises(TypeError):
        F.conv2d(x, None)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"])
def test_conv2d_padding_modes(mode, padding):
    ours, theirs = _same_seed("Conv2d", 4, 2, (3, 4), padding=padding, padding_mode=mode, groups=2)
    check_module(ours, theirs, rng.standard_normal((2, 4, 5, 6)).astype(np.float32))
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("mode", ["reflect", "circular"])
def test_conv1d_padding_modes(mode):
    ours, theirs = _same_seed("Conv1d", 2, 3, 3, padding=2, padding_mode=mode, dilation=2)
    check_module(ours, theirs, rng.standard_normal((2, 2, 7)).astype(np.float32))


def test_padding_mode_errors():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        mt.nn.Conv2d(2, 2, 3, padding_mode="mirror")
    with pytest.raises(ValueError):
        mt.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
