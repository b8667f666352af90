"""RMSprop against torch.optim.RMSprop: the same parameters after several steps."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

SETTINGS = [
    {},
    {"momentum": 0.9},
    {"centered": True},
    {"centered": True, "momentum": 0.5, "weight_decay": 0.1},
    {"alpha": 0.9, "eps": 1e-3, "maximize": True},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
def test_rmsprop_matches_torch(settings: dict) -> None:
    rng = np.random.default_rng(0)
    starts = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    ours = [minitorch.tensor(a, requires_grad=True) for a in starts]
    theirs = [torch.tensor(a, requires_grad=True) for a in starts]
    ours_opt = minitorch.optim.RMSprop(ours, lr=0.01, **settings)
    theirs_opt = torch.optim.RMSprop(theirs, lr=0.01, **settings)
    for step in range(5):
        for params, opt in ((ours, ours_opt), (theirs, theirs_opt)):
            opt.zero_grad()
            loss = (params[0].sum(0) ** 2).sum() * (step + 1) + (params[1] ** 3).sum()
            loss.backward()
            opt.step()
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine.detach().numpy(), reference.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_rmsprop_skips_parameters_without_grad_and_refuses_bad_settings() -> None:
    p = minitorch.ones(2, requires_grad=True)
    minitorch.optim.RMSprop([p]).step()
    assert minitorch.equal(p.detach(), minitorch.ones(2))
    with pytest.raises(ValueError, match="alpha"):
        minitorch.optim.RMSprop([p], alpha=-1)
