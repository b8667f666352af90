"""Higher-order gradients (issue 3, item 5): ``create_graph=True`` differentiates the
backward formulas themselves. Checked against PyTorch on a tanh MLP (gradient-norm
penalty, Hessian-vector products) and on third derivatives of elementwise ops. (Each
differentiable op of the op table is also checked to second order in
``test_op_grads.py``.)"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt

RNG = np.random.default_rng(21)
DATA = {
    "x": RNG.standard_normal((5, 3)),
    "w1": RNG.standard_normal((3, 4)) * 0.7,
    "b1": RNG.standard_normal(4) * 0.1,
    "w2": RNG.standard_normal((4, 2)) * 0.7,
    "b2": RNG.standard_normal(2) * 0.1,
    "y": RNG.standard_normal((5, 2)),
}


def mlp_params(lib):
    return {
        k: lib.tensor(v, dtype=lib.float64, requires_grad=k not in ("x", "y"))
        for k, v in DATA.items()
    }


def mlp_loss(p):
    hidden = (p["x"] @ p["w1"] + p["b1"]).tanh()
    out = hidden @ p["w2"] + p["b2"]
    return ((out - p["y"]) ** 2).mean()


NAMES = ["w1", "b1", "w2", "b2"]


def test_gradient_norm_penalty_on_tanh_mlp():
    results = {}
    for key, lib in (("minitorch", mt), ("torch", torch)):
        p = mlp_params(lib)
        loss = mlp_loss(p)
        grads = lib.autograd.grad(loss, [p[n] for n in NAMES], create_graph=True)
        penalty = sum((g * g).sum() for g in grads)
        (loss + penalty).backward()
        results[key] = (loss, grads, penalty, [p[n].grad for n in NAMES])
    m_loss, m_grads, m_pen, m_second = results["minitorch"]
    t_loss, t_grads, t_pen, t_second = results["torch"]
    assert_close(m_loss, t_loss)
    assert_close(tuple(m_grads), tuple(t_grads))
    assert_close(m_pen, t_pen)
    for name, a, e in zip(NAMES, m_second, t_second):
        assert_close(a, e, msg=f"d(loss + |grad|^2)/d{name}")


def test_hessian_vector_product_on_tanh_mlp():
    vectors = {n: RNG.standard_normal(DATA[n].shape) for n in NAMES}
    results = {}
    for key, lib in (("minitorch", mt), ("torch", torch)):
        p = mlp_params(lib)
        params = [p[n] for n in NAMES]
        grads = lib.autograd.grad(mlp_loss(p), params, create_graph=True)
        dot = sum((g * lib.tensor(vectors[n], dtype=lib.float64)).sum() for g, n in zip(grads, NAMES))
        results[key] = lib.autograd.grad(dot, params)
    assert_close(tuple(results["minitorch"]), tuple(results["torch"]))


def test_backward_create_graph_on_mlp_then_second_backward():
    out = {}
    for key, lib in (("minitorch", mt), ("torch", torch)):
        p = mlp_params(lib)
        mlp_loss(p).backward(create_graph=True)
        g = p["w1"].grad
        for n in NAMES:
            p[n].grad = None
        (g**2).sum().backward()
        out[key] = [p[n].grad for n in NAMES]
    for name, a, e in zip(NAMES, out["minitorch"], out["torch"]):
        if e is None:
            assert a is None or np.allclose(a.detach().numpy(), 0), name
        else:
            assert_close(a, e, msg=name)


THIRD = {
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "exp": lambda x: x.exp(),
    "log": lambda x: (x * x + 1).log(),
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "sqrt": lambda x: (x * x + 1).sqrt(),
    "rsqrt": lambda x: (x * x + 1).rsqrt(),
    "reciprocal": lambda x: (x * x + 1).reciprocal(),
    "pow": lambda x: (x * x + 1) ** 2.5,
    "div": lambda x: x / (x * x + 1),
    "log1p": lambda x: (x * x).log1p(),
    "softmax": lambda x: x.softmax(0),
    "logsumexp": lambda x: x.logsumexp(0),
    "log_softmax": lambda x: x.log_softmax(0),
}


@pytest.mark.parametrize("name", list(THIRD))
def test_third_derivative_matches_torch(name):
    values = RNG.uniform(-1.5, 1.5, 4)
    out = {}
    for key, lib in (("minitorch", mt), ("torch", torch)):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        (g1,) = lib.autograd.grad(THIRD[name](x).sum(), x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        out[key] = (g1, g2, g3)
    assert_close(out["minitorch"], out["torch"], msg=name)
