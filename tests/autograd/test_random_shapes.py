"""Gradients on *random* shapes (hypothesis): broadcasting binary ops on random pairs of
broadcastable shapes and memory layouts, and reductions over random dims -- values and
gradients vs PyTorch, and ``gradcheck`` in float64."""

from __future__ import annotations

import numpy as np
import torch
from helpers import assert_close
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitorch as mt

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 0.5),
    "pow": lambda a, b: (a * a + 0.5) ** b,
    "maximum": lambda a, b: a.maximum(b),
    "where": lambda a, b: a.where(a > b, b),
    "matmul-ish": lambda a, b: (a * b).sum(-1, keepdim=True) * a,
}


@st.composite
def broadcast_pair(draw):
    target = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    shapes = []
    for _ in range(2):
        drop = draw(st.integers(0, len(target)))
        shape = [1 if draw(st.booleans()) else s for s in target[drop:]]
        shapes.append(tuple(shape))
    return shapes


def make(lib, data: np.ndarray, transposed: bool):
    """A leaf (float64, requires grad) and the tensor used in the op (maybe a transpose)."""
    if transposed and data.ndim >= 2:
        leaf = lib.tensor(np.ascontiguousarray(np.swapaxes(data, -1, -2)), dtype=lib.float64,
                          requires_grad=True)
        return leaf, leaf.transpose(-1, -2)
    leaf = lib.tensor(data, dtype=lib.float64, requires_grad=True)
    return leaf, leaf


@SETTINGS
@given(
    name=st.sampled_from(sorted(BINARY)),
    shapes=broadcast_pair(),
    transposed=st.tuples(st.booleans(), st.booleans()),
    seed=st.integers(0, 2**16),
)
def test_broadcasting_binary_grads_on_random_shapes(name, shapes, transposed, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1.5, 1.5, s) for s in shapes]
    fn = BINARY[name]
    (ta_leaf, ta), (tb_leaf, tb) = (make(torch, a, t) for a, t in zip(arrays, transposed))
    (ma_leaf, ma), (mb_leaf, mb) = (make(mt, a, t) for a, t in zip(arrays, transposed))
    expected = fn(ta, tb)
    actual = fn(ma, mb)
    assert_close(actual, expected, msg=f"{name} {shapes}")
    upstream = rng.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(upstream))
    actual.backward(mt.tensor(upstream))
    assert_close(ma_leaf.grad, ta_leaf.grad, msg=f"grad a of {name} {shapes}")
    assert_close(mb_leaf.grad, tb_leaf.grad, msg=f"grad b of {name} {shapes}")

    def through_views(a_leaf, b_leaf):
        a = a_leaf.transpose(-1, -2) if transposed[0] and a_leaf.dim() >= 2 else a_leaf
        b = b_leaf.transpose(-1, -2) if transposed[1] and b_leaf.dim() >= 2 else b_leaf
        return fn(a, b)

    assert mt.autograd.gradcheck(through_views, (ma_leaf.detach().requires_grad_(),
                                                 mb_leaf.detach().requires_grad_())) is True


REDUCTIONS = {
    "sum": lambda x, d, k: x.sum(d, keepdim=k),
    "mean": lambda x, d, k: x.mean(d, keepdim=k),
    "var": lambda x, d, k: x.var(d, keepdim=k),
    "std": lambda x, d, k: x.std(d, keepdim=k, correction=0) + 0.0,
    "logsumexp": lambda x, d, k: x.logsumexp(d, keepdim=k),
    "max": lambda x, d, k: x.max(d[0], keepdim=k)[0],
    "min": lambda x, d, k: x.min(d[0], keepdim=k).values,
    "prod": lambda x, d, k: x.prod(d[0], keepdim=k),
    "softmax": lambda x, d, k: x.softmax(d[0]),
    "log_softmax": lambda x, d, k: x.log_softmax(d[0]),
    "amax-via-max()": lambda x, d, k: x.max() + x.min(),
}


@SETTINGS
@given(
    name=st.sampled_from(sorted(REDUCTIONS)),
    shape=st.lists(st.integers(2, 4), min_size=1, max_size=3).map(tuple),
    data=st.data(),
    keepdim=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_reduction_grads_on_random_shapes_and_dims(name, shape, data, keepdim, seed):
    ndim = len(shape)
    chosen = sorted(data.draw(st.sets(st.integers(0, ndim - 1), min_size=1, max_size=ndim)))
    dims = tuple(d - ndim if data.draw(st.booleans()) else d for d in chosen)
    rng = np.random.default_rng(seed)
    array = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)
    fn = REDUCTIONS[name]
    t = torch.tensor(array, requires_grad=True)
    m = mt.tensor(array, requires_grad=True)
    expected = fn(t, dims, keepdim)
    actual = fn(m, dims, keepdim)
    assert_close(actual, expected, msg=f"{name} {shape} dims={dims} keepdim={keepdim}")
    upstream = rng.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(upstream))
    actual.backward(mt.tensor(upstream))
    assert_close(m.grad, t.grad, msg=f"grad of {name} {shape} dims={dims}")
    assert mt.autograd.gradcheck(lambda x: fn(x, dims, keepdim), (m.detach().requires_grad_(),))
