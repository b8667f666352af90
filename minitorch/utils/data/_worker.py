"""The life of one DataLoader worker process, and ``get_worker_info()``.

With ``DataLoader(dataset, num_workers=N)`` the main process starts N worker processes.
Each gets a copy of the dataset, its own *index queue* (tasks from the main process) and
the shared *result queue* (batches back to the main process). ``worker_loop`` runs in
each worker::

    seed random, NumPy and minitorch from (base_seed, worker_id); worker_init_fn(worker_id)
    fetcher = make_fetcher(dataset)
    while the main process is alive:
        message = index_queue.get(timeout=POLL_INTERVAL)        # wake up now and then
        None                     -> leave the loop (the main process shuts us down)
        ResumeIteration          -> a new epoch of persistent workers: fresh fetcher, ack
        (task_id, task)          -> result_queue.put((task_id, pickled fetcher.fetch(task)))
                                    or an ExceptionWrapper if the fetch raised,
                                    or StreamEnd if an IterableDataset ran dry

The worker pickles each batch itself (with multiprocessing's ``ForkingPickler``, exactly
as the queue would) so that a batch that cannot be pickled comes back as an error instead
of vanishing in the queue's feeder thread. Pickling moves each tensor of the batch into
shared memory (``minitorch.multiprocessing``): the message carries only the segment's
name and the tensor's layout, and the main process maps the same memory.

Waiting with a timeout is what lets a worker notice that its parent died
(``ParentWatchdog``): a worker never outlives the program.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

from minitorch import creation, shared_storage
from minitorch.multiprocessing.reductions import init_reductions
from minitorch.utils.data.dataset import Dataset
from minitorch.utils.data.fetch import FetchOptions, make_fetcher

# Seconds a worker (and the main process) waits on a queue before looking around: is the
# parent still alive, did a worker die? Short enough that nothing hangs for long.
POLL_INTERVAL = 0.25


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
    ``seed``, ``dataset``); in the main process: ``None``. An ``IterableDataset`` uses it
    to give each worker a different part of the stream, and a ``worker_init_fn`` to set
    each worker up differently."""
    return _worker_info


@dataclass(frozen=True)
class ResumeIteration:
    """Main -> persistent worker: a new epoch starts; the worker answers with the same."""


@dataclass(frozen=True)
class StreamEnd:
    """Worker -> main: this worker's copy of an ``IterableDataset`` has no more samples."""

    worker_id: int


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process as its type and the
    worker's formatted traceback (a traceback object cannot be pickled), and raised there
    again by ``reraise``: same type, with the worker's traceback in the message."""

    def __init__(self, where: str) -> None:
        exc_type, exc_value, tb = sys.exc_info()
        self.exc_type = exc_type
        self.where = where
        self.text = "".join(traceback.format_exception(exc_type, exc_value, tb))

    def reraise(self) -> None:
        assert self.exc_type is not None
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.text}"
        if self.exc_type is KeyError:  # str(KeyError(m)) would print m as a quoted repr
            raise _ReadableKeyError(message)
        try:
            exception = self.exc_type(message)
        except Exception:  # a constructor that needs other arguments
            raise RuntimeError(message) from None
        raise exception


class _ReadableKeyError(KeyError):
    """A ``KeyError`` whose message prints as written (line breaks and all)."""

    def __str__(self) -> str:
        return str(self.args[0])


def seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed every random generator a dataset may use, differently in each worker and the
    same again in a run with the same ``minitorch.manual_seed``:

    * Python's ``random`` and minitorch's default generator get ``base_seed + worker_id``
      (as PyTorch seeds ``random`` and torch);
    * NumPy's global generator (``np.random.rand``) gets a state mixed from both numbers by
      ``np.random.SeedSequence``. Without it, forked workers would all inherit the parent's
      NumPy state and draw the *same* "random" augmentations.
    """
    seed = base_seed + worker_id
    random.seed(seed)
    creation.manual_seed(seed)
    np.random.seed(np.random.SeedSequence([base_seed, worker_id]).generate_state(4))
    return seed


def compute_on_one_thread() -> None:
    """A worker computes on one thread, as PyTorch's workers do: N workers each running
    Numba's pool of one thread per core would fight over the same cores."""
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.set_num_threads(1)
    else:  # read when Numba is imported later in this process
        os.environ["NUMBA_NUM_THREADS"] = "1"


class ParentWatchdog:
    """Notices that the process that started this worker has died: an orphan is adopted
    by another process, so its parent pid changes."""

    def __init__(self) -> None:
        self.parent_pid = os.getppid()

    def parent_alive(self) -> bool:
        return os.getppid() == self.parent_pid


def _answer(fetcher: Any, task: Any, worker_id: int) -> tuple[Any, bool]:
    """The reply to one task, and whether the stream has ended: the pickled batch, an
    ``ExceptionWrapper`` or a ``StreamEnd``."""
    try:
        return bytes(ForkingPickler.dumps(fetcher.fetch(task))), False
    except StopIteration:
        return StreamEnd(worker_id), True
    except Exception:
        return ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"), False


def worker_loop(dataset: Dataset, options: FetchOptions, index_queue: Any, result_queue: Any,
                done_event: Any, base_seed: int, worker_init_fn: Any, worker_id: int,
                num_workers: int) -> None:  # fmt: skip
    """The body of worker process ``worker_id`` (see the module docstring)."""
    global _worker_info
    watchdog = ParentWatchdog()
    try:
        init_reductions()  # the tensors of a batch travel as shared-memory segments
        seed = seed_worker(base_seed, worker_id)
        compute_on_one_thread()
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        setup_error = None
        try:
            if worker_init_fn is not None:
                worker_init_fn(worker_id)
            fetcher = make_fetcher(dataset, options)
        except Exception:  # reported in answer to every task: the main process raises it
            setup_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        stream_ended = False
        while watchdog.parent_alive():
            try:
                message = index_queue.get(timeout=POLL_INTERVAL)
            except queue.Empty:
                continue
            if message is None:
                break
            if isinstance(message, ResumeIteration):
                if setup_error is None:
                    fetcher = make_fetcher(dataset, options)
                stream_ended = False
                result_queue.put((message, None))
                continue
            if done_event.is_set() or stream_ended:
                continue  # shutting down, or nothing left to fetch: tasks go unanswered
            task_id, task = message
            if setup_error is not None:
                reply: Any = setup_error
            else:
                reply, stream_ended = _answer(fetcher, task, worker_id)
            result_queue.put((task_id, reply))
            del reply, message, task  # drop the pickled batch now, not at the next task
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches every process of the terminal; the main process raises it
    # At exit the queue's feeder thread writes out what is left: the main process reads
    # it while shutting down, releasing those batches' shared memory. An orphan leaves
    # without writing into a pipe nobody reads, and removes the segments of the batches
    # its dead parent never received (nobody else would).
    if not watchdog.parent_alive():
        result_queue.cancel_join_thread()
        shared_storage.sweep(in_flight_too=True)
    result_queue.close()
