"""A parameter server: TensorFlow 1's ps/worker roles, on point-to-point messages.

Before all-reduce took over, distributed TensorFlow kept the parameters on *parameter
servers* and let *workers* compute gradients. Here rank 0 is the server and every other
rank a worker, each with its own shard of the data::

    worker w, each step:                      server (rank 0):
        pull: receive (version, parameters)       keeps the parameters, their version
        loss.backward() on its own batch          and the optimizer
        push: send (version pulled, gradients)    applies gradients, version += 1,
                                                  replies with the new parameters

Two ways for the server to apply what it receives:

* **synchronous** (``mode="sync"``, TensorFlow's ``SyncReplicasOptimizer``): wait for one
  push from every worker, apply their *average*, reply to all. Every step equals one
  process training on the workers' batches concatenated; the slowest worker sets the
  pace.
* **asynchronous** (``mode="async"``, TensorFlow 1's default): apply each push alone, the
  moment it arrives, and reply to that worker only. Nobody waits, but a gradient may have
  been computed from parameters that other pushes have since changed. Its *staleness* is
  ``server version when applied - version the worker pulled``; the server records it for
  every update (``history``), since stale gradients are what async training pays.

A message is one flat float32 tensor ``[version, values...]`` (parameters or gradients,
flattened in ``model.parameters()`` order); a worker that is done sends ``version = -1``.
The server polls one pending ``irecv`` per worker (``is_completed()``), so it serves
whichever worker pushed first.

    ps = ParameterServer(model, lambda params: optim.SGD(params, lr=0.1), mode="async")
    if ps.is_server:
        ps.serve()                         # until every worker has called finish()
    else:
        for x, y in my_batches:
            loss_fn(model(x), y).backward()
            ps.push()                      # gradients out (and zeroed here)
            ps.pull()                      # new parameters in
        ps.finish()
"""

from __future__ import annotations

import time
from collections.abc import Callable

from minitorch import creation, dtypes
from minitorch import distributed as dist
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.module import Module
from minitorch.ops.shape import cat

DONE = -1.0
SERVER = 0


class ParameterServer:
    """Rank 0 serves ``model``'s parameters; the other ranks train against it (see the
    module docstring). ``make_optimizer(params)`` builds the server's optimizer."""

    def __init__(self, model: Module, make_optimizer: Callable, mode: str = "sync") -> None:
        if not isinstance(model, Module):
            raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
        if not callable(make_optimizer):
            raise TypeError("make_optimizer must be a function of the parameters: lambda p: SGD(p, lr=0.1)")
        if mode not in ("sync", "async"):
            raise ValueError(f"mode must be 'sync' or 'async', not {mode!r}")
        if not dist.is_initialized():
            raise RuntimeError("call minitorch.distributed.init_process_group() before ParameterServer(...)")
        if dist.get_world_size() < 2:
            raise ValueError("a parameter server needs at least 2 ranks: one server and a worker")
        self.model, self.mode = model, mode
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.numel = sum(p.numel() for p in self.params)
        self.rank = dist.get_rank()
        self.is_server = self.rank == SERVER
        self.workers = list(range(1, dist.get_world_size()))
        self.version = 0  # server: updates applied; worker: the version it last pulled
        self.history: list[dict] = []  # server: one entry per update
        self.timeline: list[dict] = []  # events for minitorch.widgets.rank_timeline
        self.optimizer = make_optimizer(self.params) if self.is_server else None
        for p in self.params:  # everyone starts from the server's parameters: version 0
            dist.broadcast(p.data, src=SERVER)

    # ----- messages ----------------------------------------------------------------------

    def _message(self, version: float, tensors: list) -> Tensor:
        flat = [t.detach().reshape(-1).to(dtypes.float32) for t in tensors]
        return cat([creation.tensor([float(version)]), *flat])

    def _unpack(self, message: Tensor) -> list:
        """The flat values of a message, back in the parameters' shapes."""
        out, at = [], 1
        for p in self.params:
            out.append(message[at:at + p.numel()].view(p.shape).to(p.dtype))
            at += p.numel()
        return out

    def _buffer(self) -> Tensor:
        return creation.zeros(1 + self.numel, dtype=dtypes.float32)

    def _event(self, kind: str, name: str, start: float) -> None:
        self.timeline.append({"rank": self.rank, "kind": kind, "name": name, "start": start,
                              "end": time.monotonic()})  # fmt: skip

    # ----- worker side -------------------------------------------------------------------

    def push(self) -> None:
        """Send this worker's gradients (and the version they were computed from); zero them."""
        self._worker_only("push")
        start = time.monotonic()
        grads = [p.grad if p.grad is not None else creation.zeros_like(p) for p in self.params]
        dist.send(self._message(self.version, grads), SERVER)
        for p in self.params:
            p.grad = None
        self._event("send", f"push v{self.version}", start)

    def pull(self) -> int:
        """Receive the server's reply: the parameters after this worker's push. Returns their version."""
        self._worker_only("pull")
        start = time.monotonic()
        message = self._buffer()
        dist.recv(message, SERVER)
        with no_grad():
            for p, value in zip(self.params, self._unpack(message)):
                p.copy_(value)
        self.version = int(message[0].item())
        self._event("wait", f"pull v{self.version}", start)
        return self.version

    def finish(self) -> None:
        """Tell the server this worker is done."""
        self._worker_only("finish")
        dist.send(self._message(DONE, [creation.zeros(self.numel)]), SERVER)

    def _worker_only(self, what: str) -> None:
        if self.is_server:
            raise RuntimeError(f"{what}() is for workers; rank 0 is the server and calls serve()")

    # ----- server side -------------------------------------------------------------------

    def serve(self) -> list[dict]:
        """Apply pushes until every worker has finished; returns ``history``."""
        if not self.is_server:
            raise RuntimeError("serve() runs on rank 0, the server; workers call push() and pull()")
        if self.mode == "sync":
            self._serve_sync()
        else:
            self._serve_async()
        return self.history

    def _apply(self, grads: list, pushes: list[tuple[int, int]]) -> None:
        """Set the parameters' gradients, take one optimizer step, record it."""
        start = time.monotonic()
        for p, g in zip(self.params, grads):
            p.grad = g
        self.optimizer.step()
        self.optimizer.zero_grad()
        for worker, pulled in pushes:
            self.history.append({"worker": worker, "pulled_version": pulled, "applied_version": self.version,
                                 "staleness": self.version - pulled})  # fmt: skip
        self.version += 1
        self._event("optimizer", f"update v{self.version}", start)

    def _reply(self, worker: int) -> None:
        dist.send(self._message(self.version, self.params), worker)

    def _serve_sync(self) -> None:
        active = list(self.workers)
        while active:
            start = time.monotonic()
            received = []
            for worker in active:  # one push from every worker, in rank order
                message = self._buffer()
                dist.recv(message, worker)
                received.append((worker, message))
            self._event("wait", f"gather v{self.version}", start)
            pushes = [(w, m) for w, m in received if m[0].item() != DONE]
            active = [w for w, _ in pushes]
            if not pushes:
                break
            grads = [sum(parts) / len(pushes) for parts in zip(*(self._unpack(m) for _, m in pushes))]
            self._apply(grads, [(w, int(m[0].item())) for w, m in pushes])
            for worker in active:
                self._reply(worker)

    def _serve_async(self) -> None:
        buffers = {w: self._buffer() for w in self.workers}
        pending = {w: dist.irecv(buffers[w], src=w) for w in self.workers}
        start = time.monotonic()
        while pending:
            ready = [w for w, work in pending.items() if work.is_completed()]
            if not ready:
                time.sleep(0)  # let the workers' processes run
                continue
            self._event("wait", "wait for a push", start)
            for worker in ready:
                pending[worker].wait()
                message = buffers[worker]
                if message[0].item() == DONE:
                    del pending[worker]
                    continue
                self._apply(self._unpack(message), [(worker, int(message[0].item()))])
                self._reply(worker)
                buffers[worker] = self._buffer()
                pending[worker] = dist.irecv(buffers[worker], src=worker)
            start = time.monotonic()

    def staleness(self) -> list[int]:
        """The staleness of every update the server applied, in order (all 0 when synchronous)."""
        return [entry["staleness"] for entry in self.history]
