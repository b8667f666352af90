"""How many epochs per second the Playground trains, with everything it draws computed.

The Playground's speed target (issue 8): with its default network (features x1, x2;
hidden layers 4-2; batch 10; 250 training points of "circle") on the Numba backend it
should sustain at least 30 epochs per second *including* the decision boundary and
every neuron's heatmap on the 100x100 grid, computed after every epoch. This measures
exactly that path, headless (no browser):

    python benchmarks/playground.py                 # numba, 200 epochs
    python benchmarks/playground.py --backend reference --epochs 20
    python benchmarks/playground.py --profile       # where the time goes

It prints epochs per second for training alone, training + evaluation, and the whole
frame (training + evaluation + heatmaps + the network view), and the time of one epoch
split into its parts, with the number of kernel calls dispatched for each part.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from typing import Any

import minitorch
from minitorch import dispatch
from minitorch.widgets.playground import PlaygroundConfig, Trainer
from minitorch.widgets.playground.render import Renderer, network_view


def measure(backend: str, epochs: int) -> dict[str, float]:
    trainer = Trainer(PlaygroundConfig(backend=backend))  # the default network and data
    renderer = Renderer()
    trainer.train(3)  # warm up: compile kernels, fill caches
    renderer.frame(trainer)

    def per_second(run: callable) -> tuple[float, float]:
        """Epochs per second of wall time, and per second of this process's CPU time
        (the second ignores time spent waiting for a core on a busy machine)."""
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(epochs):
            run()
        return epochs / (time.perf_counter() - wall), epochs / (time.process_time() - cpu)

    def train_only() -> None:
        with trainer.computing():
            trainer.train_epoch()

    def frame() -> None:
        trainer.train(1)
        renderer.frame(trainer)
        network_view(trainer)

    results: dict[str, Any] = {
        "train only": per_second(train_only),
        "train + evaluate": per_second(lambda: trainer.train(1)),
        "full frame (train + evaluate + heatmaps)": per_second(frame),
    }
    with dispatch.trace() as calls:
        with trainer.computing():
            trainer.train_epoch()
    results["kernel calls per training epoch"] = len(calls)
    results["kernel microseconds per training epoch"] = int(sum(c.seconds for c in calls) * 1e6)
    with dispatch.trace() as calls:
        trainer.train(1)
    evaluate_calls = len(calls) - results["kernel calls per training epoch"]
    results["kernel calls per evaluation"] = evaluate_calls
    with dispatch.trace() as calls:
        renderer.frame(trainer)
    results["kernel calls per heatmap frame"] = len(calls)
    return results


def profile_epochs(backend: str, epochs: int) -> None:
    """Where training time goes: the CPU time of ``epochs`` training epochs, split by
    the file the time is spent in (own time, cProfile), and the autograd work per step."""
    trainer = Trainer(PlaygroundConfig(backend=backend))
    trainer.train(2)
    profiler = cProfile.Profile()
    with trainer.computing():
        profiler.enable()
        for _ in range(epochs):
            trainer.train_epoch()
        profiler.disable()
    stats = pstats.Stats(profiler).stats
    steps = epochs * len(trainer.batches)
    by_file: dict[str, float] = {}
    applies = 0
    for (filename, _line, function), (_, all_calls, own_time, _, _) in stats.items():
        key = filename.split("minitorch/")[-1] if "minitorch/" in filename else "(python, numpy, numba)"
        by_file[key] = by_file.get(key, 0.0) + own_time
        if key == "autograd/function.py" and function == "apply":
            applies += all_calls
    total = sum(by_file.values())
    print(
        f"\nprofile of {epochs} training epochs ({steps} steps), own time by file "
        f"(cProfile itself slows Python down; compare the shares, not the totals):"
    )
    for key, seconds in sorted(by_file.items(), key=lambda item: -item[1])[:14]:
        print(f"  {key:<42} {seconds / steps * 1e6:8.0f} us/step  {seconds / total:6.1%}")
    print(
        f"  Function.apply calls per step (forward ops and the ops of backward formulas): "
        f"{applies / steps:.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numba")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--profile", action="store_true", help="where the training time goes")
    options = parser.parse_args()
    print(f"minitorch {minitorch.__version__}, backend {options.backend}, {options.epochs} epochs")
    print(f"  {'':<42} {'wall':>8} {'CPU':>8}  (epochs per second)")
    for name, value in measure(options.backend, options.epochs).items():
        if not isinstance(value, tuple):
            print(f"  {name:<42} {value:8d}")
        else:
            print(f"  {name:<42} {value[0]:8.1f} {value[1]:8.1f}")
    if options.profile:
        profile_epochs(options.backend, max(10, options.epochs // 4))


if __name__ == "__main__":
    main()
