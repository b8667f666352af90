"""``nn.init``: the right distribution and scale for each scheme, as PyTorch computes them."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.nn import init


@pytest.mark.parametrize("nonlinearity, param", [("linear", None), ("conv2d", None), ("sigmoid", None),
                                                 ("tanh", None), ("relu", None), ("leaky_relu", None),
                                                 ("leaky_relu", 0.2), ("selu", None)])  # fmt: skip
def test_calculate_gain(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(
        torch.nn.init.calculate_gain(nonlinearity, param)
    )


def test_fans_match_pytorch():
    for shape in [(5, 3), (8, 4, 3, 3), (6, 2, 5)]:
        ours = init._calculate_fan_in_and_fan_out(mt.empty(*shape))
        assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(mt.empty(3))


def bound_and_std(fill, shape=(256, 128)):
    t = fill(mt.empty(*shape)).numpy()
    return np.abs(t).max(), t.std(), t.mean()


def test_uniform_schemes():
    fan_in, fan_out = 128, 256
    bound = math.sqrt(6 / (fan_in + fan_out))
    top, std, mean = bound_and_std(init.xavier_uniform_)
    assert top <= bound and top > 0.95 * bound and abs(mean) < 0.01
    bound = math.sqrt(2) * math.sqrt(3 / fan_in)
    top, _, _ = bound_and_std(lambda t: init.kaiming_uniform_(t, nonlinearity="relu"))
    assert bound * 0.95 < top <= bound
    top, _, _ = bound_and_std(lambda t: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"))
    assert top <= math.sqrt(2) * math.sqrt(3 / fan_out)
    top, _, mean = bound_and_std(lambda t: init.uniform_(t, 2.0, 3.0))
    assert 2.0 <= mean <= 3.0 and top < 3.0


def test_normal_schemes():
    _, std, _ = bound_and_std(lambda t: init.xavier_normal_(t, gain=2.0))
    assert std == pytest.approx(2.0 * math.sqrt(2 / (128 + 256)), rel=0.05)
    _, std, _ = bound_and_std(lambda t: init.kaiming_normal_(t, nonlinearity="relu"))
    assert std == pytest.approx(math.sqrt(2 / 128), rel=0.05)
    _, std, mean = bound_and_std(lambda t: init.normal_(t, 1.0, 0.5))
    assert std == pytest.approx(0.5, rel=0.05) and mean == pytest.approx(1.0, abs=0.01)


def test_constants_and_in_place_on_parameters():
    layer = mt.nn.Linear(3, 4)
    assert init.zeros_(layer.weight) is layer.weight and not layer.weight.detach().numpy().any()
    init.ones_(layer.bias)
    assert (layer.bias.detach().numpy() == 1).all() and layer.bias.requires_grad and layer.bias.is_leaf
    init.constant_(layer.bias, 0.5)
    assert (layer.bias.detach().numpy() == 0.5).all()
    assert np.array_equal(init.eye_(mt.empty(2, 3)).numpy(), np.eye(2, 3))


def test_seeded_and_generator():
    mt.manual_seed(0)
    a = init.normal_(mt.empty(5)).numpy().copy()
    mt.manual_seed(0)
    assert np.array_equal(init.normal_(mt.empty(5)).numpy(), a)
    g = mt.Generator().manual_seed(1)
    b = init.uniform_(mt.empty(5), generator=g).numpy().copy()
    assert np.array_equal(init.uniform_(mt.empty(5), generator=mt.Generator().manual_seed(1)).numpy(), b)


def test_default_layer_init_matches_pytorch_bounds():
    layer = mt.nn.Linear(50, 40)
    bound = 1 / math.sqrt(50)
    assert np.abs(layer.weight.detach().numpy()).max() <= bound
    assert np.abs(layer.weight.detach().numpy()).max() > 0.9 * bound
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    conv = mt.nn.Conv2d(3, 8, 3)
    assert np.abs(conv.weight.detach().numpy()).max() <= 1 / math.sqrt(27)
