"""``minitorch.gradient`` (``minitorch/ops/finite_differences.py``) against ``torch.gradient``
steps and coordinates, edge orders 1 and 2, chosen dims, a non-contiguous input, the
gradient of the estimate, and PyTorch's errors; and the legacy norms of
``minitorch/ops/legacy_norms.py``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch

VALUES = np.random.default_rng(5).standard_normal((4, 5, 3)).astype(np.float32)
X = np.array([0.0, 0.5, 2.0, 2.5, 4.0], dtype=np.float32)  # uneven coordinates for dim 1


def check(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_torch(edge_order) -> None:
    t = torch.tensor(VALUES, requires_grad=True)
    m = minitorch.tensor(VALUES, requires_grad=True)
    cases = [
        {}, {"spacing": 0.5}, {"spacing": [1.0, 2.0], "dim": [2, 0]}, {"dim": -2},
        {"spacing": (torch.tensor(X),), "dim": 1},
    ]  # fmt: skip
    for kwargs in cases:
        ours_kwargs = dict(kwargs)
        if isinstance(kwargs.get("spacing"), tuple):
            ours_kwargs["spacing"] = (minitorch.tensor(X),)
        theirs = torch.gradient(t.transpose(0, 2), edge_order=edge_order, **kwargs)  # non-contiguous
        ours = minitorch.gradient(m.transpose(0, 2), edge_order=edge_order, **ours_kwargs)
        check(ours, theirs)
    check(minitorch.autograd.grad(sum((g * g).sum() for g in ours), m),
          torch.autograd.grad(sum((g * g).sum() for g in theirs), t))  # fmt: skip


def test_gradient_edge_cases_and_errors() -> None:
    check(minitorch.gradient(minitorch.tensor([1, 2, 4])), torch.gradient(torch.tensor([1, 2, 4])))
    check(minitorch.gradient(minitorch.tensor([1.0, 3.0])), torch.gradient(torch.tensor([1.0, 3.0])))
    assert minitorch.gradient(minitorch.tensor(1.0)) == ()
    check(minitorch.gradient(minitorch.tensor([1.0, 4.0, 9.0]), spacing=None),
          torch.gradient(torch.tensor([1.0, 4.0, 9.0]), spacing=None))  # fmt: skip
    m, t = minitorch.tensor(VALUES), torch.tensor(VALUES)
    for kwargs in ({"edge_order": 3}, {"spacing": [1.0, 2.0]}, {"dim": (0, 0)},
                   {"spacing": [1.0], "dim": [0, 1]}):  # fmt: skip
        with pytest.raises(RuntimeError):
            torch.gradient(t, **kwargs)
        with pytest.raises(RuntimeError):
            minitorch.gradient(m, **kwargs)
    with pytest.raises(RuntimeError):
        minitorch.gradient(minitorch.tensor([1.0, 2.0]), edge_order=2)
    with pytest.raises(TypeError):
        minitorch.gradient([1.0, 2.0])


def test_legacy_norms_values_and_gradients() -> None:
    """``frobenius_norm``, ``nuclear_norm``, ``norm_except_dim`` (``ops/legacy_norms.py``)."""
    t = torch.tensor(VALUES, requires_grad=True)
    m = minitorch.tensor(VALUES, requires_grad=True)
    cases = [("frobenius_norm", ((1, 2),)), ("frobenius_norm", (0, True)),
             ("nuclear_norm", ((0, 2), True)), ("nuclear_norm", ((-1, -2),)),
             ("norm_except_dim", (2, 1)), ("norm_except_dim", (3, -1))]  # fmt: skip
    with pytest.warns(UserWarning):
        minitorch.frobenius_norm(m, 0)
    for name, args in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(torch, name)(t.transpose(0, 1), *args)
            ours = getattr(minitorch, name)(m.transpose(0, 1), *args)
        check((ours,), (theirs,))
        check(minitorch.autograd.grad(ours.sum(), m), torch.autograd.grad(theirs.sum(), t))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check((minitorch.nuclear_norm(m[0], True),), (torch.nuclear_norm(t[0], True),))
        with pytest.raises(RuntimeError):
            minitorch.frobenius_norm(m, (0, 1, 2))
