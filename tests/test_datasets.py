"""The datasets of ``minitorch.utils.data`` against ``torch.utils.data``: the same samples
in the same order (``StackDataset``, ``ConcatDataset``, ``ChainDataset``, ``Subset``), the
same split from the same seed (``random_split`` with lengths or fractions, over many seeds),
through a DataLoader too, and the errors and warnings torch gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as torch_data

import minitorch
import minitorch.utils.data as our_data

SEEDS = range(20)


def _plain(sample):
    """A sample of either library as nested Python lists, tuples and dicts of numbers."""
    if isinstance(sample, dict):
        return {key: _plain(value) for key, value in sample.items()}
    if isinstance(sample, (tuple, list)):
        return type(sample)(_plain(value) for value in sample)
    if isinstance(sample, (torch.Tensor, minitorch.Tensor)):
        return np.asarray(sample.tolist()).tolist()
    return sample


def _both(make):
    """``make(library, data_module)`` for minitorch and for torch."""
    return make(minitorch, our_data), make(torch, torch_data)


def _pair_of_tensor_datasets(library, data, n: int = 6):
    x = library.tensor(np.arange(3 * n, dtype=np.float32).reshape(n, 3))
    y = library.tensor(np.arange(n) % 2)
    return data.TensorDataset(x), data.TensorDataset(y)


@pytest.mark.parametrize("as_dict", [False, True])
def test_stack_dataset_matches_torch(as_dict: bool) -> None:
    def make(library, data):
        images, labels = _pair_of_tensor_datasets(library, data)
        names = list(range(6))
        if as_dict:
            return data.StackDataset(image=images, label=labels, name=names)
        return data.StackDataset(images, labels, names)

    ours, theirs = _both(make)
    assert len(ours) == len(theirs) == 6
    for i in [0, 3, 5, -1]:
        assert _plain(ours[i]) == _plain(theirs[i])
    assert _plain(ours.__getitems__([4, 0, 2])) == _plain(theirs.__getitems__([4, 0, 2]))


@pytest.mark.parametrize("as_dict", [False, True])
def test_stack_dataset_through_a_dataloader(as_dict: bool) -> None:
    def batches(library, data):
        images, labels = _pair_of_tensor_datasets(library, data, 7)
        stacked = data.StackDataset(x=images, y=labels) if as_dict else data.StackDataset(images, labels)
        loader = data.DataLoader(stacked, batch_size=3, shuffle=True,
                                 generator=library.Generator().manual_seed(5))  # fmt: skip
        return [_plain(batch) for batch in loader]

    ours, theirs = _both(batches)
    assert ours == theirs


@pytest.mark.parametrize(
    "make",
    [
        lambda data: data.StackDataset(),
        lambda data: data.StackDataset([1, 2], y=[3, 4]),
        lambda data: data.StackDataset([1, 2], [3]),
        lambda data: data.StackDataset(x=[1, 2], y=[3]),
    ],
)
def test_stack_dataset_refuses_what_torch_refuses(make) -> None:
    with pytest.raises(ValueError) as theirs:
        make(torch_data)
    with pytest.raises(ValueError) as ours:
        make(our_data)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("n", [1, 7, 10, 31])
@pytest.mark.parametrize(
    "lengths",
    [[0.8, 0.2], [0.3, 0.3, 0.4], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5], [1.0]],
)
def test_random_split_with_fractions_matches_torch(n: int, lengths: list) -> None:
    for seed in SEEDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a split of size 0 warns, on both sides
            ours, theirs = _both(
                lambda library, data, seed=seed: data.random_split(
                    list(range(n)), lengths, generator=library.Generator().manual_seed(seed)
                )
            )
        assert [list(part) for part in ours] == [list(part) for part in theirs], (seed, n, lengths)
        assert [part.indices for part in ours] == [part.indices for part in theirs]


@pytest.mark.parametrize("n", [2, 10, 50])
def test_random_split_with_lengths_and_the_global_generator_matches_torch(n: int) -> None:
    for seed in SEEDS:
        results = []
        for library, data in ((minitorch, our_data), (torch, torch_data)):
            library.manual_seed(seed)
            results.append([list(part) for part in data.random_split(range(n), [n // 2, n - n // 2])])
            results.append(library.rand(3).tolist())  # the stream carries on alike after the split
        assert results[0] == results[2] and results[1] == results[3], seed


def test_random_split_warns_of_an_empty_split_as_torch_does() -> None:
    for data in (torch_data, our_data):
        with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
            data.random_split(range(1), [0.5, 0.5])


@pytest.mark.parametrize(
    "lengths",
    [[1.2, -0.2], [3, 3], [0.5, 0.4]],
)
def test_random_split_refuses_what_torch_refuses(lengths: list) -> None:
    with pytest.raises(ValueError) as theirs:
        torch_data.random_split(range(10), lengths)
    with pytest.raises(ValueError) as ours:
        our_data.random_split(range(10), lengths)
    assert str(ours.value) == str(theirs.value)


def test_concat_subset_and_chain_match_torch() -> None:
    def samples(library, data):
        first, second = _pair_of_tensor_datasets(library, data, 4)
        joined = data.ConcatDataset([first, second, data.Subset(first, [3, 1])])
        chained = data.ChainDataset([_Stream(3, data), _Stream(2, data)])
        return (
            len(joined),
            [_plain(joined[i]) for i in range(-len(joined), len(joined))],
            list(chained),
            joined.cumulative_sizes,
        )

    ours, theirs = _both(samples)
    assert ours == theirs


class _Stream:
    """An IterableDataset of ``range(n)`` for either library (made on the fly)."""

    def __new__(cls, n: int, data):
        stream = type("Stream", (data.IterableDataset,), {"__iter__": lambda self: iter(range(n))})
        return stream()
