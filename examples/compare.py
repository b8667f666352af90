"""Run each example with minitorch and with PyTorch and print a markdown table of wall time
(and CPU time) side by side.

    python examples/compare.py                 # default threads
    python examples/compare.py --threads 1     # NUMBA_NUM_THREADS / OMP_NUM_THREADS = 1
    python examples/compare.py --repeat 3      # best of 3 runs each

Each run is a fresh process (``python examples/<name>.py --library ...``); the examples
print a ``RESULT`` line that this script reads. Training time only: imports, data loading
and the first-call JIT compilation before training are not counted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = {"spiral_mlp": "train_accuracy", "digits_mlp": "test_accuracy", "digits_cnn": "test_accuracy"}
HERE = Path(__file__).resolve().parent


def run(name: str, library: str, threads: int | None) -> dict[str, str]:
    env = dict(os.environ)
    if threads:
        env.update(NUMBA_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    command = [sys.executable, str(HERE / f"{name}.py"), "--library", library]
    output = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("RESULT"))
    return dict(item.split("=", 1) for item in line.split()[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print("| example | accuracy (minitorch / PyTorch) | minitorch s (cpu s) | PyTorch s (cpu s) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, metric in EXAMPLES.items():
        best = {}
        for library in ("minitorch", "torch"):
            runs = [run(name, library, args.threads) for _ in range(args.repeat)]
            best[library] = min(runs, key=lambda r: float(r["seconds"]))
        ours, theirs = best["minitorch"], best["torch"]
        ratio = float(ours["seconds"]) / float(theirs["seconds"])
        print(f"| {name} | {float(ours[metric]):.1%} / {float(theirs[metric]):.1%} | "
              f"{ours['seconds']} ({ours['cpu_seconds']}) | {theirs['seconds']} ({theirs['cpu_seconds']}) | "
              f"{ratio:.1f}x |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
