"""The samplers of ``minitorch.utils.data`` against ``torch.utils.data``: the same indices
from the same seed (a Generator of each, or the global generator after manual_seed),
over many seeds and sizes, and with a DataLoader; and the errors torch raises."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.utils.data as torch_data

import minitorch
import minitorch.utils.data as our_data

SEEDS = range(25)


def _both(make, seed: int, global_seed: bool = False) -> tuple[list, list]:
    """The indices of ``make(data, generator)`` for each library (two epochs)."""
    results = []
    for library, data in ((minitorch, our_data), (torch, torch_data)):
        if global_seed:
            library.manual_seed(seed)
            generator = None
        else:
            generator = library.Generator().manual_seed(seed)
        sampler = make(data, generator)
        results.append([list(sampler), list(sampler), len(sampler)])
    return results[0], results[1]


@pytest.mark.parametrize("n", [1, 2, 7, 33, 100])
def test_random_sampler_matches_torch(n: int) -> None:
    dataset = list(range(n))
    for seed in SEEDS:
        for settings in ({}, {"num_samples": 2 * n + 3}, {"num_samples": max(1, n // 2)},
                         {"replacement": True}, {"replacement": True, "num_samples": 70}):  # fmt: skip
            ours, theirs = _both(lambda d, g, s=settings: d.RandomSampler(dataset, generator=g, **s), seed)
            assert ours == theirs, (seed, settings)


def test_random_sampler_without_a_generator_seeds_from_the_global_one() -> None:
    for seed in SEEDS:
        ours, theirs = _both(lambda d, g: d.RandomSampler(range(20)), seed, global_seed=True)
        assert ours == theirs
        # and the global generator moved on alike
        assert minitorch.rand(3).tolist() == torch.rand(3).tolist()


@pytest.mark.parametrize("global_seed", [False, True])
def test_subset_random_sampler_matches_torch(global_seed: bool) -> None:
    indices = [3, 14, 15, 92, 65, 35, 89, 79, 32, 38]
    for seed in SEEDS:
        ours, theirs = _both(lambda d, g: d.SubsetRandomSampler(indices, generator=g), seed, global_seed)
        assert ours == theirs


@pytest.mark.parametrize("replacement", [True, False])
def test_weighted_random_sampler_matches_torch(replacement: bool) -> None:
    for seed in SEEDS:
        weights = np.random.default_rng(seed).random(12) * (np.arange(12) % 3 != 0)  # some zero weights
        samples = 30 if replacement else 8
        for as_tensor in (False, True):

            def make(d, g, as_tensor=as_tensor, weights=weights, samples=samples):
                library = minitorch if d is our_data else torch
                given = library.tensor(weights, dtype=library.float32) if as_tensor else weights.tolist()
                return d.WeightedRandomSampler(given, samples, replacement=replacement, generator=g)

            ours, theirs = _both(make, seed)
            assert ours == theirs


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 11])
def test_batch_sampler_and_sequential_sampler_match_torch(batch_size: int, drop_last: bool) -> None:
    ours = our_data.BatchSampler(our_data.SequentialSampler(range(10)), batch_size, drop_last)
    theirs = torch_data.BatchSampler(torch_data.SequentialSampler(range(10)), batch_size, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)
    for seed in SEEDS[:5]:
        ours, theirs = _both(lambda d, g: d.BatchSampler(d.RandomSampler(range(10), generator=g), batch_size,
                                                         drop_last), seed)  # fmt: skip
        assert ours == theirs


def test_a_dataloader_takes_them_as_torch_does() -> None:
    data = [float(i) for i in range(23)]
    for seed in SEEDS[:5]:
        batches = []
        for library, module in ((minitorch, our_data), (torch, torch_data)):
            g = library.Generator().manual_seed(seed)
            sampler = module.WeightedRandomSampler([1.0 + i % 4 for i in range(23)], 17, generator=g)
            by_sampler = [b.tolist() for b in module.DataLoader(data, batch_size=5, sampler=sampler)]
            g2 = library.Generator().manual_seed(seed)
            batch_sampler = module.BatchSampler(module.SubsetRandomSampler(range(3, 20), g2), 4, True)
            by_batches = [b.tolist() for b in module.DataLoader(data, batch_sampler=batch_sampler)]
            batches.append((by_sampler, by_batches))
        assert batches[0] == batches[1]


ERRORS = [
    (TypeError, lambda d: d.RandomSampler(range(3), replacement=1)),
    (ValueError, lambda d: d.RandomSampler(range(3), num_samples=0)),
    (ValueError, lambda d: d.RandomSampler([], num_samples=None)),
    (ValueError, lambda d: d.WeightedRandomSampler([1.0, 2.0], 0)),
    (ValueError, lambda d: d.WeightedRandomSampler([1.0, 2.0], True)),
    (ValueError, lambda d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=None)),
    (ValueError, lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 2)),
    (ValueError, lambda d: d.BatchSampler(range(3), 0, False)),
    (ValueError, lambda d: d.BatchSampler(range(3), 2, None)),
]


@pytest.mark.parametrize(("error", "make"), ERRORS)
def test_bad_arguments_raise_what_torch_raises(error: type, make) -> None:
    with pytest.raises(error) as theirs:
        make(torch_data)
    with pytest.raises(error) as ours:
        make(our_data)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(NotImplementedError):
        iter(our_data.Sampler()).__next__()
