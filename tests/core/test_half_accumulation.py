"""Statistics of float16 and bfloat16 tensors are computed in float32 and rounded once
(``minitorch.ops.reduce.accumulation_dtype``), as PyTorch's CPU kernels do (issue 29).

The cases are the ones where a 16-bit intermediate overflows: a sum of 4000 values of
30.0 is 120000, more than float16's largest value 65504, though their mean is 30.0; a
deviation of 300 squares to 90000. Every result is compared with torch on the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt

HALVES = ("float16", "bfloat16")
ULP = {"float16": 2.0**-10, "bfloat16": 2.0**-7}  # one ulp at 1.0


def both(values: np.ndarray, dtype: str):
    return mt.tensor(values).to(getattr(mt, dtype)), torch.tensor(values).to(getattr(torch, dtype))


def same(ours, theirs, atol: float = 0.0, rtol: float = 0.0) -> None:
    assert str(ours.dtype) == str(theirs.dtype)
    mine, other = ours.float().detach().numpy(), theirs.float().detach().numpy()
    np.testing.assert_allclose(mine, other, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", HALVES)
def test_mean_sums_in_float32(dtype):
    constant = np.full((3, 4000), 30.0, np.float32)
    ours, theirs = both(constant, dtype)
    same(ours.mean(), theirs.mean())  # 30.0, not inf
    same(ours.mean(dim=1), theirs.mean(dim=1))
    same(ours.mean(dim=(0, 1), keepdim=True), theirs.mean(dim=(0, 1), keepdim=True))
    same(ours.t().mean(dim=0), theirs.t().mean(dim=0))
    same(ours.sum(), theirs.sum())  # the sum itself is inf in float16, as in torch


@pytest.mark.parametrize("dtype", HALVES)
def test_mean_gradient_and_statistics_of_large_values(dtype):
    values = np.random.default_rng(0).normal(500, 200, size=(6, 512)).astype(np.float32)
    ours, theirs = both(values, dtype)
    ours.requires_grad_(True)
    theirs.requires_grad_(True)
    ours.mean().backward()
    theirs.mean().backward()
    same(ours.grad, theirs.grad)
    same(ours.mean(dim=1), theirs.mean(dim=1), atol=1.0)  # (float32 sums in another order)
    same(ours.var(dim=1), theirs.var(dim=1), rtol=1e-2)
    same(ours.std(), theirs.std(), rtol=1e-2)


@pytest.mark.parametrize("dtype", HALVES)
def test_layer_norm_statistics_in_float32(dtype):
    rows = np.stack([np.full(4000, 30.0), np.tile([-300.0, 300.0], 2000)]).astype(np.float32)
    weight = np.linspace(0.5, 2.0, 4000, dtype=np.float32)
    ours, theirs = both(rows, dtype)
    w_ours, w_theirs = both(weight, dtype)
    b_ours, b_theirs = both(weight[::-1].copy(), dtype)
    ours_norm, theirs_norm = mt.nn.functional.layer_norm, torch.nn.functional.layer_norm
    same(ours_norm(ours, (4000,)), theirs_norm(theirs, (4000,)), atol=1e-3)  # not NaN, not 0
    same(
        ours_norm(ours, (4000,), w_ours, b_ours), theirs_norm(theirs, (4000,), w_theirs, b_theirs), atol=0.02
    )


@pytest.mark.parametrize("dtype", HALVES)
def test_batch_norm_statistics_in_float32(dtype):
    x = (np.random.default_rng(1).standard_normal((64, 3)) * 400).astype(np.float32)
    ours, theirs = both(x, dtype)
    bn_ours = mt.nn.BatchNorm1d(3).to(getattr(mt, dtype))
    bn_theirs = torch.nn.BatchNorm1d(3).to(getattr(torch, dtype))
    same(bn_ours(ours), bn_theirs(theirs), atol=4 * ULP[dtype])
    same(bn_ours.running_var, bn_theirs.running_var, rtol=1e-2)
    bn_ours.eval()
    bn_theirs.eval()
    same(bn_ours(ours), bn_theirs(theirs), rtol=ULP[dtype], atol=ULP[dtype])  # (one rounding apart)
