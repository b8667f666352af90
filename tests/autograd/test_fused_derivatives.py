"""Backward formulas that run as one kernel (issue 12): ``tanh``, ``sigmoid`` and ``relu``
multiply the incoming gradient by their derivative in one pass (``tanh_backward``...
in the scalar-op table), an op of its own with its own derivative, so a plain backward
and ``create_graph=True`` run the same formula; ``x ** n`` for a number
``n`` computes ``grad * (n * x^(n-1))`` in PyTorch's order, with ``x`` itself for a
square. Also the lean in-place ``fill_`` and the optimizer step's operands.

Every gradient is compared with PyTorch's, on gradients that arrive transposed or
expanded (stride 0), with NaN, infinities and signed zeros, and again with
``create_graph=True``, where the composite formula must still be differentiable."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import dispatch

ACTIVATIONS = ["tanh", "sigmoid", "relu"]
DTYPES = ["float32", "float64", "float16", "bfloat16"]


def special_values(shape=(7, 5), seed=0):
    x = np.random.default_rng(seed).normal(size=shape).astype(np.float32) * 3
    x.flat[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 40.0]
    return x


def pair(x, dtype, requires_grad=True):
    m = mt.tensor(x).to(getattr(mt, dtype))
    t = torch.tensor(x).to(getattr(torch, dtype))
    return m.requires_grad_(requires_grad), t.requires_grad_(requires_grad)


def assert_same(m, t, dtype):
    a, b = m.float().numpy(), t.float().numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b)), (a, b)
    tolerance = {"float32": 2e-7, "float64": 1e-15}.get(dtype, 1e-2)
    np.testing.assert_allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=tolerance, atol=tolerance)


GRADIENTS = {  # how the incoming gradient is laid out
    "contiguous": lambda lib, g: g,
    "transposed": lambda lib, g: g.t().contiguous().t(),
    "expanded": lambda lib, g: g[:1].expand(*g.shape),
    "with NaN": lambda lib, g: g.where(lib.arange(g.numel()).reshape(g.shape) % 5 != 0, float("nan")),
}


@pytest.mark.parametrize("layout", list(GRADIENTS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_fused_derivative_equals_torch(name, dtype, layout):
    m, t = pair(special_values(), dtype)
    g = np.random.default_rng(1).normal(size=(7, 5)).astype(np.float32)
    gm, gt = pair(g, dtype, requires_grad=False)
    getattr(m, name)().backward(GRADIENTS[layout](mt, gm))
    getattr(t, name)().backward(GRADIENTS[layout](torch, gt))
    assert_same(m.grad, t.grad, dtype)


def test_relu_lets_the_gradient_through_where_its_output_is_nan():
    # PyTorch's threshold_backward: 0 where y <= 0, else the gradient (NaN <= 0 is false)
    m = mt.tensor([float("nan"), -1.0, 0.0, 2.0], requires_grad=True)
    m.relu().backward(mt.tensor([5.0, 6.0, 7.0, 8.0]))
    np.testing.assert_array_equal(m.grad.numpy(), [5.0, 0.0, 0.0, 8.0])
    # ... and a NaN gradient stays NaN only where it passes
    n = mt.tensor([-1.0, 3.0], requires_grad=True)
    n.relu().backward(mt.tensor([float("nan"), float("nan")]))
    assert n.grad[0].item() == 0 and np.isnan(n.grad[1].item())


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])  # (relu's second derivative is 0)
def test_create_graph_keeps_a_differentiable_formula(name):
    x = special_values()[1:]  # finite values only where second derivatives are compared
    x = x[np.isfinite(x).all(axis=1)]
    m, t = pair(x, "float64")
    (gm,) = mt.autograd.grad(getattr(m, name)().sum(), m, create_graph=True)
    (gt,) = torch.autograd.grad(getattr(t, name)().sum(), t, create_graph=True)
    assert gm.requires_grad
    assert_same(gm.detach(), gt.detach(), "float64")
    (gm * gm).sum().backward()
    (gt * gt).sum().backward()
    assert_same(m.grad, t.grad, "float64")


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_one_kernel_with_or_without_create_graph(name):
    """The derivative is one op (``TanhBackward``...) whatever the grad mode: a plain
    backward and ``create_graph=True`` run the same fused kernel, and with
    ``create_graph=True`` its result is a node of that op, as in PyTorch."""
    x = mt.randn(4, 3, requires_grad=True)
    y = getattr(x, name)()
    with dispatch.trace() as calls:
        y.backward(mt.ones(4, 3), retain_graph=True)
    assert [c.kernel for c in calls if c.op != "AccumulateGrad"] == [f"{name}_backward"]
    with dispatch.trace() as calls:
        (gx,) = mt.autograd.grad(y, x, mt.ones(4, 3), create_graph=True)
    assert [c.kernel for c in calls] == [f"{name}_backward"]
    t = getattr(torch.randn(4, 3, requires_grad=True), name)()
    (gt,) = torch.autograd.grad(t, t.grad_fn.next_functions[0][0].variable, torch.ones(4, 3),
                                create_graph=True)  # fmt: skip
    assert gx.grad_fn.name() == gt.grad_fn.name()
    np.testing.assert_array_equal(gx.detach().numpy(), x.grad.numpy())


@pytest.mark.parametrize("exponent", [2, 3, 1, 0, -1, 0.5, 2.5, -2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_power_of_a_number_has_torch_gradient(exponent, dtype):
    x = np.abs(special_values((6, 4), seed=2)) + 0.1
    x.flat[0] = 0.0  # a^(b-1) at 0
    m, t = pair(x, dtype)
    g = np.random.default_rng(3).normal(size=(4, 6)).astype(np.float32)
    gm, gt = pair(g, dtype, requires_grad=False)
    (m**exponent).backward(gm.t())
    (t**exponent).backward(gt.t())
    a, b = m.grad.numpy(), t.grad.numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b))
    finite = np.isfinite(b)
    assert np.array_equal(a[~finite], b[~finite])
    if exponent in (2, 3, 1, 0):  # multiplications only: the same bits as PyTorch
        assert np.array_equal(a, b)
    else:
        np.testing.assert_allclose(a[finite], b[finite], rtol=4e-7 if dtype == "float32" else 1e-15)


def test_square_gradient_is_one_kernel_with_or_without_create_graph():
    """``grad * (2 x)`` is one ``square_backward`` kernel (the same bits as PyTorch,
    checked above), an op of its own (``SquareBackward``) that can be differentiated
    again, in a plain backward and with ``create_graph=True`` alike."""
    x = mt.randn(5, 2, requires_grad=True)
    y = x**2
    with dispatch.trace() as calls:
        y.backward(mt.ones(5, 2), retain_graph=True)
    kernels = [c.kernel for c in calls if c.op != "AccumulateGrad"]
    assert kernels == ["square_backward"]  # no pow kernel, no separate 2 * x
    with dispatch.trace() as calls:
        (gx,) = mt.autograd.grad(y, x, mt.ones(5, 2), create_graph=True)
    assert [c.kernel for c in calls] == ["square_backward"] and gx.requires_grad
    np.testing.assert_array_equal(gx.detach().numpy(), 2 * x.detach().numpy())


FILLED = {
    "whole": lambda x: x,
    "transposed": lambda x: x.t(),
    "stepped": lambda x: x[::2, 1::2],
    "empty": lambda x: x[:0],
}


@pytest.mark.parametrize("view", list(FILLED))
@pytest.mark.parametrize("value", [0, 2.5, float("nan"), -0.0])
def test_fill_without_history_writes_through_views(view, value):
    m, t = mt.arange(12.0).reshape(3, 4), torch.arange(12.0).reshape(3, 4)
    version = m._version
    FILLED[view](m).fill_(value)
    FILLED[view](t).fill_(value)
    np.testing.assert_array_equal(m.numpy(), t.numpy())
    assert np.array_equal(np.signbit(m.numpy()), np.signbit(t.numpy()))
    assert m._version > version  # saved-tensor checks see the write


def test_fill_keeps_its_checks_and_its_history():
    with pytest.raises(RuntimeError, match="single memory location"):
        mt.zeros(3)[None].expand(2, 3).fill_(1)
    w = mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.fill_(0)
    with mt.no_grad():
        w.zero_()
    assert w.grad_fn is None and w.tolist() == [0, 0, 0]
    h = w * 2  # a tensor with history: fill_ records FillBackward as PyTorch does
    h.fill_(3)
    assert h.grad_fn is not None
    h.sum().backward()
    assert w.grad.tolist() == [0, 0, 0]


def test_zero_grad_in_place_keeps_each_gradient_object():
    for lib in (mt, torch):
        model = lib.nn.Linear(3, 2)
        model(lib.ones(4, 3)).sum().backward()
        grads = [p.grad for p in model.parameters()]
        lib.optim.SGD(model.parameters(), lr=0.1).zero_grad(set_to_none=False)
        assert [p.grad is g for p, g in zip(model.parameters(), grads)] == [True, True]
        assert all(float(g.abs().sum()) == 0 for g in grads)
