"""``grad_fn`` names and graph shape as PyTorch shows them (tutorials print these).

For each expression, the whole tree ``(name, next_functions)`` of the result's
``grad_fn`` must equal PyTorch's, ``(None, 0)`` entries included. The losses, which
now are single nodes with their own backward, are checked against torch's gradients
(with weights, ``pos_weight``, ``ignore_index``, every reduction, broadcast targets,
more than two dimensions) and by ``gradgradcheck`` for their double backward.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3)).astype(np.float32)
X3 = RNG.standard_normal((2, 4, 3)).astype(np.float32)
W = RNG.standard_normal((5, 3)).astype(np.float32)
W2 = RNG.standard_normal((3, 5)).astype(np.float32)
B = RNG.standard_normal(5).astype(np.float32)
P = RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
T = (RNG.random((4, 3)) > 0.5).astype(np.float32)
Y = np.array([0, 2, 1, 0])


def tree(node) -> tuple | None:
    """``(name, ((child tree, output number), ...))`` of a graph node."""
    if node is None:
        return None
    name = node.name().replace("torch::autograd::", "")
    return name, tuple((tree(child), nr) for child, nr in node.next_functions)


def expressions(lib):
    """Name -> a function computing the expression with library ``lib``."""
    nn, F = lib.nn, lib.nn.functional
    x, x3 = lib.tensor(X, requires_grad=True), lib.tensor(X3, requires_grad=True)
    w, b = lib.tensor(W, requires_grad=True), lib.tensor(B, requires_grad=True)
    w2 = lib.tensor(W2, requires_grad=True)
    p, t, y, c = lib.tensor(P, requires_grad=True), lib.tensor(T), lib.tensor(Y), lib.tensor(X)
    return {
        "linear 2-D": lambda: F.linear(x, w, b),
        "linear 3-D": lambda: F.linear(x3, w, b),
        "linear 1-D": lambda: F.linear(x[0], w, b),
        "linear no bias": lambda: F.linear(x, w),
        "linear 3-D no bias": lambda: F.linear(x3, w),
        "linear constant input": lambda: F.linear(c, w, b),
        "nn.Linear": lambda: nn.Linear(3, 2)(x),
        "mse_loss": lambda: F.mse_loss(x, t),
        "mse_loss none": lambda: F.mse_loss(x, t, reduction="none"),
        "bce with logits": lambda: F.binary_cross_entropy_with_logits(x, t),
        "bce": lambda: F.binary_cross_entropy(p, t),
        "nll_loss": lambda: F.nll_loss(x, y),
        "cross_entropy": lambda: F.cross_entropy(x, y),
        "nn.CrossEntropyLoss": lambda: nn.CrossEntropyLoss()(x, y),
        "nn.MSELoss": lambda: nn.MSELoss()(x, t),
        "clone": lambda: x.clone(),
        "contiguous": lambda: x.t().contiguous(),
        "slice": lambda: x[1:],
        "slice of dim 1": lambda: x[:, 1:],
        "select": lambda: x[1],
        "select of dim 1": lambda: x[:, 1],
        "narrow": lambda: x.narrow(0, 1, 2),
        "sum": lambda: x.sum(),
        "sum(dim)": lambda: x.sum(0),
        "mean": lambda: x.mean(),
        "mean(dim)": lambda: x.mean(1),
        "pow": lambda: x**2,
        "pow with a tensor exponent": lambda: x**x,
        "number ** tensor": lambda: 2**x,
        "max": lambda: x.max(),
        "min": lambda: x.min(),
        "max(dim)": lambda: x.max(1)[0],
        "min(dim)": lambda: x.min(0).values,
        "amax": lambda: x.amax(1),
        "relu": lambda: x.relu(),
        "F.relu": lambda: F.relu(x),
        "t": lambda: x.t(),
        "transpose": lambda: x.transpose(0, 1),
        "permute": lambda: x.permute(1, 0),
        "view": lambda: x.view(12),
        "reshape": lambda: x.reshape(12),
        "flatten": lambda: x3.flatten(),
        "unsqueeze": lambda: x.unsqueeze(0),
        "squeeze(dim)": lambda: x.unsqueeze(0).squeeze(0),
        "squeeze()": lambda: x.unsqueeze(0).squeeze(),
        "expand": lambda: x[:1].expand(3, 3),
        "mul by constant": lambda: x * c,
        "constant + x": lambda: c + x,
        "sub": lambda: x - c,
        "neg": lambda: -x,
        "exp": lambda: x.exp(),
        "log": lambda: p.log(),
        "abs": lambda: x.abs(),
        "sigmoid": lambda: x.sigmoid(),
        "tanh": lambda: x.tanh(),
        "softmax": lambda: x.softmax(1),
        "log_softmax": lambda: F.log_softmax(x, 1),
        "matmul": lambda: x @ w.t(),
        "mm": lambda: x.mm(w.t()),
        "matmul 3-D @ 2-D": lambda: x3 @ w.t(),
        "cat": lambda: lib.cat([x, c]),
        "stack": lambda: lib.stack([x, c, x], 1),
        "a small network": lambda: F.cross_entropy(F.linear(F.relu(F.linear(x, w, b)), w2), y),
    }


TORCH, MINI = expressions(torch), expressions(minitorch)


@pytest.mark.parametrize("name", list(TORCH))
def test_graph_matches_torch(name):
    assert tree(MINI[name]().grad_fn) == tree(TORCH[name]().grad_fn)


def test_leaf_node_and_repr():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    node = y.grad_fn.next_functions[0][0]
    assert node.name() == "AccumulateGrad"
    assert node.variable is x
    assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")
    assert repr(y) == "tensor([2., 4.], grad_fn=<MulBackward0>)"


def pair(values, requires_grad=False):
    return (torch.tensor(values, requires_grad=requires_grad),
            minitorch.tensor(values, requires_grad=requires_grad))  # fmt: skip


def assert_close(actual, expected):
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)


def check_loss(loss_of, inputs: list, grad_of: list[int]):
    """Compare a loss and the gradients of the inputs numbered ``grad_of`` with torch."""
    pairs = [pair(v, i in grad_of) for i, v in enumerate(inputs)]
    expected = loss_of(torch, *[t for t, _ in pairs])
    actual = loss_of(minitorch, *[m for _, m in pairs])
    assert_close(actual, expected)
    seed = np.random.default_rng(1).standard_normal(tuple(expected.shape)).astype(np.float32)
    expected.backward(torch.tensor(seed))
    actual.backward(minitorch.tensor(seed))
    for i in grad_of:
        assert_close(pairs[i][1].grad, pairs[i][0].grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_gradients(reduction):
    check_loss(lambda lib, a, b: lib.nn.functional.mse_loss(a, b, reduction=reduction),
               [X, T], [0, 1])  # fmt: skip


def test_mse_loss_broadcast_target_gradients():
    with pytest.warns(UserWarning):
        check_loss(lambda lib, a, b: lib.nn.functional.mse_loss(a, b), [X, T[:1]], [0, 1])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_gradients(reduction):
    weight = RNG.uniform(0.5, 2, (3,)).astype(np.float32)
    pos_weight = RNG.uniform(0.5, 3, (3,)).astype(np.float32)
    big = (X * 40).astype(np.float32)  # logits far from 0: the sigmoid would round to 0 or 1

    def loss(lib, x, t, w, q):
        return lib.nn.functional.binary_cross_entropy_with_logits(
            x, t, weight=w, pos_weight=q, reduction=reduction)  # fmt: skip

    check_loss(loss, [big, T, weight, pos_weight], [0, 1])
    check_loss(lambda lib, x, t: lib.nn.functional.binary_cross_entropy_with_logits(
        x, t, reduction=reduction), [X, T], [0, 1])  # fmt: skip


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_gradients(reduction):
    weight = RNG.uniform(0.5, 2, (4, 3)).astype(np.float32)
    check_loss(lambda lib, p, t, w: lib.nn.functional.binary_cross_entropy(
        p, t, weight=w, reduction=reduction), [P, T, weight], [0, 1])  # fmt: skip


@pytest.mark.parametrize("name", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_bce_refuses_a_weight_that_needs_grad_like_torch(name):
    p, t = minitorch.tensor(P, requires_grad=True), minitorch.tensor(T)
    w = minitorch.ones(4, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"'{name}' is not differentiable with respect to"):
        getattr(minitorch.nn.functional, name)(p, t, weight=w)
    with minitorch.no_grad():
        getattr(minitorch.nn.functional, name)(p, t, weight=w)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", ["plain", "weight", "ignore_index", "4-D", "1-D", "smoothing"])
def test_nll_and_cross_entropy_gradients(reduction, case):
    weight = RNG.uniform(0.5, 2, (3,)).astype(np.float32)
    logits, target, kwargs = X, Y, {}
    if case == "weight":
        kwargs = {"weight": weight}
    elif case == "ignore_index":
        target, kwargs = np.array([0, 2, 1, 2]), {"ignore_index": 2, "weight": weight}
    elif case == "4-D":
        logits = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
        target = RNG.integers(0, 3, (2, 4, 5))
    elif case == "1-D":
        logits, target = X[0], np.array(1)
    elif case == "smoothing":
        kwargs = {"label_smoothing": 0.1, "weight": weight}

    def loss_of(lib, x, w):
        options = {k: (w if k == "weight" else v) for k, v in kwargs.items()}
        return lib.nn.functional.cross_entropy(x, lib.tensor(target), reduction=reduction, **options)

    check_loss(loss_of, [logits, weight], [0])
    if case != "smoothing":
        def nll_of(lib, x, w):
            options = {k: (w if k == "weight" else v) for k, v in kwargs.items()}
            return lib.nn.functional.nll_loss(x, lib.tensor(target), reduction=reduction, **options)

        check_loss(nll_of, [logits, weight], [0])


def test_loss_double_backward():
    x = minitorch.tensor(X.astype(np.float64), requires_grad=True)
    t = minitorch.tensor(T.astype(np.float64), requires_grad=True)
    F = minitorch.nn.functional
    assert minitorch.autograd.gradgradcheck(lambda a, b: F.mse_loss(a, b), (x, t))
    assert minitorch.autograd.gradgradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b), (x, t))
    p = minitorch.tensor(P.astype(np.float64), requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda a: F.binary_cross_entropy(a, t.detach()), (p,))
    y = minitorch.tensor(Y)
    assert minitorch.autograd.gradgradcheck(lambda a: F.cross_entropy(a, y), (x,))


def test_the_node_class_has_pytorchs_name() -> None:
    """Tutorials print ``type(z.grad_fn).__name__``: the class is named like the node."""
    x = minitorch.ones(2, 3, requires_grad=True)
    t = torch.ones(2, 3, requires_grad=True)
    mse_ours = minitorch.nn.functional.mse_loss(x, x.detach())
    mse_theirs = torch.nn.functional.mse_loss(t, t.detach())
    pairs = [((x * 2).sum(), (t * 2).sum()), (x.clone(), t.clone()), (x.sum(0), t.sum(0))]
    pairs.append((mse_ours, mse_theirs))
    for ours, theirs in pairs:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def test_a_users_function_names_its_node_class() -> None:
    class Double(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    y = Double.apply(minitorch.ones(2, requires_grad=True))
    assert type(y.grad_fn).__name__ == "DoubleBackward" == y.grad_fn.name()
    assert isinstance(y.grad_fn, minitorch.autograd.function.BackwardNode)


def _edges(t) -> list:
    return [(f.name().replace("torch::autograd::", "") if f is not None else None, i)
            for f, i in t.grad_fn.next_functions]  # fmt: skip


@pytest.mark.parametrize("expression", ["x + 1", "1 + x", "x * 2", "2 * x", "x - 1.5", "x / 2",
                                        "x + x", "x ** 2", "(x * 2) + 1", "x * True"])  # fmt: skip
def test_a_number_operand_is_a_none_edge_like_pytorch(expression: str) -> None:
    """PyTorch wraps the number of ``x + 1`` in a tensor that needs no gradient, so the
    node lists it as ``(None, 0)``; tutorials print these tuples."""
    x = minitorch.ones(2, requires_grad=True)
    t = torch.ones(2, requires_grad=True)
    ours, theirs = eval(expression, {"x": x}), eval(expression, {"x": t})
    assert _edges(ours) == _edges(theirs)
    ours.sum().backward()
    theirs.sum().backward()
    assert x.grad.tolist() == t.grad.tolist()
