"""Elementwise fusion: one chain of five ops on 1e6 float32, five ways, in one run.

    python -m benchmarks.fusion            # the chain below, 1000 x 1000 float32
    python -m benchmarks.fusion --quick    # shorter timings

The chain is ``((x * 2 + y) * x - 1).abs()`` with ``x`` of shape (1000, 1000) and ``y``
of shape (1000,) (broadcast along the rows): five kernels eagerly, one fused kernel
after ``minitorch.compile`` with the ``fuse_elementwise`` pass. Memory-bound ops, so
fusion's saving (no intermediate tensors written and read back) is what is measured; a
chain dominated by ``tanh`` or ``exp`` spends its time in arithmetic either way.

Timed, interleaved round by round (the machine may be shared; each column keeps its
fastest round, ``benchmarks.run.best_time``):

* minitorch eager;
* minitorch compiled, replayed without fusion (``passes=["dead_code", "plan_memory"]``:
  the planner lets the four intermediates take turns in two buffers, as eager's freed
  outputs do; five separate 4 MB buffers would not stay in the CPU's cache);
* minitorch compiled with fusion (the fused kernel writes the result straight into a new
  storage on each call, so that a later call never changes it);
* NumPy (five ufunc calls, each making a new array) and PyTorch eager.

A ratio is *eager minitorch's time / that column's time* (2.0: twice as fast as eager).
Nothing here is a test: speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # allow `python benchmarks/fusion.py` without installing
    sys.path.insert(0, str(ROOT))

import minitorch  # noqa: E402
from benchmarks.run import best_time  # noqa: E402

try:
    import torch
except ImportError:  # PyTorch is optional: its column is then empty
    torch = None

SHAPE = (1000, 1000)
CHAIN = "((x * 2 + y) * x - 1).abs()"


def chain(x, y):
    return ((x * 2 + y) * x - 1).abs()


def numpy_chain(x, y):
    return np.abs((x * np.float32(2) + y) * x - np.float32(1))


def contenders() -> dict:
    """name -> a call with no arguments, each checked against eager minitorch first."""
    minitorch.manual_seed(0)
    x, y = minitorch.randn(*SHAPE), minitorch.randn(SHAPE[1])
    fused = minitorch.compile(chain, passes=["dead_code", "fuse_elementwise"])
    unfused = minitorch.compile(chain, passes=["dead_code", "plan_memory"])
    expected = chain(x, y).numpy()
    for compiled in (fused, unfused):
        for _ in range(3):  # warm-up, capture, replay
            got = compiled(x, y)
        assert np.array_equal(got.numpy(), expected), "a compiled chain differs from eager"
    calls = {
        "minitorch eager": lambda: chain(x, y),
        "replay, unfused": lambda: unfused(x, y),
        "replay, fused": lambda: fused(x, y),
        "numpy": lambda: numpy_chain(x.numpy(), y.numpy()),
    }
    if torch is not None:
        tx, ty = torch.tensor(x.numpy()), torch.tensor(y.numpy())
        calls["torch eager"] = lambda: chain(tx, ty)
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timings")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    args = parser.parse_args()
    calls = contenders()
    budget = 0.1 if args.quick else 0.4
    best = {name: float("inf") for name in calls}
    for _ in range(args.rounds):  # interleaved: a busy moment hits every column alike
        for name, call in calls.items():
            best[name] = min(best[name], best_time(call, budget))
    eager = best["minitorch eager"]
    print(f"{CHAIN}, x {SHAPE} float32, y ({SHAPE[1]},)")
    print(f"{'':<18}{'ms':>8}{'eager / this':>14}")
    for name, seconds in best.items():
        print(f"{name:<18}{seconds * 1e3:>8.3f}{eager / seconds:>14.2f}")


if __name__ == "__main__":
    main()
