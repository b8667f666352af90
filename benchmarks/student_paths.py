"""What student code does most, timed per call beside PyTorch (and NumPy where it has the op).

Run from the repository root::

    python -m benchmarks.student_paths            # quiet
    python -m benchmarks.student_paths --loaded   # beside a busy process on core 1
    python -m benchmarks.student_paths --only item

The paths of issue 30.4: scalar and basic indexing (``x[i, j]``, ``x[i]``, ``x[i, j] += 1``,
slices), ``.item()``, ``tensor(list)``, the small factories, advanced indexing (``C[X]``,
``x[idx]``, ``x[mask]``) and ``cross_entropy``/``nll_loss`` at a small and at a 182k-row batch
(the bigram / MLP language model of the makemore lectures). Each library is timed in a
process of its own at one thread (``torch.set_num_threads(1)``, ``NUMBA_NUM_THREADS=1``), so
the per-call overhead is compared and not the thread pools. A ratio is minitorch's time over
PyTorch's (1.0: as fast, 3.0: three times slower); each target is printed as ok or MISSED.
Nothing here is a test: speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.distributed import cpu_model  # noqa: E402
from benchmarks.parallel import competing_process  # noqa: E402
from benchmarks.run import best_time  # noqa: E402

LIBRARIES = ("minitorch", "torch", "numpy")
SMALL_TARGET = 2.5  # time <= 2.5x PyTorch's (issue 30.4)
BIG_TARGET = 1.5  # C[X] and cross_entropy at 182k rows


def workloads(lib: str) -> dict:
    """``{name: (callable, target ratio)}`` for one library (``None`` where it lacks the op)."""
    import numpy as np

    if lib == "numpy":
        rng = np.random.default_rng(0)
        N = np.zeros((27, 27), dtype=np.int32)
        P = rng.random((27, 27), dtype=np.float32)
        x = rng.random(27, dtype=np.float32)
        C = rng.standard_normal((27, 10), dtype=np.float32)
        X = rng.integers(0, 27, (182000, 3))
        idx = rng.integers(0, 27, 100)
        mask = x > 0.5

        def add_one():
            N[3, 4] += 1

        return {
            "N[i, j] += 1": (add_one, SMALL_TARGET),
            "P[i, j]": (lambda: P[3, 4], SMALL_TARGET),
            "P[i]": (lambda: P[3], SMALL_TARGET),
            "P[1:3]": (lambda: P[1:3], SMALL_TARGET),
            "x[0].item()": (lambda: x[0].item(), SMALL_TARGET),
            "tensor([1., 2., 3.])": (lambda: np.array([1.0, 2.0, 3.0], dtype=np.float32), SMALL_TARGET),
            "zeros(27)": (lambda: np.zeros(27, dtype=np.float32), SMALL_TARGET),
            "ones(3, 3)": (lambda: np.ones((3, 3), dtype=np.float32), SMALL_TARGET),
            "randn(3, 3)": (lambda: rng.standard_normal((3, 3), dtype=np.float32), SMALL_TARGET),
            "x[idx] (100 of 27)": (lambda: x[idx], SMALL_TARGET),
            "x[mask] (27)": (lambda: x[mask], SMALL_TARGET),
            "C[X] (182000, 3)": (lambda: C[X], BIG_TARGET),
        }

    if lib == "torch":
        import torch

        torch.set_num_threads(1)
        T = torch
        F = torch.nn.functional
    else:
        import minitorch

        T = minitorch
        F = minitorch.nn.functional
    T.manual_seed(0)
    N = T.zeros((27, 27), dtype=T.int32)
    P = T.rand(27, 27)
    x = T.rand(27)
    C = T.randn(27, 10)
    X = T.randint(0, 27, (182000, 3))
    idx = T.randint(0, 27, (100,))
    mask = x > 0.5
    small_logits, small_y = T.randn(32, 27), T.randint(0, 27, (32,))
    big_logits, big_y = T.randn(182000, 27), T.randint(0, 27, (182000,))
    small_logp, big_logp = F.log_softmax(small_logits, 1), F.log_softmax(big_logits, 1)

    def add_one():
        N[3, 4] += 1

    return {
        "N[i, j] += 1": (add_one, SMALL_TARGET),
        "P[i, j]": (lambda: P[3, 4], SMALL_TARGET),
        "P[i]": (lambda: P[3], SMALL_TARGET),
        "P[1:3]": (lambda: P[1:3], SMALL_TARGET),
        "x[0].item()": (lambda: x[0].item(), SMALL_TARGET),
        "tensor([1., 2., 3.])": (lambda: T.tensor([1.0, 2.0, 3.0]), SMALL_TARGET),
        "zeros(27)": (lambda: T.zeros(27), SMALL_TARGET),
        "ones(3, 3)": (lambda: T.ones(3, 3), SMALL_TARGET),
        "randn(3, 3)": (lambda: T.randn(3, 3), SMALL_TARGET),
        "x[idx] (100 of 27)": (lambda: x[idx], SMALL_TARGET),
        "x[mask] (27)": (lambda: x[mask], SMALL_TARGET),
        "C[X] (182000, 3)": (lambda: C[X], BIG_TARGET),
        "cross_entropy (32, 27)": (lambda: F.cross_entropy(small_logits, small_y), SMALL_TARGET),
        "cross_entropy (182000, 27)": (lambda: F.cross_entropy(big_logits, big_y), BIG_TARGET),
        "nll_loss (32, 27)": (lambda: F.nll_loss(small_logp, small_y), SMALL_TARGET),
        "nll_loss (182000, 27)": (lambda: F.nll_loss(big_logp, big_y), BIG_TARGET),
    }


def time_library(lib: str, budget: float) -> dict:
    """``{workload: seconds per call}`` for one library, in this process."""
    only = os.environ.get("MINITORCH_BENCHMARK_ONLY", "")
    seconds = {}
    for name, (fn, _) in workloads(lib).items():
        if only in name:
            print(f"timing {name} [{lib}] ...", file=sys.stderr, flush=True)
            seconds[name] = best_time(fn, budget)
    return seconds


def time_in_subprocess(lib: str, budget: float) -> dict:
    command = [sys.executable, "-m", "benchmarks.student_paths", "--library", lib, "--budget", str(budget)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(result.stdout)


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loaded", action="store_true", help="time beside a busy process on core 1")
    parser.add_argument("--quick", action="store_true", help="shorter timings")
    parser.add_argument("--only", help="only the workloads whose name contains this text")
    parser.add_argument("--library", help=argparse.SUPPRESS)  # internal: time one, print JSON
    parser.add_argument("--budget", type=float, default=0.5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        os.environ["MINITORCH_BENCHMARK_ONLY"] = args.only
    if args.library:
        print(json.dumps(time_library(args.library, args.budget)))
        return
    budget = 0.15 if args.quick else args.budget
    condition = "loaded" if args.loaded else "quiet"
    busy = competing_process() if args.loaded else contextlib.nullcontext()
    with busy:  # always stopped
        measured = {lib: time_in_subprocess(lib, budget) for lib in LIBRARIES}
    targets = {name: target for name, (_, target) in workloads("torch").items()}

    print(f"\nstudent paths, one thread, {condition}: {os.cpu_count()} cores, {cpu_model()}")
    print("ratio = minitorch's time / PyTorch's time (lower is better)")
    header = f"{'workload':<28}{'minitorch':>11}{'torch':>11}{'numpy':>11}{'ratio':>8}  target"
    print(header)
    print("-" * len(header))
    rows = []
    for name in measured["minitorch"]:
        ours, theirs = measured["minitorch"][name], measured["torch"].get(name)
        ratio = ours / theirs if theirs else None
        target = targets[name]
        verdict = "ok" if ratio is not None and ratio <= target else "MISSED"
        numpy_time = format_time(measured["numpy"].get(name))
        print(f"{name:<28}{format_time(ours):>11}{format_time(theirs):>11}{numpy_time:>11}"
              f"{ratio:>7.1f}x  <= {target}x {verdict}")  # fmt: skip
        rows.append({"name": name, "seconds": {lib: measured[lib].get(name) for lib in LIBRARIES},
                     "ratio": ratio, "target": target})  # fmt: skip
    results = ROOT / "benchmarks" / "results"
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"student-paths-{condition}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps({"machine": {"cores": os.cpu_count(), "cpu": cpu_model()},
                                "condition": condition, "rows": rows}, indent=2))  # fmt: skip
    print(f"\nwrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
