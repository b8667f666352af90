"""A timeline of one rank's training step: when it computed and when it communicated.

``DistributedDataParallel`` writes one here as it runs (``ddp.timeline``), so a chart can
show what data parallelism costs and what overlapping hides. The format is plain data,
a list of dicts, one per interval, every time in seconds on one monotonic clock
(``time.monotonic()``: on Linux the same clock in every process of a machine, so the
ranks' events of one machine line up)::

    {"rank": 0, "kind": "forward",   "name": "forward",    "start": 12.0001, "end": 12.0042}
    {"rank": 0, "kind": "backward",  "name": "backward",   "start": 12.0045, "end": 12.0131}
    {"rank": 0, "kind": "allreduce", "name": "bucket 0",   "start": 12.0070, "end": 12.0093}

* ``forward``: ``ddp(x)``, from the call to the return.
* ``backward``: from the moment the output's gradient arrived to the moment autograd
  ran its last node (before waiting for the last buckets).
* ``allreduce``: one bucket of gradients, from the moment DDP handed it to MPI (when the
  bucket's last gradient arrived, with ``overlap=True``; after the backward ends with
  ``overlap=False``) to the moment DDP saw it finished. Bucket 0 holds the *last*
  parameters registered, whose gradients come first.

With ``overlap=True`` the all-reduce bars sit under the backward bar: the bytes move while
the earlier layers' gradients are still computed. With ``overlap=False`` they all start
after it, and the step is longer by their sum. ``exposed_communication`` measures that:
the time a step spends communicating while it computes nothing.

``Timeline.gather()`` collects every rank's events on every rank (a collective: all ranks
call it), for a chart drawn by one of them.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

__all__ = ["Timeline", "clock", "communication_time", "exposed_communication"]

clock = time.monotonic


class Timeline:
    """The events of one rank (``events``: the list of dicts the module docstring shows).
    A long training run would fill memory with them, so it keeps the latest ``limit``:
    past that, the oldest half is dropped."""

    def __init__(self, rank: int = 0, limit: int = 10_000) -> None:
        self.rank, self.limit = rank, limit
        self.events: list[dict] = []

    def record(self, kind: str, name: str, start: float, end: float) -> None:
        """Add one interval."""
        self.events.append({"rank": self.rank, "kind": kind, "name": name, "start": start, "end": end})
        if len(self.events) > self.limit:
            del self.events[: len(self.events) - self.limit // 2]

    def clear(self) -> None:
        self.events.clear()

    def gather(self, group: object = None) -> list[dict]:
        """Every rank's events, rank 0's first (all ranks must call it)."""
        from minitorch import distributed as dist

        everyone: list = [None] * dist.get_world_size(group)
        dist.all_gather_object(everyone, self.events, group=group)
        return [event for events in everyone for event in events]


def _union(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Sorted, non-overlapping intervals covering the same time."""
    merged: list[list[float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def _length(intervals: list[tuple[float, float]]) -> float:
    return sum(end - start for start, end in intervals)


def communication_time(events: Iterable[dict], rank: int | None = None) -> float:
    """Seconds during which at least one all-reduce of ``rank`` (every rank: None) was in flight."""
    return _length(_union((e["start"], e["end"]) for e in events
                          if e["kind"] == "allreduce" and rank in (None, e["rank"])))  # fmt: skip


def exposed_communication(events: Iterable[dict], rank: int = 0) -> float:
    """Seconds ``rank`` spent with an all-reduce in flight and neither forward nor backward
    running: the communication that overlapping did not hide."""
    events = [e for e in events if e["rank"] == rank]
    compute = _union((e["start"], e["end"]) for e in events if e["kind"] in ("forward", "backward"))
    hidden = 0.0
    for start, end in _union((e["start"], e["end"]) for e in events if e["kind"] == "allreduce"):
        for c_start, c_end in compute:
            hidden += max(0.0, min(end, c_end) - max(start, c_start))
    return communication_time(events, rank) - hidden
