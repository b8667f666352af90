"""The ``softmax`` primitive (``dispatch.softmax``: softmax and log_softmax of each line)
on every backend, against PyTorch; and ``cross_entropy``, which runs it, in value and
gradient for the targets and options it takes.

Each backend is asked for a few well-chosen layouts rather than a grid: the reduced
dimension contiguous or strided, a permuted (non-contiguous) input, lines holding NaN,
-inf or large scores, one-element lines, float64, float16 (through float32).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch
from minitorch.backends import cuda, cuda_emulator

F = minitorch.nn.functional
BACKENDS = ["reference", "numba_simple", "numba", "cuda"]


def scores(seed: int = 0) -> np.ndarray:
    """[4, 5, 3] scores with the lines that need care along the last dim: a NaN, a
    -inf, one of large scores (exp would overflow without the shift)."""
    x = np.random.default_rng(seed).standard_normal((4, 5, 3))
    x[0, 1, 2] = np.nan
    x[1, 2, 0] = -np.inf
    x[2, 3, :] = [1000.0, 999.0, -1000.0]
    return x


@pytest.fixture(params=BACKENDS)
def on_backend(request):
    """``(to_device, name)``: tensors made by ``to_device`` run on the backend ``name``."""
    if request.param == "cuda":
        if not cuda_emulator.is_available():
            pytest.skip(cuda_emulator.unavailable_reason())
        with cuda.emulated():
            yield (lambda t: t.to("cuda")), "cuda"
        return
    with minitorch.dispatch.backend(request.param):
        yield (lambda t: t), request.param


def close(got: minitorch.Tensor, expected: torch.Tensor, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(
        got.detach().cpu().numpy(), expected.numpy(), rtol=1e-5, atol=atol, equal_nan=True
    )


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax_of_each_line(on_backend, dim):
    to_device, _ = on_backend
    x = scores()
    for dtype in (np.float32, np.float64):
        mine = to_device(minitorch.tensor(x.astype(dtype)))
        theirs = torch.tensor(x.astype(dtype))
        close(F.log_softmax(mine, dim), torch.log_softmax(theirs, dim))
        close(F.softmax(mine, dim), torch.softmax(theirs, dim))
        # a permuted (non-contiguous) input, and its lines strided in storage
        close(F.log_softmax(mine.permute(2, 0, 1), dim), torch.log_softmax(theirs.permute(2, 0, 1), dim))
        close(F.softmax(mine.transpose(0, 2), dim), torch.softmax(theirs.transpose(0, 2), dim))


def test_one_element_lines_many_lines_and_16_bit_floats(on_backend):
    to_device, name = on_backend
    x = scores(1)[..., :1]  # lines of one element: log_softmax 0, softmax 1 (NaN stays NaN)
    close(F.log_softmax(to_device(minitorch.tensor(x)), -1), torch.log_softmax(torch.tensor(x), -1))
    close(F.softmax(to_device(minitorch.tensor(x)), -1), torch.softmax(torch.tensor(x), -1))
    many = np.random.default_rng(4).standard_normal((130, 7))  # more lines than one block of the Numba kernel
    close(F.log_softmax(to_device(minitorch.tensor(many)), 1), torch.log_softmax(torch.tensor(many), 1))
    close(F.softmax(to_device(minitorch.tensor(many)), 1), torch.softmax(torch.tensor(many), 1))
    if name == "cuda":
        return  # (no 16-bit floats on the CUDA backend)
    half = np.random.default_rng(2).standard_normal((3, 6)).astype(np.float16)
    got = F.log_softmax(minitorch.tensor(half), 1)
    assert got.dtype is minitorch.float16
    close(got.float(), torch.log_softmax(torch.tensor(half), 1).float(), atol=2e-3)


def test_log_softmax_is_one_kernel_call():
    x = minitorch.randn(6, 5)
    with minitorch.dispatch.trace() as calls:
        F.log_softmax(x, 1)
        F.softmax(x.t(), 0)
    assert [(c.op, c.primitive, c.kernel) for c in calls] == [
        ("LogSoftmax", "softmax", "log_softmax"),
        ("Softmax", "softmax", "softmax"),
    ]


def gradients(lib, logits: np.ndarray, target: np.ndarray, permute: bool, **options):
    """The loss and the gradient of the logits, in ``lib`` (minitorch or torch)."""
    x = lib.tensor(logits, requires_grad=True)
    seen = x.permute(1, 0) if permute else x  # [C, N] stored, [N, C] seen: not contiguous
    if "weight" in options and options["weight"] is not None:
        options["weight"] = lib.tensor(options["weight"])
    t = lib.tensor(target)
    loss = lib.nn.functional.cross_entropy(seen, t, **options)
    loss.sum().backward()
    return loss, x.grad


CASES = {
    "plain, non-contiguous": dict(permute=True),
    "ignore_index": dict(ignore_index=2),
    "weights, mean": dict(weight=np.array([0.5, 2.0, 1.0, 0.25], dtype=np.float32)),
    "label_smoothing, weights": dict(
        label_smoothing=0.2, weight=np.array([1.0, 2.0, 0.5, 1.0], dtype=np.float32)
    ),
    "reduction none": dict(reduction="none", ignore_index=0),
    "class probabilities": dict(probabilities=True, label_smoothing=0.1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_cross_entropy_value_and_gradient(case):
    options = dict(CASES[case])
    permute = options.pop("permute", False)
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((4, 6) if permute else (6, 4)).astype(np.float32)
    target = rng.integers(0, 4, 6)
    if options.pop("probabilities", False):
        target = rng.dirichlet(np.ones(4), 6).astype(np.float32)
    mine, mine_grad = gradients(minitorch, logits, target, permute, **dict(options))
    theirs, their_grad = gradients(torch, logits, target, permute, **dict(options))
    close(mine, theirs.detach())
    close(mine_grad, their_grad)


def test_cross_entropy_of_an_empty_batch():
    for reduction in ("mean", "sum", "none"):
        mine = F.cross_entropy(
            minitorch.zeros(0, 5), minitorch.zeros(0, dtype=minitorch.int64), reduction=reduction
        )
        theirs = torch.nn.functional.cross_entropy(torch.zeros(0, 5), torch.zeros(0, dtype=torch.int64),
                                                   reduction=reduction)  # fmt: skip
        assert tuple(mine.shape) == tuple(theirs.shape)
        close(mine, theirs)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_log_softmax_backward_of_each_line(on_backend, dim):
    """``dispatch.log_softmax_backward`` (``grad - exp(y) * sum(grad)`` per line) is
    log_softmax's gradient: against torch's, for a contiguous and a permuted input, a
    gradient of stride 0 (``y.sum().backward()``), and lines of one element."""
    to_device, _ = on_backend
    for dtype in (np.float32, np.float64):
        x = np.random.default_rng(7).standard_normal((4, 5, 3)).astype(dtype)
        weights = np.random.default_rng(8).standard_normal((4, 5, 3)).astype(dtype)
        for order in ((0, 1, 2), (2, 0, 1)):
            mine = to_device(minitorch.tensor(x)).requires_grad_()
            theirs = torch.tensor(x, requires_grad=True)
            w = np.transpose(weights, order).copy()
            (F.log_softmax(mine.permute(*order), dim) * to_device(minitorch.tensor(w))).sum().backward()
            (torch.log_softmax(theirs.permute(*order), dim) * torch.tensor(w)).sum().backward()
            close(mine.grad, theirs.grad)
        mine = to_device(minitorch.tensor(x[..., :1])).requires_grad_()
        theirs = torch.tensor(x[..., :1], requires_grad=True)
        F.log_softmax(mine, dim).sum().backward()  # the gradient arrives as an expanded 1
        torch.log_softmax(theirs, dim).sum().backward()
        close(mine.grad, theirs.grad)


def test_log_softmax_backward_is_one_kernel():
    """The gradient of log_softmax runs its own primitive, once, not a sum, a product and
    a subtraction over the whole tensor."""
    x = minitorch.randn(6, 27, requires_grad=True)
    y = F.log_softmax(x, 1)
    g = minitorch.randn(6, 27)
    with minitorch.dispatch.trace() as calls:
        (grad,) = minitorch.autograd.grad(y, x, g)
    assert [c.primitive for c in calls] == ["log_softmax_backward"]
    expected = g - y.detach().exp() * g.sum(1, keepdim=True)
    np.testing.assert_allclose(grad.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
