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


def _both(values: np.ndarray) -> tuple:
    return minitorch.tensor(values), torch.tensor(values)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_advanced_indexing_matches_torch(index_dtype: type) -> None:
    """``C[X]`` (an embedding lookup), ``x[idx]`` and indices on inner dimensions, over a
    contiguous, a transposed and a sliced source, with negative indices and empty ones."""
    rng = np.random.default_rng(0)
    table = rng.standard_normal((7, 5, 6)).astype(np.float32)
    sources = [lambda t: t, lambda t: t.transpose(0, 2), lambda t: t[1:, ::2]]
    keys = [
        lambda i: (i(rng.integers(-5, 5, (4, 3))),),                     # C[X], negative too
        lambda i: (slice(None), i(rng.integers(0, 3, (2, 2)))),           # an inner dim
        lambda i: (Ellipsis, i(rng.integers(-5, 5, (9,)))),               # the last dim
        lambda i: (i(rng.integers(0, 5, (3,))), slice(None), i(rng.integers(0, 5, (3,)))),
        lambda i: (i(np.zeros((0,), dtype=index_dtype)),),                # empty
    ]
    ours_table, theirs_table = _both(table)
    for source in sources:
        for key in keys:
            state = rng.bit_generator.state
            ours = source(ours_table)[key(lambda a: minitorch.tensor(a.astype(index_dtype)))]
            rng.bit_generator.state = state
            theirs = source(theirs_table)[key(lambda a: torch.tensor(a.astype(index_dtype)))]
            assert ours.shape == theirs.shape and ours.dtype.name == str(theirs.dtype)[6:]
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_masks_and_out_of_range_indices_match_torch() -> None:
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    ours, theirs = _both(values)
    for mask in [values > 4, values < 0, np.ones_like(values, dtype=bool)]:
        picked = ours[minitorch.tensor(mask)]
        np.testing.assert_array_equal(picked.numpy(), theirs[torch.tensor(mask)].numpy())
    row_mask = np.array([True, False, True])
    np.testing.assert_array_equal(ours.t()[:, minitorch.tensor(row_mask)].numpy(),
                                  theirs.t()[:, torch.tensor(row_mask)].numpy())  # fmt: skip
    for bad in [[3], [-4], [0, 7]]:
        with pytest.raises(IndexError):
            theirs[torch.tensor(bad)]
        with pytest.raises(IndexError):
            ours[minitorch.tensor(bad)]
    with pytest.raises(IndexError):
        ours[minitorch.tensor([[0, 1]]), minitorch.tensor([0, 1, 2])]  # shapes do not broadcast
