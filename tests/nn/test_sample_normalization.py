"""GroupNorm, InstanceNorm1d/2d/3d, RMSNorm, LocalResponseNorm and F.normalize against
PyTorch: outputs, gradients of the input and the affine parameters, running statistics
in training and their use in evaluation, unbatched inputs, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.nn.functional as F
from tests.nn.twins import assert_close, check_module

rng = np.random.default_rng(0)


def _pair(name: str, *args, **kwargs):
    ours, theirs = getattr(mt.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    if list(theirs.parameters()):  # random affine parameters, so their gradients matter
        with torch.no_grad():
            for p in theirs.parameters():
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype))
    return ours, theirs


LAYERS = [  # name, arguments, keyword arguments, input shape
    ("GroupNorm", (3, 6), {}, (2, 6, 4, 3)),
    ("GroupNorm", (1, 4), {"affine": False}, (3, 4, 5)),  # G=1: layer norm over [C, L]
    ("GroupNorm", (4, 4), {"eps": 1e-3}, (2, 4, 7)),  # G=C: instance norm
    ("InstanceNorm1d", (3,), {}, (2, 3, 7)),
    ("InstanceNorm1d", (3,), {"affine": True}, (3, 7)),  # unbatched
    ("InstanceNorm2d", (4,), {"affine": True, "track_running_stats": True}, (2, 4, 3, 5)),
    ("InstanceNorm3d", (2,), {"track_running_stats": True, "momentum": 0.3}, (2, 2, 3, 2, 4)),
    ("RMSNorm", (5,), {}, (2, 3, 5)),
    ("RMSNorm", ((3, 5),), {"eps": 1e-4}, (2, 3, 5)),
    ("RMSNorm", (5,), {"elementwise_affine": False}, (4, 5)),
    ("LocalResponseNorm", (3,), {}, (2, 5, 4)),
    ("LocalResponseNorm", (4,), {"alpha": 0.5, "beta": 0.6, "k": 2.0}, (2, 6, 3, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", LAYERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)])
def test_layer_matches_torch_in_training_and_evaluation(name, args, kwargs, shape):
    ours, theirs = _pair(name, *args, **kwargs)
    check_module(ours, theirs, rng.standard_normal(shape).astype(np.float32))  # buffers updated
    check_module(ours, theirs, 3 * rng.standard_normal(shape).astype(np.float32) + 1)
    ours.eval(), theirs.eval()
    check_module(ours, theirs, rng.standard_normal(shape).astype(np.float32))  # running stats read
    assert repr(ours) == repr(theirs)


def test_functional_forms_on_a_transposed_float64_view():
    x = rng.standard_normal((5, 4, 6))
    ours, theirs = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    w, b = rng.standard_normal(5), rng.standard_normal(5)
    calls = [
        (F.group_norm, torch.nn.functional.group_norm, (5, mt.tensor(w), mt.tensor(b)),
         (5, torch.tensor(w), torch.tensor(b))),
        (F.instance_norm, torch.nn.functional.instance_norm, (), ()),
        (F.rms_norm, torch.nn.functional.rms_norm, ((5, 4),), ((5, 4),)),
        (F.normalize, torch.nn.functional.normalize, (), ()),
        (F.normalize, torch.nn.functional.normalize, (1.0, 2), (1.0, 2)),
        (F.local_response_norm, torch.nn.functional.local_response_norm, (2,), (2,)),
    ]  # fmt: skip
    for mine, reference, my_args, their_args in calls:
        ours.grad, theirs.grad = None, None
        out = mine(ours.permute(2, 0, 1), *my_args)  # [6, 5, 4], not contiguous
        expected = reference(theirs.permute(2, 0, 1), *their_args)
        assert_close(out, expected, what=mine.__name__)
        (out * out.detach().cos()).sum().backward()
        (expected * expected.detach().cos()).sum().backward()
        assert_close(ours.grad, theirs.grad, what=f"grad of {mine.__name__}")


def test_normalize_keeps_a_zero_vector_zero_and_rms_norm_default_eps():
    x = mt.zeros(2, 3)
    assert (F.normalize(x).numpy() == 0).all()
    tiny = np.full((2, 3), 1e-5, dtype=np.float32)
    assert_close(F.rms_norm(mt.tensor(tiny), (3,)), torch.nn.functional.rms_norm(torch.tensor(tiny), (3,)))


def test_errors_as_torch():
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        mt.nn.GroupNorm(4, 6)
    with pytest.raises(RuntimeError):
        F.group_norm(mt.randn(2, 6, 3), 4)
    with pytest.raises(RuntimeError):
        F.rms_norm(mt.randn(2, 3), (4,))
    with pytest.raises(ValueError):
        mt.nn.InstanceNorm2d(3)(mt.randn(2, 3))
    with pytest.raises(ValueError):  # one spatial element: the variance is undefined
        F.instance_norm(mt.randn(2, 3, 1))
    with pytest.raises(TypeError):
        F.group_norm(None, 2)
    with pytest.raises(TypeError):
        F.normalize("x")
