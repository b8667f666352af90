"""The activations of nn/activation_family.py against PyTorch: values and gradients of
each layer (float64, values spread over every branch, away from the kinks), the
functional forms on a non-contiguous view, in-place variants and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.nn.functional as F
from tests.nn.twins import assert_close, check_module

LAYERS = [
    ("Hardtanh", ()), ("Hardtanh", (-0.5, 2.0)), ("ReLU6", ()), ("Threshold", (0.3, -2.0)),
    ("ELU", ()), ("ELU", (0.5,)), ("CELU", (1.7,)), ("SELU", ()), ("Softplus", ()),
    ("Softplus", (2.0, 1.5)), ("Softsign", ()), ("Tanhshrink", ()), ("Hardshrink", ()),
    ("Softshrink", (0.7,)), ("LogSigmoid", ()), ("Hardsigmoid", ()), ("Hardswish", ()),
    ("Mish", ()), ("GLU", ()), ("GLU", (1,)), ("Softmin", (1,)), ("Softmax2d", ()), ("PReLU", ()),
    ("PReLU", (4, 0.1)), ("RReLU", ()),
]  # fmt: skip


def _spread(shape: tuple, seed: int = 0) -> np.ndarray:
    """Values in [-8, 8], none within 0.02 of a kink any layer above has."""
    x = np.random.default_rng(seed).uniform(-8, 8, shape)
    kinks = np.array([-6, -3, -2, -1, -0.7, -0.5, 0, 0.3, 0.5, 0.7, 0.75, 1, 1.5, 2, 3, 6, 10])
    near = np.abs(x[..., None] - kinks).min(-1) < 0.02
    return np.where(near, x + 0.05, x)


@pytest.mark.parametrize("name,args", LAYERS, ids=[f"{n}{a}" for n, a in LAYERS])
def test_layer_matches_torch(name, args):
    ours, theirs = getattr(mt.nn, name)(*args), getattr(torch.nn, name)(*args)
    ours.eval(), theirs.eval()
    x = _spread((2, 4, 3, 6))
    if name == "PReLU":  # PyTorch refuses a float64 input for its float32 slopes
        x = x.astype(np.float32)
    # PyTorch's celu and hardsigmoid kernels hold a constant in float32 (1/alpha, 1/6):
    # a relative 3e-8 away from the float64 value
    check_module(ours, theirs, x, tol=1e-6 if name in ("CELU", "Hardsigmoid") else None)
    assert repr(ours) == repr(theirs)


def test_softplus_large_inputs_have_finite_gradients():
    x, t = (
        mt.tensor([-100.0, 0.0, 30.0, 1000.0], requires_grad=True),
        torch.tensor([-100.0, 0.0, 30.0, 1000.0], requires_grad=True),
    )
    F.softplus(x).sum().backward(), torch.nn.functional.softplus(t).sum().backward()
    assert_close(x.grad, t.grad)
    assert_close(F.logsigmoid(mt.tensor([-200.0, 200.0])),
                 torch.nn.functional.logsigmoid(torch.tensor([-200.0, 200.0])))  # fmt: skip


NAMES = ["hardtanh", "relu6", "elu", "celu", "selu", "softplus", "softsign", "tanhshrink",
         "hardshrink", "softshrink", "logsigmoid", "hardsigmoid", "hardswish", "mish", "glu",
         "softmin"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_functional_on_a_transposed_view(name):
    array = _spread((6, 4), seed=1)
    ours = mt.tensor(array, requires_grad=True)
    theirs = torch.tensor(array, requires_grad=True)
    kwargs = {"dim": 0} if name in ("softmin", "glu") else {}
    out = getattr(F, name)(ours.t(), **kwargs)
    expected = getattr(torch.nn.functional, name)(theirs.t(), **kwargs)
    tol = 1e-6 if name == "hardsigmoid" else None  # PyTorch's 1/6 is a float32 constant
    assert_close(out, expected, tol)
    (out * out).sum().backward(), (expected * expected).sum().backward()
    assert_close(ours.grad, theirs.grad, tol)


@pytest.mark.parametrize("name", ["hardtanh", "relu6", "elu", "selu", "mish", "hardswish", "rrelu"])
def test_inplace_writes_the_input(name):
    array = _spread((3, 5), seed=2)
    ours, theirs = mt.tensor(array), torch.tensor(array)
    returned = getattr(F, name)(ours, inplace=True)
    getattr(torch.nn.functional, name)(theirs, inplace=True)
    assert returned is ours
    assert_close(ours, theirs)


def test_prelu_per_channel_slopes_and_errors():
    x = _spread((2, 3, 5))
    w = np.array([0.1, -0.4, 2.0])
    assert_close(F.prelu(mt.tensor(x), mt.tensor(w)),
                 torch.nn.functional.prelu(torch.tensor(x), torch.tensor(w)))  # fmt: skip
    with pytest.raises(RuntimeError):
        F.prelu(mt.tensor(x), mt.tensor([0.1, 0.2]))
    with pytest.raises(TypeError):
        F.prelu(None, mt.tensor(w))
    with pytest.raises(RuntimeError):  # no type promotion, as in PyTorch
        F.prelu(mt.tensor(x), mt.tensor(w, dtype=mt.float32))


def test_rrelu_training_slopes_lie_in_the_range():
    x = mt.tensor(-np.ones(1000))
    y = F.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert (y <= -0.1).all() and (y >= -0.3).all() and np.unique(y).size > 100


def test_errors_as_torch():
    x = mt.randn(3, 5)
    with pytest.raises(RuntimeError):
        F.glu(x, 1)  # odd size
    with pytest.raises(ValueError):
        mt.nn.Hardtanh(2.0, 1.0)
    with pytest.raises(ValueError):
        mt.nn.Softmax2d()(mt.randn(2, 3))
    with pytest.raises(TypeError):
        F.softplus("x")
