"""In-place writes through a plan (``apply_zip_into`` in ``minitorch/ops/elementwise.py``,
called by ``zip_into`` in ``minitorch/ops/inplace.py`` when the write records no history):
``t.sub_(other)`` under ``no_grad``, an optimizer's update, writes straight into ``t``.

Against PyTorch on contiguous, transposed, sliced and 0-d targets, with broadcast,
transposed and number operands, in the dtypes it takes; a second update of the same
layouts finds its plan (``minitorch/dispatch/plans.py``: ``made`` does not grow); and the
cases it must leave to the general recipe, remembering nothing for them: overlapping
storage, a stride-0 target (PyTorch's error), an operand that would grow the result,
another dtype, an integer target, and (``zip_into``'s question) a history to record."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.dispatch import plans
from minitorch.ops import elementwise, inplace

from .test_op_plans import CountingPlans

pytestmark = pytest.mark.usefixtures("fresh_plans")  # (tests/core/conftest.py)

METHODS = ["add_", "sub_", "mul_", "div_"]


def targets(lib, rng):
    """``name -> (target, operand)``: each target a view with its own layout."""
    big = rng.standard_normal((6, 8))
    row, vector = rng.standard_normal((1, 4)), rng.standard_normal(4)
    t = lambda a: lib.tensor(np.ascontiguousarray(a))  # noqa: E731
    return {
        "contiguous, same shape": (lambda: t(big[:4, :4]), t(big[2:6, 4:8])),
        "transposed target": (lambda: t(big[:4, :4]).t(), t(big[2:6, 4:8])),
        "sliced target": (lambda: t(big)[1:5, ::2], t(big[2:6, 4:8]).t()),
        "broadcast row": (lambda: t(big[:4, :4]), t(row)),
        "broadcast vector": (lambda: t(big[:4, :4]).t(), t(vector)),
        "0-d target": (lambda: t(big[0, 0]), t(big[1, 1])),
        "number": (lambda: t(big[:4, :4]), 0.75),
        "integer number": (lambda: t(big[:3, :3]), 3),
    }


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(targets(torch, np.random.default_rng(0))))
def test_in_place_updates_under_no_grad_agree_with_pytorch(method, dtype, case, backend):
    results = []
    for lib in (mt, torch):
        make, operand = targets(lib, np.random.default_rng(0))[case]
        dtype_of = getattr(lib, dtype)
        target = make().to(dtype_of)
        if isinstance(operand, (mt.Tensor, torch.Tensor)):
            operand = operand.to(dtype_of)
        strides, before = target.stride(), target._version
        with lib.no_grad():
            returned = getattr(target, method)(operand)
        assert returned is target and target.stride() == strides
        assert target._version == before + 1
        results.append(target.numpy())
        if lib is mt:  # apply_zip_into itself takes this case, with the same result
            target = make().to(dtype_of)
            assert elementwise.apply_zip_into(method[:-1], target, operand)
            results.append(target.numpy())
            made = plans.made
            target = make().to(dtype_of)  # the same layouts again: the plan is found
            assert elementwise.apply_zip_into(method[:-1], target, operand)
            assert plans.made == made
            results.append(target.numpy())
    mine, direct, through_the_plan, pytorch = results
    np.testing.assert_allclose(mine, pytorch, rtol=1e-6)
    np.testing.assert_array_equal(mine, direct)
    np.testing.assert_array_equal(mine, through_the_plan)


def test_a_second_update_finds_its_plan(monkeypatch):
    cache = CountingPlans()
    monkeypatch.setattr(plans, "cache", cache)
    monkeypatch.setattr(mt.dispatch, "plan_cache", cache)
    p, g = mt.randn(5, 3), mt.randn(5, 3)
    tp, tg = torch.from_numpy(p.numpy().copy()), torch.from_numpy(g.numpy())
    with mt.no_grad():
        p.sub_(g)
        made = plans.made
        assert len(cache.keys_of("zip_into")) == 1 and cache.found_of("zip_into") == 0
        p.sub_(g)
        assert plans.made == made and cache.found_of("zip_into") == 1
        p.mul_(0.5)  # another op: its own plan
        made = plans.made
        p.mul_(0.25)  # another number, the same plan
    assert plans.made == made and cache.found_of("zip_into") == 2
    assert len(cache.keys_of("zip_into")) == 2
    tp.sub_(tg).sub_(tg).mul_(0.5).mul_(0.25)
    np.testing.assert_allclose(p.numpy(), tp.numpy(), rtol=1e-6)


def test_what_it_cannot_do_is_left_to_the_general_recipe(monkeypatch):
    """``apply_zip_into`` returns False, having written and remembered nothing, for what
    one kernel into ``t`` cannot be; the general recipe gives PyTorch's answers there."""
    cache: dict = {}
    monkeypatch.setattr(plans, "cache", cache)
    monkeypatch.setattr(mt.dispatch, "plan_cache", cache)
    x = mt.arange(6.0)
    cannot = [
        (x, x),  # the same storage: may overlap
        (x[:3], x[3:]),
        (x, mt.ones(2, 6)),  # would grow the result
        (x, mt.ones(6, dtype=mt.float64)),  # a cast
        (x.expand(2, 6), mt.ones(6)),  # stride 0
        (x, True),  # a bool has rules of its own
        (x, np.float32(2.0)),  # a numpy number: the general recipe's conversion
        (mt.arange(6), 0.5),  # a float into integers: the general recipe's error
        (mt.tensor([True, False]), mt.tensor([True, True])),  # booleans: rules of their own
    ]
    for target, operand in cannot:
        before = target.tolist()
        assert not elementwise.apply_zip_into("add", target, operand)
        assert target.tolist() == before
    integers = mt.arange(6)
    assert not elementwise.apply_zip_into("div", integers, 2)  # integer / gives floats
    assert integers.tolist() == list(range(6))
    assert [key for key in cache if key[0] == "zip_into"] == []
    # ... and the general path gives PyTorch's answers there
    for lib in (mt, torch):
        y = lib.arange(6.0)
        with lib.no_grad():
            y[3:].add_(y[:3])
            y.add_(y)
        assert y.tolist() == [0.0, 2.0, 4.0, 6.0, 10.0, 14.0]
        with pytest.raises(RuntimeError, match="single memory location"), lib.no_grad():
            lib.arange(6.0).expand(2, 6).add_(1.0)
        with pytest.raises(RuntimeError), lib.no_grad():
            lib.arange(6.0).add_(lib.ones(2, 6))


def test_zip_into_asks_whether_the_write_records_a_history():
    """``apply_zip_into`` does not ask grad mode; ``zip_into`` does (``records_history``):
    with grad mode on and ``t`` or the operand needing a gradient it leaves the write to
    the recipe that records it; with grad mode on and nothing needing one, it writes."""
    w, g = mt.ones(3, requires_grad=True), mt.full((3,), 2.0, requires_grad=True)
    x = mt.zeros(3)
    assert not inplace.zip_into(w, "add", mt.ones(3))
    assert not inplace.zip_into(x, "add", g)
    assert w.tolist() == [1.0, 1.0, 1.0] and x.tolist() == [0.0, 0.0, 0.0]
    assert inplace.zip_into(x, "add", mt.ones(3)) and x.tolist() == [1.0, 1.0, 1.0]
    with mt.no_grad():
        assert inplace.zip_into(x, "add", g) and x.tolist() == [3.0, 3.0, 3.0]
    assert elementwise.apply_zip_into("mul", x, 2.0) and x.tolist() == [6.0, 6.0, 6.0]
    out = x.add_(g)  # recorded, as in PyTorch
    tx = torch.full((3,), 6.0)
    tg = torch.full((3,), 2.0, requires_grad=True)
    expected = tx.add_(tg)
    assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), tg.grad.numpy())


def test_a_leaf_s_update_under_no_grad_keeps_it_a_leaf_with_its_gradient():
    w = mt.randn(4, 3, requires_grad=True)
    (w * 2).sum().backward()
    with mt.no_grad():
        w.sub_(0.5 * w.grad)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.sub_(1.0)  # out of no_grad the recipe refuses, as PyTorch does


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int8"])
def test_integer_counts_written_in_place_agree_with_pytorch(dtype, backend):
    """``N[i, j] += 1`` (a bigram count) and friends on integer tensors: one kernel into
    ``N``, wrapping around at the dtype's range as PyTorch's does, its version bumped."""
    results = []
    for lib in (mt, torch):
        N = lib.zeros(5, 4, dtype=getattr(lib, dtype))
        for i, j in [(1, 2), (1, 2), (4, 3), (0, 0), (1, 2)]:
            N[i, j] += 1
        N[2] += 120
        N[:, 1] *= 3
        N[3, ::2] -= 2
        N.t()[1] += lib.arange(5, dtype=getattr(lib, dtype))  # a transposed target, a tensor operand
        N += 200  # wraps around in the small dtypes
        results.append((N.tolist(), N._version))
    assert results[0] == results[1]


def test_integer_writes_find_their_plan(monkeypatch):
    N = mt.zeros(27, 27, dtype=mt.int32)
    N[3, 4] += 1
    made = plans.made
    N[5, 6] += 1  # another element: the same layout, the same plan
    assert plans.made == made and N[5, 6].item() == 1 and N.sum().item() == 2
