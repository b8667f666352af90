"""Every layer against PyTorch: same weights, same input -> same output, same gradients
for the input and every parameter (and the same running statistics for BatchNorm)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import nn
from tests.nn.twins import assert_close, check_module, twin_tensors

rng = np.random.default_rng(0)


@pytest.fixture(autouse=True, scope="module")
def _each_cpu_backend(backend):
    """Run this module once per CPU backend (reference and numba: see tests/conftest.py)."""
    yield backend


def data(*shape: int, dtype: str = "float64") -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def both(factory) -> tuple[nn.Module, torch.nn.Module]:
    """``factory(library)`` builds the layer in each library, in float64."""
    return factory(mt).double(), factory(torch).double()


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 3), (3,)])
def test_linear(bias, shape):
    ours, theirs = both(lambda lib: lib.nn.Linear(3, 4, bias=bias))
    check_module(ours, theirs, data(*shape))


def test_linear_float32():
    ours, theirs = mt.nn.Linear(6, 2), torch.nn.Linear(6, 2)
    check_module(ours, theirs, data(4, 6, dtype="float32"))


CONV2D_CASES = [
    dict(),
    dict(stride=2),
    dict(padding=1),
    dict(stride=(2, 1), padding=(1, 2)),
    dict(dilation=2, padding=2),
    dict(padding="same"),
    dict(padding="valid", bias=False),
]


@pytest.mark.parametrize("options", CONV2D_CASES, ids=str)
def test_conv2d(options):
    ours, theirs = both(lambda lib: lib.nn.Conv2d(3, 4, 3, **options))
    check_module(ours, theirs, data(2, 3, 7, 6))


def test_conv2d_rectangular_kernel_unbatched():
    ours, theirs = both(lambda lib: lib.nn.Conv2d(2, 3, (3, 2), stride=(1, 2)))
    check_module(ours, theirs, data(2, 6, 5))


@pytest.mark.parametrize(
    "options", [dict(), dict(stride=2, padding=1), dict(dilation=2), dict(padding="same")], ids=str
)
def test_conv1d(options):
    ours, theirs = both(lambda lib: lib.nn.Conv1d(3, 5, 3, **options))
    check_module(ours, theirs, data(2, 3, 9))


POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=1),
]


@pytest.mark.parametrize("options", POOL_CASES, ids=str)
def test_max_pool2d(options):
    ours, theirs = both(lambda lib: lib.nn.MaxPool2d(**options))
    check_module(ours, theirs, data(2, 3, 7, 6))


def test_max_pool2d_indices_and_dilation():
    x, tx = twin_tensors(data(2, 2, 7, 7))
    out, index = mt.nn.functional.max_pool2d(x, 3, 2, 1, dilation=2, return_indices=True)
    expected, expected_index = torch.nn.functional.max_pool2d(tx, 3, 2, 1, dilation=2, return_indices=True)
    assert_close(out, expected)
    assert np.array_equal(index.numpy(), expected_index.numpy())


@pytest.mark.parametrize(
    "options", POOL_CASES + [dict(kernel_size=3, padding=1, count_include_pad=False)], ids=str
)
def test_avg_pool2d(options):
    ours, theirs = both(lambda lib: lib.nn.AvgPool2d(**options))
    check_module(ours, theirs, data(2, 3, 7, 6))


def test_pool1d_and_adaptive():
    check_module(*both(lambda lib: lib.nn.MaxPool1d(2)), data(2, 3, 8))
    check_module(*both(lambda lib: lib.nn.AvgPool1d(3, 1, 1)), data(2, 3, 8))
    check_module(*both(lambda lib: lib.nn.AdaptiveAvgPool2d(1)), data(2, 3, 4, 4))


@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize(
    "kind, shape", [("BatchNorm1d", (6, 4)), ("BatchNorm1d", (5, 4, 3)), ("BatchNorm2d", (3, 4, 5, 2))]
)
def test_batch_norm_train_then_eval(kind, shape, momentum):
    ours, theirs = both(lambda lib: getattr(lib.nn, kind)(4, momentum=momentum))
    with torch.no_grad():  # non-trivial affine parameters
        theirs.weight.uniform_(0.5, 1.5)
        theirs.bias.uniform_(-1, 1)
    for _ in range(3):  # the running statistics accumulate over several batches
        check_module(ours, theirs, data(*shape) * 3 + 1)
    assert int(ours.num_batches_tracked.item()) == 3
    ours.eval()
    theirs.eval()
    check_module(ours, theirs, data(*shape))


def test_batch_norm_without_running_stats_or_affine():
    check_module(
        *both(lambda lib: lib.nn.BatchNorm2d(3, affine=False, track_running_stats=False)), data(4, 3, 2, 2)
    )


@pytest.mark.parametrize("shape, normalized", [((4, 6), 6), ((2, 3, 4, 5), (4, 5))])
def test_layer_norm(shape, normalized):
    ours, theirs = both(lambda lib: lib.nn.LayerNorm(normalized))
    with torch.no_grad():
        theirs.weight.uniform_(0.5, 1.5)
        theirs.bias.uniform_(-1, 1)
    check_module(ours, theirs, data(*shape))


def test_layer_norm_without_affine():
    check_module(*both(lambda lib: lib.nn.LayerNorm(5, elementwise_affine=False)), data(3, 5))


@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding(padding_idx):
    ours, theirs = both(lambda lib: lib.nn.Embedding(5, 3, padding_idx=padding_idx))
    index = np.array([[0, 1, 4], [1, 1, 2]])
    check_module(ours, theirs, index, grad_inputs=False)
    if padding_idx is not None:
        assert not ours.weight.grad[padding_idx].numpy().any()


ACTIVATIONS = [
    ("ReLU", {}), ("LeakyReLU", {}), ("LeakyReLU", {"negative_slope": 0.2}), ("Tanh", {}),
    ("Sigmoid", {}), ("GELU", {}), ("GELU", {"approximate": "tanh"}), ("SiLU", {}),
    ("Softmax", {"dim": 1}), ("LogSoftmax", {"dim": -1}), ("Identity", {}), ("Flatten", {}),
    ("Flatten", {"start_dim": 0, "end_dim": 1}),
]  # fmt: skip


@pytest.mark.parametrize("name, options", ACTIVATIONS, ids=lambda v: str(v))
def test_activation(name, options):
    check_module(*both(lambda lib: getattr(lib.nn, name)(**options)), data(3, 4, 2) * 3)


def test_erf_against_pytorch():
    """``erf`` (the core op the exact GELU needs): values and derivative."""
    values = np.concatenate([data(20) * 2, [0.0, 5.0, -5.0, np.inf, -np.inf]])
    x, tx = twin_tensors(values)
    assert_close(mt.erf(x), torch.erf(tx), 1e-12)
    mt.erf(x).sum().backward()
    torch.erf(tx).sum().backward()
    assert_close(x.grad, tx.grad, 1e-12)
    assert mt.tensor([1, 2]).erf().dtype is mt.float32  # integers become floats


def test_dropout():
    x = mt.ones(200, 50)
    layer = nn.Dropout(0.3)
    out = layer(x)
    kept = (out != 0).float().mean().item()
    assert 0.65 < kept < 0.75
    assert np.allclose(out.numpy()[out.numpy() != 0], 1 / 0.7)
    layer.eval()
    assert layer(x) is x
    assert (nn.Dropout(1.0)(x) == 0).all()
    mt.manual_seed(3)
    first = nn.Dropout(0.5)(x)
    mt.manual_seed(3)
    assert (nn.Dropout(0.5)(x) == first).all()  # the global generator makes it repeatable
    x.requires_grad_(True)
    out = nn.Dropout(0.5)(x)
    out.sum().backward()
    assert (x.grad.numpy() == out.detach().numpy()).all()  # gradient = mask / (1 - p)


def test_sequential_model_against_pytorch():
    def build(lib):
        return lib.nn.Sequential(
            lib.nn.Conv2d(1, 4, 3, padding=1), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
            lib.nn.MaxPool2d(2), lib.nn.Flatten(), lib.nn.Linear(4 * 4 * 4, 10),
        )  # fmt: skip

    check_module(*both(build), data(3, 1, 8, 8))


def test_losses_as_modules_register_weight_buffers():
    weight = mt.tensor([1.0, 2.0])
    loss = nn.CrossEntropyLoss(weight=weight)
    assert list(loss.state_dict()) == list(torch.nn.CrossEntropyLoss(weight=torch.ones(2)).state_dict())
    assert list(nn.CrossEntropyLoss().state_dict()) == []


def test_unfold_and_fold_against_pytorch():
    F, TF = mt.nn.functional, torch.nn.functional
    x, tx = twin_tensors(data(2, 3, 7, 6))
    cols = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2)
    expected = TF.unfold(tx, (2, 3), dilation=(1, 2), padding=1, stride=2)
    assert_close(cols, expected)
    upstream = data(*expected.shape)
    (cols * mt.tensor(upstream)).sum().backward()
    (expected * torch.tensor(upstream)).sum().backward()
    assert_close(x.grad, tx.grad)  # the backward of unfold is fold
    c, tc = twin_tensors(data(2, 12, 16))
    image = F.fold(c, (7, 6), 2, padding=1, stride=2)
    assert_close(image, TF.fold(tc, (7, 6), 2, padding=1, stride=2))


def test_conv_and_pool_gradcheck_including_second_order():
    """Unfold's backward is Fold and Fold's is Unfold, so gradients of gradients work."""
    F = mt.nn.functional
    x = mt.tensor(data(1, 2, 5, 4), requires_grad=True)
    w = mt.tensor(data(3, 2, 2, 2), requires_grad=True)
    assert mt.autograd.gradcheck(lambda a, b: F.conv2d(a, b, stride=1, padding=1), (x, w))
    assert mt.autograd.gradcheck(lambda a: F.max_pool2d(a, 2, 1), (x,))
    assert mt.autograd.gradcheck(lambda a: F.avg_pool2d(a, 3, 1, 1), (x,))
    assert mt.autograd.gradgradcheck(lambda a, b: F.conv2d(a, b, stride=2, padding=1), (x, w))
