"""Compile time is recorded apart from kernel time, and the dispatch viewer shows it apart.

A kernel's first call compiles it (Numba, the CUDA compiler): seconds, where running it
takes microseconds. A trace that added the two made a first ReLU look 2 s slow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

import minitorch
from minitorch import dispatch
from minitorch.backends import compile_time, cuda_emulator
from minitorch.widgets import dispatch_trace

COMPILE_PAUSE = 0.05  # seconds a pretend compilation takes


def test_the_clock_counts_a_nested_compilation_once() -> None:
    before = compile_time.seconds()
    with compile_time.compiling():
        time.sleep(COMPILE_PAUSE)
        with compile_time.compiling():  # e.g. Numba compiling a function the kernel calls
            time.sleep(COMPILE_PAUSE)
    spent = compile_time.seconds() - before
    assert 2 * COMPILE_PAUSE <= spent < 4 * COMPILE_PAUSE + 0.5


def test_the_clock_belongs_to_one_thread() -> None:
    before = compile_time.seconds()
    seen_by_other: list[float] = []

    def other() -> None:
        start = compile_time.seconds()
        with compile_time.compiling():
            time.sleep(COMPILE_PAUSE)
        seen_by_other.append(compile_time.seconds() - start)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen_by_other[0] >= COMPILE_PAUSE
    assert compile_time.seconds() == before  # a Playground compiling in its thread adds nothing here


def test_numba_compilations_reach_the_clock() -> None:
    numba = pytest.importorskip("numba")
    compile_time.count_numba_compilations()  # what the Numba backends do when they load

    @numba.njit
    def add_one(x):  # a new function: compiled on its first call
        return x + 1

    before = compile_time.seconds()
    assert add_one(1.5) == 2.5
    compiled = compile_time.seconds() - before
    assert compiled > 0
    before = compile_time.seconds()
    assert add_one(2.5) == 3.5  # compiled already: no time added
    assert compile_time.seconds() == before


@pytest.fixture
def compiling_relu(monkeypatch):
    """The reference backend, whose ``map`` "compiles" for COMPILE_PAUSE seconds on each
    op's first call, as a compiled backend does."""
    with dispatch.backend("reference"):
        module = dispatch.kernels_for("cpu")
        original = module.map
        compiled: set[str] = set()

        def map_that_compiles(op, out, a):
            if op not in compiled:
                with compile_time.compiling():
                    time.sleep(COMPILE_PAUSE)
                compiled.add(op)
            return original(op, out, a)

        monkeypatch.setattr(module, "map", map_that_compiles)
        yield


def test_dispatch_records_compile_time_apart_from_kernel_time(compiling_relu) -> None:
    x = minitorch.tensor([[-1.0, 2.0], [3.0, -4.0]]).t()  # a transposed (strided) input
    with dispatch.trace() as calls:
        first = x.relu()
        second = x.relu()
    assert first.tolist() == second.tolist() == [[0.0, 3.0], [2.0, 0.0]]
    compiled, again = calls
    assert compiled.compile_seconds >= COMPILE_PAUSE
    assert compiled.seconds < COMPILE_PAUSE  # the kernel's own time holds no compiling
    assert again.compile_seconds == 0.0
    calls_, seconds = calls.totals("op")["Relu"]
    assert calls_ == 2 and seconds == pytest.approx(compiled.seconds + again.seconds)


def test_the_viewer_shows_compile_time_apart_and_leaves_it_out_of_the_totals(compiling_relu) -> None:
    x = minitorch.tensor([[-1.0, 2.0], [3.0, -4.0]])
    with dispatch_trace() as trace:
        (x.relu() + x.relu()).sum()
    run = trace.runs[0]
    records = trace.records[0]
    rows = run["records"]
    assert [r["op"] for r in rows[:3]] == ["Relu", "Relu", "Add"]
    assert rows[0]["compile_us"] >= COMPILE_PAUSE * 1e6
    assert all(r["compile_us"] == 0 for r in rows[1:])
    assert rows[0]["us"] < COMPILE_PAUSE * 1e6
    assert run["compiled_calls"] == 1
    assert run["compile_us"] == pytest.approx(records[0].compile_seconds * 1e6, abs=0.01)
    assert run["total_us"] == pytest.approx(sum(r.seconds for r in records) * 1e6, abs=0.05)
    assert run["total_us"] < COMPILE_PAUSE * 1e6  # the totals hold kernel time only
    assert sum(us for _, _, us in run["totals_op"]) == pytest.approx(run["total_us"], abs=0.05)
    text = trace.to_text()
    assert "compile (once)" in text.splitlines()[0] and "not counted" in text
    assert "compile (once)" in trace.to_svg()


def test_without_compiling_nothing_is_marked() -> None:
    x = minitorch.tensor([1.0, -2.0])
    x.relu()  # compiled (if this backend compiles) before the trace
    with dispatch_trace() as trace:
        x.relu()
    assert trace.runs[0]["compile_us"] == 0 and trace.runs[0]["compiled_calls"] == 0
    assert "compile (once)" not in trace.to_text() and "compile (once)" not in trace.to_svg()


def test_a_cuda_kernel_load_is_compile_time(monkeypatch) -> None:
    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    from minitorch.backends import cuda
    from minitorch.backends.cuda import device

    with cuda.emulated():
        x = minitorch.tensor([1.0, -2.0, 3.0], device="cuda")
        x.relu().cpu()
        machine = device.runtime()
        monkeypatch.setattr(machine, "functions", {})  # forget the loaded kernels: load again
        monkeypatch.setattr(machine, "modules", {})
        with dispatch.trace() as calls:
            first = x.relu()
            second = x.relu()
        assert first.cpu().tolist() == second.cpu().tolist() == [1.0, 0.0, 3.0]
    loaded, again = calls
    assert loaded.compile_seconds > 0 and again.compile_seconds == 0.0


FRESH_PROCESS = """
import json, minitorch
from minitorch import dispatch
from minitorch.widgets import dispatch_trace
x = minitorch.randn(64, 64)
with dispatch_trace() as trace:
    x.relu()
    x.relu()
print(json.dumps(trace.runs[0]))
"""


def test_numba_compiling_relu_in_a_fresh_process_is_not_kernel_time(tmp_path) -> None:
    """The case of the issue: a new Numba cache, so the first relu really compiles."""
    pytest.importorskip("numba")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MINITORCH_CPU_BACKEND": "numba",
           "NUMBA_NUM_THREADS": "1"}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], env=env, capture_output=True, text=True,
                          timeout=300, check=True)  # fmt: skip
    run = json.loads(done.stdout.strip().splitlines()[-1])
    first, second = run["records"]
    assert first["compile_us"] > 100_000  # Numba takes a second or more to compile a kernel
    assert first["us"] < first["compile_us"] / 10  # ... and the kernel then runs in far less
    assert second["compile_us"] == 0
    assert run["compiled_calls"] == 1 and run["compile_us"] == first["compile_us"]
    assert run["total_us"] == pytest.approx(first["us"] + second["us"], abs=0.05)
    assert "compiling the Numba kernel for relu" in done.stderr  # the notice still says so
