"""Train a small convolutional network on the 8x8 handwritten digits.

    python examples/digits_cnn.py                    # minitorch (Numba backend)
    python examples/digits_cnn.py --library torch    # the same code on PyTorch

Two 3x3 convolutions (each an im2col strided view plus one matmul inside minitorch),
max pooling, and a linear classifier. Training code written once against the PyTorch
API (``lib`` is minitorch or torch); the model is saved with ``save`` (safetensors).
"""

from __future__ import annotations

import argparse
import importlib
import time

from tqdm.auto import tqdm

import minitorch


def build(nn):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 16 x 4 x 4
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 32 x 2 x 2
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", choices=["minitorch", "torch"], default="minitorch")
    parser.add_argument("--backend", default="numba", help="minitorch's CPU backend")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="write the trained state dict here (.safetensors)")
    args = parser.parse_args()
    lib = importlib.import_module(args.library)
    if args.library == "minitorch":
        minitorch.set_backend("cpu", args.backend)
    lib.manual_seed(args.seed)

    train, test = minitorch.data.Digits(train=True), minitorch.data.Digits(train=False)
    X_train, y_train = lib.tensor(train.data.numpy()), lib.tensor(train.targets.numpy())
    X_test, y_test = lib.tensor(test.data.numpy()), lib.tensor(test.targets.numpy())
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(X_train, y_train), batch_size=64,
                                       shuffle=True)  # fmt: skip

    model = build(lib.nn)
    optimizer = lib.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = lib.nn.CrossEntropyLoss()

    start, cpu_start = time.perf_counter(), time.process_time()
    progress = tqdm(range(args.epochs), desc=f"digits CNN ({args.library})")
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
        accuracy = (model(X_test).argmax(dim=1) == y_test).float().mean().item()
    if args.save and args.library == "minitorch":
        minitorch.save(model.state_dict(), args.save)
    print(f"RESULT example=digits_cnn library={args.library} test_accuracy={accuracy:.4f} "
          f"seconds={seconds:.2f} cpu_seconds={cpu_seconds:.2f} "
          f"epoch_seconds={seconds / args.epochs:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
