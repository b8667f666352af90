"""Fetchers: how one *task* becomes one batch, the same in the main process and in a worker.

A ``DataLoader`` cuts an epoch into tasks, and a fetcher turns each task into a batch:

* map-style dataset (``dataset[i]``): the task is a list of indices ``[i0, i1, ...]``, and
  the batch is ``collate_fn([dataset[i0], dataset[i1], ...])``; with ``batch_size=None``
  (no batching) the task is one index and the batch is ``dataset[i]`` itself;
* ``IterableDataset`` (a stream): the task only says how many samples to take, and the
  batch is ``collate_fn`` of the next ones from the dataset's iterator. When the stream
  runs dry the fetcher raises ``StopIteration``.

The single-process loader calls a fetcher directly; with ``num_workers=N`` every worker
process owns a fetcher over its own copy of the dataset (``_worker.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.utils.data.collate import new_batch_tensor
from minitorch.utils.data.dataset import Dataset, IterableDataset, TensorDataset


def _rows(t: Tensor, rows: list[int]) -> Tensor:
    """``t[rows]`` for a batch, equal to stacking ``t[i]`` for each row. For CPU data, one
    ``np.take`` straight into the new batch tensor (in a worker, shared memory: see
    ``collate.py``), no kernel launches; ``index_select`` otherwise."""
    if t.device.type == "cpu" and not t.requires_grad and t.dtype.name != "bfloat16":  # NumPy has no bfloat16
        batch = new_batch_tensor((len(rows), *t.shape[1:]), t.dtype)
        np.take(t.numpy(), np.asarray(rows, dtype=np.int64), axis=0, out=batch.numpy())
        return batch
    rows = [i + len(t) if -len(t) <= i < 0 else i for i in rows]  # t[-1], as NumPy reads it
    return t.index_select(0, creation.tensor(rows, dtype="int64", device=t.device))


class MapFetcher:
    """Batches of a map-style dataset: ``collate_fn([dataset[i] for i in task])``.

    A ``TensorDataset`` with the default collation takes a fast path: one indexing per
    tensor fetches the whole batch at once, instead of one Python call per sample."""

    def __init__(self, dataset: Dataset, batching: bool, collate_fn: Callable,
                 rows_fast_path: bool) -> None:  # fmt: skip
        self.dataset, self.batching, self.collate_fn = dataset, batching, collate_fn
        self.rows_fast_path = rows_fast_path and isinstance(dataset, TensorDataset)

    def fetch(self, task: Any) -> Any:
        if not self.batching:
            return self.collate_fn(self.dataset[task])
        if self.rows_fast_path:
            return [_rows(t, task) for t in self.dataset.tensors]  # type: ignore[attr-defined]
        if hasattr(self.dataset, "__getitems__"):
            samples = self.dataset.__getitems__(task)
        else:
            samples = [self.dataset[i] for i in task]
        return self.collate_fn(samples)


class IterableFetcher:
    """Batches of an ``IterableDataset``: the next ``len(task)`` samples of its stream.

    A short last batch is kept unless ``drop_last``; once the stream has ended every
    further ``fetch`` raises ``StopIteration``."""

    def __init__(self, dataset: IterableDataset, batching: bool, collate_fn: Callable,
                 drop_last: bool) -> None:  # fmt: skip
        self.samples = iter(dataset)
        self.batching, self.collate_fn, self.drop_last = batching, collate_fn, drop_last
        self.ended = False

    def fetch(self, task: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.batching:
            return self.collate_fn(next(self.samples))
        batch = []
        for _ in task:
            try:
                batch.append(next(self.samples))
            except StopIteration:
                self.ended = True
                break
        if not batch or (self.drop_last and len(batch) < len(task)):
            raise StopIteration
        return self.collate_fn(batch)


@dataclass(frozen=True)
class FetchOptions:
    """What a fetcher needs besides the dataset (a worker process receives a copy)."""

    batching: bool  # a task is a list of indices (False: one index, no collation of a list)
    collate_fn: Callable
    drop_last: bool
    rows_fast_path: bool  # default collation: a TensorDataset may index whole batches at once


def make_fetcher(dataset: Dataset, options: FetchOptions) -> MapFetcher | IterableFetcher:
    """The fetcher for this kind of dataset."""
    if isinstance(dataset, IterableDataset):
        return IterableFetcher(dataset, options.batching, options.collate_fn, options.drop_last)
    return MapFetcher(dataset, options.batching, options.collate_fn, options.rows_fast_path)
