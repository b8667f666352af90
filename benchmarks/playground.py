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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numba")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--profile", action="store_true", help="print the 25 costliest functions")
    options = parser.parse_args()
    print(f"minitorch {minitorch.__version__}, backend {options.backend}, {options.epochs} epochs")
    print(f"  {'':<42} {'wall':>8} {'CPU':>8}  (epochs per second)")
    for name, value in measure(options.backend, options.epochs).items():
        if not isinstance(value, tuple):
            print(f"  {name:<42} {value:8d}")
        else:
            print(f"  {name:<42} {value[0]:8.1f} {value[1]:8.1f}")
    if options.profile:
        # Where one training epoch's time goes: inside kernels, or in Python around them
        # (op wrappers, autograd graph building and backward, dispatch, the optimizer).
        profiler = cProfile.Profile()
        profiler.enable()
        measure(options.backend, max(10, options.epochs // 4))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
