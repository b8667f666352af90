"""The main process's side of ``DataLoader(num_workers=N)``: hand out tasks, collect batches.

    index queue 0 --> worker 0 --> result pipe 0 --\\
    index queue 1 --> worker 1 --> result pipe 1 ---+--> reorder buffer --> for batch in loader
    ...                                            /

**Tasks.** The loader's index lists (one per batch) are numbered ``0, 1, 2, ...`` and
handed to the workers in turn (task ``k`` to worker ``k % N`` while all are busy). At most
``prefetch_factor * N`` tasks are out at once: one new task goes out for each batch the
loop takes, so the workers stay ahead of the training loop by that many batches and no
further.

**Batches.** A worker collates each batch straight into shared memory and sends it on its
own pipe (``result_pipes.py``), pickled by ``ForkingPickler``: only the segments' names
and layouts (``minitorch.multiprocessing``). Receiving a batch is ``pickle.loads``, which maps the
worker's segments (no values pass through the pipe, none are copied here); that and the
reorder buffer are all the main process does per batch, so its core stays free for the
workers and the model.

**Order.** Workers finish in any order; a batch that arrives early waits in the *reorder
buffer* (a dict from task number to batch) until every earlier one has been yielded, so
the batches come out exactly as ``num_workers=0`` gives them (``in_order=False`` yields
each one as it arrives instead).

**Failures.** Waiting is done in short slices (``POLL_INTERVAL``), and a batch is read only
as far as its bytes have come, never waiting for the rest; between slices the main
process checks that every worker is alive and that its pipe is open, so a worker killed
at any moment (before, while or after sending a batch) gives PyTorch's ``RuntimeError``
instead of a hang, and ``timeout=`` bounds each wait. An exception in a worker arrives as
an ``ExceptionWrapper`` and is raised here with the worker's traceback.

**Shutdown.** At the end of the epoch (unless ``persistent_workers``), on ``break`` and
``del`` of the iterator, on Ctrl-C, a timeout or a dead worker, and when the program exits, a
``weakref.finalize`` tells every worker to stop, waits briefly, and terminates (then kills)
any worker still running: no orphan processes. Batches still on their way are read and dropped, so
their shared memory is freed too, and each index queue's sending thread is given time to end, so
that the queue's semaphores are released here and not at the program's exit.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import multiprocessing.connection
import pickle
import signal
import time
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from minitorch import shared_storage
from minitorch.multiprocessing.reductions import init_reductions
from minitorch.utils.data._worker import ExceptionWrapper, ResumeIteration, StreamEnd, worker_loop
from minitorch.utils.data.result_pipes import POLL_INTERVAL, ResultPipes

if TYPE_CHECKING:
    from minitorch.utils.data.dataloader import DataLoader

_NO_MORE_TASKS = object()  # (a task itself may be None: one sample of a stream)

# How long shutdown waits for a worker to leave on its own before terminating it.
JOIN_TIMEOUT = 2.0


def release(reply: Any) -> None:
    """Unpickle and drop a batch nobody will use, so that its tensors' shared memory is
    freed (a message in flight keeps its segment alive until it is received)."""
    if isinstance(reply, bytes):
        with contextlib.suppress(Exception):
            pickle.loads(reply)


def drain(results: ResultPipes, timeout: float) -> None:
    """Release every complete reply the workers' pipes hold (waiting ``timeout`` for one)."""
    while (message := results.receive(timeout)) is not None:
        release(message[1])
        timeout = 0.0


def _shut_down(workers: list, index_queues: list, results: ResultPipes, done: Any) -> None:
    """Stop every worker: set ``done`` (unanswered tasks are dropped) and send each
    the message ``None``; while they leave, read and release what they still send; after
    ``JOIN_TIMEOUT`` seconds terminate any worker still running, and kill one that does
    not end even so (a stopped process)."""
    done.value = 1
    for worker, index_queue in zip(workers, index_queues):
        if worker.is_alive():
            index_queue.put(None)
    deadline = time.monotonic() + JOIN_TIMEOUT
    while any(worker.is_alive() for worker in workers) and time.monotonic() < deadline:
        drain(results, timeout=0.02)
        if len(results.ended()) == len(workers):  # every pipe closed: wait for the exits
            multiprocessing.connection.wait([worker.sentinel for worker in workers], timeout=0.02)
    for worker in workers:
        for stop in (worker.terminate, worker.kill):
            if worker.is_alive():
                stop()
                worker.join(timeout=JOIN_TIMEOUT)
    drain(results, timeout=0.0)
    for index_queue in index_queues:
        index_queue.cancel_join_thread()  # the program's exit never waits on a full pipe
        index_queue.close()
    _wait_for_feeders(index_queues, JOIN_TIMEOUT)
    results.close()


def _wait_for_feeders(index_queues: list, timeout: float) -> None:
    """Wait (``timeout`` seconds at most, for all) until each closed queue's feeder thread
    has sent what it holds and ended.

    A ``multiprocessing.Queue`` sends from a background thread, which holds two of the
    queue's three semaphores. Were it still running when the queue is dropped, it would be
    the last to hold them, and would release them (unlink their names and tell the
    resource tracker) itself; at the program's exit the interpreter stops such a thread
    midway, and the tracker then warns of a "leaked semaphore". The wait is bounded
    because a feeder writing to a full pipe that no living worker reads never ends."""
    deadline = time.monotonic() + timeout
    for index_queue in index_queues:
        feeder = index_queue._thread  # CPython's Queue: None until the first put
        if feeder is not None:
            feeder.join(max(deadline - time.monotonic(), 0.0))


def _worker_died(worker: Any) -> str:
    """Why a worker process is gone, in PyTorch's words (once it has exited: its pipe may
    close a moment before)."""
    worker.join(timeout=JOIN_TIMEOUT)
    if worker.exitcode is not None and worker.exitcode < 0:
        signal_name = signal.strsignal(-worker.exitcode)
        return f"DataLoader worker (pid {worker.pid}) is killed by signal: {signal_name}. "
    return f"DataLoader worker (pid {worker.pid}) exited unexpectedly with exit code {worker.exitcode}. "


class MultiProcessingDataLoaderIter:
    """One pass (or, with ``persistent_workers``, every pass) over a ``DataLoader`` with
    worker processes. ``DataLoader.__iter__`` makes it; see the module docstring."""

    def __init__(self, loader: DataLoader) -> None:
        self.num_workers = loader.num_workers
        self.prefetch_factor = loader.prefetch_factor
        self.timeout, self.in_order = loader.timeout, loader.in_order
        self.persistent = loader.persistent_workers
        context = loader.multiprocessing_context or multiprocessing.get_context()
        init_reductions()  # tensors sent by multiprocessing go through shared memory
        # minitorch.manual_seed(s) before the loop makes every worker's numbers repeat.
        base_seed = loader._base_seed()
        self.results = ResultPipes()
        # Set at shutdown. A shared byte, not an Event: an Event has a lock, and a worker
        # killed while it holds it (checking the event) would make setting it wait forever.
        self.done = context.RawValue("b", 0)
        self.index_queues: list = []
        self.workers: list = []
        for worker_id in range(self.num_workers):
            index_queue = context.Queue()
            reader, writer = context.Pipe(duplex=False)
            worker = context.Process(
                target=worker_loop, daemon=True, name=f"DataLoader worker {worker_id}",
                args=(loader.dataset, loader._fetch_options(), index_queue, writer,
                      self.done, base_seed, loader.worker_init_fn, worker_id,
                      self.num_workers),
            )  # fmt: skip
            worker.start()
            writer.close()  # the worker is its pipe's only writer (and later forks get none)
            self.results.add(reader)
            self.index_queues.append(index_queue)
            self.workers.append(worker)
        self._shutdown = weakref.finalize(self, _shut_down, self.workers, self.index_queues,
                                          self.results, self.done)  # fmt: skip
        self._start_epoch(loader._tasks(), first=True)

    @property
    def worker_pids(self) -> list[int]:
        """The process ids of the workers (``ps`` shows them as children of this process)."""
        return [worker.pid for worker in self.workers]

    @property
    def alive(self) -> bool:
        """Whether the workers are still running (False after shutdown)."""
        return self._shutdown.alive

    def _start_epoch(self, tasks: Iterator[Any], first: bool = False) -> None:
        """Start an epoch over ``tasks``: number them from 0 and send the first
        ``prefetch_factor * N``. Persistent workers are told first (``ResumeIteration``)
        and each acknowledges, so no answer left over from the last epoch (after a
        ``break``) can be mistaken for one of this epoch."""
        if not first:
            for index_queue in self.index_queues:
                index_queue.put(ResumeIteration())
            acknowledged = 0
            while acknowledged < self.num_workers:
                task_id, reply = self._receive()
                acknowledged += isinstance(task_id, ResumeIteration)
                release(reply)  # a batch of the last epoch, after a break
        self.tasks = tasks
        self.sent = 0  # tasks sent this epoch; the next one gets this number
        self.worker_of: dict[int, int] = {}  # task number -> its worker, while outstanding
        self.reorder_buffer: dict[int, Any] = {}  # task number -> a reply that came early
        self.worker_has_data = [True] * self.num_workers  # False: its stream has ended
        self.worker_cycle = itertools.cycle(range(self.num_workers))
        self._send_tasks()

    def _send_tasks(self) -> None:
        """Top the outstanding tasks up to ``prefetch_factor * N``, each to the next worker
        (in turn) whose stream has not ended."""
        while len(self.worker_of) < self.prefetch_factor * self.num_workers and any(self.worker_has_data):
            task = next(self.tasks, _NO_MORE_TASKS)
            if task is _NO_MORE_TASKS:
                return
            worker_id = next(self.worker_cycle)
            while not self.worker_has_data[worker_id]:
                worker_id = next(self.worker_cycle)
            self.index_queues[worker_id].put((self.sent, task))
            self.worker_of[self.sent] = worker_id
            self.sent += 1

    def _receive(self) -> tuple[Any, Any]:
        """The next ``(task_id, reply)`` from any worker. Waits in slices of
        ``POLL_INTERVAL``, checking between them that the workers are alive (a worker whose
        pipe is closed is not) and that ``timeout`` (if any) has not passed."""
        deadline = time.monotonic() + self.timeout if self.timeout > 0 else None
        while True:
            wait = POLL_INTERVAL if deadline is None else min(POLL_INTERVAL, deadline - time.monotonic())
            message = self.results.receive(max(wait, 0.0))
            if message is not None:
                return message
            closed = self.results.ended()
            dead = [worker for worker_id, worker in enumerate(self.workers)
                    if worker_id in closed or not worker.is_alive()]  # fmt: skip
            if dead:
                self._shutdown()
                shared_storage.sweep()  # segments only the dead worker held
                raise RuntimeError(" ".join(_worker_died(worker) for worker in dead).rstrip())
            if deadline is not None and time.monotonic() >= deadline:
                self._shutdown()
                raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds")

    def __iter__(self) -> MultiProcessingDataLoaderIter:
        return self

    def __next__(self) -> Any:
        try:
            return self._next_batch()
        except KeyboardInterrupt:  # Ctrl-C: the epoch is abandoned, and so are the workers
            self._shutdown()
            raise

    def _next_batch(self) -> Any:
        while self.alive:
            if not self.worker_of:  # nothing outstanding and nothing left to send
                break
            first = min(self.worker_of)  # the batch the loop gets next, in order
            if first in self.reorder_buffer:
                return self._deliver(first, self.reorder_buffer.pop(first))
            task_id, reply = self._receive()
            if isinstance(reply, StreamEnd):
                self._forget_tasks_of(reply.worker_id)
                continue
            batch = reply if isinstance(reply, ExceptionWrapper) else pickle.loads(reply)
            if task_id == first or not self.in_order:
                return self._deliver(task_id, batch)
            self.reorder_buffer[task_id] = batch
        if not self.persistent:
            self._shutdown()
        raise StopIteration

    def _forget_tasks_of(self, worker_id: int) -> None:
        """A worker's stream ended: its later tasks will never be answered (its earlier ones
        were: one worker's replies arrive in order). Their slots go to the other workers."""
        self.worker_has_data[worker_id] = False
        unanswered = [task for task, worker in self.worker_of.items()
                      if worker == worker_id and task not in self.reorder_buffer]  # fmt: skip
        for task_id in unanswered:
            del self.worker_of[task_id]
        self._send_tasks()

    def _deliver(self, task_id: int, batch: Any) -> Any:
        """Return a batch (or raise the worker's exception); its slot gets a new task."""
        del self.worker_of[task_id]
        self._send_tasks()
        if isinstance(batch, ExceptionWrapper):
            batch.reraise()
        return batch
