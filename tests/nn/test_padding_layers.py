"""Padding layers and ``F.pad``'s reflect/replicate/circular modes against PyTorch:
values, gradients, negative (cropping) widths, unbatched and non-contiguous inputs."""

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F

CASES = [
    ((1, 1), (3, 4)),
    ((2, 0), (2, 3, 5)),
    ((-1, 2), (1, 3, 4)),
    ((3, 0), (1, 3, 4)),
    ((1, 2, 1, 0), (2, 3, 4)),
    ((1, 2, 1, 0), (1, 2, 3, 4)),
    ((0, -1, 2, 1), (1, 2, 3, 4)),
    ((1, 2, 0, 1, 1, 1), (2, 3, 3, 4)),
    ((1, 1, 2, 1, 1, 0), (2, 1, 2, 3, 4)),
]


def _pair(shape, transpose):
    x = torch.randn(shape, dtype=torch.float64)
    if transpose:  # a non-contiguous view with the same shape
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    xm = minitorch.tensor(x.numpy(), requires_grad=True)
    if transpose:
        xm = minitorch.tensor(x.transpose(-1, -2).numpy(), requires_grad=True)
        leaf, xm = xm, xm.transpose(-1, -2)
    else:
        leaf = xm
    return x.requires_grad_(), xm, leaf


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad,shape", CASES)
def test_pad_modes_match_torch(mode, pad, shape):
    torch.manual_seed(0)
    x, xm, leaf = _pair(shape, transpose=len(shape) % 2 == 0)
    expected = torch.nn.functional.pad(x, pad, mode)
    got = F.pad(xm, pad, mode)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy())
    g = torch.randn(expected.shape, dtype=torch.float64)
    expected.backward(g)
    got.backward(minitorch.tensor(g.numpy()))
    grad = leaf.grad.numpy()
    if leaf is not xm:
        grad = grad.swapaxes(-1, -2)
    np.testing.assert_allclose(grad, x.grad.numpy())


@pytest.mark.parametrize("mode,pad,shape,error", [
    ("reflect", (4, 0), (1, 3, 4), RuntimeError),
    ("circular", (5, 0), (1, 3, 4), RuntimeError),
    ("replicate", (1, 1), (1, 3, 0), RuntimeError),
    ("reflect", (1, 1), (1, 2, 3, 4), NotImplementedError),
    ("reflect", (1, 1, 1, 1), (3, 4), NotImplementedError),
    ("bogus", (1, 1), (1, 3, 4), NotImplementedError),
    ("constant", (-3, -2), (1, 3, 4), RuntimeError),  # crops more than the dimension holds
])  # fmt: skip
def test_pad_modes_reject_as_torch(mode, pad, shape, error):
    with pytest.raises(error):
        torch.nn.functional.pad(torch.zeros(shape), pad, mode)
    with pytest.raises(error):
        F.pad(minitorch.zeros(shape), pad, mode)


def test_pad_mode_refuses_a_value():
    with pytest.raises(RuntimeError, match="doesn't take in value"):
        F.pad(minitorch.zeros(1, 3, 4), (1, 1), "reflect", 2.0)


LAYERS = [
    ("ZeroPad1d", (2,), (2, 3, 4)),
    ("ZeroPad2d", ((1, 2, 0, 3),), (2, 3, 4)),
    ("ZeroPad3d", (1,), (1, 2, 3, 4)),
    ("ConstantPad1d", ((1, 2), 3.5), (3, 4)),
    ("ConstantPad2d", (1, -1.0), (1, 2, 3, 4)),
    ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), 0.5), (1, 1, 2, 3, 4)),
    ("ReflectionPad1d", (2,), (2, 3, 4)),
    ("ReflectionPad2d", ((1, 2, 2, 0),), (1, 2, 3, 4)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 4)),
    ("ReplicationPad1d", ((3, 1),), (3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 4)),
    ("ReplicationPad3d", ((1, 0, 2, 0, 0, 3),), (1, 1, 2, 3, 4)),
    ("CircularPad1d", (2,), (2, 3, 4)),
    ("CircularPad2d", ((1, 2, 2, 0),), (1, 2, 3, 4)),
    ("CircularPad3d", (1,), (2, 2, 3, 4)),
]


@pytest.mark.parametrize("name,args,shape", LAYERS)
def test_padding_layers_match_torch(name, args, shape):
    x = torch.randn(shape, dtype=torch.float64)
    theirs, ours = getattr(torch.nn, name)(*args), getattr(minitorch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(minitorch.tensor(x.numpy())).numpy(), theirs(x).numpy())
