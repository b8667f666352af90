"""Streams and events: why a kernel launch returns before the kernel has run.

A GPU runs the work it is given from *streams*: queues whose items (kernels, copies)
run one after another, in the order they were put there. Python only puts work on a
queue and goes on, so::

    y = x @ w        # returns at once: the matmul is queued, not done
    t = y.sum()      # queued behind it, on the same stream: it sees the matmul's result
    t.item()         # a host read waits until the queue has run both

Work on one stream runs in order. Work on two streams has no order between them until
you give it one: ``s2.wait_stream(s1)`` (or ``s2.wait_event(e)``) makes later work on s2
wait for what s1 holds now. An *event* marks a point in a stream's queue; it completes,
and takes the time, when the stream reaches it, so ``start.elapsed_time(end)`` measures
the work between two events as the device ran it. Timing a launch with
``time.perf_counter()`` alone measures only the queueing (the classic bug):
synchronize first, or use events.

On a GPU the queues are CuPy's (``cupy.cuda.Stream``, ``cupy.cuda.Event``). On the
emulator, each stream is a ``WorkQueue`` run by its own worker thread, and each event a
``Marker`` in such a queue (``minitorch/backends/cuda/work_queue.py``); both offer the
part of CuPy's classes used here, so ``Stream`` and ``Event`` below have one code path.

The emulator's rules, and where they differ from a GPU:

* Each host thread starts on the default stream; ``with minitorch.cuda.stream(s):``
  makes ``s`` its current stream. Launches and ``non_blocking`` copies go on the
  current stream.
* A host read (``.item()``, ``.cpu()``, ``.tolist()``, printing) and
  ``minitorch.cuda.synchronize()`` wait for *every* stream, on a GPU too. (PyTorch's
  host read waits for the current stream only: reading a tensor that another stream
  is still writing, without ``wait_stream``, is a race there. Do not rely on
  minitorch's kinder rule.)
* One kernel runs at a time, as on a GPU with one multiprocessor (the emulator's
  scheduler and ``__shared__`` memory are global): kernels of two streams interleave
  kernel by kernel, in no fixed order, while copies and the host overlap them.
* An exception inside a kernel (an emulator error, a write past the end) cannot reach
  the code that launched it, which has moved on. It is kept, as CUDA keeps a kernel's
  error, and raised by the next synchronizing call: ``synchronize()``, a host read,
  ``Stream.synchronize()``, ``Event.synchronize()``.
* Queued work holds its operands' memory, so a tensor deleted on the host stays alive
  until the kernels that use it have run. (A GPU's caching allocator reuses such memory
  in stream order instead.) So that a loop that never synchronizes cannot hold every
  intermediate it made, each queue is bounded, as a GPU's launch queue is: a launch
  waits while its stream already holds ``MAX_QUEUED_LAUNCHES`` items or
  ``MAX_QUEUED_BYTES`` of operands (``work_queue.py``).
* A stream dropped with work queued still runs it, and ``synchronize()`` and host reads
  wait for it, as on a GPU (destroying a CUDA stream does not cancel its work).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch.backends.cuda.device import runtime
from minitorch.backends.cuda.work_queue import Marker, WorkQueue, live, raise_pending_error
from minitorch.device import as_device

_default_queue: list[WorkQueue] = []


def default_queue() -> Any:
    """The default stream: on a GPU CuPy's null stream, emulated one ``WorkQueue``."""
    machine = runtime()
    if not machine.emulated:
        return machine.cupy.cuda.Stream.null
    if not _default_queue or _default_queue[0]._pid != os.getpid():
        _default_queue[:] = [WorkQueue("default stream")]
    return _default_queue[0]


class _Current(threading.local):
    """Each host thread's current stream (None: the default stream)."""

    stream: Any = None


_current = _Current()


def current_queue() -> Any:
    """The queue of this thread's current stream."""
    chosen = _current.stream
    return default_queue() if chosen is None else chosen._queue


@contextlib.contextmanager
def using(stream: Any) -> Iterator[None]:
    """Make ``stream`` (a ``minitorch.cuda.Stream``) this thread's current stream inside
    the block; ``None`` changes nothing (as in PyTorch)."""
    previous = _current.stream
    set_current(stream)
    try:
        yield
    finally:
        _current.stream = previous


def set_current(stream: Any) -> None:
    """Make ``stream`` this thread's current stream. The default stream is kept as None,
    "this process's default stream", so a forked child gets its own. (None: no change.)"""
    if stream is not None:
        _current.stream = None if stream._queue is default_queue() else stream


def current() -> Any:
    """This thread's current ``minitorch.cuda.Stream`` (None: the default stream)."""
    return _current.stream


def synchronize_all() -> None:
    """A device-wide synchronize (CUDA's ``cudaDeviceSynchronize``): wait until all work
    queued so far on any stream has run -- streams the host no longer refers to
    included -- then raise a kernel error kept meanwhile."""
    if runtime().emulated:
        for queue in live.copy().values():  # every queue with work queued
            if queue._pid == os.getpid():  # (a forked child inherits its parent's)
                queue.synchronize()
    else:
        runtime().cupy.cuda.Device().synchronize()
    raise_pending_error()


# ----- launching and copying on the current stream ----------------------------------------


def launch(function: Any, grid: tuple, block: tuple, args: tuple, shared_mem: int) -> None:
    """Put a kernel launch on this thread's current stream and return at once."""
    queue = current_queue()
    emulated = isinstance(queue, WorkQueue)  # (else a cupy.cuda.Stream)
    if emulated != runtime().emulated:
        made, now = ("emulator", "GPU") if emulated else ("GPU", "emulator")
        raise RuntimeError(
            f'this stream was made for the {made}, but device "cuda" now runs on the {now}: '
            "make a new minitorch.cuda.Stream()"
        )
    if emulated:
        held = sum(arg.nbytes for arg in args if isinstance(arg, np.ndarray))  # the operands
        queue.submit(function.name, function.prepare(grid, block, args, shared_mem), held)
    else:
        with queue:  # a cupy.RawKernel launches on CuPy's current stream
            function(grid, block, args, shared_mem=shared_mem)


def copy_to_device(array: Any) -> Any:
    """New device storage filled from the 1-D host ``array`` by a copy queued on the
    current stream (``non_blocking=True``). As with PyTorch's pinned memory, the host
    array must not change until the stream has done the copy."""
    machine = runtime()
    storage = machine.empty(array.size, array.dtype)
    queue = current_queue()
    if machine.emulated:

        def copy() -> None:
            storage[...] = array

        queue.submit("copy to device", copy, storage.nbytes + array.nbytes)
    else:
        storage.set(array, stream=queue)
    return storage


# ----- the public classes: minitorch.cuda.Stream and minitorch.cuda.Event -----------------


def _check_device(device: Any) -> None:
    """Refuse a device that is not the one CUDA device (``runtime()`` refuses a missing
    one, naming the ways forward)."""
    runtime()
    if device is None:
        return
    found = as_device(f"cuda:{device}" if isinstance(device, int) else device)  # refuses cuda:1
    if found.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {found}")


_NOT_SENT = (
    "cannot pickle a CUDA {what}: it belongs to the device queues of the process that made it, "
    "and would be freed (meaningless) in another process; synchronize first, then send tensors"
)


class Stream:
    """``torch.cuda.Stream``: a queue of device work that runs in order (see the module
    docstring). ``priority`` is accepted (lower is more urgent on a GPU); the emulator
    runs every stream alike."""

    _numbers = itertools.count(1)

    def __init__(self, device: Any = None, priority: int = 0) -> None:
        _check_device(device)
        machine = runtime()
        if machine.emulated:
            self._queue: Any = WorkQueue(f"stream {next(Stream._numbers)}", priority)
        else:
            options = {"priority": priority} if priority else {}
            self._queue = machine.cupy.cuda.Stream(non_blocking=True, **options)
        self.priority = priority

    @classmethod
    def _of(cls, queue: Any) -> Stream:
        stream = cls.__new__(cls)
        stream._queue, stream.priority = queue, getattr(queue, "priority", 0)
        return stream

    @property
    def device(self) -> Any:
        return as_device("cuda:0")

    def synchronize(self) -> None:
        """Wait until the work queued on this stream so far has run."""
        self._queue.synchronize()
        raise_pending_error()

    def query(self) -> bool:
        """True when all work queued on this stream has run (never waits)."""
        return bool(self._queue.done)

    def wait_event(self, event: Event) -> None:
        """Work queued on this stream from now on waits until ``event`` has completed
        (the host does not wait). An event never recorded is no wait at all."""
        if event._marker is not None:
            self._queue.wait_event(event._marker)

    def wait_stream(self, stream: Stream) -> None:
        """Work queued on this stream from now on waits until ``stream`` has run all the
        work queued on it so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one if None) on this stream, and return it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __reduce__(self) -> Any:
        raise TypeError(_NOT_SENT.format(what="stream"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and other._queue is self._queue

    def __hash__(self) -> int:
        return id(self._queue)

    def __repr__(self) -> str:
        name = getattr(self._queue, "name", None) or f"cuda_stream={self._queue.ptr:#x}"
        return f"<minitorch.cuda.Stream device=cuda:0 {name}>"


class Event:
    """``torch.cuda.Event``: a point in a stream's queue. ``record()`` places it,
    ``query()`` tells whether the stream has reached it, ``synchronize()`` waits for
    that, and ``elapsed_time(end)`` is the time in milliseconds between two completed
    events recorded with ``enable_timing=True``."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:  # fmt: skip
        if interprocess:
            raise NotImplementedError(
                "minitorch has no interprocess CUDA events: synchronize in the process that "
                "launched the work, then send the tensors"
            )
        self.enable_timing = enable_timing
        self._marker: Any = None  # made on the first record(), as PyTorch does

    def record(self, stream: Stream | None = None) -> None:
        """Place the event at the end of ``stream``'s queue (default: the current stream)."""
        stream = current_stream() if stream is None else stream
        machine = runtime()
        if self._marker is None:
            self._marker = (Marker() if machine.emulated
                            else machine.cupy.cuda.Event(disable_timing=not self.enable_timing))  # fmt: skip
        elif isinstance(self._marker, Marker) != machine.emulated:
            raise RuntimeError(
                "this event was made for a CUDA runtime that is no longer in use: make a new Event"
            )
        self._marker.record(stream._queue)

    def wait(self, stream: Stream | None = None) -> None:
        """Make later work on ``stream`` (default: the current stream) wait for this event."""
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        """True when the stream has reached the event (or it was never recorded)."""
        return self._marker is None or bool(self._marker.done)

    def synchronize(self) -> None:
        """Wait until the stream has reached the event (at once if never recorded)."""
        if self._marker is not None:
            self._marker.synchronize()
        raise_pending_error()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds from this event to ``end_event``, as the stream reached them."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._marker is None or end_event._marker is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        if not (self.query() and end_event.query()):
            raise RuntimeError(
                "CUDA error: device not ready: an event has not completed yet; call "
                "end_event.synchronize() (or minitorch.cuda.synchronize()) first"
            )
        if isinstance(self._marker, Marker):
            return (end_event._marker.work.end - self._marker.work.end) * 1e3
        return float(runtime().cupy.cuda.get_elapsed_time(self._marker, end_event._marker))

    def __reduce__(self) -> Any:
        raise TypeError(_NOT_SENT.format(what="event"))

    def __repr__(self) -> str:
        state = "not recorded" if self._marker is None else ("done" if self.query() else "pending")
        return f"<minitorch.cuda.Event {state}>"


def current_stream(device: Any = None) -> Stream:
    """This thread's current stream (the default stream unless changed)."""
    _check_device(device)
    chosen = current()
    return Stream._of(default_queue()) if chosen is None else chosen


def default_stream(device: Any = None) -> Stream:
    """The default stream: where work goes unless a ``stream(s)`` block says otherwise."""
    _check_device(device)
    return Stream._of(default_queue())
