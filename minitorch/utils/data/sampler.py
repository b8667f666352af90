"""Samplers: which dataset indices a ``DataLoader`` visits, and in what order.

A sampler is an iterable of indices (``Sampler``); a batch sampler, of lists of indices.
``DataLoader(dataset, sampler=..., batch_size=...)`` groups a sampler's indices into
batches; ``batch_sampler=`` hands it the batches directly.

* ``SequentialSampler``: ``0, 1, ..., n - 1``;
* ``RandomSampler``: a random permutation (``randperm``) each epoch; with
  ``replacement=True``, ``num_samples`` independent draws (``randint``, 32 at a time);
* ``SubsetRandomSampler``: a random order of a given list of indices;
* ``WeightedRandomSampler``: ``num_samples`` indices drawn with the given weights
  (``multinomial``), for instance to see a rare class as often as a common one;
* ``BatchSampler``: a sampler's indices in lists of ``batch_size``.

The random ones draw exactly what PyTorch's draw, from the same generator state: after
``manual_seed(s)`` (or with a ``Generator`` seeded alike) they give PyTorch's indices.
Without a generator, ``RandomSampler`` seeds a new one each epoch from one 63-bit draw
of the global generator, as PyTorch does.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

from minitorch import random_factories
from minitorch._tensor import Tensor
from minitorch.creation import tensor, zeros
from minitorch.dtypes import float64, int64
from minitorch.random import Generator


class Sampler:
    """Base class: a subclass defines ``__iter__`` (the indices) and usually ``__len__``."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``, always in that order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of ``range(len(data_source))`` each time it is iterated.

    Without replacement, every index once per pass (more passes when ``num_samples`` is
    larger: one permutation per ``n`` samples, the last cut short). With replacement,
    ``num_samples`` indices drawn independently, in blocks of 32 as PyTorch draws them."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:  # fmt: skip
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")  # fmt: skip

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # a fresh generator per epoch, seeded from the global one
            seed = int(zeros((), dtype=int64).random_().item())
            generator = Generator().manual_seed(seed)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from random_factories.randint(0, n, (32,), generator=generator).tolist()
            yield from random_factories.randint(0, n, (self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from random_factories.randperm(n, generator=generator).tolist()
            yield from random_factories.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a new one each pass): to sample from part
    of a dataset, such as a validation split, without copying it."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in random_factories.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices into ``weights``, index ``i`` drawn with probability
    proportional to ``weights[i]`` (with replacement by default; without, each index at
    most once)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:  # fmt: skip
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")  # fmt: skip
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        if isinstance(weights, Tensor):
            weights_tensor = weights.detach().to(float64)
        else:
            weights_tensor = tensor(weights, dtype=float64)
        if weights_tensor.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")  # fmt: skip
        self.weights, self.num_samples = weights_tensor, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self) -> Iterator[int]:
        drawn = random_factories.multinomial(self.weights, self.num_samples, self.replacement,
                                             generator=self.generator)  # fmt: skip
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """The indices of ``sampler`` in lists of ``batch_size``; the last list is shorter,
    or dropped with ``drop_last=True``."""

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")  # fmt: skip
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size  # type: ignore[arg-type]
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size  # type: ignore[arg-type]
