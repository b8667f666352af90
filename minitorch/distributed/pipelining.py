"""Model parallelism as a pipeline (GPipe), with PyTorch's names
(``torch.distributed.pipelining``): the layers of one model split across ranks.

When a model is too big for one device, put its first layers on rank 0 and the rest on
rank 1. Rank 1 needs rank 0's output before it can start, and rank 0 needs rank 1's
gradient before it can run its backward: with one batch, only one rank works at a time.
GPipe cuts the batch into ``M`` *micro-batches* and runs them in a wave::

    rank 0:  F0 F1 F2 F3 .  .  .  .  .  .  B0 B1 B2 B3        F = forward of micro-batch m
    rank 1:  .  F0 F1 F2 F3 B0 B1 B2 B3 .  .  .  .  .         B = backward, "." = idle

Each stage receives its input from the stage before (``recv``), runs its layers, and sends
the activation on (``isend``); the backward pass runs the same road the other way, sending
the gradient of each stage's input back. The idle slots at the two ends are the *bubble*:
with ``S`` stages of equal cost, a fraction ``(S - 1) / (M + S - 1)`` of each stage's time
(``bubble_fraction``). More micro-batches shrink it; each costs a message and keeps its
activations until its backward.

Gradients are those of one process training on the whole batch: each micro-batch's loss
is back-propagated on its own and the summed gradients are divided by ``M``
(``scale_grads=True``, as PyTorch), which for a mean loss over equal micro-batches is the
gradient of the mean over the batch. A schedule records what each rank did and when
(``timeline``, the events of ``minitorch.widgets.rank_timeline``), and from it the bubble
it really had (``measured_bubble``).

    stage = PipelineStage(layers_of_this_rank, stage_index=rank, num_stages=2)
    schedule = ScheduleGPipe(stage, n_microbatches=4, loss_fn=nn.functional.mse_loss)
    if rank == 0:
        schedule.step(x)                    # the first stage gets the input
    else:
        losses = []
        schedule.step(target=y, losses=losses)  # the last stage gets the target
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from minitorch import creation, dtypes
from minitorch import distributed as dist
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.module import Module
from minitorch.ops.shape import cat

HEADER = 8  # an activation's header: [ndim, dtype code, size of each dimension...]
DTYPES = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)


def bubble_fraction(num_stages: int, n_microbatches: int) -> float:
    """The share of each stage's time spent idle in a GPipe step, stages of equal cost:
    the wave takes ``M + S - 1`` slots per pass, of which a stage works ``M``."""
    for name, value in (("num_stages", num_stages), ("n_microbatches", n_microbatches)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    return (num_stages - 1) / (n_microbatches + num_stages - 1)


def simulate_gpipe(num_stages: int, n_microbatches: int, forward: float = 1.0,
                   backward: float = 2.0) -> list[dict]:  # fmt: skip
    """The GPipe schedule on paper: the events each stage would record if a forward took
    ``forward`` seconds and a backward ``backward`` on every stage and messages were free.
    A stage starts a micro-batch as soon as it is free and its input has arrived::

        forward of m on stage s  starts at max(end of F(m) on s - 1, end of F(m - 1) on s)
        backward of m on stage s starts at max(end of B(m) on s + 1, end of B(m - 1) on s,
                                               end of F(M - 1) on s)
    """
    bubble_fraction(num_stages, n_microbatches)
    S, M = num_stages, n_microbatches
    f_end = [[0.0] * M for _ in range(S)]
    b_end = [[0.0] * M for _ in range(S)]
    events = []
    for s in range(S):
        for m in range(M):
            start = max(f_end[s - 1][m] if s else 0.0, f_end[s][m - 1] if m else 0.0)
            f_end[s][m] = start + forward
            events.append({"rank": s, "kind": "forward", "name": f"F{m}", "start": start, "end": f_end[s][m]})
    for s in reversed(range(S)):
        for m in range(M):
            start = max(b_end[s + 1][m] if s < S - 1 else 0.0, b_end[s][m - 1] if m else f_end[s][M - 1])
            b_end[s][m] = start + backward
            events.append({"rank": s, "kind": "backward", "name": f"B{m}", "start": start,
                           "end": b_end[s][m]})  # fmt: skip
    return events


class PipelineStage:
    """The part of a model that runs on this rank: ``submodule`` is stage ``stage_index``
    of ``num_stages``; stage ``i`` runs on rank ``i``."""

    def __init__(self, submodule: Module, stage_index: int, num_stages: int,
                 device: Any = None) -> None:  # fmt: skip
        if not isinstance(submodule, Module):
            raise TypeError(f"submodule must be an nn.Module, got {type(submodule).__name__}")
        if not isinstance(stage_index, int) or not isinstance(num_stages, int):
            raise TypeError("stage_index and num_stages must be ints")
        if not 0 <= stage_index < num_stages:
            raise ValueError(f"stage_index must be in [0, {num_stages}), got {stage_index}")
        if dist.is_initialized() and num_stages > dist.get_world_size():
            world = dist.get_world_size()
            raise ValueError(f"{num_stages} stages need {num_stages} ranks; the world has {world}")
        self.submodule, self.stage_index, self.num_stages = submodule, stage_index, num_stages
        self.device = device
        self.is_first = stage_index == 0
        self.is_last = stage_index == num_stages - 1


class ScheduleGPipe:
    """All forwards of the micro-batches, then all backwards (see the module docstring)."""

    def __init__(self, stage: PipelineStage, n_microbatches: int, loss_fn: Callable | None = None,
                 scale_grads: bool = True) -> None:  # fmt: skip
        if not isinstance(stage, PipelineStage):
            raise TypeError(f"stage must be a PipelineStage, got {type(stage).__name__}")
        bubble_fraction(stage.num_stages, n_microbatches)  # checks n_microbatches
        if stage.is_last and loss_fn is None:
            raise ValueError("the last stage needs loss_fn to start the backward pass")
        self.stage, self.n_microbatches = stage, n_microbatches
        self.loss_fn, self.scale_grads = loss_fn, scale_grads
        self.timeline: list[dict] = []
        self._pending: list[Any] = []  # isend work handles and the tensors they send

    # ----- one training step -----------------------------------------------------------

    def step(self, *args: Any, target: Any = None, losses: list | None = None) -> Any:
        """Run one step: the first stage passes the input batch, the last its ``target``
        (and a list ``losses`` to receive each micro-batch's loss). Returns the last
        stage's output for the whole batch (``None`` on the other stages). Gradients
        accumulate into the stage's parameters; call the optimizer after."""
        stage = self.stage
        M = self.n_microbatches
        if stage.is_first:
            if len(args) != 1 or not isinstance(args[0], Tensor):
                raise TypeError("the first stage's step takes the input batch: schedule.step(x)")
            inputs = _split(args[0], M, "input")
        if stage.is_last:
            if not isinstance(target, Tensor):
                raise TypeError("the last stage's step takes the target: schedule.step(target=y)")
            targets = _split(target, M, "target")
        self.timeline = []
        saved = []  # (input, output or loss) of each micro-batch, kept for its backward
        outputs = []
        for m in range(M):
            x = inputs[m] if stage.is_first else self._receive(stage.stage_index - 1, f"activation {m}")
            if not stage.is_first:
                x.requires_grad_(True)
            with self._event("forward", f"F{m}"):
                out = stage.submodule(x)
                if stage.is_last:
                    outputs.append(out.detach())
                    out = self.loss_fn(out, targets[m])
                    if losses is not None:
                        losses.append(out.detach())
            if not stage.is_last:
                self._send(out.detach(), stage.stage_index + 1, f"activation {m}")
            saved.append((x, out))
        for m in range(M):
            x, out = saved[m]
            if stage.is_last:
                with self._event("backward", f"B{m}"):
                    out.backward()
            else:
                grad = self._receive(stage.stage_index + 1, f"gradient {m}")
                with self._event("backward", f"B{m}"):
                    out.backward(grad)
            if not stage.is_first:
                self._send(x.grad, stage.stage_index - 1, f"gradient {m}")
            saved[m] = None  # this micro-batch's activations can go
        self._finish_sends()
        if self.scale_grads:
            with no_grad():
                for p in stage.submodule.parameters():
                    if p.grad is not None:
                        p.grad.div_(M)
        return cat(outputs) if stage.is_last else None

    def measured_bubble(self) -> float:
        """The share of this rank's step it did not compute: 1 - compute / span."""
        if not self.timeline:
            raise RuntimeError("run schedule.step(...) first: there is no timeline yet")
        busy = sum(e["end"] - e["start"] for e in self.timeline if e["kind"] in ("forward", "backward"))
        span = max(e["end"] for e in self.timeline) - min(e["start"] for e in self.timeline)
        return 1.0 - busy / span if span > 0 else 0.0

    # ----- messages between stages -------------------------------------------------------

    def _send(self, tensor: Tensor, dst: int, what: str) -> None:
        """Send a header (shape and dtype), then the tensor, without waiting for them."""
        tensor = tensor.contiguous()
        if tensor.dim() > HEADER - 2 or tensor.dtype not in DTYPES:
            raise ValueError(f"a pipeline sends float tensors of at most {HEADER - 2} dims, "
                             f"got {tensor.dtype} {tuple(tensor.shape)}")  # fmt: skip
        header = [tensor.dim(), DTYPES.index(tensor.dtype), *tensor.shape]
        header = creation.tensor(header + [0] * (HEADER - len(header)), dtype=dtypes.int64)
        with self._event("send", f"send {what}"):
            for message in (header, tensor):
                self._pending.append((dist.isend(message, dst), message))

    def _receive(self, src: int, what: str) -> Tensor:
        """Receive a header, then a tensor of the shape and dtype it names. The time spent
        here is time waiting for the other stage: the bubble."""
        with self._event("wait", f"recv {what}"):
            header = creation.zeros(HEADER, dtype=dtypes.int64)
            dist.recv(header, src)
            ndim, code, *sizes = (int(v) for v in header.tolist())
            tensor = creation.empty(tuple(sizes[:ndim]), dtype=DTYPES[code])
            dist.recv(tensor, src)
        return tensor

    def _finish_sends(self) -> None:
        with self._event("wait", "finish sends"):
            for work, _message in self._pending:
                work.wait()
        self._pending = []

    def _event(self, kind: str, name: str) -> _Timed:
        return _Timed(self.timeline, self.stage.stage_index, kind, name)


class _Timed:
    """``with _Timed(events, rank, kind, name):`` appends one timeline event for the block."""

    def __init__(self, events: list, rank: int, kind: str, name: str) -> None:
        self.events, self.rank, self.kind, self.name = events, rank, kind, name

    def __enter__(self) -> None:
        self.start = time.monotonic()

    def __exit__(self, *exc_info: Any) -> None:
        self.events.append({"rank": self.rank, "kind": self.kind, "name": self.name,
                            "start": self.start, "end": time.monotonic()})  # fmt: skip


def _split(batch: Tensor, n: int, what: str) -> list:
    if batch.shape[0] % n:
        raise ValueError(f"the {what} batch of {batch.shape[0]} does not split into {n} equal micro-batches")
    return list(batch.chunk(n))
