"""Models that really train (issue 6, item 7), on smaller budgets than ``examples/``:
the full examples reach spiral >= 97% train accuracy, digits MLP >= 95% and digits CNN
>= 97% test accuracy; here a few epochs must already be far above chance (10% for
digits, 50% for the spiral) and the loss must drop a lot. Numba backend."""

from __future__ import annotations

import math

import pytest

import minitorch as mt
from minitorch import nn, optim
from minitorch.data import DataLoader, TensorDataset

pytestmark = pytest.mark.slow


def accuracy(model: nn.Module, X: mt.Tensor, y: mt.Tensor) -> float:
    model.eval()
    with mt.no_grad():
        return (model(X).argmax(dim=1) == y).float().mean().item()


def fit(model, loader, optimizer, epochs, loss_fn=None) -> list[float]:
    loss_fn = loss_fn or nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        model.train()
        total, count = 0.0, 0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total, count = total + loss.item() * len(yb), count + len(yb)
        losses.append(total / count)
    return losses


def test_spiral_mlp(numba_backend):
    X, y = mt.data.spiral(n=500, seed=0)
    model = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))
    loader = DataLoader(TensorDataset(X, y), batch_size=100, shuffle=True)
    losses = fit(model, loader, optim.Adam(model.parameters(), lr=0.02), epochs=40)
    assert losses[-1] < 0.5 * losses[0]
    assert accuracy(model, X, y) > 0.8


def test_playground_style_tanh_mse_sgd(numba_backend):
    """Playground's own recipe: +1/-1 labels, a tanh output, squared error, plain SGD."""
    X, y = mt.data.circle(n=300, noise=0, seed=1, labels="sign")
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1), nn.Tanh())
    loader = DataLoader(TensorDataset(X, y.unsqueeze(1)), batch_size=10, shuffle=True)
    losses = fit(model, loader, optim.SGD(model.parameters(), lr=0.03, momentum=0.9), 20, nn.MSELoss())
    assert losses[-1] < 0.3 * losses[0]
    model.eval()
    with mt.no_grad():
        predicted = model(X).squeeze(1).sign()
    assert (predicted == y).float().mean().item() > 0.9


def test_digits_mlp(numba_backend):
    train, test = mt.data.Digits(train=True, flatten=True), mt.data.Digits(train=False, flatten=True)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    loader = DataLoader(train, batch_size=64, shuffle=True)
    losses = fit(model, loader, optim.Adam(model.parameters(), lr=3e-3), epochs=5)
    assert losses[-1] < 0.25 * losses[0]
    assert accuracy(model, test.data, test.targets) > 0.9


def test_digits_cnn_and_checkpoint(numba_backend, tmp_path):
    train, test = mt.data.Digits(train=True), mt.data.Digits(train=False)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )  # fmt: skip
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    losses = fit(model, DataLoader(train, batch_size=64, shuffle=True), optimizer, epochs=4)
    assert losses[-1] < 0.3 * losses[0]
    trained = accuracy(model, test.data, test.targets)
    assert trained > 0.85
    mt.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp_path / "cnn.safetensors")
    copy = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )  # fmt: skip
    checkpoint = mt.load(tmp_path / "cnn.safetensors")
    copy.load_state_dict(checkpoint["model"])
    assert accuracy(copy, test.data, test.targets) == trained
    resumed = optim.Adam(copy.parameters(), lr=3e-3)
    resumed.load_state_dict(checkpoint["optimizer"])
    assert float(next(iter(resumed.state.values()))["step"]) == math.ceil(len(train) / 64) * 4


def test_batch_norm_and_dropout_model_trains(numba_backend):
    train, test = mt.data.Digits(train=True, flatten=True), mt.data.Digits(train=False, flatten=True)
    model = nn.Sequential(
        nn.Linear(64, 64), nn.BatchNorm1d(64), nn.GELU(), nn.Dropout(0.2), nn.Linear(64, 10)
    )
    optimizer = optim.AdamW(model.parameters(), lr=3e-3)
    schedule = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    loader = DataLoader(train, batch_size=64, shuffle=True)
    for _ in range(4):
        fit(model, loader, optimizer, epochs=1)
        schedule.step()
    assert accuracy(model, test.data, test.targets) > 0.9
