"""The CUDA kernels on the 8- and 16-bit integers (run on the emulator): abs and sign of
unsigned bytes, whose ``a < 0`` NVRTC refuses, and scatter_add's atomic add into bytes
and halves of a 4-byte word, wrapping like the type (duplicate indices race for one word)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

DTYPES = ["uint8", "int8", "int16"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_abs_and_sign(emulator, order, dtype) -> None:
    values = np.array([0, 1, 5, 100, 127, 3, 0, 2], dtype=dtype)
    if dtype != "uint8":
        values[1::3] *= -1
    for name in ("abs", "sign"):
        got = getattr(minitorch, name)(minitorch.tensor(values, device="cuda")).cpu()
        expected = getattr(torch, name)(torch.tensor(values))
        assert got.tolist() == expected.tolist() and str(got.dtype) == str(expected.dtype), name


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_wraps_and_every_duplicate_counts(emulator, order, dtype) -> None:
    rng = np.random.default_rng(0)
    out = rng.integers(0, 100, size=10).astype(dtype)
    index = rng.integers(0, 10, size=64)  # many duplicates: neighbours share a 4-byte word
    src = rng.integers(0, 100, size=64).astype(dtype)
    got = minitorch.tensor(out, device="cuda").scatter_add(
        0, minitorch.tensor(index, device="cuda"), minitorch.tensor(src, device="cuda")
    )
    expected = torch.tensor(out).scatter_add(0, torch.tensor(index), torch.tensor(src))
    assert got.cpu().tolist() == expected.tolist()
