"""``minitorch.histogramdd`` (``minitorch/ops/histogram.py``) against ``torch.histogramdd``:
counts per dim, a range, explicit edges, weights, density, a 3-D non-contiguous input,
points outside the edges, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

RNG = np.random.default_rng(11)
POINTS = RNG.standard_normal((7, 3, 2)).astype(np.float32)
WEIGHTS = RNG.random((3, 7)).astype(np.float32)


def check(ours, theirs) -> None:
    np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-5, atol=1e-6)
    assert str(ours.hist.dtype) == str(theirs.hist.dtype) and len(ours.bin_edges) == len(theirs.bin_edges)
    for a, b in zip(ours.bin_edges, theirs.bin_edges):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_histogramdd_matches_torch() -> None:
    t, m = torch.tensor(POINTS).transpose(0, 1), minitorch.tensor(POINTS).transpose(0, 1)  # (3, 7, 2)
    w_t, w_m = torch.tensor(WEIGHTS), minitorch.tensor(WEIGHTS)
    edges = [[-1.0, 0.0, 1.0], [-2.0, 0.0, 0.5, 2.0]]  # some points fall outside
    cases = [({"bins": [3, 4]}, {}), ({"bins": 2, "range": [-1.0, 1.0, -0.5, 2.0]}, {}),
             ({"bins": [3, 2], "density": True}, {}), ({"bins": [2, 2]}, {"weight": True})]  # fmt: skip
    for kwargs, extra in cases:
        weighted = {"weight": w_t} if extra else {}
        check(minitorch.histogramdd(m, **kwargs, **({"weight": w_m} if extra else {})),
              torch.histogramdd(t, **kwargs, **weighted))  # fmt: skip
    check(minitorch.histogramdd(m, [minitorch.tensor(e) for e in edges], weight=w_m),
          torch.histogramdd(t, [torch.tensor(e) for e in edges], weight=w_t))  # fmt: skip


def test_histogramdd_errors() -> None:
    for bad in ({"bins": [2, 2, 2]}, {"bins": 2, "range": [0.0, 1.0]}, {"bins": [0, 2]}):
        with pytest.raises(RuntimeError):
            torch.histogramdd(torch.tensor(POINTS[0]), **bad)
        with pytest.raises(RuntimeError):
            minitorch.histogramdd(minitorch.tensor(POINTS[0]), **bad)
    with pytest.raises(RuntimeError):
        minitorch.histogramdd(minitorch.tensor([1.0, 2.0]), bins=2)
    with pytest.raises(NotImplementedError):
        minitorch.histogramdd(minitorch.tensor([[1, 2]]), bins=2)
