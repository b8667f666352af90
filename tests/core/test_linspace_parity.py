"""``linspace`` equals PyTorch's to the last bit: both ends exact, each value one fused
multiply-add (see ``_multiply_add`` in minitorch/creation.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import minitorch


def _cases(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        start = rng.uniform(-100, 100) * 10 ** rng.randint(-6, 6)
        end = rng.uniform(-100, 100) * 10 ** rng.randint(-6, 6)
        yield start, end, rng.randint(0, 300)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_is_bitwise_torchs(dtype: str) -> None:
    for start, end, steps in _cases(600, seed=len(dtype)):
        expected = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
        got = minitorch.linspace(start, end, steps, dtype=getattr(minitorch, dtype)).numpy()
        assert np.array_equal(got, expected), (start, end, steps)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_linspace_truncates_like_torch(dtype: str) -> None:
    for start, end, steps in _cases(300, seed=7):
        start, end = int(start) % 10**6, -int(end) % 10**6
        expected = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
        got = minitorch.linspace(start, end, steps, dtype=getattr(minitorch, dtype)).numpy()
        assert np.array_equal(got, expected), (start, end, steps)


@pytest.mark.parametrize("steps", [0, 1, 2, 3])
def test_few_steps(steps: int) -> None:
    expected = torch.linspace(-3.5, 10.25, steps).numpy()
    assert np.array_equal(minitorch.linspace(-3.5, 10.25, steps).numpy(), expected)
