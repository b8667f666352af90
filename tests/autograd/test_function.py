"""Custom ``minitorch.autograd.Function`` exactly in PyTorch's shape (issue 3, item 2).

Each custom function is written once, as a factory taking ``lib``, so the very same
class body runs in minitorch and in PyTorch and the results are compared.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, pair, to_numpy

import minitorch as mt

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((4,))


def make_exp(lib):
    class MyExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    return MyExp


def make_mul_add(lib, record):
    """Two tensor inputs and a non-tensor argument; records ctx.needs_input_grad."""

    class MulAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            record.append(tuple(ctx.needs_input_grad))
            ctx.save_for_backward(a, b)
            ctx.scale = scale
            return a * b * scale + a

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            grad_a = grad * b * ctx.scale + grad if ctx.needs_input_grad[0] else None
            grad_b = grad * a * ctx.scale if ctx.needs_input_grad[1] else None
            if grad_b is not None and tuple(grad_b.shape) != tuple(b.shape):
                grad_b = grad_b.sum(0)
            return grad_a, grad_b, None

    return MulAdd


def make_sort_like(lib):
    """Two outputs, the second (integer) marked non-differentiable."""

    class MaxWithIndex(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, indices = x.max(1)
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            ctx.shape = tuple(x.shape)
            return values, indices

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            out = lib.zeros(ctx.shape, dtype=grad_values.dtype)
            return out.scatter_add(1, indices.unsqueeze(1), grad_values.unsqueeze(1))

    return MaxWithIndex


def make_twice(lib):
    """Two differentiable outputs."""

    class SinCos(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, grad_sin, grad_cos):
            (x,) = ctx.saved_tensors
            return grad_sin * x.cos() - grad_cos * x.sin()

    return SinCos


def test_custom_function_forward_backward_matches_torch():
    m, t = pair(X, "float64", requires_grad=True)
    my = make_exp(mt).apply(m * 2)
    ty = make_exp(torch).apply(t * 2)
    assert_close(my, ty)
    assert my.requires_grad and my.grad_fn is not None
    assert "MyExp" in my.grad_fn.name()
    (my * my).sum().backward()
    (ty * ty).sum().backward()
    assert_close(m.grad, t.grad)


def test_custom_function_is_a_subclass_of_function_and_apply_is_classmethod():
    cls = make_exp(mt)
    assert issubclass(cls, mt.autograd.Function)
    assert_close(cls.apply(mt.tensor([0.0, 1.0])), torch.tensor([0.0, 1.0]).exp())


def test_forward_runs_without_building_a_graph():
    seen = []

    class Probe(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            inner = x * 2
            seen.append((mt.is_grad_enabled(), inner.requires_grad))
            return inner

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    m = mt.tensor([1.0, 2.0], requires_grad=True)
    out = Probe.apply(m)
    assert seen == [(False, False)]
    assert out.requires_grad and out.grad_fn is not None


@pytest.mark.parametrize(
    ("a_grad", "b_grad"), [(True, True), (True, False), (False, True)], ids=str
)
def test_needs_input_grad_and_none_grads(a_grad, b_grad):
    m_record, t_record = [], []
    ma, ta = pair(X, "float64", requires_grad=a_grad)
    mb, tb = pair(Y, "float64", requires_grad=b_grad)
    my = make_mul_add(mt, m_record).apply(ma, mb, 0.5)
    ty = make_mul_add(torch, t_record).apply(ta, tb, 0.5)
    assert m_record == t_record == [(a_grad, b_grad, False)]
    assert_close(my, ty)
    my.sum().backward()
    ty.sum().backward()
    for m, t in ((ma, ta), (mb, tb)):
        if t.grad is None:
            assert m.grad is None
        else:
            assert_close(m.grad, t.grad)


def test_no_input_requires_grad_gives_plain_output():
    out = make_exp(mt).apply(mt.tensor([1.0, 2.0]))
    assert out.requires_grad is False and out.grad_fn is None


def test_mark_non_differentiable():
    m, t = pair(X, "float64", requires_grad=True)
    mv, mi = make_sort_like(mt).apply(m)
    tv, ti = make_sort_like(torch).apply(t)
    assert_close((mv, mi), (tv, ti))
    assert mv.requires_grad is True
    assert mi.requires_grad is False
    (mv * 3).sum().backward()
    (tv * 3).sum().backward()
    assert_close(m.grad, t.grad)


def test_several_differentiable_outputs():
    m, t = pair(X, "float64", requires_grad=True)
    ms, mc = make_twice(mt).apply(m)
    ts, tc = make_twice(torch).apply(t)
    (ms * 2 + mc * mc).sum().backward()
    (ts * 2 + tc * tc).sum().backward()
    assert_close(m.grad, t.grad)


def test_only_one_of_several_outputs_used():
    m, t = pair(X, "float64", requires_grad=True)
    ms, _ = make_twice(mt).apply(m)
    ts, _ = make_twice(torch).apply(t)
    ms.sum().backward()
    ts.sum().backward()
    assert_close(m.grad, t.grad)


def test_custom_function_in_a_larger_graph_with_fan_out():
    m, t = pair(X, "float64", requires_grad=True)
    for lib, x in ((mt, m), (torch, t)):
        e = make_exp(lib).apply(x.sin())
        (e * x + e.sum(0) * make_exp(lib).apply(x)).sum().backward()
    assert_close(m.grad, t.grad)


def test_double_backward_through_custom_function():
    m, t = pair(Y, "float64", requires_grad=True)
    (mg,) = mt.autograd.grad(make_exp(mt).apply(m * m).sum(), m, create_graph=True)
    (tg,) = torch.autograd.grad(make_exp(torch).apply(t * t).sum(), t, create_graph=True)
    assert_close(mg, tg)
    mg.sum().backward()
    tg.sum().backward()
    assert_close(m.grad, t.grad)


def test_saved_tensors_are_freed_after_backward():
    m = mt.tensor([1.0, 2.0], requires_grad=True)
    y = make_exp(mt).apply(m)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time|retain_graph|freed"):
        y.sum().backward()
    y2 = make_exp(mt).apply(m)
    y2.sum().backward(retain_graph=True)
    y2.sum().backward()
    np.testing.assert_allclose(to_numpy(m.grad), 3 * np.exp([1.0, 2.0]))


def test_wrong_number_of_gradients_raises():
    class Bad(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return grad  # one gradient for two inputs

    a = mt.tensor([1.0], requires_grad=True)
    b = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="gradient|returned|inputs"):
        Bad.apply(a, b).sum().backward()


def test_wrong_gradient_shape_raises():
    class BadShape(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.sum()  # 0-d instead of the input's shape

    a = mt.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match="shape|size"):
        BadShape.apply(a).sum().backward()


def test_builtin_ops_are_functions_too():
    """Issue 3, item 2: every built-in op is written with Function; its grad_fn is a
    node with name() and next_functions like any custom one."""
    m = mt.tensor([1.0, 2.0], requires_grad=True)
    for out in (m.exp(), m * m, m.sum(), m[0], m.view(2, 1), m @ m):
        node = out.grad_fn
        assert isinstance(node.name(), str) and node.name()
        assert isinstance(node.next_functions, tuple)
