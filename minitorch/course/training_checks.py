"""Checks for the training exercises (chapters 7 and 8): a training loop that reaches a
target accuracy, and a convolution written as a strided view plus a matmul.

The model and data here are built from the core library only (tensors and autograd), so
the checks work with or without ``minitorch.nn``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

import minitorch
from minitorch.course.cases import rng
from minitorch.course.report import CheckFailed, call_student, checker, fail


def two_moons(count: int, seed: int = 0, noise: float = 0.1) -> tuple[minitorch.Tensor, minitorch.Tensor]:
    """Two interleaving half circles: inputs ``[count, 2]`` (float32), labels ``[count]``."""
    generator = np.random.default_rng(seed)
    label = generator.integers(0, 2, count)
    angle = generator.uniform(0, math.pi, count)
    x = np.where(label == 0, np.cos(angle), 1 - np.cos(angle))
    y = np.where(label == 0, np.sin(angle), 0.5 - np.sin(angle))
    points = np.stack([x - 0.5, y - 0.25], axis=1) + generator.normal(0, noise, (count, 2))
    return minitorch.tensor(points.astype(np.float32)), minitorch.tensor(label.astype(np.int64))


class TinyMLP:
    """``2 -> hidden -> 2`` with tanh: just enough model, with ``parameters()`` and a call."""

    def __init__(self, hidden: int = 16, seed: int = 0) -> None:
        minitorch.manual_seed(seed)
        self.w1 = (minitorch.randn(2, hidden) * 0.7).requires_grad_()
        self.b1 = minitorch.zeros(hidden, requires_grad=True)
        self.w2 = (minitorch.randn(hidden, 2) * (1 / math.sqrt(hidden))).requires_grad_()
        self.b2 = minitorch.zeros(2, requires_grad=True)

    def parameters(self) -> list[minitorch.Tensor]:
        return [self.w1, self.b1, self.w2, self.b2]

    def __call__(self, x: minitorch.Tensor) -> minitorch.Tensor:
        return (x @ self.w1 + self.b1).tanh() @ self.w2 + self.b2


def cross_entropy(logits: minitorch.Tensor, labels: minitorch.Tensor) -> minitorch.Tensor:
    """Mean of ``-log softmax(logits)[label]`` (PyTorch's ``F.cross_entropy``)."""
    picked = logits.log_softmax(dim=1).gather(1, labels.unsqueeze(1))
    return -picked.mean()


def accuracy(model: Callable, x: minitorch.Tensor, y: minitorch.Tensor) -> float:
    with minitorch.no_grad():
        predicted = model(x).argmax(dim=1)
    return float((predicted == y).float().mean().item())


@checker
def check_training(train: Callable, target: float = 0.9) -> str:
    """``train(model, x, y)`` must train ``model`` (a TinyMLP) in place on two-moons data;
    the trained model must classify held-out points with accuracy >= ``target``."""
    __tracebackhide__ = True
    x_train, y_train = two_moons(256, seed=1)
    x_test, y_test = two_moons(256, seed=2)
    model = TinyMLP()
    before = [p.detach().clone() for p in model.parameters()]
    start_accuracy = accuracy(model, x_test, y_test)
    call_student("train", train, model, x_train, y_train, case="TinyMLP on 256 two-moons points")
    changed = any(not bool((p.detach() == b).all()) for p, b in zip(model.parameters(), before))
    if not changed:
        raise CheckFailed(
            "train(...) ran, but the model's parameters did not change. Update each parameter "
            "in place inside `with minitorch.no_grad():`, e.g. `p -= lr * p.grad`, after "
            "`loss.backward()`."
        )
    if any(p.grad_fn is not None for p in model.parameters()):
        raise CheckFailed(
            "a parameter now has a grad_fn: it was replaced by the result of an operation "
            "(p = p - lr * p.grad) instead of being updated in place under no_grad. The model "
            "keeps the old tensor; update in place: `p -= lr * p.grad`."
        )
    final = accuracy(model, x_test, y_test)
    if final < target:
        raise fail("the trained model's accuracy", "TinyMLP on held-out two-moons points",
                   f">= {target:.0%}", f"{final:.1%} (it was {start_accuracy:.1%} before training)",
                   "is the loss going down? Reset gradients each step (p.grad = None), use a "
                   "learning rate around 0.1-1, and train for a few hundred steps.")  # fmt: skip
    return f"your training loop reached {final:.1%} test accuracy (target {target:.0%})."


# --------------------------------------------------------------------------------------
# Chapter 8: convolution
# --------------------------------------------------------------------------------------


def _conv2d_numpy(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The definition, as loops: ``out[n, o, i, j] = b[o] + sum x[n, c, i+p, j+q] w[o, c, p, q]``."""
    batch, channels, height, width = x.shape
    outs, _, kh, kw = w.shape
    out = np.zeros((batch, outs, height - kh + 1, width - kw + 1))
    for p in range(kh):
        for q in range(kw):
            window = x[:, :, p : p + out.shape[2], q : q + out.shape[3]]
            out += np.einsum("ncij,oc->noij", window, w[:, :, p, q])
    return out + b[None, :, None, None]


@checker
def check_conv2d(conv2d: Callable) -> str:
    """``conv2d(x, weight, bias)`` (stride 1, no padding) must match the definition, and
    gradients must flow to the input, the weight and the bias."""
    __tracebackhide__ = True
    generator = rng(50)
    shapes = [((1, 1, 3, 3), (1, 1, 3, 3)), ((2, 1, 5, 5), (4, 1, 3, 3)), ((2, 3, 6, 5), (2, 3, 2, 3)),
              ((3, 2, 4, 7), (5, 2, 1, 1)), ((1, 2, 8, 8), (3, 2, 5, 5))]  # fmt: skip
    count = 0
    for n, (x_shape, w_shape) in enumerate(shapes):
        minitorch.manual_seed(generator.randrange(1000))
        x = minitorch.randn(*x_shape, dtype=minitorch.float64)
        if n % 2 == 1:  # a non-contiguous input: a permuted copy viewed back
            x = minitorch.randn(x_shape[0], x_shape[2], x_shape[3], x_shape[1],
                                dtype=minitorch.float64).permute(0, 3, 1, 2)  # fmt: skip
        w = minitorch.randn(*w_shape, dtype=minitorch.float64)
        b = minitorch.randn(w_shape[0], dtype=minitorch.float64)
        leaves = [t.detach().requires_grad_() for t in (x, w, b)]
        contiguity = "contiguous" if x.is_contiguous() else "non-contiguous (permuted)"
        case = f"x of shape {x_shape} ({contiguity}), weight {w_shape}, bias ({w_shape[0]},)"
        out = call_student("conv2d", conv2d, *leaves, case=case)
        expected = _conv2d_numpy(x.numpy(), w.numpy(), b.numpy())
        count += 1
        got = out.detach().numpy() if isinstance(out, minitorch.Tensor) else np.asarray(out)
        if got.shape != expected.shape:
            raise fail("conv2d's output shape", case, expected.shape, got.shape,
                       "the output is [N, out_channels, H - kh + 1, W - kw + 1].")  # fmt: skip
        if not np.allclose(got, expected):
            hint = ""
            if not x.is_contiguous():
                hint = ("as_strided reads the *storage*: call x.contiguous() first, or build the "
                        "windows' strides from x.stride().")  # fmt: skip
            raise fail("conv2d", case, expected, got, hint)
        upstream = minitorch.randn(*expected.shape, dtype=minitorch.float64)
        call_student("conv2d's backward", out.backward, upstream, case=case)
        if any(t.grad is None for t in leaves):
            raise CheckFailed(f"no gradient reached the input, weight or bias on {case}: build "
                              "conv2d from differentiable ops only.")  # fmt: skip
        x64, w64, u64 = x.numpy(), w.numpy(), upstream.numpy()
        grad_w = np.zeros_like(w64)
        for p in range(w_shape[2]):
            for q in range(w_shape[3]):
                window = x64[:, :, p : p + expected.shape[2], q : q + expected.shape[3]]
                grad_w[:, :, p, q] = np.einsum("ncij,noij->oc", window, u64)
        if not np.allclose(leaves[1].grad.numpy(), grad_w):
            raise fail("conv2d's weight gradient", case, grad_w, leaves[1].grad.numpy())
        if not np.allclose(leaves[2].grad.numpy(), u64.sum(axis=(0, 2, 3))):
            raise fail("conv2d's bias gradient", case, u64.sum(axis=(0, 2, 3)), leaves[2].grad.numpy())
    return f"conv2d matches the definition on {count} cases (values and gradients)."
