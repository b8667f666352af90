"""Datasets: anything with ``len(dataset)`` and ``dataset[i]`` (one sample).

* ``TensorDataset(X, y)``: sample ``i`` is ``(X[i], y[i])``;
* ``Subset(dataset, indices)`` and ``random_split(dataset, [0.8, 0.2])``: parts of one;
* ``ConcatDataset([a, b])`` (also ``a + b``): one after the other;
* ``StackDataset(images, labels)`` (or ``image=..., label=...``): side by side, sample ``i``
  is the tuple (or dict) of each dataset's sample ``i``;
* ``IterableDataset``: a stream of samples (``__iter__``) instead of indexed ones;
  ``ChainDataset([a, b])`` (also ``a + b``) chains streams.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from minitorch import random_factories
from minitorch._tensor import Tensor


class Dataset:
    """Base class: define ``__getitem__`` (and ``__len__`` for a ``DataLoader``)."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class for a stream of samples: define ``__iter__`` (a file read line by line, a
    generator of synthetic data). A ``DataLoader`` asks for the next samples instead of
    sample ``i``, so it takes no ``shuffle``, ``sampler`` or ``batch_sampler``.

    With ``num_workers=N`` every worker process gets its own copy of the dataset and
    iterates *all* of it, so each sample would arrive N times. Split the stream inside
    ``__iter__`` with ``get_worker_info()`` (None in the main process)::

        def __iter__(self):
            info = get_worker_info()
            if info is None:                       # single-process loading: everything
                return iter(range(self.start, self.end))
            return iter(range(self.start + info.id, self.end, info.num_workers))
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several streams one after another (``a + b`` of two ``IterableDataset``)."""

    def __init__(self, datasets: Iterable[IterableDataset]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for dataset in self.datasets:
            yield from dataset


class TensorDataset(Dataset):
    """Samples are rows of tensors that share their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [t.shape[0] if t.ndim else None for t in tensors]
        if None in sizes or any(size != sizes[0] for size in sizes):
            raise ValueError(
                f"Size mismatch between tensors: every tensor needs the same first dimension, "
                f"got shapes {[list(t.shape) for t in tensors]}"
            )
        self.tensors = tuple(tensors)

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, [int(i) for i in indices]

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after another."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        self.cumulative_sizes: list[int] = []
        total = 0
        for dataset in self.datasets:
            total += len(dataset)  # type: ignore[arg-type]
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        start = 0
        for dataset, end in zip(self.datasets, self.cumulative_sizes):
            if index < end:
                return dataset[index - start]
            start = end
        raise IndexError(f"index {index} is out of range for a dataset of {len(self)} samples")


class StackDataset(Dataset):
    """Datasets of the same length side by side: ``StackDataset(a, b)[i] == (a[i], b[i])``
    and ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}`` (tuple or dict, not both)."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])  # type: ignore[arg-type]
        if any(len(dataset) != self._length for dataset in parts):  # type: ignore[arg-type]
            raise ValueError("Size mismatch between datasets")
        self.datasets: tuple | dict = args if args else kwargs

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list) -> list:
        """A batch of samples at once (what a ``DataLoader`` asks a dataset that has it)."""
        return [self[index] for index in indices]

    def __len__(self) -> int:
        return self._length


def random_split(dataset: Dataset, lengths: Sequence[float], generator: Any = None) -> list[Subset]:
    """Split into non-overlapping random subsets of the given lengths (or fractions that
    sum to 1, e.g. ``[0.8, 0.2]``)."""
    total = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        counts = [int(math.floor(total * fraction)) for fraction in lengths]
        for i in range(total - sum(counts)):  # hand out the remainder round-robin
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != total:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = random_factories.randperm(total, generator=generator).tolist()
    subsets, start = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[start : start + int(length)]))
        start += int(length)
    return subsets
