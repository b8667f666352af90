"""One backward per op (issue 30.2): ``tanh``, ``sigmoid``, ``relu``, ``x ** 2``,
``log_softmax``, ``addmm`` (``F.linear``) and ``t()`` each have one backward formula,
whatever the grad mode. A fused derivative (``tanh_backward``...) is an op of its own with
its own backward, so a plain backward and a ``create_graph=True`` backward run the same
formula, and differentiating the gradient again is exact.

Checked against PyTorch on CPU: first and second derivatives on transposed
(non-contiguous) and broadcast (stride-0) inputs, in float32 and float64; finite
differences (``gradcheck``, ``gradgradcheck``) of ours; and the first gradient of a
plain backward equal, bit for bit, to the one ``create_graph=True`` gives."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt

OPS = {  # name: (the op on either library's tensors, the shapes of its inputs)
    "tanh": (lambda lib, x: x.tanh(), [(4, 5)]),
    "sigmoid": (lambda lib, x: x.sigmoid(), [(4, 5)]),
    "relu": (lambda lib, x: x.relu(), [(4, 5)]),
    "square": (lambda lib, x: x**2, [(4, 5)]),
    "log_softmax": (lambda lib, x: lib.log_softmax(x, 1), [(4, 5)]),
    "addmm": (lambda lib, b, x, w: lib.nn.functional.linear(x, w, b), [(3,), (4, 5), (3, 5)]),
    "t": (lambda lib, x: x.t() * x.t(), [(4, 5)]),  # (a product, so that t() has a second derivative)
}
LAYOUTS = {  # how an input is laid out: made from a contiguous array of its shape
    "transposed": lambda lib, a: lib.tensor(np.ascontiguousarray(a.T)).t(),
    "broadcast": lambda lib, a: lib.tensor(a[:1] if a.ndim else a).expand(*a.shape),
}


def values(shape, seed):
    x = np.random.default_rng(seed).normal(size=shape)
    return x + np.sign(x) * 0.05  # away from relu's kink at 0


def inputs(name, layout, dtype):
    """The same leaves in both libraries, each laid out as ``layout`` says (a 1-d input
    is broadcast along a new dimension instead of transposed)."""
    pairs = []
    for k, shape in enumerate(OPS[name][1]):
        a = values(shape, seed=k)
        pair = []
        for lib in (mt, torch):
            if len(shape) == 1:
                leaf = lib.tensor(a).to(getattr(lib, dtype)).requires_grad_()
                pair.append((leaf, leaf))
                continue
            leaf = lib.tensor(a).to(getattr(lib, dtype)).requires_grad_()
            if layout == "transposed":
                used = leaf.t().contiguous().t() * 1  # the same values, strides (1, rows)
            else:
                used = leaf[:1].expand(*shape)  # one row read by every row
            pair.append((leaf, used))
        pairs.append(pair)
    return pairs


def first_and_second(lib, op, leaves, used, seed):
    y = op(lib, *used)
    v = lib.tensor(values(tuple(y.shape), seed)).to(y.dtype)
    grads = lib.autograd.grad((y * v).sum(), leaves, create_graph=True)
    w = [lib.tensor(values(tuple(g.shape), seed + 1 + k)).to(g.dtype) for k, g in enumerate(grads)]
    total = sum((g * wk).sum() for g, wk in zip(grads, w))
    second = lib.autograd.grad(total, leaves, allow_unused=True)
    return grads, second


def as_numpy(t, like):
    if t is None:
        return np.zeros(tuple(like.shape))
    return t.detach().double().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", list(OPS))
def test_first_and_second_derivatives_equal_torch(name, layout, dtype):
    pairs = inputs(name, layout, dtype)
    op = OPS[name][0]
    mine = first_and_second(mt, op, [p[0][0] for p in pairs], [p[0][1] for p in pairs], 10)
    theirs = first_and_second(torch, op, [p[1][0] for p in pairs], [p[1][1] for p in pairs], 10)
    tolerance = {"float32": 1e-5, "float64": 1e-12}[dtype]
    for order in (0, 1):
        for m, t, leaf in zip(mine[order], theirs[order], [p[1][0] for p in pairs]):
            np.testing.assert_allclose(as_numpy(m, leaf), as_numpy(t, leaf), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("name", list(OPS))
def test_gradcheck_and_gradgradcheck(name):
    op, shapes = OPS[name]
    leaves = [mt.tensor(values(shape, seed=k)).requires_grad_() for k, shape in enumerate(shapes)]
    assert mt.autograd.gradcheck(lambda *xs: op(mt, *xs), leaves)
    assert mt.autograd.gradgradcheck(lambda *xs: op(mt, *xs), leaves)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS))
def test_plain_and_create_graph_backward_give_the_same_bits(name, dtype):
    op, shapes = OPS[name]
    leaves = [mt.tensor(values(shape, seed=k)).to(getattr(mt, dtype)).requires_grad_()
              for k, shape in enumerate(shapes)]  # fmt: skip
    y = op(mt, *leaves)
    v = mt.tensor(values(tuple(y.shape), seed=7)).to(y.dtype)
    (y * v).sum().backward(retain_graph=True)
    plain = [leaf.grad.numpy().copy() for leaf in leaves]
    recorded = mt.autograd.grad((y * v).sum(), leaves, create_graph=True)
    assert any(g.requires_grad for g in recorded)  # (addmm's bias gradient, v summed, is a constant)
    for p, r in zip(plain, recorded):
        np.testing.assert_array_equal(p, r.detach().numpy())


def test_node_names_of_the_derivatives_are_torchs():
    for name in ("tanh", "sigmoid", "relu", "log_softmax"):
        op = OPS[name][0]
        names = []
        for lib in (mt, torch):
            x = lib.tensor(values((3, 4), seed=0)).requires_grad_()
            (g,) = lib.autograd.grad(op(lib, x).sum(), x, create_graph=True)
            names.append(g.grad_fn.name())
        assert names[0] == names[1], name
