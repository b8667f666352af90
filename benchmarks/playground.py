"""How many full frames per second the Playground computes, headless, and where a frame's time goes.

One *frame* is what TensorFlow Playground does per animation frame: one epoch of
training (250 training points in batches of 10: 25 optimizer steps), the losses on all
points, the decision boundary and every neuron's heatmap on the 100x100 grid, and what
the widget sends to the page (the network view, the status, their JSON). Issue 12's
target is 60 full frames per second on the default spiral setup (features x1, x2; hidden
layers 4-2; tanh; batch 10; learning rate 0.03) on the Numba backend::

    python -m benchmarks.playground                 # numba, spiral, 100 epochs per timing
    python -m benchmarks.playground --dataset circle --hidden 8,8
    python -m benchmarks.playground --backend reference --epochs 5
    python -m benchmarks.playground --profile       # where the training time goes

PyTorch (CPU, one thread) trains a twin of the same network, from the same weights, on
the same batches, timed in the same run and *interleaved* with minitorch (round after
round, keeping each one's best), so a busy machine slows both alike: the ratio is the
figure to compare across runs, the absolute numbers move with the machine's load.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import time
from collections.abc import Callable
from typing import Any

import minitorch
from minitorch import dispatch
from minitorch.widgets.playground import PlaygroundConfig, Trainer
from minitorch.widgets.playground.config import to_dict
from minitorch.widgets.playground.render import Renderer, network_view, status_view


def torch_epoch(trainer: Trainer) -> Callable[[], None] | None:
    """One epoch of the PyTorch twin of ``trainer`` (same weights, batches and loss),
    or ``None`` without PyTorch. Only the mse/SGD/tanh-or-friends setups are mirrored."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    activations = {"Tanh": torch.nn.Tanh, "ReLU": torch.nn.ReLU, "Sigmoid": torch.nn.Sigmoid,
                   "Identity": torch.nn.Identity}  # fmt: skip
    layers = []
    for module in trainer.model:
        if isinstance(module, minitorch.nn.Linear):
            layer = torch.nn.Linear(module.in_features, module.out_features)
            with torch.no_grad():
                layer.weight.copy_(torch.tensor(module.weight.detach().numpy()))
                layer.bias.copy_(torch.tensor(module.bias.detach().numpy()))
            layers.append(layer)
        else:
            layers.append(activations[type(module).__name__]())
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=trainer.built.learning_rate)
    inputs = torch.tensor(trainer.inputs.numpy())
    targets = torch.tensor(trainer.targets.numpy())
    count, size = trainer.train_count, trainer.built.batch_size
    batches = [(inputs[start:start + size], targets[start:start + size]) for start in range(0, count, size)]

    def epoch() -> None:
        for batch_inputs, batch_targets in batches:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(batch_inputs), batch_targets) * 0.5
            loss.backward()
            optimizer.step()

    return epoch


def best_seconds(runs: dict[str, Callable[[], Any]], epochs: int, rounds: int) -> dict[str, tuple]:
    """Seconds per call of each function, as ``(wall, cpu)``: ``rounds`` rounds of
    ``epochs`` calls, the functions taking turns within a round, the fastest round of
    each kept. CPU time is this process's: it leaves out the time spent waiting for a
    core, so on a busy machine it is the steadier of the two."""
    best = {name: (float("inf"), float("inf")) for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(epochs):
                run()
            wall, cpu = (time.perf_counter() - wall) / epochs, (time.process_time() - cpu) / epochs
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def measure(config: PlaygroundConfig, epochs: int, rounds: int) -> dict[str, Any]:
    trainer = Trainer(config)
    if trainer.message:
        raise SystemExit(trainer.message)
    renderer = Renderer()
    trainer.train(3)  # warm up: compile kernels, fill caches
    renderer.frame(trainer)

    def train_epoch() -> None:
        with trainer.computing():
            trainer.train_epoch()

    def evaluate() -> None:
        with trainer.computing():
            trainer.evaluate()

    def heatmaps() -> None:
        renderer.frame(trainer)

    def to_the_page() -> None:
        view, status = network_view(trainer), status_view(trainer, True, "", 60.0)
        json.dumps([view, status, to_dict(trainer.config)])

    def full_frame() -> None:
        trainer.train(1)  # one epoch and the losses on all points
        heatmaps()
        to_the_page()

    runs = {"full frame": full_frame, "train epoch": train_epoch, "evaluate": evaluate,
            "heatmaps": heatmaps, "network view + status + JSON": to_the_page}  # fmt: skip
    twin = torch_epoch(trainer) if config.loss == "mse" and config.optimizer == "sgd" else None
    if twin is not None:
        runs["PyTorch twin: train epoch"] = twin
    seconds = best_seconds(runs, epochs, rounds)
    with dispatch.trace() as calls, trainer.computing():
        trainer.train_epoch()
    seconds["kernel calls per training epoch"] = len(calls)
    with dispatch.trace() as calls:
        renderer.frame(trainer)
    seconds["kernel calls per heatmap frame"] = len(calls)
    return seconds


def profile_epochs(config: PlaygroundConfig, epochs: int) -> None:
    """Where training time goes: the CPU time of ``epochs`` training epochs, split by
    the file the time is spent in (own time, cProfile), and the autograd work per step."""
    trainer = Trainer(config)
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
    print(f"  Function.apply calls per step (forward ops and backward formulas): {applies / steps:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numba")
    parser.add_argument("--dataset", default="spiral")
    parser.add_argument("--hidden", default="4,2", help="neurons per hidden layer, e.g. 8,8")
    parser.add_argument("--epochs", type=int, default=100, help="epochs per timing round")
    parser.add_argument("--rounds", type=int, default=5, help="timing rounds (the best is kept)")
    parser.add_argument("--profile", action="store_true", help="where the training time goes")
    options = parser.parse_args()
    hidden = [int(size) for size in options.hidden.split(",") if size]
    config = PlaygroundConfig(dataset=options.dataset, hidden=hidden, backend=options.backend)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"minitorch {minitorch.__version__}, backend {options.backend}, {options.dataset}, "
          f"hidden {hidden}, best of {options.rounds} x {options.epochs} epochs, load {load:.1f}")
    results = measure(config, options.epochs, options.rounds)
    frame_wall, frame_cpu = results["full frame"]
    print(f"  {'':<36} {'wall ms':>8} {'per s':>7} {'CPU ms':>8} {'per s':>7}  share of a frame (CPU)")
    for name, value in results.items():
        if name.startswith("kernel calls"):
            print(f"  {name:<36} {value:8d}")
            continue
        wall, cpu = value
        share = f"{cpu / frame_cpu:6.1%}" if name != "full frame" else ""
        print(f"  {name:<36} {wall * 1e3:8.2f} {1 / wall:7.1f} {cpu * 1e3:8.2f} {1 / cpu:7.1f}  {share}")
    print(f"  full frames per second: {1 / frame_wall:.1f} wall, {1 / frame_cpu:.1f} CPU (target 60)")
    if "PyTorch twin: train epoch" in results:
        ours, theirs = results["train epoch"], results["PyTorch twin: train epoch"]
        print(f"  minitorch's training epoch / PyTorch's: {ours[0] / theirs[0]:.2f}x wall, "
              f"{ours[1] / theirs[1]:.2f}x CPU")
    if options.profile:
        profile_epochs(config, max(10, options.epochs // 4))


if __name__ == "__main__":
    main()
