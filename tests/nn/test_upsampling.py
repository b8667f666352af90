"""F.interpolate / nn.Upsample (nearest, nearest-exact, linear, bilinear, trilinear;
size or scale_factor; align_corners both ways; recompute_scale_factor), PixelShuffle and
PixelUnshuffle, and the Fold/Unfold layers, against PyTorch: values, gradients, reprs and
errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.nn.functional as F
from tests.nn.twins import assert_close, check_module

rng = np.random.default_rng(0)

CASES = [  # input shape, keyword arguments
    ((2, 3, 5, 7), {"size": (8, 3)}),
    ((2, 3, 5, 7), {"scale_factor": 2}),
    ((2, 3, 5, 7), {"scale_factor": (1.7, 0.6)}),
    ((1, 2, 6), {"size": 13, "mode": "nearest-exact"}),
    ((2, 3, 5, 7), {"size": (11, 4), "mode": "nearest-exact"}),
    ((2, 2, 7), {"size": 12, "mode": "linear"}),
    ((2, 2, 7), {"scale_factor": 0.5, "mode": "linear", "align_corners": True}),
    ((2, 3, 5, 7), {"size": (8, 3), "mode": "bilinear", "align_corners": False}),
    ((2, 3, 5, 7), {"size": (8, 3), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 5, 7), {"scale_factor": 2.3, "mode": "bilinear"}),
    ((2, 3, 5, 7), {"scale_factor": 2.3, "mode": "bilinear", "recompute_scale_factor": True}),
    ((1, 1, 4, 4), {"size": (1, 1), "mode": "bilinear", "align_corners": True}),
    ((1, 2, 3, 4, 5), {"size": (5, 2, 7), "mode": "trilinear"}),
    ((1, 2, 3, 4, 5), {"scale_factor": 2, "mode": "nearest"}),
]


@pytest.mark.parametrize("shape,kwargs", CASES, ids=[str(i) for i in range(len(CASES))])
def test_interpolate_matches_torch(shape, kwargs):
    x = rng.standard_normal(shape).astype(np.float32)
    ours, theirs = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, expected = F.interpolate(ours, **kwargs), torch.nn.functional.interpolate(theirs, **kwargs)
    assert_close(out, expected, 2e-6)
    upstream = rng.standard_normal(tuple(expected.shape)).astype(np.float32)
    (out * mt.tensor(upstream)).sum().backward(), (expected * torch.tensor(upstream)).sum().backward()
    assert_close(ours.grad, theirs.grad, 1e-5)


def test_interpolate_of_a_transposed_float64_view():
    x = rng.standard_normal((2, 3, 6, 5))
    view, view_t = mt.tensor(x).transpose(2, 3), torch.tensor(x).transpose(2, 3)
    for mode in ("nearest", "bilinear"):
        assert_close(F.interpolate(view, scale_factor=1.5, mode=mode),
                     torch.nn.functional.interpolate(view_t, scale_factor=1.5, mode=mode))  # fmt: skip


LAYERS = [
    ("Upsample", {"scale_factor": 2}, (2, 3, 4, 5)),
    ("Upsample", {"size": (3, 7), "mode": "bilinear", "align_corners": True}, (2, 3, 4, 5)),
    ("UpsamplingNearest2d", {"scale_factor": 3}, (1, 2, 3, 3)),
    ("UpsamplingBilinear2d", {"size": (5, 6)}, (1, 2, 3, 3)),
    ("PixelShuffle", {"upscale_factor": 2}, (2, 12, 3, 4)),
    ("PixelShuffle", {"upscale_factor": 3}, (2, 2, 9, 2, 3)),  # extra batch dimension
    ("PixelUnshuffle", {"downscale_factor": 2}, (2, 3, 4, 6)),
    ("Unfold", {"kernel_size": (2, 3), "padding": 1, "stride": 2}, (2, 3, 5, 6)),
    ("Fold", {"output_size": (4, 5), "kernel_size": 2}, (2, 8, 12)),
]


@pytest.mark.parametrize("name,kwargs,shape", LAYERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)])
def test_layer_matches_torch(name, kwargs, shape):
    ours, theirs = getattr(mt.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    check_module(ours, theirs, rng.standard_normal(shape).astype(np.float32), tol=2e-6)
    assert repr(ours) == repr(theirs)


def test_the_old_upsample_names():
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    for name, kwargs in [("upsample_nearest", {"scale_factor": 2}), ("upsample_bilinear", {"size": (5, 7)})]:
        assert_close(getattr(F, name)(mt.tensor(x), **kwargs),
                     getattr(torch.nn.functional, name)(torch.tensor(x), **kwargs), 2e-6)  # fmt: skip


def test_pixel_unshuffle_inverts_pixel_shuffle():
    x = mt.tensor(rng.standard_normal((2, 8, 3, 5)))
    assert_close(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), x, 0)


def test_errors_as_torch():
    x = mt.randn(1, 2, 4, 4)
    with pytest.raises(ValueError):
        F.interpolate(x)  # neither size nor scale_factor
    with pytest.raises(ValueError):
        F.interpolate(x, size=(2, 2), scale_factor=2)
    with pytest.raises(ValueError):
        F.interpolate(x, size=(2, 2), align_corners=True)  # nearest takes no align_corners
    with pytest.raises(ValueError):
        F.interpolate(x, size=(2, 2, 2))
    with pytest.raises(NotImplementedError):
        F.interpolate(x, size=(2, 2), mode="bicubic")
    with pytest.raises(NotImplementedError):
        F.interpolate(x, size=(2, 2), mode="linear")  # linear needs a 3D input
    with pytest.raises(RuntimeError):
        F.pixel_shuffle(mt.randn(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError):
        F.pixel_unshuffle(mt.randn(1, 3, 3, 2), 2)
    with pytest.raises(TypeError):
        F.interpolate(None, size=2)
