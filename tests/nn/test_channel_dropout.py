"""Channel dropout and alpha dropout against PyTorch: after the same seed the same masks,
bit for bit (float32 and float64), gradients, eval mode, bad input."""

import warnings

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F

CASES = [
    ("dropout1d", (2, 5, 3), {}),
    ("dropout1d", (5, 3), {}),
    ("dropout2d", (2, 6, 3, 3), {}),
    ("dropout2d", (2, 6, 3), {}),
    ("dropout3d", (2, 4, 2, 2, 2), {}),
    ("dropout3d", (4, 2, 2, 2), {}),
    ("alpha_dropout", (4, 7), {"training": True}),
    ("feature_alpha_dropout", (3, 5, 2), {"training": True}),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,shape,kwargs", CASES)
def test_same_seed_same_values_as_torch(name, shape, kwargs, dtype):
    warnings.simplefilter("ignore")
    for seed in (0, 1, 7, 2147483647):
        for p in (0.3, 0.8):
            x = torch.randn(shape, dtype=dtype)
            torch.manual_seed(seed)
            expected = getattr(torch.nn.functional, name)(x, p, **kwargs)
            minitorch.manual_seed(seed)
            got = getattr(F, name)(minitorch.tensor(x.numpy()), p, **kwargs)
            np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("name", ["dropout2d", "feature_alpha_dropout"])
def test_gradient_and_non_contiguous_input(name):
    x = torch.randn(3, 4, 5, 2, dtype=torch.float64).transpose(2, 3).requires_grad_()
    xm = minitorch.tensor(x.detach().transpose(2, 3).contiguous().numpy()).transpose(2, 3)
    xm.requires_grad_()
    torch.manual_seed(3)
    expected = getattr(torch.nn.functional, name)(x, 0.4, True)
    minitorch.manual_seed(3)
    got = getattr(F, name)(xm, 0.4, True)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    expected.pow(2).sum().backward()
    got.pow(2).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), x.grad.numpy())


@pytest.mark.parametrize("layer,shape", [
    ("Dropout1d", (2, 3, 4)), ("Dropout2d", (2, 3, 4, 2)), ("Dropout3d", (2, 3, 4, 2, 2)),
    ("AlphaDropout", (5, 6)), ("FeatureAlphaDropout", (2, 3, 4, 2)),
])  # fmt: skip
def test_layers_train_as_torch_and_are_identity_in_eval(layer, shape):
    x = torch.randn(shape)
    theirs, ours = getattr(torch.nn, layer)(0.25), getattr(minitorch.nn, layer)(0.25)
    assert repr(ours) == repr(theirs)
    torch.manual_seed(5)
    minitorch.manual_seed(5)
    np.testing.assert_array_equal(ours(minitorch.tensor(x.numpy())).numpy(), theirs(x).numpy())
    ours.eval()
    xm = minitorch.tensor(x.numpy())
    assert ours(xm) is xm


def test_edge_probabilities_and_errors():
    x = minitorch.ones(2, 3, 4)
    assert (F.dropout1d(x, 1.0) == 0).all()
    assert F.dropout1d(x, 0.0) is x
    assert F.alpha_dropout(x, 0.5) is x  # training defaults to False, as in PyTorch
    with pytest.raises(ValueError):
        F.dropout2d(x, 1.5)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(minitorch.ones(2, 3, 4, 5))
    with pytest.raises(TypeError):
        F.dropout3d(None)
