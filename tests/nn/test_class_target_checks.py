"""cross_entropy / nll_loss refuse bad class-index targets before any kernel runs, and
agree with PyTorch on int32 targets, K-dimensional inputs and non-contiguous logits."""

import numpy as np
import pytest
import torch

import minitorch

F = minitorch.nn.functional


CLASS_INDEX_ERRORS = [([0, 5, 1], IndexError), ([0, -1, 1], IndexError), ([[0, 1, 2]], ValueError)]


# (float targets are an error for nll_loss only: cross_entropy reads them as class probabilities)
@pytest.mark.parametrize("name, target, error",
                         [(name, target, error) for name in ("cross_entropy", "nll_loss")
                          for target, error in CLASS_INDEX_ERRORS]
                         + [("nll_loss", [0.0, 1.0], RuntimeError)])  # fmt: skip
def test_bad_targets_raise_before_any_kernel(name, target, error):
    logits = minitorch.randn(3, 4)
    target = minitorch.tensor(target)
    with minitorch.dispatch.trace() as calls, pytest.raises(error):
        getattr(F, name)(logits, target)
    assert [c.primitive for c in calls] == []


@pytest.mark.parametrize("shape", [(5, 4), (2, 4, 3), (2, 4, 3, 2)])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_class_targets_agree_with_torch(shape, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, shape[1], (shape[0],) + shape[2:]).astype(dtype)
    t.flat[0] = -100  # ignored
    mx = minitorch.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    for reduction in ("mean", "sum", "none"):
        ours = F.cross_entropy(mx.transpose(0, 1).transpose(0, 1), minitorch.tensor(t), reduction=reduction)
        theirs = torch.nn.functional.cross_entropy(tx, torch.tensor(t).long(), reduction=reduction)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
        ours.sum().backward()
        theirs.sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
