"""The optimizers added for issue 31 on device "cuda" (the CPU emulator): their 0-d state
(step counts, NAdam's mu_product, ASGD's eta and mu) lives on the parameter's device,
and the steps equal torch.optim's on the CPU."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

NAMES = ["Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"]


@pytest.mark.parametrize("name", NAMES)
def test_optimizer_steps_on_the_device_as_torch_on_the_cpu(name: str, emulator) -> None:
    start = [1.0, -2.0, 0.5, 0.25]
    ours = minitorch.tensor(start, device="cuda", requires_grad=True)
    theirs = torch.tensor(start, requires_grad=True)
    ours_opt = getattr(minitorch.optim, name)([ours], lr=0.01)
    theirs_opt = getattr(torch.optim, name)([theirs], lr=0.01)
    for _ in range(8):
        for p, opt in ((ours, ours_opt), (theirs, theirs_opt)):
            opt.zero_grad()
            (p * p * p).sum().backward()
            opt.step()
    assert all(value.device.type == "cuda" for value in ours_opt.state[ours].values())
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-7)
