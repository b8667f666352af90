"""Does the Numba backend's parallel policy ever lose to one thread? (issue 12 item 1)

    python -m benchmarks.parallel               # the table: each kernel in four conditions
    python -m benchmarks.parallel --thresholds  # where parallel starts to pay, per primitive

The table times each kernel in a fresh process per condition:

* ``1 thread``  -- ``NUMBA_NUM_THREADS=1``: the yardstick;
* ``quiet``     -- the default threads, the machine as it is;
* ``pinned``    -- the process confined to one core (``taskset -c 0``);
* ``loaded``    -- beside a busy loop on core 1 (``taskset -c 1``), which competes with
  one of our two threads. The busy process is always stopped, even on Ctrl-C.

and prints each condition's time over the 1-thread time (the target: at most 1.2 in
``pinned`` and ``loaded``). ``--thresholds`` times serial and parallel (forced) at growing
sizes and prints the smallest size where parallel was 10% faster: the numbers in
``minitorch/backends/numba/parallel_policy.py`` come from it. Timing only, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KERNELS = {  # name -> (setup, statement), run with minitorch imported as mt
    "(2000,3) @ (3,1)": ("a = mt.randn(2000, 3); b = mt.randn(3, 1)", "a @ b"),
    "add 1000x1000 f32": ("a = mt.randn(1000, 1000); b = mt.randn(1000, 1000)", "a + b"),
    "add a.T + b 1000x1000": ("a = mt.randn(1000, 1000); b = mt.randn(1000, 1000)", "a.T + b"),
    "exp 1000x1000": ("a = mt.randn(1000, 1000)", "a.exp()"),
    "sum 2000x2000": ("a = mt.randn(2000, 2000)", "a.sum()"),
    "sum(dim=0) 1000x1000": ("a = mt.randn(1000, 1000)", "a.sum(0)"),
    "matmul 256": ("a = mt.randn(256, 256); b = mt.randn(256, 256)", "a @ b"),
}

TIMER = """
import json, sys, time
import minitorch as mt
result = {}
for name, (setup, statement) in json.loads(sys.argv[1]).items():
    scope = {"mt": mt}
    exec(setup, scope)
    run = compile(statement, name, "eval")
    for _ in range(3):
        eval(run, scope)
    times = []
    for _ in range(15):  # median of 15 batches: a busy machine is part of what we measure
        start = time.perf_counter()
        for _ in range(10):
            eval(run, scope)
        times.append((time.perf_counter() - start) / 10)
    result[name] = sorted(times)[len(times) // 2]
print(json.dumps(result))
"""


@contextlib.contextmanager
def competing_process(core: int = 1) -> Iterator[None]:
    """A busy Python loop pinned to ``core`` for the duration of the block, always stopped."""
    busy = subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)  # let it start spinning
        yield
    finally:
        busy.kill()
        busy.wait()


def time_kernels(prefix: list[str], env: dict) -> dict:
    """``{kernel: median seconds}`` measured in a fresh process started with ``prefix``."""
    command = [*prefix, sys.executable, "-c", TIMER, json.dumps(KERNELS)]
    output = subprocess.run(command, env={**os.environ, **env}, cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout  # fmt: skip
    return json.loads(output)


def policy_table() -> None:
    single = time_kernels([], {"NUMBA_NUM_THREADS": "1"})
    columns = {"quiet": time_kernels([], {}), "pinned": time_kernels(["taskset", "-c", "0"], {})}
    with competing_process():
        columns["loaded"] = time_kernels([], {})
        single_loaded = time_kernels([], {"NUMBA_NUM_THREADS": "1"})
    print(f"{'kernel':<24}{'1 thread':>10}" + "".join(f"{c:>10}" for c in columns) + "   (ratio to 1 thread;"
          " loaded vs 1 thread loaded)")  # fmt: skip
    for name in KERNELS:
        base = single[name]
        ratios = [columns["quiet"][name] / base, columns["pinned"][name] / base]
        ratios.append(columns["loaded"][name] / single_loaded[name])
        print(f"{name:<24}{base * 1e3:>8.3f}ms" + "".join(f"{r:>10.2f}" for r in ratios))


THRESHOLD_SCAN = """
import sys, time
import numpy as np
from minitorch.backends import Strided
from minitorch.backends.numba import map, zip, reduce, matmul
from minitorch.backends.numba.parallel_policy import force

def strided(shape):
    data = np.random.default_rng(0).standard_normal(int(np.prod(shape))).astype(np.float32)
    return Strided(data, shape, tuple(int(np.prod(shape[d + 1:])) for d in range(len(shape))), 0)

def best(call):
    call()
    times = []
    for _ in range(30):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)

def elementwise(primitive, op):
    def make(n):
        a, out = strided((n,)), strided((n,))
        if primitive == "map":
            return lambda: map(op, out, a)
        return lambda: zip(op, out, a, a)
    return make

def row_sums(n):  # n elements read, rows of 64
    a, out = strided((n // 64, 64)), strided((n // 64, 1))
    return lambda: reduce("sum", out, a, 1)

def square_matmul(n):  # about n multiply-adds
    side = round(n ** (1 / 3))
    a, out = strided((1, side, side)), strided((1, side, side))
    return lambda: matmul(out, a, a)

cases = {"map exp": elementwise("map", "exp"), "map neg": elementwise("map", "neg"),
         "zip add": elementwise("zip", "add"), "reduce sum(dim=-1)": row_sums, "matmul": square_matmul}
for name, make in cases.items():
    found = None
    for exponent in range(12, 25):
        call = make(1 << exponent)
        with force("serial"):
            serial = best(call)
        with force("parallel"):
            parallel = best(call)
        if parallel < serial / 1.1:
            found = 1 << exponent
            break
    print(f"{name:<22} parallel 10% faster from {found} units (2^{exponent})")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thresholds", action="store_true", help="scan where parallel starts to pay")
    args = parser.parse_args()
    if args.thresholds:
        subprocess.run([sys.executable, "-c", THRESHOLD_SCAN], cwd=ROOT, check=True)
    else:
        policy_table()


if __name__ == "__main__":
    main()
