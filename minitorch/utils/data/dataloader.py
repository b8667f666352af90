"""``DataLoader``: iterate over a dataset in (shuffled) mini-batches.

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
    for xb, yb in loader:      # xb: [64, ...], yb: [64]
        ...

Each epoch it orders the sample indices (a fresh random permutation when ``shuffle``,
drawn from ``generator`` or the global generator, so ``minitorch.manual_seed`` makes it
repeatable), cuts them into batches, fetches the samples and *collates* them into batch
tensors with ``collate_fn`` (``default_collate``: stacks tensors, turns numbers into
tensors, and works through tuples, lists and dicts).

A ``TensorDataset`` with the default collation takes a fast path: one ``index_select``
per tensor fetches the whole batch at once, instead of one Python call per sample.
Everything runs in the main process (``num_workers`` is accepted and ignored).
"""

from __future__ import annotations

import collections.abc
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.ops.shape import stack
from minitorch.utils.data.dataset import Dataset, TensorDataset


def default_collate(batch: Sequence[Any]) -> Any:
    """Combine a list of samples into a batch, PyTorch's way: tensors are stacked along
    a new first dimension; Python ints, floats and bools become int64, float64 and bool
    tensors; NumPy arrays become tensors; strings stay a list; tuples, lists and dicts are
    collated field by field (a tuple sample gives a list, as in PyTorch)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return stack([creation.tensor(np.array(b)) for b in batch], 0)
    if isinstance(elem, (np.bool_, np.number)):
        return creation.tensor(np.array(batch))
    if isinstance(elem, float):
        return creation.tensor(batch, dtype="float64")
    if isinstance(elem, (bool, int)):
        return creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem).__name__}"
    )


def _rows(t: Tensor, rows: list[int]) -> Tensor:
    """``t[rows]`` for a batch: NumPy fancy indexing on the host for CPU data (one copy, no
    kernel launches), ``index_select`` otherwise. Equal to stacking ``t[i]`` for each row."""
    if t.device.type == "cpu" and not t.requires_grad:
        return creation.tensor(t.numpy()[np.asarray(rows, dtype=np.int64)])
    return t.index_select(0, creation.tensor(rows, dtype="int64", device=t.device))


class DataLoader:
    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool = False,
                 sampler: Iterable[int] | None = None, batch_sampler: Iterable[list] | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, generator: Any = None,
                 **unused: Any) -> None:  # fmt: skip
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                             "sampler, and drop_last")  # fmt: skip
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers, self.drop_last, self.generator = num_workers, drop_last, generator
        self.collate_fn = collate_fn if collate_fn is not None else default_collate

    def _indices(self) -> list[int]:
        if self.sampler is not None:
            return list(self.sampler)
        count = len(self.dataset)  # type: ignore[arg-type]
        if self.shuffle:
            return creation.randperm(count, generator=self.generator).tolist()
        return list(range(count))

    def _batches(self) -> Iterator[list[int]]:
        if self.batch_sampler is not None:
            yield from (list(b) for b in self.batch_sampler)
            return
        indices = self._indices()
        if self.batch_size is None:  # no batching: one sample at a time
            yield from ([i] for i in indices)
            return
        for start in range(0, len(indices), self.batch_size):
            batch = indices[start : start + self.batch_size]
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch

    def _fetch(self, batch: list[int]) -> Any:
        if self.batch_size is None and self.batch_sampler is None:
            return self.dataset[batch[0]]
        if isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate:
            return [_rows(t, batch) for t in self.dataset.tensors]
        if hasattr(self.dataset, "__getitems__"):
            samples = self.dataset.__getitems__(batch)
        else:
            samples = [self.dataset[i] for i in batch]
        return self.collate_fn(samples)

    def __iter__(self) -> Iterator[Any]:
        for batch in self._batches():
            yield self._fetch(batch)

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        count = len(self.sampler) if self.sampler is not None else len(self.dataset)  # type: ignore[arg-type]
        if self.batch_size is None:
            return count
        return count // self.batch_size if self.drop_last else math.ceil(count / self.batch_size)
