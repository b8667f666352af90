"""``DataLoader``: iterate over a dataset in (shuffled) mini-batches.

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
    for xb, yb in loader:      # xb: [64, ...], yb: [64]
        ...

Each epoch it orders the sample indices (a fresh random permutation when ``shuffle``,
drawn from ``generator`` or the global generator, so ``minitorch.manual_seed`` makes it
repeatable) and cuts them into *tasks*, one list of indices per batch. A fetcher
(``fetch.py``) turns each task into a batch: it fetches the samples and *collates* them
into batch tensors with ``collate_fn`` (``default_collate`` in ``collate.py``: stacks
tensors, turns numbers into tensors, and works through tuples, lists and dicts). An
``IterableDataset`` is a stream instead: each task just takes the next samples.

Where the fetching happens:

* ``num_workers=0`` (the default): in the main process, between the steps of your loop;
* ``num_workers=N``: in N worker processes, ahead of your loop (``worker_iterator.py`` for
  the main process's side, ``_worker.py`` for a worker's). While the model trains on one
  batch, the workers prepare the next ``prefetch_factor`` batches each; the batches still
  come out in the same order. ``worker_init_fn(worker_id)`` runs in each worker at
  start; ``get_worker_info()`` tells code in a worker which one it is;
  ``persistent_workers=True`` keeps the workers for the next epoch instead of starting
  new ones; ``timeout`` bounds each wait for a batch; ``multiprocessing_context``
  ("fork", "spawn", "forkserver") says how the workers are started.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from minitorch import accelerator, random_factories
from minitorch.random import Generator
from minitorch.utils.data.collate import default_collate, default_convert
from minitorch.utils.data.dataset import Dataset, IterableDataset
from minitorch.utils.data.fetch import FetchOptions, make_fetcher
from minitorch.utils.data.worker_iterator import MultiProcessingDataLoaderIter

__all__ = ["DataLoader", "default_collate", "default_convert"]


def _batched(indices: Iterable[int], batch_size: int, drop_last: bool) -> Iterator[list[int]]:
    """Consecutive lists of ``batch_size`` indices; the short last one unless ``drop_last``."""
    indices = iter(indices)
    while batch := list(itertools.islice(indices, batch_size)):
        if len(batch) < batch_size and drop_last:
            return
        yield batch


def _start_method_context(context: Any) -> Any:
    """A ``multiprocessing`` context from a start method's name, or the context itself."""
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(
                f"multiprocessing_context option should specify a valid start method in {methods!r}, "
                f"but got multiprocessing_context={context!r}"
            )
        return multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a string "
            f"specifying the start method, but got multiprocessing_context={context}"
        )
    return context


def _shuffled(n: int, generator: Any) -> Iterator[int]:
    """An epoch's order, as PyTorch's ``RandomSampler`` draws it: ``randperm(n)`` from the
    loader's generator; without one, from a new generator seeded by one 63-bit draw of
    the global generator (so after ``manual_seed`` the order is PyTorch's). Once the
    order is used up, PyTorch's sampler draws one more permutation for a remainder it
    then slices to nothing; we draw it too, so the generator's next epoch agrees."""
    if generator is None:
        seed = int(random_factories.randint(0, 2**63, ()).item())
        generator = Generator().manual_seed(seed)
    yield from random_factories.randperm(n, generator=generator).tolist()
    random_factories.randperm(n, generator=generator)


class DataLoader:
    """Mini-batches of ``dataset``, with PyTorch's arguments (the module docstring says
    what each does). ``pin_memory`` is accepted: page-locked host memory is not modelled,
    so batches come as they are (with PyTorch's warning when there is no accelerator)."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Iterable[int] | None = None, batch_sampler: Iterable[list] | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context: Any = None,
                 generator: Any = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:  # fmt: skip
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if isinstance(dataset, IterableDataset):
            if shuffle not in (None, False):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")  # fmt: skip
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"and batch_sampler options, but got sampler={sampler}")  # fmt: skip
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                             "sampler, and drop_last")  # fmt: skip
        self._check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                                   multiprocessing_context)  # fmt: skip
        if pin_memory and not accelerator.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)  # fmt: skip
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, bool(shuffle)
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.drop_last, self.generator = drop_last, generator
        self.num_workers, self.timeout, self.worker_init_fn = num_workers, timeout, worker_init_fn
        self.prefetch_factor = prefetch_factor if num_workers == 0 or prefetch_factor is not None else 2
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.multiprocessing_context = (None if multiprocessing_context is None
                                        else _start_method_context(multiprocessing_context))  # fmt: skip
        self._batching = batch_size is not None or batch_sampler is not None
        if collate_fn is None:
            collate_fn = default_collate if self._batching else default_convert
        self.collate_fn = collate_fn
        self._iterator: MultiProcessingDataLoaderIter | None = None  # persistent workers

    @staticmethod
    def _check_worker_options(num_workers: int, timeout: float, prefetch_factor: int | None,
                              persistent_workers: bool, multiprocessing_context: Any) -> None:  # fmt: skip
        """PyTorch's checks, with its exception types and messages."""
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")  # fmt: skip
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")  # fmt: skip
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process loading "
                             f"(num_workers > 0), but got num_workers={num_workers}")  # fmt: skip

    def _fetch_options(self) -> FetchOptions:
        return FetchOptions(self._batching, self.collate_fn, self.drop_last,
                            rows_fast_path=self.collate_fn is default_collate)  # fmt: skip

    def _tasks(self) -> Iterator[Any]:
        """This epoch's tasks: a list of indices per batch (one index when ``batch_size`` is
        None). For a stream, every task is ``batch_size`` placeholders: "the next ones".
        (The iterator refers to no ``DataLoader``, so workers never keep a loader alive.)"""
        if isinstance(self.dataset, IterableDataset):
            return itertools.repeat([None] * self.batch_size if self.batch_size else None)
        if self.batch_sampler is not None:
            return (list(batch) for batch in self.batch_sampler)
        if self.sampler is not None:
            indices = list(self.sampler)
        elif self.shuffle:
            indices = _shuffled(len(self.dataset), self.generator)  # type: ignore[arg-type]
        else:
            indices = list(range(len(self.dataset)))  # type: ignore[arg-type]
        if self.batch_size is None:
            return iter(indices)
        return _batched(indices, self.batch_size, self.drop_last)

    def _base_seed(self) -> int:
        """One draw from the loader's generator (or the global one) per epoch, with or
        without workers (so a shuffle gives the same order either way, as in PyTorch).
        Worker ``k`` is seeded with ``base_seed + k``."""
        return int(random_factories.randint(0, 2**63, (), generator=self.generator).item())

    def _single_process_batches(self) -> Iterator[Any]:
        self._base_seed()
        fetcher = make_fetcher(self.dataset, self._fetch_options())
        for task in self._tasks():
            try:
                batch = fetcher.fetch(task)
            except StopIteration:  # the stream ended
                return
            yield batch

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers == 0:
            if self.timeout != 0:
                raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0 "
                                     "(a timeout bounds the wait for worker processes)")  # fmt: skip
            return self._single_process_batches()
        if self.prefetch_factor == 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        if not self.persistent_workers:
            return MultiProcessingDataLoaderIter(self)
        if self._iterator is None or not self._iterator.alive:
            self._iterator = MultiProcessingDataLoaderIter(self)
        else:
            self._iterator._start_epoch(self._tasks())
        return self._iterator

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            count = len(self.dataset)  # type: ignore[arg-type]
        elif self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        else:
            count = len(self.sampler) if self.sampler is not None else len(self.dataset)  # type: ignore[arg-type]
        if self.batch_size is None:
            return count
        return count // self.batch_size if self.drop_last else math.ceil(count / self.batch_size)
