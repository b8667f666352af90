"""The in-place lean lane (``lean_zip_into`` in ``minitorch/ops/lean_lane.py``):
``t.sub_(other)`` under ``no_grad``, an optimizer's update, writes straight into ``t``.

Against PyTorch on contiguous, transposed, sliced and 0-d targets, with broadcast,
transposed and number operands, in the dtypes the lane takes; and the cases it must leave
to the general path: overlapping storage, a stride-0 target (PyTorch's error), an operand
that would grow the result, another dtype, and grad mode on."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.ops import lean_lane

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
        if lib is mt:  # the lane itself takes this case, with the same result
            target = make().to(dtype_of)
            with mt.no_grad():
                assert lean_lane.lean_zip_into(method[:-1], target, operand)
            results.append(target.numpy())
    np.testing.assert_allclose(results[0], results[2], rtol=1e-6)
    np.testing.assert_array_equal(results[0], results[1])


def test_a_second_update_finds_its_plan():
    p, g = mt.randn(5, 3), mt.randn(5, 3)
    with mt.no_grad():
        p.sub_(g)
        made = lean_lane.plans_made
        p.sub_(g)
    assert lean_lane.plans_made == made


def test_the_lane_leaves_what_it_cannot_do_to_the_general_path():
    x = mt.arange(6.0)
    with mt.no_grad():
        assert not lean_lane.lean_zip_into("add", x, x)  # the same storage: may overlap
        assert not lean_lane.lean_zip_into("add", x[:3], x[3:])
        assert not lean_lane.lean_zip_into("add", x, mt.ones(2, 6))  # would grow the result
        assert not lean_lane.lean_zip_into("add", x, mt.ones(6, dtype=mt.float64))  # a cast
        assert not lean_lane.lean_zip_into("add", x.expand(2, 6), mt.ones(6))  # stride 0
        assert not lean_lane.lean_zip_into("add", x, True)  # a bool has rules of its own
    assert not lean_lane.lean_zip_into("add", x, mt.ones(6))  # grad mode is on
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


def test_a_leaf_s_update_under_no_grad_keeps_it_a_leaf_with_its_gradient():
    w = mt.randn(4, 3, requires_grad=True)
    (w * 2).sum().backward()
    with mt.no_grad():
        w.sub_(0.5 * w.grad)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.sub_(1.0)  # out of no_grad the general path refuses, as PyTorch does
