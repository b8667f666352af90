"""The emulator's stream queues as a device keeps them: a dropped stream still runs its
work and is waited for, and a queue is bounded, so a loop that never synchronizes holds
a bounded backlog of memory.

Timing-free: a stream is held shut by a *gate* at the head of its queue, and the gate
opens when the host starts waiting for one of the stream's items
(``OpensTheGateWhenWaited``). "The host waited" is then a state the test sees; if the
host does not wait, the gate stays shut and the stream's work undone until the test
opens it at the end. PyTorch on the CPU gives the expected values.
"""

from __future__ import annotations

import gc
import threading

import pytest
import torch

import minitorch
from minitorch.backends.cuda import work_queue
from minitorch.backends.cuda.work_queue import collect_launches


class OpensTheGateWhenWaited(threading.Event):
    """A work's ``finished`` flag that opens ``gate`` as soon as a thread waits for it."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate

    def wait(self, timeout: float | None = None) -> bool:
        self.gate.set()
        return super().wait(timeout)


def hold_until_the_host_waits(stream: minitorch.cuda.Stream) -> threading.Event:
    """Hold ``stream`` shut with a gate at the head of its queue, which opens when the
    host waits for it; return the gate (the test opens it at the end, in any case)."""
    gate = threading.Event()
    stream._queue.submit("gate", gate.wait).finished = OpensTheGateWhenWaited(gate)
    return gate


def opens_when_waited(work: work_queue.Work, gate: threading.Event) -> None:
    """Make the host waiting for ``work`` (behind ``gate`` on its stream) open the gate."""
    work.finished = OpensTheGateWhenWaited(gate)


def _read(y: minitorch.Tensor, how: str) -> list[float]:
    if how == "synchronize":
        minitorch.cuda.synchronize()
        return y.tolist()
    if how == "cpu":
        return y.cpu().tolist()
    if how == "numpy":
        return y.cpu().numpy().tolist()
    return [y[i].item() for i in range(y.shape[0])]  # item


@pytest.mark.parametrize("how", ["synchronize", "cpu", "numpy", "item"])
def test_host_reads_wait_for_a_stream_dropped_with_work_queued(emulator, how):
    x = minitorch.zeros(4, device="cuda")
    (x + 1).tolist()  # the kernel compiled, x written
    side = minitorch.cuda.Stream()
    gate = hold_until_the_host_waits(side)
    try:
        with minitorch.cuda.stream(side), collect_launches() as works:
            y = x + 1
        launch = works[-1]
        opens_when_waited(launch, gate)  # the host waiting for y's kernel lets the stream run
        worker = f"minitorch CUDA {launch.stream}"
        del side
        gc.collect()  # the stream object is gone; its queued kernel is not
        got = _read(y, how)
        ran_before_the_read = launch.finished.is_set()
    finally:
        gate.set()
    assert ran_before_the_read
    assert got == (torch.zeros(4) + 1).tolist()
    for thread in threading.enumerate():  # drained, the dropped queue lets its worker go
        if thread.name == worker:
            thread.join(timeout=30)
            assert not thread.is_alive()


def test_a_loop_without_synchronize_holds_a_bounded_backlog_of_memory(emulator, monkeypatch):
    monkeypatch.setattr(work_queue, "MAX_QUEUED_BYTES", 256 * 1024, raising=False)
    bound = work_queue.MAX_QUEUED_BYTES
    y = minitorch.zeros(4096, device="cuda")  # 16 KiB: one launch of y + 1 holds 32 KiB
    y = y + 1
    minitorch.cuda.synchronize()
    side = minitorch.cuda.Stream()
    minitorch.cuda.reset_peak_memory_stats()
    start = minitorch.cuda.memory_allocated()
    gate = hold_until_the_host_waits(side)
    try:
        with minitorch.cuda.stream(side):
            for _ in range(200):  # 6.4 MiB of operands if every launch stayed queued
                y = y + 1
        peak = minitorch.cuda.max_memory_allocated()
    finally:
        gate.set()
    assert peak - start <= bound + 64 * 1024
    assert y.tolist() == (torch.zeros(4096) + 201).tolist()


def test_a_queue_holds_at_most_a_gpus_number_of_launches(emulator):
    limit = getattr(work_queue, "MAX_QUEUED_LAUNCHES", 1024)
    y = minitorch.zeros(1, device="cuda")
    y = y + 1
    side = minitorch.cuda.Stream()
    most = first_unfinished = 0
    gate = hold_until_the_host_waits(side)
    try:
        with minitorch.cuda.stream(side), collect_launches() as works:
            for _ in range(limit + 100):
                y = y + 1
                while works[first_unfinished].finished.is_set():  # a stream runs in order
                    first_unfinished += 1
                most = max(most, len(works) - first_unfinished)
    finally:
        gate.set()
    assert most <= limit
    assert y.item() == limit + 101


def test_a_launch_larger_than_the_bound_runs_alone(emulator, monkeypatch):
    monkeypatch.setattr(work_queue, "MAX_QUEUED_BYTES", 1024, raising=False)
    x = minitorch.arange(10_000, device="cuda", dtype=minitorch.float32)
    side = minitorch.cuda.Stream()
    with minitorch.cuda.stream(side):
        y = (x * 2 + 1).sum()
    assert y.item() == (torch.arange(10_000, dtype=torch.float32) * 2 + 1).sum().item()
