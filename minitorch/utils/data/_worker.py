"""The life of one DataLoader worker process.

With ``DataLoader(dataset, num_workers=N)`` the main process starts N worker processes.
Each gets a copy of the dataset, its own *index queue* (tasks from the main process) and
its own *result pipe* (batches back to the main process: ``result_pipes.py``).
``worker_loop`` runs in each worker::

    seed random, NumPy and minitorch from (base_seed, worker_id); worker_init_fn(worker_id)
    fetcher = make_fetcher(dataset)
    while the main process is alive:
        message = index_queue.get(timeout=POLL_INTERVAL)        # wake up now and then
        None                     -> leave the loop (the main process shuts us down)
        ResumeIteration          -> a new epoch of persistent workers: fresh fetcher, ack
        (task_id, task)          -> send (task_id, pickled fetcher.fetch(task)) on the pipe
                                    or an ExceptionWrapper if the fetch raised,
                                    or StreamEnd if an IterableDataset ran dry

How a batch travels to the model: ``default_collate`` stacks the samples straight into
a new shared-memory segment (it asks ``get_worker_info()`` whether it runs in a worker;
``collate.py``), the only time the batch's values are written. The worker then pickles
the batch itself (with multiprocessing's ``ForkingPickler``), so that a batch that cannot
be pickled comes back as an error. A tensor already in shared memory pickles as its segment's
name and its layout (``minitorch.multiprocessing``), a few hundred bytes in all; one
that is not (a custom ``collate_fn``'s, the labels made from Python numbers) is first
moved there, a copy. The main process maps the same segments: nothing is copied again.

Waiting with a timeout (for a task, or for room in a full pipe) is what lets a worker
notice that its parent died (``ParentWatchdog``): a worker never outlives the program.
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

from minitorch import random as minitorch_random
from minitorch import shared_storage
from minitorch.multiprocessing.reductions import init_reductions
from minitorch.utils.data.dataset import Dataset
from minitorch.utils.data.fetch import FetchOptions, make_fetcher
from minitorch.utils.data.result_pipes import POLL_INTERVAL, send
from minitorch.utils.data.worker_info import WorkerInfo, set_worker_info


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
    minitorch_random.manual_seed(seed)
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


def worker_loop(dataset: Dataset, options: FetchOptions, index_queue: Any, result_pipe: Any,
                done: Any, base_seed: int, worker_init_fn: Any, worker_id: int,
                num_workers: int) -> None:  # fmt: skip
    """The body of worker process ``worker_id`` (see the module docstring)."""
    watchdog = ParentWatchdog()
    try:
        init_reductions()  # the tensors of a batch travel as shared-memory segments
        seed = seed_worker(base_seed, worker_id)
        compute_on_one_thread()
        set_worker_info(WorkerInfo(worker_id, num_workers, seed, dataset))
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
                if not send(result_pipe, (message, None), watchdog.parent_alive):
                    break
                continue
            if done.value or stream_ended:
                continue  # shutting down, or nothing left to fetch: tasks go unanswered
            task_id, task = message
            if setup_error is not None:
                reply: Any = setup_error
            else:
                reply, stream_ended = _answer(fetcher, task, worker_id)
            if not send(result_pipe, (task_id, reply), watchdog.parent_alive):
                break
            del reply, message, task  # drop the pickled batch now, not at the next task
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches every process of the terminal; the main process raises it
    # Every reply sent is in the pipe: the main process reads what is left while shutting
    # down, releasing those batches' shared memory. An orphan removes the segments of the
    # batches its dead parent never received (nobody else would).
    result_pipe.close()  # the main process reads end of file: this worker is gone
    if not watchdog.parent_alive():
        shared_storage.sweep(in_flight_too=True)
