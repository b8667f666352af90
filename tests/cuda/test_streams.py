"""CUDA streams and events on the emulator: launches return at once, host reads wait.

Timing-free: instead of comparing wall-clock times, a test holds a stream shut with a
*gate* (an item at the head of its queue that waits for the test), so "the launch
returned before the kernel ran" is an ordering the test controls. PyTorch's CUDA
semantics are the oracle: the same calls, the values compared with torch on the CPU.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import pickle
import signal
import threading

import numpy as np
import pytest
import torch

import minitorch
from minitorch.backends import cuda_emulator
from minitorch.backends.cuda import device, launcher
from minitorch.backends.cuda_emulator import EmulatorError, RawModule


@contextlib.contextmanager
def gated(stream: minitorch.cuda.Stream):
    """Hold ``stream`` shut inside the block: work queued on it waits until the end."""
    gate = threading.Event()
    stream._queue.submit("gate", gate.wait)
    try:
        yield
    finally:
        gate.set()


def host(values: np.ndarray) -> minitorch.Tensor:
    return minitorch.tensor(values)


def test_launch_returns_before_the_kernel_runs_and_item_waits(emulator):
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = host(values).to("cuda").t()  # a transposed view
    side = minitorch.cuda.Stream()
    with minitorch.cuda.stream(side), gated(side):
        with minitorch.dispatch.trace() as calls:
            y = (x * 2).sum()  # both launches return while the stream is shut
        assert not side.query()
        (mul_work,) = calls[0].launches
        assert not mul_work.finished.is_set()
        returned = calls[-1].issued + calls[-1].seconds
    assert y.item() == (torch.tensor(values).t() * 2).sum().item()  # item() waits
    assert side.query()
    assert returned < mul_work.start  # the classic bug: timing the launch measured no kernel


def test_events_time_the_kernels_between_them(emulator):
    a = minitorch.ones(48, 48, device="cuda")
    start, middle, end = (minitorch.cuda.Event(enable_timing=True) for _ in range(3))
    start.record()
    with minitorch.dispatch.trace() as calls:
        b = a @ a
    middle.record()
    c = b @ a
    end.record()
    end.synchronize()
    assert start.query() and middle.query() and end.query()
    (matmul,) = calls[0].launches
    first, both = start.elapsed_time(middle), start.elapsed_time(end)
    assert 0 <= (matmul.end - matmul.start) * 1e3 <= first <= both
    assert c[0, 0].item() == 48 * 48


def test_wait_stream_orders_a_consumer_after_its_producer(emulator):
    values = np.linspace(-1, 1, 10, dtype=np.float32)
    x = host(values).to("cuda")
    producer, consumer = minitorch.cuda.Stream(), minitorch.cuda.Stream()
    # Without wait_stream the streams have no order: the consumer runs while the
    # producer is still held, and reads y before it is written (a race on a GPU).
    with gated(producer):
        with minitorch.cuda.stream(producer):
            y = x * 3
        with minitorch.cuda.stream(consumer):
            (y + 1).sum()
        consumer.synchronize()
        assert not producer.query()
    # With it, the consumer waits for everything queued on the producer so far.
    with gated(producer):
        with minitorch.cuda.stream(producer):
            y = x * 3
        consumer.wait_stream(producer)
        with minitorch.cuda.stream(consumer):
            z = (y + 1)[2:]
        assert not consumer.query()
    expected = (torch.tensor(values) * 3 + 1)[2:]
    np.testing.assert_allclose(z.cpu().numpy(), expected.numpy(), rtol=1e-6)


def test_wait_event_and_event_wait(emulator):
    values = np.arange(6, dtype=np.float32)
    x = host(values).to("cuda")
    producer, consumer = minitorch.cuda.Stream(), minitorch.cuda.Stream()
    ready = minitorch.cuda.Event()
    with gated(producer):
        with minitorch.cuda.stream(producer):
            y = x - 1
            ready.record()
        assert not ready.query()
        ready.wait(consumer)
        with minitorch.cuda.stream(consumer):
            z = y * y
        assert not consumer.query()
    ready.synchronize()
    assert z.tolist() == ((torch.tensor(values) - 1) ** 2).tolist()


def test_current_and_default_streams(emulator):
    default = minitorch.cuda.default_stream()
    assert minitorch.cuda.current_stream() == default
    side = minitorch.cuda.Stream(priority=-1)
    assert side.priority == -1 and side != default and side.device == minitorch.device("cuda:0")
    with minitorch.cuda.stream(side):
        assert minitorch.cuda.current_stream() == side
        seen = []
        thread = threading.Thread(target=lambda: seen.append(minitorch.cuda.current_stream()))
        thread.start()
        thread.join()
        assert seen == [default]  # the current stream belongs to each host thread
        with minitorch.cuda.stream(None):  # None changes nothing, as in PyTorch
            assert minitorch.cuda.current_stream() == side
    assert minitorch.cuda.current_stream() == default
    minitorch.cuda.set_stream(side)
    try:
        assert minitorch.cuda.current_stream() == side
        minitorch.cuda.set_stream(None)  # no change, as in PyTorch
        assert minitorch.cuda.current_stream() == side
    finally:
        minitorch.cuda.set_stream(default)
    assert "stream" in repr(side) and "not recorded" in repr(minitorch.cuda.Event())


def test_non_blocking_copies(emulator):
    values = np.arange(24, dtype=np.float32).reshape(4, 6)
    reference = torch.tensor(values)
    side = minitorch.cuda.Stream()
    source = host(values)
    with minitorch.cuda.stream(side), gated(side):
        moved = source.t().to("cuda", non_blocking=True)  # a transposed view
        sliced = source[1:, ::2].cuda(non_blocking=True)  # a strided slice
        assert not side.query()  # the copies are queued
    np.testing.assert_array_equal(moved.cpu().numpy(), reference.t().numpy())
    np.testing.assert_array_equal(sliced.cpu().numpy(), reference[1:, ::2].numpy())
    leaf = minitorch.tensor(values, requires_grad=True)
    (leaf.to("cuda", non_blocking=True) * 2).sum().backward()
    assert leaf.grad.device.type == "cpu" and leaf.grad.tolist() == np.full((4, 6), 2.0).tolist()
    empty = host(np.zeros((0, 3), dtype=np.float32)).to("cuda", non_blocking=True)
    assert empty.shape == (0, 3) and empty.cpu().shape == (0, 3)
    assert host(np.float32(5.0)).cuda(non_blocking=True).item() == 5.0  # 0-d


def test_event_errors_like_pytorch(emulator):
    timed, untimed = minitorch.cuda.Event(enable_timing=True), minitorch.cuda.Event()
    with pytest.raises(RuntimeError, match="Both events must be recorded"):
        timed.elapsed_time(minitorch.cuda.Event(enable_timing=True))
    timed.record()
    untimed.record()
    timed.synchronize()  # done before `end` below is even recorded: elapsed_time >= 0
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        timed.elapsed_time(untimed)
    side, end = minitorch.cuda.Stream(), minitorch.cuda.Event(enable_timing=True)
    with gated(side):
        end.record(side)
        with pytest.raises(RuntimeError, match="not ready"):
            timed.elapsed_time(end)
    end.synchronize()
    assert timed.elapsed_time(end) >= 0
    never = minitorch.cuda.Event()
    assert never.query()
    never.synchronize()  # a never-recorded event is no wait, as in CUDA
    side.wait_event(never)


def test_streams_of_a_missing_device(emulator, monkeypatch):
    with pytest.raises(RuntimeError, match="out of range"):
        minitorch.cuda.Stream(device="cuda:1")
    with pytest.raises(ValueError, match="Expected a cuda device"):
        minitorch.cuda.current_stream("cpu")
    assert minitorch.cuda.Stream(device=0) != minitorch.cuda.Stream("cuda:0")
    if device.gpu_problem() is None:
        return
    monkeypatch.setattr(device, "_mode", "auto")  # no emulator, and no GPU here
    with pytest.raises(RuntimeError, match="use_emulator"):
        minitorch.cuda.Stream()
    with pytest.raises(RuntimeError, match="use_emulator"):
        minitorch.cuda.Event().record()


FAILING = r"""
extern "C" __global__ void leaves_early(float* out, int n)
{
    if ((int)threadIdx.x >= n) return;   // threads leave before the barrier
    __syncthreads();
    out[threadIdx.x] = 1.0f;
}
"""


def test_a_kernel_error_surfaces_at_the_next_synchronizing_call(emulator):
    kernel = RawModule(FAILING, name="stream_error_test").get_function("leaves_early")
    out = minitorch.zeros(64, device="cuda")

    def launch_failing() -> None:
        launcher.launch(kernel, (1,), (64,), (out._storage, np.int32(10)))  # returns at once

    launch_failing()
    with pytest.raises(EmulatorError, match="leaves_early") as error:
        minitorch.cuda.synchronize()
    assert "asynchronous" in "".join(error.value.__notes__)
    minitorch.cuda.synchronize()  # reported once; the device keeps working
    launch_failing()
    with pytest.raises(EmulatorError):
        out.sum().item()  # a host read synchronizes too
    side = minitorch.cuda.Stream()
    with minitorch.cuda.stream(side):
        launch_failing()
    with pytest.raises(EmulatorError):
        side.synchronize()
    assert (minitorch.ones(3, device="cuda") + 1).tolist() == [2.0, 2.0, 2.0]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
def test_a_forked_child_cannot_use_the_parents_streams(emulator):
    side, event = minitorch.cuda.Stream(), minitorch.cuda.Event()
    event.record(side)
    side.synchronize()
    pid = os.fork()
    if pid == 0:  # the child: both must refuse, with PyTorch's advice
        code = 0
        for use in (side.synchronize, event.synchronize):
            try:
                use()
                code = 1
            except RuntimeError as error:
                code = code or (0 if "spawn" in str(error) else 2)
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_streams_and_events_stay_in_their_process(emulator):
    for thing in (minitorch.cuda.Stream(), minitorch.cuda.Event()):
        with pytest.raises(TypeError, match="cannot pickle a CUDA"):
            pickle.dumps(thing)
    with pytest.raises(NotImplementedError, match="interprocess"):
        minitorch.cuda.Event(interprocess=True)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
def test_a_child_forked_during_a_launch_can_launch(emulator):
    """Fork while a stream's worker is inside a kernel (here: holds the emulator's launch
    lock): the child, which has no such worker, must still run its own kernels."""
    x = minitorch.ones(4, device="cuda")
    (x + 1).tolist()  # compiled before the fork
    with cuda_emulator._launch_lock:
        pid = os.fork()
        if pid == 0:
            signal.alarm(60)  # a deadlock ends the child, not the test run
            code = 3
            try:
                code = 0 if (x + 1).tolist() == [2.0] * 4 else 1
            except BaseException as error:  # noqa: BLE001 - reported through the exit code
                print("child:", type(error).__name__, error, flush=True)
            finally:
                os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_work_keeps_its_operands_alive(emulator):
    side = minitorch.cuda.Stream()
    gc.collect()
    gc.disable()  # (the collector freeing other tests' garbage would move the counts)
    try:
        with minitorch.cuda.stream(side), gated(side):
            x = host(np.arange(50_000, dtype=np.float32)).to("cuda")
            y = x + 1
            held = minitorch.cuda.memory_allocated()
            del x  # the queued kernel still holds x's memory
            assert minitorch.cuda.memory_allocated() == held
        assert y[:5].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]  # waits for the kernel, which lets x go
        assert minitorch.cuda.memory_allocated() <= held - 50_000 * 4
    finally:
        gc.enable()


def test_a_dropped_stream_lets_its_worker_thread_go(emulator):
    side = minitorch.cuda.Stream()
    with minitorch.cuda.stream(side):
        minitorch.ones(3, device="cuda").tolist()
    worker = f"minitorch CUDA {side._queue.name}"
    assert worker in [t.name for t in threading.enumerate()]
    del side
    gc.collect()
    for thread in threading.enumerate():
        if thread.name == worker:
            thread.join(timeout=30)
            assert not thread.is_alive()


def test_dispatch_viewer_draws_a_host_row_and_one_row_per_stream(emulator):
    pytest.importorskip("anywidget")
    from minitorch.widgets.dispatch_viewer import run_json

    x = minitorch.ones(8, device="cuda")
    side = minitorch.cuda.Stream()
    with minitorch.dispatch.trace() as calls:
        y = x * 2  # default stream
        with minitorch.cuda.stream(side), gated(side):
            z = x + 3  # side stream, held until the block ends
    timeline = run_json("cuda", calls)["timeline"]
    rows = dict(timeline["streams"])
    assert set(rows) == {"default stream", side._queue.name}
    assert [i for i, _, _ in timeline["host"]] == [0, 1]
    (host_bar,) = [bar for bar in timeline["host"] if bar[0] == 1]
    (side_bar,) = rows[side._queue.name]
    assert side_bar[0] == 1 and host_bar[2] <= side_bar[1] <= side_bar[2] <= timeline["span_us"]
    assert rows["default stream"][0][0] == 0
    assert y.tolist() == [2.0] * 8 and z.tolist() == [4.0] * 8
    with minitorch.dispatch.trace() as cpu_calls:
        minitorch.ones(3) + 1
    cpu = run_json("cpu", cpu_calls)["timeline"]
    assert cpu["streams"] == [] and len(cpu["host"]) == len(cpu_calls) >= 1


def test_the_profiler_shows_cuda_time_apart_from_launch_time(emulator, tmp_path):
    a = minitorch.ones(32, 32, device="cuda")
    (a @ a).sum().item()  # compiled before profiling
    side = minitorch.cuda.Stream()
    with minitorch.profiler.profile() as prof:
        with minitorch.cuda.stream(side), gated(side):
            with minitorch.dispatch.trace() as calls:
                b = a @ a
    assert b[0, 0].item() == 32
    (matmul,) = calls[0].launches
    row = next(r for r in prof.key_averages() if r.key == "Mm")
    assert row.self_device_time_total == pytest.approx((matmul.end - matmul.start) * 1e6)
    assert row.self_cuda_time_total == row.device_time_total == row.self_device_time_total > 0
    table = prof.key_averages().table(sort_by="cuda_time_total")
    assert "Self CUDA" in table and "Self CUDA time total" in table
    assert "Self CUDA" not in minitorch.profiler.profile().key_averages().table()
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M"}
    host, kernel = (e for e in events if e["ph"] == "X" and e["name"] == "Mm")
    assert tracks[host["tid"]] == "host (Python)" and tracks[kernel["tid"]] == side._queue.name
    assert host["ts"] + host["dur"] <= kernel["ts"]  # the stream was held: it ran after the launch


@pytest.mark.gpu
def test_streams_and_events_on_a_gpu():
    with device.running_on("gpu"):
        x = minitorch.ones(256, 256, device="cuda")
        side = minitorch.cuda.Stream()
        start, end = minitorch.cuda.Event(enable_timing=True), minitorch.cuda.Event(enable_timing=True)
        with minitorch.cuda.stream(side):
            start.record()
            y = x @ x
            end.record()
        minitorch.cuda.current_stream().wait_stream(side)
        z = y + 1
        end.synchronize()
        assert start.elapsed_time(end) >= 0 and end.query()
        assert z[3, 4].item() == 257
        assert x.cpu().to("cuda", non_blocking=True).sum().item() == 256 * 256


@pytest.mark.skipif(not os.environ.get("MINITORCH_FUZZ"), reason="stress loop: set MINITORCH_FUZZ=1")
def test_random_programs_on_several_streams(emulator):
    """Random chains of ops spread over three streams, each step made to wait for the
    streams that wrote its inputs: every result equals the same program on the CPU."""
    generator = np.random.default_rng(int(os.environ.get("MINITORCH_FUZZ_SEED", "0")))
    lanes = [minitorch.cuda.default_stream(), minitorch.cuda.Stream(), minitorch.cuda.Stream()]
    for _ in range(int(os.environ.get("MINITORCH_FUZZ_ROUNDS", "20"))):
        start = generator.standard_normal((5, 7)).astype(np.float32)
        values, tensors, writers = [torch.tensor(start)], [host(start).to("cuda", non_blocking=True)], [0]
        for _ in range(12):
            a, b = generator.integers(len(values), size=2)
            lane = int(generator.integers(len(lanes)))
            for source in {writers[a], writers[b]}:
                lanes[lane].wait_stream(lanes[source])
            op = generator.choice(["add", "mul", "tanh", "t_add"])
            with minitorch.cuda.stream(lanes[lane]):
                if op == "add":
                    result, expected = tensors[a] + tensors[b], values[a] + values[b]
                elif op == "mul":
                    result, expected = tensors[a] * tensors[b], values[a] * values[b]
                elif op == "tanh":
                    result, expected = tensors[a].tanh(), values[a].tanh()
                else:  # a transposed operand
                    result = (tensors[a].t() + tensors[b].t()).t()
                    expected = (values[a].t() + values[b].t()).t()
            values.append(expected)
            tensors.append(result)
            writers.append(lane)
        for got, expected in zip(tensors, values):
            np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
