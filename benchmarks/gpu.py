"""GPU benchmark: minitorch's readable CUDA kernels next to CuPy/cuBLAS and PyTorch.

    python benchmarks/gpu.py              # on a machine with an NVIDIA GPU (e.g. Colab)
    python benchmarks/gpu.py --emulator   # tiny sizes on the CPU emulator: checks the
                                          # script runs; its numbers mean nothing

Sections (each line: minitorch, the reference library, and their ratio):

1. matmul (float32, square): minitorch's shared-memory tiled kernel vs ``cupy.matmul``
   (cuBLAS). Expect cuBLAS to win by a large factor: it uses register tiling, tensor
   cores and years of tuning; ours is the textbook 16x16 tile.
2. elementwise bandwidth: ``a + b`` contiguous and transposed, vs CuPy, in GB/s.
3. reduction bandwidth: sums over the last and the first dimension, vs CuPy.
4. one training step of an MLP (784-256-10, batch 512) vs PyTorch on CUDA, when PyTorch
   with CUDA is installed.

Times are medians over repeats, after warm-up (the first call compiles the kernels),
with ``synchronize()`` around each measurement because launches are asynchronous.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minitorch as mt  # noqa: E402


def timed(function: Callable[[], object], synchronize: Callable[[], None], repeats: int) -> float:
    """Median seconds of one call (after two warm-up calls)."""
    for _ in range(2):
        function()
    synchronize()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        synchronize()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def row(name: str, ours: float, theirs: float | None, unit: str, amount: float) -> None:
    """Print throughput (amount per second) for both and how far apart they are."""
    ours_rate = amount / ours
    if theirs is None:
        print(f"  {name:<34} minitorch {ours * 1e3:9.3f} ms {ours_rate:9.1f} {unit}")
        return
    theirs_rate = amount / theirs
    print(f"  {name:<34} minitorch {ours * 1e3:9.3f} ms {ours_rate:9.1f} {unit} | "
          f"reference {theirs * 1e3:9.3f} ms {theirs_rate:9.1f} {unit} | "
          f"minitorch takes {ours / theirs:5.1f}x as long")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--emulator", action="store_true", help="tiny run on the CPU emulator")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    if args.emulator:
        mt.cuda.use_emulator()
        sizes = {"matmul": [32, 64], "elements": 1 << 12, "rows": 64, "batch": 16}
        cp = None
        print("CPU emulator: checking that the benchmark runs. These numbers say nothing about GPUs.")
    else:
        if not mt.cuda.is_available() or mt.cuda.is_emulated():
            print("No CUDA GPU is present, so there is nothing to benchmark here.")
            print(f"({mt.cuda.unavailable_reason() or 'device cuda runs on the CPU emulator'})")
            print("Run this on a machine with an NVIDIA GPU, e.g. Colab (Runtime > Change runtime "
                  "type > GPU) after `pip install 'minitorch[cuda]'`.")  # fmt: skip
            print("`python benchmarks/gpu.py --emulator` only checks that the script works.")
            return 0
        import cupy as cp

        sizes = {"matmul": [256, 512, 1024, 2048], "elements": 1 << 24, "rows": 4096, "batch": 512}
        print(f"GPU: {mt.cuda.get_device_name()}")
    sync = mt.cuda.synchronize
    repeats = 3 if args.emulator else args.repeats

    def reference(function: Callable[[], object]) -> float | None:
        if cp is None:
            return None
        return timed(function, cp.cuda.Device().synchronize, repeats)

    print("\n1. matmul, float32 (GFLOP/s)")
    for n in sizes["matmul"]:
        a, b = mt.randn(n, n, device="cuda"), mt.randn(n, n, device="cuda")
        ours = timed(lambda a=a, b=b: a @ b, sync, repeats)
        theirs = None
        if cp is not None:
            ca = cp.random.standard_normal((n, n), dtype=cp.float32)
            cb = cp.random.standard_normal((n, n), dtype=cp.float32)
            theirs = reference(lambda ca=ca, cb=cb: cp.matmul(ca, cb))
        row(f"{n} x {n} @ {n} x {n}", ours, theirs, "GFLOP/s", 2 * n**3 / 1e9)

    count = sizes["elements"]
    side = int(count**0.5)
    print(f"\n2. elementwise a + b, float32, {count:,} elements (GB/s: 2 reads + 1 write)")
    a, b = mt.randn(side, side, device="cuda"), mt.randn(side, side, device="cuda")
    moved = 3 * 4 * side * side / 1e9
    ca = cb = None
    if cp is not None:
        ca, cb = cp.ones((side, side), cp.float32), cp.ones((side, side), cp.float32)
    row("contiguous", timed(lambda: a + b, sync, repeats), reference(lambda: ca + cb), "GB/s", moved)
    row("transposed (strided path)", timed(lambda: a.t() + b.t(), sync, repeats),
        reference(lambda: ca.T + cb.T), "GB/s", moved)  # fmt: skip

    print(f"\n3. reduction sum, float32, {side} x {side} (GB/s read)")
    read = 4 * side * side / 1e9
    row("over the last dim (rows)", timed(lambda: a.sum(1), sync, repeats),
        reference(lambda: ca.sum(1)), "GB/s", read)  # fmt: skip
    row("over the first dim (columns)", timed(lambda: a.sum(0), sync, repeats),
        reference(lambda: ca.sum(0)), "GB/s", read)  # fmt: skip
    row("everything", timed(lambda: a.sum(), sync, repeats), reference(lambda: ca.sum()), "GB/s", read)

    batch = sizes["batch"]
    print(f"\n4. MLP training step 784-256-10, batch {batch} (steps/s)")
    model = mt.nn.Sequential(mt.nn.Linear(784, 256), mt.nn.ReLU(), mt.nn.Linear(256, 10)).to("cuda")
    optimizer = mt.optim.SGD(model.parameters(), lr=0.01)
    inputs, targets = mt.randn(batch, 784, device="cuda"), mt.randint(0, 10, (batch,), device="cuda")

    def step() -> None:
        optimizer.zero_grad()
        mt.nn.functional.cross_entropy(model(inputs), targets).backward()
        optimizer.step()

    ours = timed(step, sync, repeats)
    theirs = None
    try:
        import torch

        if torch.cuda.is_available() and cp is not None:
            layers = [torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)]
            net = torch.nn.Sequential(*layers).cuda()
            sgd = torch.optim.SGD(net.parameters(), lr=0.01)
            x, y = torch.randn(batch, 784, device="cuda"), torch.randint(0, 10, (batch,), device="cuda")

            def torch_step() -> None:
                sgd.zero_grad()
                torch.nn.functional.cross_entropy(net(x), y).backward()
                sgd.step()

            theirs = timed(torch_step, torch.cuda.synchronize, repeats)
        else:
            print("  (PyTorch has no CUDA here: minitorch only)")
    except ImportError:
        print("  (PyTorch is not installed: minitorch only)")
    row("one SGD step (PyTorch as reference)", ours, theirs, "steps/s", 1.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
