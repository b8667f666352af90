"""Every loss against PyTorch: value and gradient, for each reduction and option."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import nn
from tests.nn.twins import assert_close, twin_tensors

rng = np.random.default_rng(0)


@pytest.fixture(autouse=True, scope="module")
def _each_cpu_backend(backend):
    """Run this module once per CPU backend (reference and numba: see tests/conftest.py)."""
    yield backend
REDUCTIONS = ["mean", "sum", "none"]


def check_loss(name: str, input_array: np.ndarray, target_array: np.ndarray, tol: float | None = None,
               **options) -> None:  # fmt: skip
    """``nn.<name>(**options)`` in both libraries: loss value and input gradient."""
    x, tx = twin_tensors(input_array)
    target, ttarget = mt.tensor(target_array), torch.tensor(target_array)
    ours_options = {k: (mt.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in options.items()}
    theirs_options = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in options.items()}
    loss = getattr(nn, name)(**ours_options)(x, target)
    expected = getattr(torch.nn, name)(**theirs_options)(tx, ttarget)
    assert_close(loss, expected, tol, what=f"{name} value")
    upstream = rng.standard_normal(tuple(expected.shape))
    (loss * mt.tensor(upstream)).sum().backward()
    (expected * torch.tensor(upstream)).sum().backward()
    assert_close(x.grad, tx.grad, tol, what=f"{name} gradient")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["MSELoss", "L1Loss"])
def test_regression_losses(name, reduction):
    check_loss(name, rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), reduction=reduction)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_class_indices(reduction):
    check_loss("CrossEntropyLoss", rng.standard_normal((6, 4)) * 3, np.array([0, 3, 1, 2, 2, 1]),
               reduction=reduction)  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_weight_and_ignore_index(reduction):
    target = np.array([0, 3, -100, 2, 2, 1])
    weight = np.array([1.0, 2.0, 0.5, 3.0])
    check_loss("CrossEntropyLoss", rng.standard_normal((6, 4)), target, weight=weight, reduction=reduction)
    check_loss("CrossEntropyLoss", rng.standard_normal((6, 4)), np.array([0, 3, 1, 2, 2, 1]),
               ignore_index=2, reduction=reduction)  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_label_smoothing(reduction):
    target = np.array([0, 3, -100, 2, 2, 1])
    check_loss(
        "CrossEntropyLoss", rng.standard_normal((6, 4)), target, label_smoothing=0.2, reduction=reduction
    )
    check_loss("CrossEntropyLoss", rng.standard_normal((6, 4)), target, label_smoothing=0.1,
               weight=np.array([1.0, 2.0, 0.5, 3.0]), reduction=reduction)  # fmt: skip


def test_cross_entropy_shapes():
    check_loss("CrossEntropyLoss", rng.standard_normal((2, 4, 3, 2)), rng.integers(0, 4, (2, 3, 2)))
    check_loss("CrossEntropyLoss", rng.standard_normal(5), np.array(3))  # one unbatched sample
    check_loss("CrossEntropyLoss", rng.standard_normal((3, 5)), rng.random((3, 5)))  # probabilities
    check_loss("CrossEntropyLoss", rng.standard_normal((3, 5)), rng.random((3, 5)), label_smoothing=0.3)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    logp = np.log(rng.dirichlet(np.ones(4), size=5))
    check_loss("NLLLoss", logp, np.array([0, 1, 2, 3, 1]), reduction=reduction)
    check_loss("NLLLoss", logp, np.array([0, 1, 2, 3, 1]), weight=np.array([0.2, 1.0, 2.0, 1.0]),
               reduction=reduction)  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce(reduction):
    probabilities = 1 / (1 + np.exp(-rng.standard_normal((4, 3))))
    check_loss("BCELoss", probabilities, rng.random((4, 3)), reduction=reduction)
    check_loss("BCELoss", probabilities, rng.random((4, 3)), weight=rng.random((4, 3)), reduction=reduction)


def test_bce_clamps_log_like_pytorch():
    check_loss("BCELoss", np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 1.0]), tol=1e-7)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits(reduction):
    logits = rng.standard_normal((4, 3)) * 4
    check_loss("BCEWithLogitsLoss", logits, rng.random((4, 3)), reduction=reduction)
    check_loss("BCEWithLogitsLoss", logits, rng.random((4, 3)), reduction=reduction,
               pos_weight=np.array([1.0, 2.0, 3.0]), weight=rng.random((4, 3)))  # fmt: skip


def test_bce_with_logits_is_stable_for_huge_logits():
    check_loss("BCEWithLogitsLoss", np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0]),
               np.array([1.0, 1.0, 0.5, 0.0, 0.0]))  # fmt: skip
    x = mt.tensor([-1000.0, 1000.0], dtype=mt.float32, requires_grad=True)
    loss = nn.BCEWithLogitsLoss()(x, mt.tensor([0.0, 1.0]))
    loss.backward()
    assert loss.item() == 0.0 and np.isfinite(x.grad.numpy()).all()


def test_functional_forms_match_modules():
    F = mt.nn.functional
    x = mt.randn(4, 3)
    y = mt.tensor([0, 2, 1, 1])
    assert F.cross_entropy(x, y).item() == nn.CrossEntropyLoss()(x, y).item()
    assert F.nll_loss(F.log_softmax(x, 1), y).item() == pytest.approx(F.cross_entropy(x, y).item(), rel=1e-6)


def test_mse_warns_when_shapes_differ():
    with pytest.warns(UserWarning, match="target size"):
        nn.MSELoss()(mt.zeros(3, 1), mt.zeros(3))


def test_bad_reduction():
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        nn.MSELoss(reduction="average")
