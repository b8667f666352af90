"""What the warm-up runs (``warm_up.py``): small versions of the course's lessons.

A kernel is compiled once per op, dtype and layout class, and not per size. So a lesson
shrunk to a few rows compiles the same kernels as the full one, in a fraction of its
running time. Most sizes stay below the thresholds where the threaded kernels take over
(``minitorch/backends/numba/parallel_policy.py``), as the chapters' own tensors do; one
lesson (``big_products``) goes above them on purpose. Each lesson is a function of its
own, and ``run_lessons`` runs them all in the default dtype, float32, on the Numba backend.

What to include was read off ``python -m benchmarks.first_run --kernels N``: the kernels
that cost the chapters' first runs most.
"""

from __future__ import annotations

import minitorch
from minitorch import nn
from minitorch.nn import functional as F


def elementwise_and_reductions() -> None:
    """The ops of the first chapters, on the layouts they meet: same-shape operands, a
    bias row, a column, a number, a transposed operand."""
    x, y = minitorch.randn(8, 5), minitorch.randn(8, 5)
    row, column = minitorch.randn(5), minitorch.randn(8, 1)
    for a, b in ((x, y), (x, row), (x, column), (x, 2.0), (y.t().contiguous().t(), x), (x.t(), y.t())):
        a + b, a - b, a * b, a / b
    positive = x.abs() + 1
    for unary in (minitorch.exp, minitorch.log, minitorch.tanh, minitorch.sigmoid, minitorch.relu,
                  minitorch.sqrt, minitorch.neg):  # fmt: skip
        unary(positive)
    x**2, x > 0, x == y, minitorch.where(x > 0, x, y)
    x.sum(), x.sum(0), x.sum(1, keepdim=True), x.mean(), x.mean(1), x.max(), x.max(1), x.argmax(1)
    x.softmax(1), x.log_softmax(1), x @ y.t(), x.t() @ y
    minitorch.arange(10), minitorch.linspace(0, 1, 5), minitorch.cat([x, y]), minitorch.stack([x, y])
    first, second = x[:, 0], x[:, 1]  # columns: every step 5 (another layout class)
    first + second, first - second, first * second, first / second, -first
    for unary in (minitorch.sqrt, minitorch.exp, minitorch.sin, minitorch.cos, minitorch.tanh):
        unary(first.abs())
    (x - row) ** 2, minitorch.randn(32, 2) @ minitorch.randn(2, 2)  # (few columns: their own kernel)
    same = x == x  # the checks notebooks print: all() over all, and along a dimension
    same.all(), same.all(1), minitorch.allclose(x, y), minitorch.equal(x, y)
    labels = minitorch.randint(0, 3, (8,))
    labels[minitorch.randperm(8)], x[minitorch.randperm(8)]  # a shuffled batch, as a DataLoader picks it


def big_products() -> None:
    """A digits-sized batch through a layer, and big additions (one with a transposed
    operand): large enough for the threaded kernels, which the chapters on fast kernels
    and on training call."""
    (minitorch.randn(600, 64) @ minitorch.randn(64, 64)).sum()
    big = minitorch.randn(512, 512)
    big + big, big.t() + big  # (a transposed operand: the tiled loop)


def compiled_reference_loops() -> None:
    """Chapter 05 puts the reference backend's loops compiled as they are (``numba_simple``)
    beside the tuned kernels, on a transposed operand."""
    x = minitorch.randn(20, 20)
    with minitorch.backend("numba_simple"):
        x + x.t()


def mlp_training() -> None:
    """Chapter 07: an MLP on two classes, trained a few steps with SGD and with Adam."""
    x, target = minitorch.randn(32, 2), minitorch.randint(0, 2, (32,))
    for make_optimizer in (lambda p: minitorch.optim.SGD(p, lr=0.1, momentum=0.9),
                           lambda p: minitorch.optim.Adam(p, lr=0.01)):  # fmt: skip
        model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2))
        optimizer = make_optimizer(model.parameters())
        for _ in range(2):
            loss = F.cross_entropy(model(x), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with minitorch.no_grad():
            (model(x).argmax(dim=1) == target).float().mean().item()


def cnn_step() -> None:
    """Chapter 08: a convolution, pooling and a linear layer, one Adam step."""
    images, target = minitorch.randn(8, 1, 8, 8), minitorch.randint(0, 10, (8,))
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64, 10))  # fmt: skip
    optimizer = minitorch.optim.Adam(model.parameters(), lr=0.01)
    loss = F.cross_entropy(model(images), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def language_model() -> None:
    """The makemore lectures: counting pairs in an int32 table, sampling from its rows,
    and an embedding MLP (``C[X]``) trained by hand, ``p.data += -lr * p.grad``."""
    counts = minitorch.zeros(27, 27, dtype=minitorch.int32)
    counts[3, 4] += 1
    probabilities = (counts + 1).float()
    probabilities /= probabilities.sum(1, keepdim=True)
    generator = minitorch.Generator().manual_seed(0)
    minitorch.multinomial(probabilities[0], 1, replacement=True, generator=generator).item()
    C = minitorch.randn(27, 10, requires_grad=True)
    W, b = minitorch.randn(30, 20, requires_grad=True), minitorch.randn(20, requires_grad=True)
    X, Y = minitorch.randint(0, 27, (32, 3)), minitorch.randint(0, 20, (32,))
    loss = F.cross_entropy(minitorch.tanh(C[X].view(32, 30) @ W + b), Y)
    loss.backward()
    for p in (C, W, b):
        p.data += -0.1 * p.grad
        p.grad = None


LESSONS = (elementwise_and_reductions, mlp_training, cnn_step, language_model, big_products,
           compiled_reference_loops)  # fmt: skip


def run_lessons() -> None:
    """Run every lesson on the Numba backend (compiling, and saving, what each calls)."""
    minitorch.set_backend("cpu", "numba")
    for lesson in LESSONS:
        lesson()
