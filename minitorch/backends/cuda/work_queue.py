"""The emulator's streams: queues of work, each run in order by its own worker thread.

A CUDA stream is a queue on the GPU; the emulator makes one out of a Python queue and a
thread (``minitorch/backends/cuda/streams.py`` tells the story and holds the public
``Stream`` and ``Event``)::

    host thread                          worker thread of the queue
    queue.submit(kernel) -> returns      forever:
      (waits first if the backlog            work = the oldest item (sleep until there is one)
       is full, see below)                   work.start = now
    ...                                      work.run()   (the compiled kernel, via
                                             work.end = now   ctypes: no GIL held)
                                             drop it from the backlog; work.finished.set()

``WorkQueue`` and ``Marker`` offer the part of ``cupy.cuda.Stream`` and
``cupy.cuda.Event`` that ``minitorch.cuda`` uses (``synchronize()``, ``done``,
``wait_event``, ``record``), so the public classes have one code path for both.

Two rules of a GPU's queues that the emulator keeps:

* **A dropped stream still runs its work.** Destroying a CUDA stream returns at once;
  the device finishes what was queued on it, and a device-wide synchronize
  (``cudaDeviceSynchronize``, ``minitorch.cuda.synchronize()``) waits for that work too.
  Here ``live`` is the device's registry of every queue that holds work: it keeps the
  queue alive until its backlog has drained, however many references the host dropped.
* **The queue is bounded.** A GPU's launch queue has room for about a thousand launches;
  a launch into a full queue waits until the oldest entry has run. The emulator's queued
  work also holds its operands' memory (see ``MAX_QUEUED_BYTES``), so a launch waits
  while its queue is full by either measure: memory then stays what the host holds plus
  a bounded backlog, however long a loop runs without synchronizing.

An exception inside a kernel cannot reach the code that launched it, which has moved
on: the worker keeps it, as CUDA keeps a kernel's error, and the next synchronizing call
raises it (``raise_pending_error``).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator

# A GPU's launch queue (the driver's push buffer) holds about 1024 pending launches; a
# launch into a full queue waits until the oldest has run.
MAX_QUEUED_LAUNCHES = 1024
# On a GPU, queued launches hold no memory of their own: the caching allocator reuses a
# freed block in stream order (later work on the stream runs after the last reader).
# The emulator's queued work keeps its operands alive instead, so each queue may hold
# at most this many operand bytes (counted per launch) before a launch waits: enough
# for launches to run behind the host, while a loop that never synchronizes holds a
# bounded extra, not every intermediate it made. (A launch larger than this still runs:
# it waits until its queue is empty.)
MAX_QUEUED_BYTES = 64 * 2**20


class Work:
    """One item of a stream's queue (a kernel, a copy, or an event's marker), with the
    times it was issued by the host and started and ended on its stream, and the bytes
    of device memory it holds until it has run."""

    __slots__ = ("label", "stream", "run", "nbytes", "issued", "start", "end", "finished")

    def __init__(self, label: str, stream: str, run: Callable[[], None] | None,
                 nbytes: int = 0) -> None:  # fmt: skip
        self.label = label
        self.stream = stream  # the stream's name, e.g. "stream 1"
        self.run = run
        self.nbytes = nbytes
        self.issued = time.perf_counter()
        self.start: float | None = None
        self.end: float | None = None
        self.finished = threading.Event()


# Kernel errors raised on worker threads, waiting for the next synchronizing call. They
# belong to the device, not to one stream, as a CUDA kernel's error does.
_errors: list[BaseException] = []
_errors_lock = threading.Lock()


def raise_pending_error() -> None:
    """Raise the first kernel error a worker kept (and forget it), if there is one."""
    with _errors_lock:
        if not _errors:
            return
        error = _errors.pop(0)
    error.add_note(
        "(raised by a kernel that ran after its launch had returned: launches are "
        "asynchronous, so the error shows at the next synchronizing call)"
    )
    raise error


def _forget_the_parents_errors() -> None:
    """In a forked child: the parent's kernel errors are not the child's, and a lock that
    another thread held at the fork would stay locked forever."""
    global _errors_lock
    _errors_lock = threading.Lock()
    _errors.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which cannot fork
    os.register_at_fork(after_in_child=_forget_the_parents_errors)


def _check_process(pid: int) -> None:
    if os.getpid() != pid:
        raise RuntimeError(
            "Cannot re-initialize CUDA in forked subprocess: this stream or event belongs to "
            "the parent process. To use CUDA with multiprocessing, you must use the 'spawn' "
            "start method (or make new streams in the child)."
        )


class Backlog:
    """The work a queue holds until it has run: its items in order (the head is running
    or next), the operand bytes they hold, and the condition its worker sleeps on. The
    queue and its worker thread share it; the worker never holds the queue itself."""

    __slots__ = ("items", "nbytes", "changed")

    def __init__(self) -> None:
        self.items: deque[Work | None] = deque()  # None: the worker's signal to stop
        self.nbytes = 0
        self.changed = threading.Condition()


class WorkQueue:
    """An emulated CUDA stream: a queue whose worker thread runs its items in order.

    The worker sleeps while the queue is empty. It ends when the stream is garbage
    collected, which ``live`` delays until everything queued on it has run."""

    def __init__(self, name: str, priority: int = 0) -> None:
        self.name = name
        self.priority = priority  # accepted, as PyTorch does; the emulator has one priority
        self._backlog = Backlog()
        self._last: Work | None = None
        self._pid = os.getpid()
        threading.Thread(target=_run_items, args=(self._backlog,),
                         name=f"minitorch CUDA {name}", daemon=True).start()  # fmt: skip
        weakref.finalize(self, _stop_worker, self._backlog)

    def submit(self, label: str, run: Callable[[], None] | None, nbytes: int = 0) -> Work:
        """Put ``run`` (which holds ``nbytes`` of device memory until it has run) at the
        end of the queue and return at once, or, when the queue is full, as soon as the
        oldest items have run and made room."""
        _check_process(self._pid)
        backlog = self._backlog
        self._wait_for_room(nbytes)
        work = Work(label, self.name, run, nbytes)
        with backlog.changed:
            backlog.items.append(work)
            backlog.nbytes += nbytes
            self._last = work
            live[backlog] = self  # the device keeps the queue until this work has run
            backlog.changed.notify()
        log = _launch_log.works
        if log is not None:
            log.append(work)
        return work

    def _wait_for_room(self, nbytes: int) -> None:
        """Wait while the queue is full: ``MAX_QUEUED_LAUNCHES`` items, or more than
        ``MAX_QUEUED_BYTES`` with this launch's bytes. An empty queue has room for any
        launch."""
        backlog = self._backlog
        while True:
            with backlog.changed:
                items = backlog.items
                if not items or (len(items) < MAX_QUEUED_LAUNCHES
                                 and backlog.nbytes + nbytes <= MAX_QUEUED_BYTES):  # fmt: skip
                    return
                oldest = items[0]
            oldest.finished.wait()  # (set once it has left the backlog)

    # ----- the part of cupy.cuda.Stream that minitorch.cuda uses ------------------------

    def synchronize(self) -> None:
        """Wait until everything submitted so far has run."""
        _check_process(self._pid)
        last = self._last
        if last is not None:
            last.finished.wait()

    @property
    def done(self) -> bool:
        last = self._last
        return last is None or last.finished.is_set()

    def wait_event(self, marker: Marker) -> None:
        """Later work on this queue waits until ``marker``'s stream has reached it."""
        if marker.work is not None:
            self.submit("wait for event", marker.work.finished.wait)


def _run_items(backlog: Backlog) -> None:
    """The worker thread of one stream: run its items in order; None means stop."""
    items, changed = backlog.items, backlog.changed
    while True:
        with changed:
            while not items:
                changed.wait()
            work = items[0]
        if work is None:
            return
        work.start = time.perf_counter()
        try:
            if work.run is not None:
                work.run()
        except Exception as error:  # noqa: BLE001 - kept for the next synchronizing call
            with _errors_lock:
                _errors.append(error)
        work.end = time.perf_counter()
        work.run = None  # lets go of the operands' memory
        with changed:
            items.popleft()
            backlog.nbytes -= work.nbytes
            work.finished.set()
            drained = live.pop(backlog, None) if not items else None
        del drained  # (if the host dropped the queue, this was its last reference)


def _stop_worker(backlog: Backlog) -> None:
    with backlog.changed:
        backlog.items.append(None)
        backlog.changed.notify()


class Marker:
    """An emulated CUDA event: a point in a queue, stamped when the worker reaches it."""

    def __init__(self) -> None:
        self.work: Work | None = None
        self._pid = os.getpid()

    def record(self, queue: WorkQueue) -> None:
        _check_process(self._pid)
        self.work = queue.submit("event", None)

    def synchronize(self) -> None:
        _check_process(self._pid)
        if self.work is not None:
            self.work.finished.wait()

    @property
    def done(self) -> bool:
        return self.work is None or self.work.finished.is_set()


# The device's registry of every emulated stream with work queued: it holds each queue
# until its backlog has drained, so a stream the host dropped still runs its work and a
# device-wide synchronize finds it (``streams.synchronize_all``).
live: dict[Backlog, WorkQueue] = {}


# ----- what dispatch records while a trace is open ----------------------------------------


class _LaunchLog(threading.local):
    works: list[Work] | None = None


_launch_log = _LaunchLog()


@contextlib.contextmanager
def collect_launches() -> Iterator[list[Work]]:
    """The ``Work`` this thread queues inside the block (for the dispatch viewer's stream
    rows: each fills in its ``start`` and ``end`` when it runs)."""
    previous = _launch_log.works
    _launch_log.works = works = []
    try:
        yield works
    finally:
        _launch_log.works = previous
