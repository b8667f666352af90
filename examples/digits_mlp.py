"""Train an MLP on the 8x8 handwritten digits (scikit-learn's bundled copy).

    python examples/digits_mlp.py                    # minitorch (Numba backend)
    python examples/digits_mlp.py --library torch    # the same code on PyTorch

Training code written once against the PyTorch API (``lib`` is minitorch or torch).
"""

from __future__ import annotations

import argparse
import importlib
import time

from tqdm.auto import tqdm

import minitorch


def evaluate(lib, model, X, y) -> float:
    model.eval()
    with lib.no_grad():
        return (model(X).argmax(dim=1) == y).float().mean().item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", choices=["minitorch", "torch"], default="minitorch")
    parser.add_argument("--backend", default="numba", help="minitorch's CPU backend")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    lib = importlib.import_module(args.library)
    if args.library == "minitorch":
        minitorch.set_backend("cpu", args.backend)
    lib.manual_seed(args.seed)

    train, test = (
        minitorch.data.Digits(train=True, flatten=True),
        minitorch.data.Digits(train=False, flatten=True),
    )
    X_train, y_train = lib.tensor(train.data.numpy()), lib.tensor(train.targets.numpy())
    X_test, y_test = lib.tensor(test.data.numpy()), lib.tensor(test.targets.numpy())
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(X_train, y_train), batch_size=64,
                                       shuffle=True)  # fmt: skip

    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = lib.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()

    start, cpu_start = time.perf_counter(), time.process_time()
    progress = tqdm(range(args.epochs), desc=f"digits MLP ({args.library})")
    for _ in progress:
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
        progress.set_postfix(loss=f"{loss.item():.4f}")
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start

    accuracy = evaluate(lib, model, X_test, y_test)
    print(f"RESULT example=digits_mlp library={args.library} test_accuracy={accuracy:.4f} "
          f"seconds={seconds:.2f} cpu_seconds={cpu_seconds:.2f} "
          f"epoch_seconds={seconds / args.epochs:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
