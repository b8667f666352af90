"""The paths student code runs most (issue 30.4), against PyTorch: ``.item()`` on every kind
of one-element tensor, and the small normal sampler's draws, bit for bit, across calls that
leave a cached value for the next (``benchmarks/student_paths.py`` times them)."""

import numpy as np
import pytest
import torch

import minitorch

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "bool", "uint8"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_item_of_each_dtype_matches_torch(dtype: str) -> None:
    values = [[0, 3], [5, 1]]
    ours = minitorch.tensor(values).to(getattr(minitorch, dtype))
    theirs = torch.tensor(values).to(getattr(torch, dtype))
    for i in range(2):
        for j in range(2):
            a, b = ours[i, j].item(), theirs[i, j].item()
            assert a == b and type(a) is type(b)


def test_item_reads_views_at_their_offset() -> None:
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ours, theirs = minitorch.tensor(base), torch.tensor(base)
    cases = [
        lambda t: t.transpose(0, 2)[3, 1, 1],       # non-contiguous
        lambda t: t[-1, -2, -3],                    # negative indices
        lambda t: t[1:, 2:, 3:],                    # a (1, 1, 1) slice with an offset
        lambda t: t[1, 2, 3:].expand(1, 1),         # expanded
        lambda t: t.sum(),                          # 0-d
    ]
    for case in cases:
        assert case(ours).item() == case(theirs).item()


@pytest.mark.parametrize("shape", [(0,), (2,), (2, 3)])
def test_item_refuses_anything_but_one_element(shape: tuple) -> None:
    with pytest.raises(RuntimeError):
        torch.zeros(shape).item()
    with pytest.raises(RuntimeError):
        minitorch.zeros(shape).item()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_randn_draws_match_torch_bit_for_bit(dtype: str) -> None:
    """Odd counts leave the pair's sine value cached for the next call; the draws must still
    be PyTorch's, whatever mix of sizes follows."""
    for seed in range(4):
        minitorch.manual_seed(seed)
        torch.manual_seed(seed)
        for size in [(3, 3), (1,), (2,), (0,), (5,), (15,), (4, 1), (16,), (7,), ()]:
            ours = minitorch.randn(size, dtype=getattr(minitorch, dtype)).numpy()
            theirs = torch.randn(size, dtype=getattr(torch, dtype)).numpy()
            np.testing.assert_array_equal(ours, theirs)
        ours = minitorch.normal(1.5, 2.0, (5,)).numpy()
        theirs = torch.normal(1.5, 2.0, (5,)).numpy()
        np.testing.assert_array_equal(ours, theirs)
