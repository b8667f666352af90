"""``Work``: a communication in flight, and the loop that waits for it.

Every collective and point-to-point call is written as a *generator* of steps. Each step
posts non-blocking MPI operations (``Iallreduce``, ``Isend``...) and ``yield``s their
requests as a ``Pending``; the generator resumes when MPI reports all of them done::

    def all_reduce_steps(...):
        yield from group.agree(...)                   # signatures to and from every peer
        with mpi_buffer(tensor, reduce=True) as cells:
            yield Pending([comm.Iallreduce(MPI.IN_PLACE, cells, op)], "summing")
        if op is AVG: tensor.div_(n)                  # runs after the data arrived

A ``Work`` drives one generator. ``async_op=False`` calls ``wait()`` at once;
``async_op=True`` hands the ``Work`` back, and the program computes while MPI moves the
bytes (the DDP gradient buckets do exactly this).

MPI has no timeouts, so ``wait`` never blocks inside MPI: it *polls* (``Testall``) every
pending request, checks for fault notices from failed ranks (``faults.py``), and pauses a
little longer the longer it has waited (``pause``: ranks sharing few cores must not starve
each other), until the work is done or the deadline passes.

MPI matches the collectives of one communicator in the order they are posted, so every
rank must post them in the same order. A group keeps its collectives in a queue: each
posts its signatures when it is called, but its data steps only once every collective
before it has finished. Point-to-point work has no such order and runs free.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Generator
from datetime import timedelta

from minitorch.distributed import faults
from minitorch.distributed.errors import DistBackendError


class Pending:
    """The requests one step waits for, and what to say if they never finish."""

    def __init__(self, requests: list, waiting_for: str | Callable[[], str],
                 statuses: list | None = None) -> None:  # fmt: skip
        self.requests = requests
        self.waiting_for = waiting_for
        self.statuses = statuses

    def done(self) -> bool:
        from mpi4py import MPI  # optional: only distributed programs need mpi4py

        if self.statuses is None:
            return MPI.Request.Testall(self.requests)
        return MPI.Request.Testall(self.requests, self.statuses)

    def explain(self) -> str:
        return self.waiting_for() if callable(self.waiting_for) else self.waiting_for


Steps = Generator[Pending, None, object]

_queues: dict = {}  # group -> deque of its collectives' Work, oldest first
_free: list = []  # point-to-point Work


class Work:
    """A communication in flight (``torch.distributed.Work``): ``wait()`` until it is done,
    ``is_completed()`` to ask without waiting."""

    def __init__(self, name: str, group, steps: Steps, ordered: bool = True) -> None:
        self.name, self.group, self._steps = name, group, steps
        self._pending: Pending | None = None
        self._finished, self._error, self._result = False, None, None
        self._started = time.monotonic()
        self._advance()  # post the first step now: its messages leave at once
        if not self._finished:
            (_queues.setdefault(group, deque()) if ordered else _free).append(self)
            if ordered:
                group.busy = True

    def _advance(self) -> None:
        try:
            self._pending = self._steps.send(None)
        except StopIteration as stop:
            self._finished, self._result = True, stop.value
        except BaseException as error:
            self._finished, self._error = True, error
            if self.group is not None and isinstance(error, DistBackendError):
                self.group.broken = error

    def _poll(self) -> bool:
        """Resume the steps whose requests have finished; ``True`` once all have run."""
        while not self._finished:
            try:
                if not self._pending.done():
                    break
            except Exception as error:  # MPI reported a failure (a truncated message...)
                self._finished, self._error = True, DistBackendError(f"{self.name} failed in MPI: {error}")
                break
            self._advance()
        return self._finished

    def is_completed(self) -> bool:
        """Whether the communication has finished (successfully or not), without waiting."""
        progress()
        return self._finished

    def is_success(self) -> bool:
        return self.is_completed() and self._error is None

    def exception(self) -> BaseException | None:
        return self._error

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until the communication is done, and raise its error if it failed.

        ``timeout`` (a ``timedelta``) overrides the group's timeout, counted from now; by
        default the group's timeout counts from when the call was made."""
        if timeout is not None:
            deadline = time.monotonic() + timeout.total_seconds()
        else:
            deadline = self._started + self.group.timeout.total_seconds()
        began = time.monotonic()
        while not self._finished:
            progress()
            if self._finished:
                break
            faults.raise_if_a_rank_failed()
            now = time.monotonic()
            if now > deadline:
                raise self._timed_out(timeout or self.group.timeout)
            pause(now - began)
        if self._error is not None:
            raise self._error
        return True

    def result(self) -> object:
        """What the call gives back once done (``recv``: the sender's rank)."""
        self.wait()
        return self._result

    def source_rank(self) -> int:
        """The world rank a finished ``irecv`` received from."""
        if self.name != "recv":
            raise RuntimeError("source_rank() is only available on a Work of irecv")
        return self.result()

    def _timed_out(self, timeout: timedelta) -> DistBackendError:
        queue = _queues.get(self.group, ())
        if queue and queue[0] is not self:
            why = f"it waits behind {queue[0].name}, which has not finished: {queue[0]._pending.explain()}"
        else:
            why = self._pending.explain()
        error = DistBackendError(
            f"{self.name} on rank {self.group.global_rank} timed out after {timeout}: {why}. Every "
            f"rank of a group must call the same collectives in the same order, with tensors of "
            f"the same shape and dtype (timeout: init_process_group(timeout=...))")  # fmt: skip
        self.group.broken = error
        return error


def pause(waited: float) -> None:
    """Between two polls. For the first 20 ms only yield the core (``sched_yield``: another
    process that wants it runs, else this one polls again at once), since MPI copies a
    large message in pieces, each moved by a poll; then sleep 50 microseconds, and after
    0.2 s a whole millisecond, so a rank that waits long costs its neighbours almost nothing."""
    if waited < 0.02:
        os.sched_yield() if hasattr(os, "sched_yield") else time.sleep(0)
    else:
        time.sleep(5e-5 if waited < 0.2 else 1e-3)


def progress() -> None:
    """Move every unfinished communication along as far as MPI allows, without waiting."""
    for queue in _queues.values():
        while queue and queue[0]._poll():
            queue.popleft()
    _free[:] = [work for work in _free if not work._poll()]
    for group, queue in _queues.items():
        group.busy = bool(queue)


def unfinished() -> str | None:
    """A description of the communication MPI still holds, or ``None``."""
    progress()
    names = [w.name for q in _queues.values() for w in q] + [w.name for w in _free]
    return ", ".join(names) if names else None


def run(name: str, group, steps: Steps, async_op: bool, ordered: bool = True,
        timeout: timedelta | None = None):  # fmt: skip
    """Start the steps; wait for them (at most ``timeout``, else the group's) unless
    ``async_op`` (then return the ``Work``).

    Every call first moves the earlier calls along, so that a program posting several
    asynchronous all-reduces in a row (DDP's buckets) starts each one's data as soon as
    the one before it is done, without waiting for a ``wait()``."""
    progress()
    work = Work(name, group, steps, ordered)
    if async_op:
        return work
    work.wait(timeout)
    return work._result
