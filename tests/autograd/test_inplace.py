"""In-place safety (issue 3, item 6): version counters, modifying a saved tensor, in-place
ops on leaves, and correct gradients when in-place ops touch tensors nothing saved
(including writes through views), all against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, pair

import minitorch as mt

RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)


def leaf_pair(data=X):
    return pair(data, "float64", requires_grad=True)


IN_PLACE = {
    "add_": lambda t: t.add_(1.0),
    "sub_": lambda t: t.sub_(0.5),
    "mul_": lambda t: t.mul_(2.0),
    "div_": lambda t: t.div_(2.0),
    "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(3.0),
    "clamp_": lambda t: t.clamp_(-0.5, 0.5),
    "copy_": lambda t: t.copy_(t * 0 + 1),
    "setitem": lambda t: t.__setitem__(0, 5.0),
    "+=": lambda t: t.__iadd__(1.0),
    "*=": lambda t: t.__imul__(2.0),
}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_version_counter_bumps_and_is_shared_by_views(name):
    base = mt.zeros(3, 4)
    view = base[1:]
    other_view = base.t()
    before = base._version
    assert view._version == before and other_view._version == before
    IN_PLACE[name](view)
    assert base._version > before, f"{name} on a view must bump the base's version"
    assert view._version == base._version == other_view._version
    after = base._version
    IN_PLACE[name](base)
    assert view._version > after


def test_out_of_place_ops_do_not_bump_versions():
    x = mt.ones(3)
    v = x._version
    _ = x + 1, x.exp(), x[0], x.view(3, 1), x.clone()
    assert x._version == v


@pytest.mark.parametrize("name", ["add_", "mul_", "zero_", "setitem", "copy_", "clamp_"])
def test_modifying_a_saved_tensor_makes_backward_raise(name):
    m, _ = leaf_pair()
    my = m * 2
    mz = my.sin()  # sin saves its input my
    IN_PLACE[name](my)
    with pytest.raises(RuntimeError) as error:
        mz.sum().backward()
    message = str(error.value).lower()
    assert "inplace" in message or "in-place" in message, message
    assert "modified" in message or "version" in message, message


def test_modifying_a_saved_output_makes_backward_raise():
    m, _ = leaf_pair()
    y = m.exp()  # exp saves its output
    y.mul_(2)
    with pytest.raises(RuntimeError, match="(?i)in-?place"):
        y.sum().backward()


def test_modifying_a_saved_tensor_through_a_view_makes_backward_raise():
    m, _ = leaf_pair()
    y = m * 2
    z = y * y  # saves y
    y[1, 2] = 0.0
    with pytest.raises(RuntimeError, match="(?i)in-?place"):
        z.sum().backward()


def test_error_names_the_op_that_saved_the_tensor():
    m, _ = leaf_pair()
    y = m * 2
    z = y.sin()
    y.add_(1)
    with pytest.raises(RuntimeError) as error:
        z.sum().backward()
    text = str(error.value)
    assert any(op in text.lower() for op in ("sin", "mul", "add")), text


@pytest.mark.parametrize("name", ["add_", "mul_", "zero_", "fill_", "setitem", "copy_", "+="])
def test_in_place_on_leaf_requiring_grad_raises(name):
    m, _ = leaf_pair()
    with pytest.raises(RuntimeError, match="leaf"):
        IN_PLACE[name](m)


def test_in_place_on_view_of_leaf_requiring_grad_raises():
    m, _ = leaf_pair()
    with pytest.raises(RuntimeError, match="leaf"):
        m[0].mul_(2)
    with pytest.raises(RuntimeError, match="leaf"):
        m[1] = 3.0


def run_both(fn):
    """Run ``fn(lib, leaves...)`` in both libraries; compare output and leaf grads."""
    ma, ta = leaf_pair(X)
    mb, tb = leaf_pair(V)
    m_out = fn(mt, ma, mb)
    t_out = fn(torch, ta, tb)
    assert_close(m_out, t_out)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_close(ma.grad, ta.grad, msg="grad a")
    if tb.grad is None:
        assert mb.grad is None
    else:
        assert_close(mb.grad, tb.grad, msg="grad b")


def test_in_place_on_unsaved_intermediate_gives_correct_grads():
    def fn(lib, a, b):
        y = a + b  # add saves nothing
        y.mul_(3.0)
        y.add_(b)
        y.sub_(a)
        return y * 2

    run_both(fn)


def test_in_place_with_tensor_argument_requiring_grad():
    def fn(lib, a, b):
        y = a * 1.0
        y.add_(b.exp())
        y.mul_(b)
        y.div_(b * b + 1)
        return y

    run_both(fn)


def test_in_place_clamp_and_copy_on_intermediate():
    def fn(lib, a, b):
        y = a + 0.0
        y.clamp_(-0.5, 0.5)
        z = a * 0.0
        z.copy_(b.expand(3, 4) * 2)
        return y + z

    run_both(fn)


def test_setitem_into_intermediate_with_value_requiring_grad():
    def fn(lib, a, b):
        y = a * 2.0
        y[1] = b * 3  # row 1 now comes from b; a gets no gradient there
        y[:, 0] = 7.0
        return y.exp()

    run_both(fn)


def test_in_place_through_a_view_of_an_intermediate():
    def fn(lib, a, b):
        y = a + 0.0
        y[0].mul_(b)  # in-place on a view
        y.t()[1:].add_(1.0)
        column = y[:, 2]
        column.mul_(-1.0)
        return y * y.detach()

    run_both(fn)


def test_in_place_zero_and_fill_cut_gradient_flow():
    def fn(lib, a, b):
        y = a * b
        y[0].zero_()
        y[2].fill_(1.5)
        return y

    run_both(fn)


def test_inplace_ops_return_self():
    x = mt.zeros(3)
    for name in ("add_", "sub_", "mul_", "div_", "zero_", "fill_", "clamp_", "copy_"):
        assert IN_PLACE[name](x) is x, name


def test_in_place_after_multiplying_by_a_python_scalar_works_like_torch():
    """``y * 2`` needs no saved tensor for its backward (the derivative is the constant
    2), so PyTorch lets ``y`` be modified in place afterwards. Common in PyTorch code."""

    def fn(lib, a, b):
        y = a + 0.0
        z = y * 2 + y / 4 - 3 * y
        y.add_(b)
        return z * y.detach()

    run_both(fn)


def _view_then_write_base(lib):
    """Issue 18.4a: ``b`` is taken before ``a`` is written in place."""
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    a = x * 1
    b = a[:2]
    a[0].mul_(10)
    return x, b


def test_view_taken_before_an_in_place_write_to_its_base_sees_the_new_history():
    mx, mb = _view_then_write_base(mt)
    tx, tb = _view_then_write_base(torch)
    assert mb.grad_fn.name() == tb.grad_fn.name() == "AsStridedBackward0"
    (mb * mb).sum().backward()
    (tb * tb).sum().backward()
    assert_close(mx.grad, tx.grad)


def _sibling_views(lib):
    """A view of a base with no history, after another view of it is written with a
    tensor that requires grad: the first view now depends on that tensor too."""
    a = lib.zeros(4, dtype=lib.float64)
    b, c = a[:3], a[1:]
    w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    c.copy_(w * 3)
    return w, b, c


def test_sibling_view_of_a_base_without_history_gets_one_after_a_write():
    mw, mb, mc = _sibling_views(mt)
    tw, tb, tc = _sibling_views(torch)
    assert mb.requires_grad and tb.requires_grad
    ((mb * mb).sum() + mc.sum()).backward()
    ((tb * tb).sum() + tc.sum()).backward()
    assert_close(mw.grad, tw.grad)


def test_view_of_a_view_and_a_transposed_view_after_writes_through_another_view():
    data = RNG.standard_normal((3, 4))
    results = []
    for lib in (mt, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        a = x * 1.5
        t = a.t()
        row = a[1][1:]
        a[:, 0].mul_(2)
        a[2].add_(x[0])
        ((t * t).sum() + row.sum() * 3).backward()
        results.append(x.grad)
    assert_close(*results)
