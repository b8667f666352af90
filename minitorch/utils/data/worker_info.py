"""``get_worker_info()``: which DataLoader worker process this is, if any.

``worker_loop`` (``_worker.py``) records it when a worker process starts; code running in
a worker asks for it: an ``IterableDataset`` to take its share of the stream, a
``worker_init_fn`` to set each worker up differently, and ``default_collate`` to write
batches straight into shared memory. In the main process it is ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass

from minitorch.utils.data.dataset import Dataset


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    id: int  # 0 .. num_workers - 1
    num_workers: int
    seed: int  # base_seed + id: Python's random, NumPy and minitorch are seeded from it
    dataset: Dataset  # this worker's copy of the dataset


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process: its ``WorkerInfo`` (``id``, ``num_workers``,
    ``seed``, ``dataset``); in the main process: ``None``."""
    return _worker_info


def set_worker_info(info: WorkerInfo) -> None:
    """Called once by a worker process as it starts."""
    global _worker_info
    _worker_info = info
