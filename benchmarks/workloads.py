"""The benchmark workloads: each one written for minitorch, NumPy and PyTorch.

A ``Workload`` builds, for each implementation, a function with no arguments that runs
the work once (inputs are made beforehand and not timed). ``"numba"`` and ``"reference"``
both run the minitorch code; ``run.py`` switches the CPU backend before timing them.

A workload may carry a ``Target``: minitorch's speed over a peer's, at least some
minimum. The targets of issue 12 (interactive speed) are marked with ``issue=12``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import minitorch


class _LazyTorch:
    """PyTorch, imported on first use (the start-up timing must not pay for it)."""

    def __getattr__(self, name):
        import torch

        return getattr(torch, name)


torch = _LazyTorch()


@dataclass
class Workload:
    name: str
    unit: str  # "GFLOP/s", "GB/s" (higher is better), "us", "ms" (time per call)
    make: Callable[[str], Callable | None]  # implementation -> runnable (or None)
    work: float = 0.0  # flops or bytes per call, for GFLOP/s and GB/s
    slow: bool = False  # left out by --quick
    needs: tuple[str, ...] = ()  # minitorch attributes it uses, e.g. "nn.functional.conv2d"
    target: Target | None = None

    def build(self, implementation: str) -> Callable | None:
        return self.make(implementation)

    def rate(self, seconds: float) -> float:
        if self.unit in ("GFLOP/s", "GB/s"):
            return self.work / seconds / 1e9
        return seconds * (1e6 if self.unit == "us" else 1e3)

    def missing(self) -> str | None:
        """Why this workload cannot run yet (a minitorch feature it needs is missing)."""
        for dotted in self.needs:
            obj = minitorch
            for part in dotted.split("."):
                obj = getattr(obj, part, None)
                if obj is None:
                    return f"minitorch.{dotted} does not exist yet"
        return None


def _array(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _ours(array):
    return minitorch.from_numpy(array.copy())


def _theirs(array):
    return torch.from_numpy(array.copy())


@dataclass
class Target:
    """``minitorch's speed / peer's speed >= minimum`` (the ratio ``run.py`` prints), with
    ``peer`` "numpy", "torch" or "contiguous" (our own contiguous add). For a workload
    timed per call it reads as a time: 0.5 is "at most 2x the peer's time"."""

    peer: str
    minimum: float
    issue: int = 4  # the issue that set it

    def describe(self, unit: str) -> str:
        peer = "our contiguous add" if self.peer == "contiguous" else self.peer
        if unit in ("us", "ms"):
            return f"time <= {1 / self.minimum:.3g}x {peer}"
        return f"speed >= {self.minimum:g}x {peer}"

    def ratio(self, seconds: dict, all_seconds: dict) -> float | None:
        """The measured ratio from one condition's ``{implementation: seconds}`` of this
        workload (``all_seconds``: every workload's, for the "contiguous" peer)."""
        ours = seconds.get("numba")
        if self.peer == "contiguous":
            peer = all_seconds.get(CONTIGUOUS_ADD, {}).get("numba")
        else:
            peer = seconds.get(self.peer)
        return peer / ours if ours and peer else None


CONTIGUOUS_ADD = "add 1e6 float32 contiguous"


# --------------------------------------------------------------------------------------
# Kernel-level workloads
# --------------------------------------------------------------------------------------


def matmul(n: int) -> Workload:
    a, b = _array((n, n), 1), _array((n, n), 2)

    def make(implementation):
        if implementation in ("numba", "reference"):
            if implementation == "reference" and n > 64:
                return None  # plain Python loops: minutes
            x, y = _ours(a), _ours(b)
            return lambda: x @ y
        if implementation == "numpy":
            return lambda: a @ b
        x, y = _theirs(a), _theirs(b)
        return lambda: x @ y

    target = Target("numpy", 0.35, issue=12) if n == 512 else None
    return Workload(f"matmul n={n} float32", "GFLOP/s", make, 2.0 * n**3, target=target)


def elementwise(kind: str, transposed: bool) -> Workload:
    """``a + b`` or ``exp(a)`` on 1000x1000 float32, contiguous or both transposed."""
    a, b = _array((1000, 1000), 3), _array((1000, 1000), 4)

    def make(implementation):
        if implementation == "reference":
            return None  # 1e6 elements in Python: too slow to be interesting
        if implementation == "numpy":
            x, y = a, b
        elif implementation == "torch":
            x, y = _theirs(a), _theirs(b)
        else:
            x, y = _ours(a), _ours(b)
        if transposed:
            x, y = x.T, y.T
        if kind == "add":
            return lambda: x + y
        if implementation == "numpy":
            return lambda: np.exp(x)
        return lambda: x.exp()

    operands = 3 if kind == "add" else 2
    layout = "transposed" if transposed else "contiguous"
    if kind == "add":
        target = Target("contiguous", 0.3, issue=12) if transposed else Target("numpy", 1.0, issue=12)
    else:
        target = Target("numpy", 0.8) if not transposed else None
    return Workload(f"{kind} 1e6 float32 {layout}", "GB/s", make, operands * 4e6, target=target)


def sum_over(dim: int) -> Workload:
    a = _array((1000, 1000), 5)

    def make(implementation):
        if implementation == "reference":
            return None
        if implementation == "numpy":
            return lambda: a.sum(axis=dim)
        x = _theirs(a) if implementation == "torch" else _ours(a)
        return lambda: x.sum(dim)

    return Workload(
        f"sum(dim={dim}) 1000x1000 float32", "GB/s", make, 4e6, target=Target("numpy", 0.5)
    )


def tiny_add() -> Workload:
    a, b = _array((10, 10), 6), _array((10, 10), 7)

    def make(implementation):
        if implementation == "numpy":
            return lambda: a + b
        x, y = (_theirs(a), _theirs(b)) if implementation == "torch" else (_ours(a), _ours(b))
        return lambda: x + y

    return Workload("a + b 10x10 (per-op overhead)", "us", make, target=Target("torch", 0.5, issue=12))


# --------------------------------------------------------------------------------------
# Model workloads (need minitorch.nn)
# --------------------------------------------------------------------------------------


def conv2d_step() -> Workload:
    x_data, w_data = _array((32, 3, 32, 32), 8), _array((16, 3, 3, 3), 9)

    def make(implementation):
        if implementation == "numpy":
            return None
        if implementation == "reference":
            return None  # minutes in plain Python
        lib = torch if implementation == "torch" else minitorch
        x = lib.from_numpy(x_data.copy()).requires_grad_()
        w = lib.from_numpy(w_data.copy()).requires_grad_()
        conv2d = lib.nn.functional.conv2d

        def step():
            x.grad = w.grad = None
            conv2d(x, w).sum().backward()

        return step

    return Workload(
        "conv2d fwd+bwd 32x3x32x32, 16 3x3",
        "ms",
        make,
        needs=("nn.functional.conv2d",),
        target=Target("torch", 1 / 2.5, issue=30),  # "inside the kernels": the CNN chapter's cost
    )


def _mlp(lib, sizes, activation):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(lib.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(activation(lib))
    return lib.nn.Sequential(*layers)


def _compiled(lib, step):
    """``step`` captured and replayed by ``minitorch.compile`` (issue 13); PyTorch's peer
    is its eager step, the code students run."""
    return minitorch.compile(step) if lib is minitorch else step


def _playground_step(lib, compiled=False):
    lib.manual_seed(0)
    points = _array((500, 2), 10)
    labels = (points[:, :1] * points[:, 1:] > 0).astype(np.float32)
    x, y = lib.from_numpy(points), lib.from_numpy(labels)
    model = _mlp(lib, (2, 8, 8, 1), lambda lib: lib.nn.Tanh())
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)

    def step(x, y):
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()

    run = _compiled(lib, step) if compiled else step
    return lambda: run(x, y)


def playground_step_minitorch():
    """One Playground training step on minitorch (also used by the start-up timing)."""
    return _playground_step(minitorch)


def playground(compiled: bool = False) -> Workload:
    def make(implementation):
        if implementation == "numpy":
            return None
        return _playground_step(torch if implementation == "torch" else minitorch, compiled)

    return Workload(
        "Playground MLP step 500x(2-8-8-1)" + (", compiled" if compiled else ""),
        "ms",
        make,
        needs=("nn.Linear", "nn.Tanh", "nn.Sequential", "optim.SGD") + (("compile",) if compiled else ()),
        target=Target("torch", 1.0, issue=13) if compiled else Target("torch", 1 / 1.5, issue=12),
    )


def digits_epoch(compiled: bool = False) -> Workload:
    features = _array((1797, 64), 11)
    labels = np.random.default_rng(12).integers(0, 10, 1797)

    def make(implementation):
        if implementation in ("numpy", "reference"):
            return None
        lib = torch if implementation == "torch" else minitorch
        lib.manual_seed(0)
        model = _mlp(lib, (64, 128, 10), lambda lib: lib.nn.ReLU())
        optimizer = lib.optim.SGD(model.parameters(), lr=0.05)
        batches = [
            (lib.from_numpy(features[i : i + 64].copy()), lib.from_numpy(labels[i : i + 64].copy()))
            for i in range(0, 1797, 64)
        ]
        cross_entropy = lib.nn.functional.cross_entropy

        def step(x, y):
            optimizer.zero_grad()
            cross_entropy(model(x), y).backward()
            optimizer.step()

        run = _compiled(lib, step) if compiled else step

        def epoch():
            for x, y in batches:
                run(x, y)

        return epoch

    return Workload(
        "digits MLP epoch 1797x(64-128-10)" + (", compiled" if compiled else ""),
        "ms",
        make,
        needs=("nn.Linear", "nn.ReLU", "nn.Sequential", "optim.SGD", "nn.functional.cross_entropy")
        + (("compile",) if compiled else ()),
        target=Target("torch", 1 / 1.5, issue=12),
    )


# --------------------------------------------------------------------------------------
# PyTorch's tutorial "Learning PyTorch with examples": fit sin(x) with a cubic
# --------------------------------------------------------------------------------------

POLYNOMIAL_STEPS = 2000


def _polynomial_autograd(lib, compiled=False):
    """The tutorial's autograd version: four 0-d weights, the update written by hand.
    One call is the whole fit, from the same start (``compiled``: each step compiled)."""
    x = lib.linspace(-math.pi, math.pi, 2000)
    y = lib.sin(x)

    def fit():
        lib.manual_seed(0)
        a, b, c, d = (lib.randn((), requires_grad=True) for _ in range(4))
        learning_rate = 1e-6

        def step():
            y_pred = a + b * x + c * x**2 + d * x**3
            loss = (y_pred - y).pow(2).sum()
            loss.backward()
            with lib.no_grad():
                a.sub_(learning_rate * a.grad)
                b.sub_(learning_rate * b.grad)
                c.sub_(learning_rate * c.grad)
                d.sub_(learning_rate * d.grad)
                a.grad = b.grad = c.grad = d.grad = None
            return loss

        run = _compiled(lib, step) if compiled else step
        for _ in range(POLYNOMIAL_STEPS):
            loss = run()
        return loss

    return fit


def _polynomial_nn(lib, compiled=False):
    """The tutorial's ``nn`` version, with ``optim.SGD`` doing the update."""
    x = lib.linspace(-math.pi, math.pi, 2000)
    y = lib.sin(x)
    xx = x.unsqueeze(-1).pow(lib.tensor([1, 2, 3]))

    def fit():
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1))
        loss_fn = lib.nn.MSELoss(reduction="sum")
        optimizer = lib.optim.SGD(model.parameters(), lr=1e-6)

        def step():
            loss = loss_fn(model(xx), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            return loss

        run = _compiled(lib, step) if compiled else step
        for _ in range(POLYNOMIAL_STEPS):
            loss = run()
        return loss

    return fit


def polynomial(version: str, compiled: bool = False) -> Workload:
    builder = _polynomial_autograd if version == "autograd" else _polynomial_nn

    def make(implementation):
        if implementation in ("numpy", "reference"):
            return None
        return builder(torch if implementation == "torch" else minitorch, compiled)

    needs = ("linspace", "sin", "no_grad") + (("compile",) if compiled else ())
    if version == "nn":
        needs += ("nn.Linear", "nn.Flatten", "nn.MSELoss", "optim.SGD")
    return Workload(
        f"polynomial fit, {version} ({POLYNOMIAL_STEPS} steps)" + (", compiled" if compiled else ""),
        "ms",
        make,
        needs=needs,
        target=Target("torch", 1 / 1.5, issue=12),
    )


WORKLOADS = [
    *(matmul(n) for n in (64, 256, 512, 1024)),
    elementwise("add", transposed=False),
    elementwise("add", transposed=True),
    elementwise("exp", transposed=False),
    elementwise("exp", transposed=True),
    sum_over(0),
    sum_over(1),
    tiny_add(),
    conv2d_step(),
    playground(),
    digits_epoch(),
    polynomial("autograd"),
    polynomial("nn"),
    playground(compiled=True),
    digits_epoch(compiled=True),
    polynomial("autograd", compiled=True),
    polynomial("nn", compiled=True),
]
WORKLOADS[3].slow = True  # n = 1024 is left out by --quick
