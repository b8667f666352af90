"""Train an MLP to separate TensorFlow Playground's two spirals.

    python examples/spiral_mlp.py                    # minitorch (Numba backend)
    python examples/spiral_mlp.py --library torch    # the very same code on PyTorch

The training code below is written once against the PyTorch API and runs unchanged on
either library (``lib`` is ``minitorch`` or ``torch``): that is the point of minitorch's
API. Only the data comes from ``minitorch.data`` in both cases.
"""

from __future__ import annotations

import argparse
import importlib
import time

from tqdm.auto import tqdm

import minitorch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", choices=["minitorch", "torch"], default="minitorch")
    parser.add_argument("--backend", default="numba", help="minitorch's CPU backend")
    parser.add_argument("--epochs", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    lib = importlib.import_module(args.library)
    if args.library == "minitorch":
        minitorch.set_backend("cpu", args.backend)
    lib.manual_seed(args.seed)

    X, y = minitorch.data.spiral(n=500, noise=0, seed=args.seed)  # Playground's defaults
    X, y = lib.tensor(X.numpy()), lib.tensor(y.numpy())
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(X, y), batch_size=50, shuffle=True)

    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))
    optimizer = lib.optim.Adam(model.parameters(), lr=0.01)
    scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()

    start, cpu_start = time.perf_counter(), time.process_time()
    progress = tqdm(range(args.epochs), desc=f"spiral MLP ({args.library})")
    for _ in progress:
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
        scheduler.step()
        progress.set_postfix(loss=f"{loss.item():.4f}")
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start

    model.eval()
    with lib.no_grad():
        accuracy = (model(X).argmax(dim=1) == y).float().mean().item()
    print(f"RESULT example=spiral_mlp library={args.library} train_accuracy={accuracy:.4f} "
          f"seconds={seconds:.2f} cpu_seconds={cpu_seconds:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
