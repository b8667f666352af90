"""The emulator's streams: queues of work, each run in order by its own worker thread.

A CUDA stream is a queue on the GPU; the emulator makes one out of a Python queue and a
thread (``minitorch/backends/cuda/streams.py`` tells the story and holds the public
``Stream`` and ``Event``)::

    host thread                          worker thread of the queue
    queue.submit(kernel) -> returns      forever:
    ...                                      work = next item (sleep until there is one)
                                             work.start = now
                                             work.run()   (the compiled kernel, via
                                             work.end = now   ctypes: no GIL held)
                                             work.finished.set()

``WorkQueue`` and ``Marker`` offer the part of ``cupy.cuda.Stream`` and
``cupy.cuda.Event`` that ``minitorch.cuda`` uses (``synchronize()``, ``done``,
``wait_event``, ``record``), so the public classes have one code path for both.

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


class Work:
    """One item of a stream's queue (a kernel, a copy, or an event's marker), with the
    times it was issued by the host and started and ended on its stream."""

    __slots__ = ("label", "stream", "run", "issued", "start", "end", "finished")

    def __init__(self, label: str, stream: str, run: Callable[[], None] | None) -> None:
        self.label = label
        self.stream = stream  # the stream's name, e.g. "stream 1"
        self.run = run
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


class WorkQueue:
    """An emulated CUDA stream: a queue whose worker thread runs its items in order.

    The worker sleeps while the queue is empty and ends when the stream is garbage
    collected (it holds the queue's items, never the stream itself)."""

    def __init__(self, name: str, priority: int = 0) -> None:
        self.name = name
        self.priority = priority  # accepted, as PyTorch does; the emulator has one priority
        self._items: deque[Work | None] = deque()
        self._arrived = threading.Condition()
        self._last: Work | None = None
        self._pid = os.getpid()
        threading.Thread(target=_run_items, args=(self._items, self._arrived),
                         name=f"minitorch CUDA {name}", daemon=True).start()  # fmt: skip
        weakref.finalize(self, _stop_worker, self._items, self._arrived)
        queues.add(self)

    def submit(self, label: str, run: Callable[[], None] | None) -> Work:
        """Put ``run`` at the end of the queue and return at once."""
        _check_process(self._pid)
        work = Work(label, self.name, run)
        with self._arrived:
            self._items.append(work)
            self._last = work
            self._arrived.notify()
        log = _launch_log.works
        if log is not None:
            log.append(work)
        return work

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


def _run_items(items: deque[Work | None], arrived: threading.Condition) -> None:
    """The worker thread of one stream: run its items in order; None means stop."""
    while True:
        with arrived:
            while not items:
                arrived.wait()
            work = items.popleft()
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
        work.finished.set()


def _stop_worker(items: deque[Work | None], arrived: threading.Condition) -> None:
    with arrived:
        items.append(None)
        arrived.notify()


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


queues: weakref.WeakSet[WorkQueue] = weakref.WeakSet()  # every emulated stream alive


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
