"""Convolution, pooling, fold and unfold check their arguments before any kernel runs
(issue 18, item 1). Their windows are a strided view of the padded input, and the
Numba kernels do no bounds checks: a negative padding or dilation used to aim that view
outside the image (``conv2d(..., padding=-20)`` aborted with "double free or
corruption", ``fold(..., dilation=-1)`` segfaulted, ``max_pool2d(..., dilation=-3)``
returned values read from outside the input).

Each bad call must raise PyTorch's exception type, with the same message on both CPU
backends (the checks run before dispatch). The good edge cases are compared with PyTorch.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import nn

BACKENDS = ("reference", "numba")


BAD_CALLS = {  # name: the call, run with lib = minitorch or torch
    # the three repros of the issue
    "conv2d padding=-20": "F.conv2d(lib.ones(1, 1, 64, 64), lib.ones(1, 1, 3, 3), padding=-20)",
    "fold dilation=-1": "F.fold(lib.ones(1, 9, 49), (5, 5), 3, dilation=-1)",
    "max_pool2d dilation=-3": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 2, stride=1, dilation=-3)",
    # convolution
    "conv2d stride=0": "F.conv2d(lib.ones(1, 1, 8, 8), lib.ones(1, 1, 3, 3), stride=0)",
    "conv2d stride=-1": "F.conv2d(lib.ones(1, 1, 8, 8), lib.ones(1, 1, 3, 3), stride=-1)",
    "conv2d dilation=0": "F.conv2d(lib.ones(1, 1, 8, 8), lib.ones(1, 1, 3, 3), dilation=0)",
    "conv2d dilation=-1": "F.conv2d(lib.ones(1, 1, 8, 8), lib.ones(1, 1, 3, 3), dilation=-1)",
    "conv2d padding=(0, -1)": "F.conv2d(lib.ones(1, 1, 8, 8), lib.ones(1, 1, 3, 3), padding=(0, -1))",
    "conv2d kernel larger than input": "F.conv2d(lib.ones(1, 1, 2, 2), lib.ones(1, 1, 3, 3))",
    "conv2d zero-size kernel": "F.conv2d(lib.ones(1, 1, 5, 5), lib.ones(1, 1, 0, 3))",
    "conv2d no output channels": "F.conv2d(lib.ones(1, 1, 5, 5), lib.ones(0, 1, 3, 3))",
    "conv2d channel mismatch": "F.conv2d(lib.ones(1, 2, 5, 5), lib.ones(1, 1, 3, 3))",
    "conv2d 2-D input": "F.conv2d(lib.ones(5, 5), lib.ones(1, 1, 3, 3))",
    "conv2d three strides": "F.conv2d(lib.ones(1, 1, 5, 5), lib.ones(1, 1, 3, 3), stride=(1, 1, 1))",
    "conv2d bias of wrong size": "F.conv2d(lib.ones(1, 1, 5, 5), lib.ones(1, 1, 3, 3), bias=lib.ones(2))",
    "conv2d unknown padding string": 'F.conv2d(lib.ones(1, 1, 5, 5), lib.ones(1, 1, 3, 3), padding="full")',
    "conv2d same+stride": 'F.conv2d(lib.ones(1, 1, 5, 5), lib.ones(1, 1, 3, 3), stride=2, padding="same")',
    "conv1d padding=-1": "F.conv1d(lib.ones(1, 1, 10), lib.ones(1, 1, 3), padding=-1)",
    "conv1d stride=0": "F.conv1d(lib.ones(1, 1, 10), lib.ones(1, 1, 3), stride=0)",
    "conv1d dilation=0": "F.conv1d(lib.ones(1, 1, 10), lib.ones(1, 1, 3), dilation=0)",
    "conv1d kernel larger than input": "F.conv1d(lib.ones(1, 1, 2), lib.ones(1, 1, 3))",
    "Conv2d(stride=0) forward": "nn.Conv2d(1, 1, 3, stride=0)(lib.ones(1, 1, 8, 8))",
    "Conv1d(padding=-2) forward": "nn.Conv1d(1, 1, 3, padding=-2)(lib.ones(1, 1, 8))",
    # fold and unfold
    "fold dilation=0": "F.fold(lib.ones(1, 9, 49), (5, 5), 3, dilation=0)",
    "fold padding=-1": "F.fold(lib.ones(1, 9, 49), (5, 5), 3, padding=-1)",
    "fold stride=0": "F.fold(lib.ones(1, 9, 49), (5, 5), 3, stride=0)",
    "fold kernel 0": "F.fold(lib.ones(1, 9, 49), (5, 5), 0)",
    "fold wrong block count": "F.fold(lib.ones(1, 9, 48), (5, 5), 3)",
    "fold channels not a multiple": "F.fold(lib.ones(1, 8, 49), (9, 9), 3)",
    "fold output smaller than kernel": "F.fold(lib.ones(1, 9, 9), (2, 2), 3)",
    "fold 4-D input": "F.fold(lib.ones(1, 9, 9, 1), (5, 5), 3)",
    "unfold dilation=-1": "F.unfold(lib.ones(1, 1, 5, 5), 3, dilation=-1)",
    "unfold padding=-1": "F.unfold(lib.ones(1, 1, 5, 5), 3, padding=-1)",
    "unfold stride=0": "F.unfold(lib.ones(1, 1, 5, 5), 3, stride=0)",
    "unfold kernel 0": "F.unfold(lib.ones(1, 1, 5, 5), 0)",
    "unfold kernel larger than input": "F.unfold(lib.ones(1, 1, 2, 2), 3)",
    # pooling
    "max_pool2d dilation=0": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 2, stride=1, dilation=0)",
    "max_pool2d stride=0": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 2, stride=0)",
    "max_pool2d stride=-1": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 2, stride=-1)",
    "max_pool2d padding=-1": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 2, padding=-1)",
    "max_pool2d padding over half the kernel": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 2, padding=2)",
    "max_pool2d kernel 0": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 0)",
    "max_pool2d kernel -1": "F.max_pool2d(lib.zeros(1, 1, 4, 4), -1)",
    "max_pool2d kernel larger than input": "F.max_pool2d(lib.zeros(1, 1, 4, 4), 5)",
    "max_pool2d 2-D input": "F.max_pool2d(lib.zeros(4, 4), 2)",
    "max_pool2d no channels": "F.max_pool2d(lib.zeros(1, 0, 4, 4), 2)",
    "max_pool2d empty plane": "F.max_pool2d(lib.zeros(1, 1, 0, 4), 2)",
    "max_pool1d dilation=0": "F.max_pool1d(lib.zeros(1, 1, 4), 2, dilation=0)",
    "max_pool1d padding=-1": "F.max_pool1d(lib.zeros(1, 1, 4), 2, padding=-1)",
    "max_pool1d stride=0": "F.max_pool1d(lib.zeros(1, 1, 4), 2, stride=0)",
    "max_pool1d kernel larger than input": "F.max_pool1d(lib.zeros(1, 1, 4), 5)",
    "max_pool1d 1-D input": "F.max_pool1d(lib.zeros(4), 2)",
    "avg_pool2d padding=-1": "F.avg_pool2d(lib.zeros(1, 1, 4, 4), 2, padding=-1)",
    "avg_pool2d stride=0": "F.avg_pool2d(lib.zeros(1, 1, 4, 4), 2, stride=0)",
    "avg_pool2d kernel 0": "F.avg_pool2d(lib.zeros(1, 1, 4, 4), 0)",
    "avg_pool2d kernel larger than input": "F.avg_pool2d(lib.zeros(1, 1, 4, 4), 5)",
    "avg_pool2d divisor_override=0": "F.avg_pool2d(lib.zeros(1, 1, 4, 4), 2, divisor_override=0)",
    "avg_pool1d stride=0": "F.avg_pool1d(lib.zeros(1, 1, 4), 2, stride=0)",
    "avg_pool1d padding=-1": "F.avg_pool1d(lib.zeros(1, 1, 4), 2, padding=-1)",
    "adaptive_avg_pool2d negative size": "F.adaptive_avg_pool2d(lib.zeros(1, 1, 4, 4), -1)",
    "MaxPool2d(stride=0) forward": "nn.MaxPool2d(2, stride=0)(lib.ones(1, 1, 4, 4))",
    "AvgPool2d(0) forward": "nn.AvgPool2d(0)(lib.ones(1, 1, 4, 4))",
}  # fmt: skip


def raised(call: str, lib) -> BaseException | None:
    try:
        eval(call, {"lib": lib, "F": lib.nn.functional, "nn": lib.nn})
    except Exception as error:  # noqa: BLE001 - the point is which exception it is
        return error
    return None


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_arguments_raise_pytorchs_exception_on_both_backends(name):
    call = BAD_CALLS[name]
    expected = raised(call, torch)
    assert expected is not None, f"PyTorch accepts {name}: not a bad call"
    errors = {}
    for backend in BACKENDS:
        with mt.backend(backend):
            errors[backend] = raised(call, mt)
    for backend, error in errors.items():
        assert type(error) is type(expected), f"{backend}: {error!r}, PyTorch: {expected!r}"
    assert str(errors["reference"]) == str(errors["numba"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_crash_repros_leave_memory_alone_and_the_next_call_works(backend):
    """After the refused calls, a normal convolution on the same backend still gives
    PyTorch's values (nothing was written outside the input)."""
    with mt.backend(backend):
        for name in ("conv2d padding=-20", "fold dilation=-1", "max_pool2d dilation=-3"):
            assert isinstance(raised(BAD_CALLS[name], mt), RuntimeError)
        x = np.arange(2 * 3 * 7 * 6, dtype=np.float32).reshape(2, 3, 7, 6) / 50
        w = np.linspace(-1, 1, 4 * 3 * 3 * 2, dtype=np.float32).reshape(4, 3, 3, 2)
        ours = mt.nn.functional.conv2d(mt.tensor(x), mt.tensor(w), padding=1, dilation=(2, 1))
        theirs = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1, dilation=(2, 1))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("features", [(0, 3), (3, 0), (0, 0)])
def test_linear_with_no_features_works_like_pytorch(features):
    """``nn.Linear(0, 3)``: Kaiming init of a zero-element weight warns and does nothing
    (it used to divide by a fan-in of 0); the layer maps ``[2, 0]`` to zeros."""
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        layer = nn.Linear(*features)
    with pytest.warns(UserWarning):
        reference = torch.nn.Linear(*features)
    out = layer(mt.ones(2, features[0]))
    expected = reference(torch.ones(2, features[0]))
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.detach().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("make", [lambda lib: lib.nn.Conv2d(0, 4, 3), lambda lib: lib.nn.Conv1d(2, 0, 3),
                                  lambda lib: lib.nn.Conv2d(1, 1, 0)])  # fmt: skip
def test_conv_layers_with_no_weights_construct_like_pytorch(make):
    with pytest.warns(UserWarning, match="zero-element"):
        ours = make(mt)
    with pytest.warns(UserWarning, match="zero-element"):
        theirs = make(torch)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)


def test_module_constructors_accept_what_pytorch_accepts_and_fail_in_forward():
    """PyTorch checks stride, padding and dilation when the layer runs, not when it is
    built: so do we (the error then names the actual input)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for make in ("nn.Conv2d(1, 1, 3, stride=0)", "nn.Conv2d(1, 1, 3, padding=-1)",
                     "nn.Conv2d(1, 1, 3, dilation=0)", "nn.MaxPool2d(2, stride=0)"):  # fmt: skip
            assert raised(make, torch) is None and raised(make, mt) is None
    same_with_stride = "nn.Conv2d(1, 1, 3, stride=2, padding='same')"  # refused when built
    assert type(raised(same_with_stride, mt)) is type(raised(same_with_stride, torch)) is ValueError


def test_unbatched_unfold_and_fold_match_pytorch():
    x = np.random.default_rng(0).standard_normal((2, 5, 6)).astype(np.float32)
    cols = mt.nn.functional.unfold(mt.tensor(x), (2, 3), padding=1, stride=(1, 2))
    expected = torch.nn.functional.unfold(torch.tensor(x), (2, 3), padding=1, stride=(1, 2))
    np.testing.assert_allclose(cols.numpy(), expected.numpy(), rtol=1e-6)
    back = mt.nn.functional.fold(cols, (5, 6), (2, 3), padding=1, stride=(1, 2))
    expected_back = torch.nn.functional.fold(expected, (5, 6), (2, 3), padding=1, stride=(1, 2))
    np.testing.assert_allclose(back.numpy(), expected_back.numpy(), rtol=1e-5)


@pytest.mark.parametrize("size", [0, (0, 2), (None, 2), (4, None), 2])
def test_adaptive_avg_pool2d_sizes_none_and_zero_like_pytorch(size):
    x = np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    ours = mt.nn.functional.adaptive_avg_pool2d(mt.tensor(x, requires_grad=True), size)
    theirs = torch.nn.functional.adaptive_avg_pool2d(torch.tensor(x), size)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=1e-6)
    assert ours.requires_grad  # still part of the graph, even when empty


def test_pad_with_zero_widths_is_a_new_tensor_like_pytorch():
    x = mt.arange(6.0).reshape(2, 3)
    padded = mt.nn.functional.pad(x, (0, 0))
    assert padded.tolist() == x.tolist()
    padded[0, 0] = 100.0
    assert x[0, 0].item() == 0.0
