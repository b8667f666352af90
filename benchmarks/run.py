"""Side-by-side benchmarks: minitorch (Numba and reference backends) vs NumPy and PyTorch.

Run from the repository root (a few minutes on 2 cores)::

    python -m benchmarks.run                 # everything
    python -m benchmarks.run --quick         # fewer sizes, shorter timings
    python -m benchmarks.run --skip-cold     # skip the cold-start measurement (~1 min)
    python -m benchmarks.run --pinned        # every library confined to one core
    python -m benchmarks.run --loaded        # beside a busy process on core 1
    python -m benchmarks.run --both          # quiet and loaded columns in one table

Prints one table and writes it as JSON to ``benchmarks/results/``, with a bar chart of the
ratios beside it (the same name, ``.png``: ``chart.py``). Each workload is timed
for every implementation in the same run; a ratio is *minitorch's speed / the peer's
speed* (``peer time / minitorch time``): 1.0 means as fast, 0.5 means twice as slow.
Each target is checked in every condition measured (ok / MISSED); ``*`` marks those of
issue 12, ``+`` those of issue 13 (a step compiled by ``minitorch.compile`` against
PyTorch's eager step). Timings are the fastest of many short batches (the machine may be shared).
Nothing here is a test: speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # allow `python benchmarks/run.py` without installing
    sys.path.insert(0, str(ROOT))

import minitorch  # noqa: E402
from benchmarks.chart import write_ratio_chart  # noqa: E402
from benchmarks.parallel import competing_process  # noqa: E402
from benchmarks.workloads import WORKLOADS, Workload  # noqa: E402

try:
    import torch
except ImportError:  # PyTorch is optional: its columns are then empty
    torch = None

IMPLEMENTATIONS = ("numba", "reference", "numpy", "torch")


def best_time(fn, budget: float) -> float:
    """Seconds per call: the fastest of many short batches (each about 0.2 milliseconds,
    at least one call) run for ``budget`` seconds in all, at least three batches (a call
    longer than the budget, such as a 2,000-step training loop: two). On a shared machine
    some calls wait for a busy core; the fastest batch shows what the code itself costs."""
    fn()  # warm up (compilation, caches)
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    calls = max(1, int(2e-4 / once))
    best = once
    deadline = time.perf_counter() + budget
    batches = 2 if once > budget else 0  # ``once`` counts as a batch
    while batches < 3 or time.perf_counter() < deadline:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
        batches += 1
    return best


# Each group of implementations is timed in a process of its own: NumPy (OpenBLAS),
# PyTorch and Numba each keep a pool of worker threads, and on 2 cores one library's idle,
# still-spinning workers would slow the next library's parallel work down 10-100x.
GROUPS = (("numba", "reference"), ("numpy",), ("torch",))


def selected_workloads() -> list:
    """``WORKLOADS``, or those ``--only`` names."""
    only = os.environ.get("MINITORCH_BENCHMARK_ONLY", "")
    return [w for w in WORKLOADS if only in w.name]


def time_group(implementations: list[str], budget: float, quick: bool) -> dict:
    """``{workload name: {implementation: seconds}}`` for the given implementations."""
    seconds: dict = {}
    for workload in selected_workloads():
        if (quick and workload.slow) or workload.missing():
            continue
        for implementation in implementations:
            if implementation == "torch" and torch is None:
                continue
            fn = workload.build(implementation)
            if fn is None:
                continue
            print(f"timing {workload.name} [{implementation}] ...", file=sys.stderr, flush=True)
            if implementation in ("numba", "reference"):
                minitorch.set_backend("cpu", implementation)
            share = budget if implementation != "reference" else budget / 4
            seconds.setdefault(workload.name, {})[implementation] = best_time(fn, share)
    minitorch.set_backend("cpu", "numba")
    return seconds


def time_in_subprocess(implementations: tuple[str, ...], quick: bool, pinned: bool) -> dict:
    """Time a group in a process of its own, confined to core 0 when ``pinned``."""
    command = [sys.executable, "-m", "benchmarks.run", "--group", ",".join(implementations)]
    if pinned:
        command = ["taskset", "-c", "0", *command]
    if quick:
        command.append("--quick")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(result.stdout)


def make_row(workload: Workload, seconds: dict, conditions: list[str], measured: dict) -> dict:
    """One table row: per condition, times, rates and ratios (minitorch-numba's speed vs
    each peer), and the target checked in each condition. ``seconds`` is
    ``{condition: {implementation: seconds}}`` of this workload; ``measured`` the same for
    every workload (a target may compare with another row)."""
    row = {"name": workload.name, "unit": workload.unit, "seconds": seconds, "rate": {}, "ratio": {}}
    for condition in conditions:
        times = seconds.get(condition, {})
        row["rate"][condition] = {name: workload.rate(value) for name, value in times.items()}
        ours = times.get("numba")
        row["ratio"][condition] = {peer: times[peer] / ours for peer in ("numpy", "torch")
                                   if ours and peer in times}  # fmt: skip
    target = workload.target
    if target:
        row["target"] = {"text": target.describe(workload.unit), "issue": target.issue,
                         "minimum": target.minimum}  # fmt: skip
        for condition in conditions:
            every_workload = {name: times.get(condition, {}) for name, times in measured.items()}
            row["target"][condition] = target.ratio(seconds.get(condition, {}), every_workload)
    return row


STARTUP_SCRIPT = """
import time
start = time.perf_counter()
import numpy as np
import minitorch
from minitorch import nn
minitorch.manual_seed(0)
points = np.random.default_rng(10).standard_normal((500, 2)).astype(np.float32)
labels = (points[:, :1] * points[:, 1:] > 0).astype(np.float32)
x, y = minitorch.from_numpy(points), minitorch.from_numpy(labels)
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)
optimizer.zero_grad()
loss = ((model(x) - y) ** 2).mean()
loss.backward()
optimizer.step()
print(time.perf_counter() - start)
"""


def startup_seconds(cache_dir: str | None) -> float:
    """From ``import minitorch`` to the end of the first Playground MLP training step, in
    a fresh process; ``cache_dir`` (an empty folder) forces a cold Numba cache."""
    env = dict(os.environ, MINITORCH_CPU_BACKEND="numba", PYTHONPATH=str(ROOT))
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    result = subprocess.run(
        [sys.executable, "-c", STARTUP_SCRIPT],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(result.stdout.strip().splitlines()[-1])


def format_rate(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}" if value >= 10 or unit != "us" else f"{value:.2f}"


def format_ratios(ratios: dict) -> str:
    return "".join(f"{ratios[p]:>9.2f}" if p in ratios else f"{'-':>9}" for p in ("numpy", "torch"))


def verdict(row: dict, condition: str) -> str:
    """``0.73 ok`` or ``0.41 MISSED``: the target's ratio in one condition."""
    ratio = row.get("target", {}).get(condition)
    if ratio is None:
        return "-"
    return f"{ratio:.2f} {'ok' if ratio >= row['target']['minimum'] else 'MISSED'}"


def print_table(rows: list[dict], conditions: list[str]) -> None:
    """Rates of every implementation in the first condition, minitorch's rate and ratios
    in each further one, then the target and its verdict per condition."""
    first, *others = conditions
    header = (f"{'workload':<38}{'unit':>8}{'numba':>10}{'reference':>10}{'numpy':>10}{'torch':>10}"
              f"{'vs numpy':>9}{'vs torch':>9}")  # fmt: skip
    for condition in others:
        header += f" |{condition + ' numba':>14}{'vs numpy':>9}{'vs torch':>9}"
    header += f"  {'target (* issue 12, + 13)':<32}" + "".join(f"{c:>13}" for c in conditions)
    print(header)
    print("-" * len(header))
    for row in rows:
        if row.get("skipped"):
            print(f"{row['name']:<38}  skipped: {row['skipped']}")
            continue

        rates = row["rate"][first]
        line = f"{row['name']:<38}{row['unit']:>8}"
        line += "".join(f"{format_rate(rates.get(i), row['unit']):>10}" for i in IMPLEMENTATIONS)
        line += format_ratios(row["ratio"][first])
        for condition in others:
            ours = format_rate(row["rate"][condition].get("numba"), row["unit"])
            line += f" |{ours:>14}" + format_ratios(row["ratio"][condition])
        target = row.get("target")
        if target:
            mark = {12: "*", 13: "+"}.get(target["issue"], " ")
            line += f"  {mark}{target['text']:<31}" + "".join(f"{verdict(row, c):>13}" for c in conditions)
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timings, fewer sizes")
    parser.add_argument("--skip-cold", action="store_true", help="skip the cold start")
    parser.add_argument("--pinned", action="store_true", help="run each library on one core (taskset -c 0)")
    parser.add_argument("--loaded", action="store_true", help="time beside a busy process on core 1")
    parser.add_argument("--both", action="store_true", help="quiet and loaded columns in one table")
    parser.add_argument("--only", help="only the workloads whose name contains this text")
    parser.add_argument("--group", help=argparse.SUPPRESS)  # internal: time these, print JSON
    args = parser.parse_args()
    if args.only:  # (read by time_group, in this process and in the timing subprocesses)
        os.environ["MINITORCH_BENCHMARK_ONLY"] = args.only
    budget = 0.2 if args.quick else 0.6
    if args.group:
        print(json.dumps(time_group(args.group.split(","), budget, args.quick)))
        return

    conditions = []
    if args.both or not args.loaded:
        conditions.append("pinned" if args.pinned else "quiet")
    if args.both or args.loaded:
        conditions.append("loaded")
    measured: dict = {}  # workload -> condition -> implementation -> seconds
    for condition in conditions:
        busy = competing_process() if condition == "loaded" else contextlib.nullcontext()
        with busy:  # always stopped
            for group in GROUPS:
                for name, times in time_in_subprocess(group, args.quick, args.pinned).items():
                    measured.setdefault(name, {}).setdefault(condition, {}).update(times)
    rows = []
    for workload in selected_workloads():
        if args.quick and workload.slow:
            continue
        missing = workload.missing()
        if missing:
            rows.append({"name": workload.name, "skipped": missing})
        else:
            rows.append(make_row(workload, measured.get(workload.name, {}), conditions, measured))

    print("timing warm start ...", file=sys.stderr, flush=True)
    startup_seconds(None)  # make sure the cache is filled
    warm = min(startup_seconds(None) for _ in range(3))
    cold = None
    if not args.skip_cold:
        import tempfile

        print("timing cold start (empty Numba cache) ...", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as empty_cache:
            cold = startup_seconds(empty_cache)

    print()
    print(
        f"minitorch numba backend, {os.cpu_count()} cores, {platform.processor() or ''}"
        f" numpy {np.__version__}" + (f", torch {torch.__version__}" if torch else "")
    )
    pinned = ", every library pinned to core 0" * args.pinned
    print(f"rates: GFLOP/s, GB/s, or time per call (us / ms); ratios = speed vs peer{pinned};"
          " loaded = beside a busy process on core 1")  # fmt: skip
    print_table(rows, conditions)
    print(
        f"\nstart-up, import minitorch -> end of first Playground MLP step: "
        f"warm {warm:.2f} s (target <= 2 s)" + (f", cold {cold:.1f} s" if cold is not None else "")
    )

    results = ROOT / "benchmarks" / "results"
    results.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = results / f"benchmark-{stamp}.json"
    path.write_text(
        json.dumps(
            {
                "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
                "pinned": args.pinned,
                "conditions": conditions,
                "rows": rows,
                "warm_start_seconds": warm,
                "cold_start_seconds": cold,
            },
            indent=2,
        )
    )
    print(f"wrote {path.relative_to(ROOT)}")
    try:
        chart = write_ratio_chart(json.loads(path.read_text()), path.with_suffix(".png"))
        print(f"wrote {chart.relative_to(ROOT)} (the ratios as a bar chart)")
    except ImportError:
        print('no bar chart: matplotlib is missing (pip install -e ".[dev]")')


if __name__ == "__main__":
    main()
