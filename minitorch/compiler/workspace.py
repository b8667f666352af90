"""Workspaces: whose temps a replay writes, when two replays of one graph run at once.

A graph's temps are scratch memory: a replay writes each one and reads it back before
it returns. Eager code never shares scratch memory between two calls, because every op
allocates its result anew. A ``Program`` that kept *one* set of temps would share it
between any two replays that overlap, and one would read what the other wrote:

* **Two host threads** calling the same compiled function::

      thread A: n0 writes t = a * 2
      thread B:                      n0 writes t = b * 2, n1 reads t: B's sum, right
      thread A: n1 reads t: B's values -- A returns B's sum

* **Two CUDA streams.** A replay only *queues* its kernels and returns; the kernels of
  two streams then run interleaved, in no fixed order (``minitorch/backends/cuda/
  streams.py``). So even one host thread replaying on stream 1, then on stream 2, has
  two replays in flight on the same temps. A lock around the replay would not help:
  it is released when the kernels are queued, long before they run.

(PyTorch's CUDA graphs leave this to the user: a graph replayed from two threads or on
two streams at once is a race there, and gives wrong answers without a word. Ours must
never give a wrong answer.)

So a ``Program`` keeps a pool of *workspaces*, each a full set of the graph's temps,
and every replay takes one for itself::

    take (under a lock, held only to choose):
        a free workspace whose last replay was queued on this stream
            -- the stream runs that replay's kernels before this one's, so it is safe
        else a free workspace whose last replay has finished (its event completed)
        else a new workspace
    replay in it
    give it back, noting the stream and an event recorded after the replay's work

"Free" means no host thread is inside a replay with it. On the CPU a replay has run
when it returns, so there is no stream and no event: the first rule takes any free
workspace. One thread on one stream -- the usual case -- keeps exactly one workspace,
the memory the graph always had; memory grows only with the replays really in flight
at the same time, as eager code's would. Variables, constants and state are the
program's own and shared by every workspace, as they are shared by eager calls.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any


@dataclass
class Workspace:
    """One set of temps: ``storages`` (buffer -> storage, the shared ones included),
    ``steps`` (the prepared kernel calls bound to them), and where its last replay went."""

    storages: dict[int, Any]
    steps: list
    stream: Any = None  # the minitorch.cuda.Stream its last replay was queued on
    finished: Any = None  # an Event recorded on that stream after the replay's work


class Workspaces:
    """The pool of one ``Program`` (see the module docstring). ``make()`` builds a new
    workspace; ``on_cuda``: the graph queues work on CUDA streams."""

    def __init__(self, make: Any, on_cuda: bool) -> None:
        self._new_workspace = make
        self._on_cuda = on_cuda
        self._lock = threading.Lock()
        self._free: list[Workspace] = [make()]  # the first one is made with the program
        self.count = 1  # workspaces made so far

    def take(self) -> Workspace:
        stream = _current_stream() if self._on_cuda else None
        with self._lock:
            chosen = self._choose(stream)
            if chosen is None:
                chosen = self._new_workspace()
                self.count += 1
            else:
                self._free.remove(chosen)
        chosen.stream = stream
        return chosen

    def _choose(self, stream: Any) -> Workspace | None:
        for workspace in self._free:
            if workspace.stream == stream:  # (None == None on the CPU)
                return workspace
        for workspace in self._free:
            if workspace.finished is None or workspace.finished.query():
                return workspace
        return None

    def give_back(self, workspace: Workspace) -> None:
        if workspace.stream is not None:
            workspace.finished = workspace.stream.record_event()
        with self._lock:
            self._free.append(workspace)


def _current_stream() -> Any:
    from minitorch import cuda

    return cuda.current_stream()
