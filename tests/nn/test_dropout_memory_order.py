"""F.dropout draws its mask as PyTorch does: one draw per element in the order the
elements lie in memory (PyTorch fills ``empty_like(input)``, which keeps the input's
layout). So the same seed gives PyTorch's mask on transposed and permuted views too."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.nn.dropout_streams import same_dropout_masks


@same_dropout_masks
@pytest.mark.parametrize("shape, dims", [
    ((4, 5), (1, 0)),
    ((2, 3, 4), (2, 0, 1)),
    ((3, 1, 4), (1, 2, 0)),
    ((6, 7), (0, 1)),
])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_of_a_permuted_view_draws_pytorchs_mask(shape, dims, dtype) -> None:
    values = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    ours = mt.tensor(values).permute(*dims)
    theirs = torch.tensor(values).permute(*dims)
    for seed in (0, 7, 123):
        mt.manual_seed(seed)
        torch.manual_seed(seed)
        got = mt.nn.functional.dropout(ours, 0.4).numpy()
        want = torch.nn.functional.dropout(theirs, 0.4).numpy()
        assert np.array_equal(got, want), (seed, shape, dims)


@same_dropout_masks
def test_dropout_of_a_zero_dim_tensor_draws_pytorchs_mask() -> None:
    for seed in range(8):
        mt.manual_seed(seed)
        torch.manual_seed(seed)
        got = mt.nn.functional.dropout(mt.tensor(2.0), 0.5).item()
        assert got == torch.nn.functional.dropout(torch.tensor(2.0), 0.5).item()
