"""The autograd engine and the tensor's autograd fields (issue 3, items 1, 3, 8) against
PyTorch: requires_grad, grad, grad_fn (name, next_functions), is_leaf, backward
(gradient, retain_graph, create_graph), retain_grad, register_hook, detach/detach_,
accumulation with fan-out, un-broadcasting, ``autograd.grad``, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, pair, to_numpy

import minitorch as mt


def leaf_pair(data, dtype="float64"):
    return pair(data, dtype, requires_grad=True)


RNG = np.random.default_rng(7)
X34 = RNG.standard_normal((3, 4))
X4 = RNG.standard_normal(4)
X31 = RNG.standard_normal((3, 1))


# ----- fields -------------------------------------------------------------------------


def test_requires_grad_flag_and_propagation():
    a = mt.tensor([1.0, 2.0])
    assert a.requires_grad is False
    b = mt.tensor([1.0, 2.0], requires_grad=True)
    assert b.requires_grad is True
    assert a.requires_grad_() is a and a.requires_grad is True
    a.requires_grad_(False)
    assert a.requires_grad is False
    assert (a * b).requires_grad is True
    assert (a * 2).requires_grad is False
    assert (b.sum() + a.sum()).requires_grad is True


def test_is_leaf_like_torch():
    ma, ta = leaf_pair([1.0, 2.0])
    mc, tc = pair([1.0, 2.0])
    cases = {
        "leaf requiring grad": (ma, ta),
        "leaf not requiring grad": (mc, tc),
        "result of op": (ma * 2, ta * 2),
        "view of leaf": (ma[0], ta[0]),
        "op on non-requiring": (mc + 1, tc + 1),
        "detached": ((ma * 2).detach(), (ta * 2).detach()),
    }
    for name, (m, t) in cases.items():
        assert m.is_leaf == t.is_leaf, name
        assert (m.grad_fn is None) == (t.grad_fn is None), name


def test_grad_is_none_until_backward_then_accumulates():
    m, t = leaf_pair(X34)
    assert m.grad is None
    for lib_x in (m, t):
        (lib_x * lib_x).sum().backward()
        (lib_x.sin()).sum().backward()  # a second, independent graph: grads add up
    assert_close(m.grad, t.grad)
    assert m.grad.dtype is m.dtype
    m.grad = None
    t.grad = None
    (m * 3).sum().backward()
    (t * 3).sum().backward()
    assert_close(m.grad, t.grad)


def test_grad_of_float32_leaf_is_float32():
    m, t = pair(X34, "float32", requires_grad=True)
    (m.exp() * 2).sum().backward()
    (t.exp() * 2).sum().backward()
    assert_close(m.grad, t.grad)


def test_grad_fn_name_and_next_functions():
    ma, ta = leaf_pair([1.0, 2.0])
    mc = mt.tensor([3.0, 4.0], dtype=mt.float64)
    my = ma * mc
    node = my.grad_fn
    assert isinstance(node.name(), str)
    assert "mul" in node.name().lower() and "backward" in node.name().lower(), node.name()
    nexts = node.next_functions
    assert isinstance(nexts, tuple) and len(nexts) == 2
    accumulate, index = nexts[0]
    assert index == 0
    assert "AccumulateGrad" in accumulate.name()
    assert accumulate.variable is ma
    assert nexts[1][0] is None, "an input that does not require grad has no node"
    # a chain: sum -> mul -> AccumulateGrad
    total = my.sum()
    assert "sum" in total.grad_fn.name().lower()
    assert total.grad_fn.next_functions[0][0] is node


def test_next_functions_structure_matches_torch_on_a_graph():
    ma, ta = leaf_pair(X34)
    mb, tb = leaf_pair(X4)

    def graph(a, b):
        return ((a * b).exp() + a.t().sum(1)).sum()

    def shape_of(node, depth=0):
        if node is None:
            return None
        if depth > 8:
            return "..."
        return tuple(shape_of(n, depth + 1) for n, _ in node.next_functions)

    assert shape_of(graph(ma, mb).grad_fn) == shape_of(graph(ta, tb).grad_fn)


# ----- backward arguments -------------------------------------------------------------


def test_backward_of_non_scalar_needs_gradient():
    m, t = leaf_pair(X34)
    with pytest.raises(RuntimeError, match="scalar"):
        (m * 2).backward()
    g = RNG.standard_normal((3, 4))
    (m * 2).exp().backward(mt.tensor(g))
    (t * 2).exp().backward(torch.tensor(g))
    assert_close(m.grad, t.grad)


def test_backward_gradient_keyword_and_scalar_gradient():
    m, t = leaf_pair(X4)
    (m**2).sum().backward(gradient=mt.tensor(3.0, dtype=mt.float64))
    (t**2).sum().backward(gradient=torch.tensor(3.0, dtype=torch.float64))
    assert_close(m.grad, t.grad)


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mt.ones(2).sum().backward()


def test_second_backward_without_retain_graph_raises():
    m, _ = leaf_pair([1.0, 2.0])
    y = m.exp().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time|retain_graph"):
        y.backward()


def test_retain_graph_allows_second_backward_and_accumulates():
    m, t = leaf_pair(X4)
    my, ty = (m.exp() * m).sum(), (t.exp() * t).sum()
    my.backward(retain_graph=True)
    ty.backward(retain_graph=True)
    my.backward()
    ty.backward()
    assert_close(m.grad, t.grad)


def test_create_graph_makes_grad_differentiable():
    m, t = leaf_pair(X4)
    (m**3).sum().backward(create_graph=True)
    (t**3).sum().backward(create_graph=True)
    assert m.grad.requires_grad and m.grad.grad_fn is not None
    assert_close(m.grad, t.grad)
    mg, tg = m.grad, t.grad
    m.grad, t.grad = None, None
    mg.sum().backward()
    tg.sum().backward()
    assert_close(m.grad, t.grad)  # 6x


def test_grad_without_create_graph_does_not_require_grad():
    m, _ = leaf_pair(X4)
    (m**3).sum().backward()
    assert m.grad.requires_grad is False and m.grad.grad_fn is None


def test_deep_chain_backward_does_not_overflow_the_stack():
    m, t = leaf_pair(0.5)
    my, ty = m, t
    for _ in range(3000):
        my = my * 1.0001 + 0.0
        ty = ty * 1.0001 + 0.0
    my.backward()
    ty.backward()
    assert_close(m.grad, t.grad)


# ----- retain_grad, hooks, detach -----------------------------------------------------


def test_retain_grad_keeps_non_leaf_grad():
    m, t = leaf_pair(X34)
    my, ty = m.exp(), t.exp()
    mz, tz = my * 2, ty * 2
    my.retain_grad()
    ty.retain_grad()
    (mz.sum() + my.sum()).backward()
    (tz.sum() + ty.sum()).backward()
    assert_close(my.grad, ty.grad)
    assert mz.grad is None, "non-leaf grads are not kept without retain_grad()"
    assert_close(m.grad, t.grad)


def test_register_hook_sees_and_replaces_gradients():
    m, t = leaf_pair(X4)
    seen = {}

    def run(key, x):
        y = x * 3
        y.register_hook(lambda g: seen.setdefault(key, g.clone()))
        x.register_hook(lambda g: g * 10)  # replaces the leaf's grad
        (y.sin()).sum().backward()

    run("minitorch", m)
    run("torch", t)
    assert_close(seen["minitorch"], seen["torch"])
    assert_close(m.grad, t.grad)


def test_hook_handle_remove():
    m, t = leaf_pair(X4)
    for x in (m, t):
        handle = x.register_hook(lambda g: g * 0)
        handle.remove()
        (x * 2).sum().backward()
    assert_close(m.grad, t.grad)
    np.testing.assert_array_equal(to_numpy(m.grad), 2.0)


def test_hook_returning_none_keeps_gradient():
    m, t = leaf_pair(X4)
    calls = []
    m.register_hook(lambda g: calls.append(1))
    (m * m).sum().backward()
    (t * t).sum().backward()
    assert calls == [1]
    assert_close(m.grad, t.grad)


def test_register_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError):
        torch.ones(2).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="grad"):
        mt.ones(2).register_hook(lambda g: g)


def test_requires_grad_false_on_non_leaf_raises():
    m, t = leaf_pair(X4)
    with pytest.raises(RuntimeError):
        (t * 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="leaf"):
        (m * 2).requires_grad_(False)


def test_detach_shares_memory_and_cuts_the_graph():
    m, _ = leaf_pair(X4)
    md = (m * 2).detach()
    assert md.requires_grad is False and md.is_leaf and md.grad_fn is None
    base = m.detach()
    base[0] = 100.0
    assert m[0].item() == 100.0, "detach() shares memory"
    ((m * 2).detach() * m).sum().backward()
    np.testing.assert_allclose(to_numpy(m.grad), 2 * to_numpy(m))  # only through m


def test_detach_in_place():
    m, t = leaf_pair(X4)
    my, ty = m * 2, t * 2
    assert my.detach_() is my
    ty.detach_()
    assert my.requires_grad is False and my.grad_fn is None and my.is_leaf
    assert_close(my, ty)


# ----- accumulation, fan-out, un-broadcasting -----------------------------------------


def test_fan_out_accumulates_like_torch():
    m, t = leaf_pair(X34)

    def f(x):
        a = x.sin()
        b = a * x  # x used twice
        c = b + a.exp() * a  # a used three times
        d = c.sum(0) + x.sum(0) * c.mean(0)
        return (d * d).sum() + x[0].sum()

    f(m).backward()
    f(t).backward()
    assert_close(m.grad, t.grad)


def test_same_tensor_on_both_sides():
    m, t = leaf_pair(X34)
    for x in (m, t):
        (x * x + x / (x * x + 1) - x @ x.t().sum(1, keepdim=True)).sum().backward()
    assert_close(m.grad, t.grad)


@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((), (3, 4)), ((1,), (2, 3))],
    ids=str,
)
def test_unbroadcasting_sums_gradients_back_to_input_shape(shape_a, shape_b):
    ma, ta = leaf_pair(RNG.standard_normal(shape_a))
    mb, tb = leaf_pair(RNG.standard_normal(shape_b))
    ((ma * mb + ma) * mb.exp()).sum().backward()
    ((ta * tb + ta) * tb.exp()).sum().backward()
    assert tuple(ma.grad.shape) == shape_a and tuple(mb.grad.shape) == shape_b
    assert_close(ma.grad, ta.grad)
    assert_close(mb.grad, tb.grad)


def test_python_scalars_and_non_requiring_tensors_in_graph():
    m, t = leaf_pair(X34)
    mc, tc = pair(X4, "float64")
    (2.0 * m - 1 + mc / 3 * m**2).sum().backward()
    (2.0 * t - 1 + tc / 3 * t**2).sum().backward()
    assert_close(m.grad, t.grad)
    assert mc.grad is None


# ----- autograd.grad --------------------------------------------------------------------


def test_autograd_grad_returns_grads_without_touching_dot_grad():
    ma, ta = leaf_pair(X34)
    mb, tb = leaf_pair(X4)
    mg = mt.autograd.grad((ma * mb).sum(), [ma, mb])
    tg = torch.autograd.grad((ta * tb).sum(), [ta, tb])
    assert isinstance(mg, tuple) and len(mg) == 2
    assert_close(mg, tg)
    assert ma.grad is None and mb.grad is None


def test_autograd_grad_single_tensor_input_and_grad_outputs():
    m, t = leaf_pair(X34)
    v = RNG.standard_normal((3, 4))
    (mg,) = mt.autograd.grad(m.exp(), m, grad_outputs=mt.tensor(v))
    (tg,) = torch.autograd.grad(t.exp(), t, grad_outputs=torch.tensor(v))
    assert_close(mg, tg)


def test_autograd_grad_several_outputs():
    m, t = leaf_pair(X4)
    v1, v2 = RNG.standard_normal(4), RNG.standard_normal(())
    mg = mt.autograd.grad([m.sin(), m.sum()], [m], [mt.tensor(v1), mt.tensor(v2)])
    tg = torch.autograd.grad([t.sin(), t.sum()], [t], [torch.tensor(v1), torch.tensor(v2)])
    assert_close(mg, tg)


def test_autograd_grad_allow_unused():
    ma, _ = leaf_pair(X4)
    mb, _ = leaf_pair(X4)
    with pytest.raises(RuntimeError, match="allow_unused|not have been used"):
        mt.autograd.grad((ma * 2).sum(), [ma, mb])
    ga, gb = mt.autograd.grad((ma * 2).sum(), [ma, mb], allow_unused=True)
    assert gb is None
    np.testing.assert_array_equal(to_numpy(ga), 2.0)


def test_autograd_grad_retain_graph():
    m, t = leaf_pair(X4)
    my, ty = (m.exp() * m).sum(), (t.exp() * t).sum()
    first = mt.autograd.grad(my, m, retain_graph=True)
    second = mt.autograd.grad(my, m)
    expected = torch.autograd.grad(ty, t, retain_graph=True)
    assert_close(first, expected)
    assert_close(second, expected)
    with pytest.raises(RuntimeError, match="second time|retain_graph"):
        mt.autograd.grad(my, m)


def test_autograd_grad_create_graph_gives_higher_derivatives():
    m, t = leaf_pair(X4)
    (mg,) = mt.autograd.grad((m.sin() * m).sum(), m, create_graph=True)
    (tg,) = torch.autograd.grad((t.sin() * t).sum(), t, create_graph=True)
    assert_close(mg, tg)
    (mgg,) = mt.autograd.grad(mg.sum(), m)
    (tgg,) = torch.autograd.grad(tg.sum(), t)
    assert_close(mgg, tgg)


def test_autograd_grad_of_non_leaf_input():
    m, t = leaf_pair(X34)
    my, ty = m * 2, t * 2
    (mg,) = mt.autograd.grad((my.exp()).sum(), my)
    (tg,) = torch.autograd.grad((ty.exp()).sum(), ty)
    assert_close(mg, tg)


# ----- dtypes -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_requires_grad_on_integer_tensor_raises(dtype):
    with pytest.raises(RuntimeError, match="floating point"):
        mt.tensor([1, 0], dtype=getattr(mt, dtype), requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        mt.tensor([1, 0], dtype=getattr(mt, dtype)).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        mt.zeros(2, dtype=getattr(mt, dtype), requires_grad=True)


def test_mixed_dtype_graph_grads_have_leaf_dtypes():
    m32, t32 = pair(X4, "float32", requires_grad=True)
    m64, t64 = pair(X4, "float64", requires_grad=True)
    (m32 * m64).sum().backward()
    (t32 * t64).sum().backward()
    assert_close(m32.grad, t32.grad)
    assert_close(m64.grad, t64.grad)


def test_integer_inputs_in_graph_get_no_grad():
    m, t = leaf_pair(X4)
    mi, ti = pair([1, 2, 3, 4], "int64")
    (m * mi).sum().backward()
    (t * ti).sum().backward()
    assert_close(m.grad, t.grad)
    assert mi.grad is None and not mi.requires_grad


def _inputs_case(lib, which):
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    h = x * w
    if which == "retained":
        h.retain_grad()
    loss = (h * h).sum() + w.sum()
    chosen = {"x": [x], "w": w, "h": [h], "x and h": [x, h], "retained": [w]}[which]
    loss.backward(inputs=chosen)
    return x.grad, w.grad, h.grad


@pytest.mark.parametrize("which", ["x", "w", "h", "x and h", "retained"])
def test_backward_inputs_accumulates_into_the_listed_tensors_only(which):
    """Issue 18.4d: ``backward(inputs=...)`` was ignored. Listed tensors may be leaves or
    not; no other ``.grad`` changes (not even a retained one)."""
    mine = _inputs_case(mt, which)
    theirs = _inputs_case(torch, which)
    for m, t in zip(mine, theirs):
        assert (m is None) == (t is None)
        if m is not None:
            assert_close(m, t)


def test_backward_inputs_accumulates_across_calls_and_rejects_an_empty_list():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward(inputs=[x])
    (x * 3).sum().backward(inputs=[x])
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 3).sum().backward(inputs=[])
    unused = mt.ones(2, requires_grad=True)
    (x * 3).sum().backward(inputs=[unused])
    assert unused.grad is None
