"""nn.EmbeddingBag and F.embedding_bag against PyTorch: sum/mean/max, 1-D input with
offsets (an empty bag, include_last_offset), 2-D input, per_sample_weights, padding_idx,
gradients of the weight, same-seed initialisation, repr and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.nn.functional as F
from tests.nn.twins import assert_close

INDICES = [4, 2, 2, 7, 0, 9, 4, 1, 3]
OFFSETS = [0, 3, 3, 6]  # bag 1 is empty


CASES = [(m, f) for m in ("sum", "mean", "max") for f in ("offsets", "last_offset", "2d", "padding")]


@pytest.mark.parametrize("mode,form", CASES + [("sum", "weights")])  # weights: mode='sum' only
def test_embedding_bag_matches_torch(mode, form):
    mt.manual_seed(3), torch.manual_seed(3)
    kwargs = {"mode": mode}
    if form == "last_offset":
        kwargs["include_last_offset"] = True
    if form == "padding":
        kwargs["padding_idx"] = 2
    ours, theirs = mt.nn.EmbeddingBag(10, 4, **kwargs), torch.nn.EmbeddingBag(10, 4, **kwargs)
    assert_close(ours.weight, theirs.weight, 0)  # the same seed gives the same table
    assert repr(ours) == repr(theirs)
    if form == "2d":
        args_ours = (mt.tensor(np.array(INDICES[:8]).reshape(2, 4)),)
        args_theirs = (torch.tensor(np.array(INDICES[:8]).reshape(2, 4)),)
    else:
        offsets = OFFSETS + [len(INDICES)] if form == "last_offset" else OFFSETS
        args_ours = (mt.tensor(INDICES), mt.tensor(offsets))
        args_theirs = (torch.tensor(INDICES), torch.tensor(offsets))
    if form == "weights":
        w = np.linspace(-1, 2, len(INDICES)).astype(np.float32)
        args_ours += (mt.tensor(w),)
        args_theirs += (torch.tensor(w),)
    out, expected = ours(*args_ours), theirs(*args_theirs)
    assert_close(out, expected, 1e-6)
    upstream = np.random.default_rng(0).standard_normal(tuple(expected.shape)).astype(np.float32)
    (out * mt.tensor(upstream)).sum().backward(), (expected * torch.tensor(upstream)).sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad, 1e-6)


def test_functional_form_and_from_pretrained():
    table = np.random.default_rng(1).standard_normal((6, 3))
    args = ([1, 5, 5, 0], [0, 1])
    out = F.embedding_bag(mt.tensor(args[0]), mt.tensor(table), mt.tensor(args[1]), mode="max")
    expected = torch.nn.functional.embedding_bag(torch.tensor(args[0]), torch.tensor(table),
                                                 torch.tensor(args[1]), mode="max")  # fmt: skip
    assert_close(out, expected)
    bag = mt.nn.EmbeddingBag.from_pretrained(mt.tensor(table), mode="sum")
    assert not bag.weight.requires_grad
    np.testing.assert_allclose(bag(mt.tensor([[0, 1], [2, 2]])).numpy(), table[[0, 2]] + table[[1, 2]])


def test_errors_as_torch():
    w = mt.randn(5, 2)
    with pytest.raises(ValueError):
        F.embedding_bag(mt.tensor([1, 2]), w)  # 1-D input needs offsets
    with pytest.raises(ValueError):
        F.embedding_bag(mt.tensor([[1, 2]]), w, mt.tensor([0]))
    with pytest.raises(NotImplementedError):
        F.embedding_bag(mt.tensor([[1, 2]]), w, mode="mean", per_sample_weights=mt.ones(1, 2))
    with pytest.raises(RuntimeError):
        F.embedding_bag(mt.tensor([1, 2]), w, mt.tensor([1]))
    with pytest.raises(IndexError):
        F.embedding_bag(mt.tensor([[1, 7]]), w)
    with pytest.raises(ValueError):
        F.embedding_bag(mt.tensor([[1, 2]]), w, mode="median")
    with pytest.raises(TypeError):
        F.embedding_bag(None, w)
