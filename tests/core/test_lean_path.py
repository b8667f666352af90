"""The lean eager path (issue 12, item 2): what it remembers and what it skips must not
change any result.

* The remembered layouts (``layout.new_tensor_layout``, ``common.common_shape``,
  ``common.stretched_layout``) give what the plain functions give, on adversarial
  layouts (transposed, stepped, expanded, 0-d, empty), the second time as the first, and a
  bad shape raises every time (errors are not remembered).
* When nothing records (no ``dispatch.trace()`` block, no ``MINITORCH_DEBUG``), no
  dispatch record is built and no op name is pushed; inside a trace both still happen,
  with the right op names and phases.
* ``prepare``'s common case (two tensors of one dtype) and its general case (numbers,
  promotion) agree with PyTorch, and so with each other.
* The autograd bookkeeping that now starts from class defaults (``FunctionCtx``) stays
  per call, and gradients that a node does not receive are still materialised as zeros.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt
from minitorch import dispatch, layout
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.backends import Strided
from minitorch.ops import common

# (name, make(base) -> view) pairs: each layout a kernel must read correctly.
LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "stepped": lambda t: t[::2, ::3],
    "offset slice": lambda t: t[1:3, 2:],
    "expanded row": lambda t: t[:1].expand(4, 6),
}


def _base(lib, dtype=None):
    data = np.arange(24, dtype=np.float32).reshape(4, 6) / 7 - 1
    return lib.tensor(data) if dtype is None else lib.tensor(data, dtype=dtype)


@pytest.mark.parametrize("left", list(LAYOUTS))
@pytest.mark.parametrize("right", list(LAYOUTS))
def test_binary_ops_on_every_pair_of_layouts_twice(left, right):
    """The second call runs on remembered broadcast shapes and stretched layouts."""
    m, t = _base(mt), _base(torch)
    ma, ta = LAYOUTS[left](m), LAYOUTS[left](t)
    mb, tb = LAYOUTS[right](m), LAYOUTS[right](t)
    if tuple(ta.shape) != tuple(tb.shape):
        try:
            torch.broadcast_shapes(ta.shape, tb.shape)
        except RuntimeError:
            for _ in range(2):
                with pytest.raises(RuntimeError, match="must match the size"):
                    ma + mb
            return
    for _ in range(2):
        assert_close(ma + mb, ta + tb)
        assert_close(ma * mb, ta * tb)
        assert_close(ma - 2.5, ta - 2.5)
        assert_close(3 * mb, 3 * tb)


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [((), (3, 4)), ((3, 1), (4,)), ((0, 3), (1, 3)), ((2, 0, 1), (5,)), ((1,), ()), ((), ())],
)
def test_broadcast_of_0d_and_empty_shapes(shape_a, shape_b):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shape_a), rng.standard_normal(shape_b)
    for _ in range(2):
        assert_close(mt.tensor(a) + mt.tensor(b), torch.tensor(a) + torch.tensor(b))
        assert_close(mt.tensor(a) * mt.tensor(b), torch.tensor(a) * torch.tensor(b))


@pytest.mark.parametrize(
    "shapes",
    [((3, 1), (4,)), ((), (2, 3)), ((0,), (1,)), ((2, 1, 3), (5, 1)), ((4, 6), (4, 6))],
)
def test_common_shape_is_broadcast_shapes(shapes):
    assert common.common_shape(*shapes) == layout.broadcast_shapes(*shapes)
    assert common.common_shape(*shapes) == tuple(torch.broadcast_shapes(*shapes))


def test_shapes_that_do_not_broadcast_raise_every_time():
    for _ in range(3):
        with pytest.raises(RuntimeError, match="must match the size"):
            common.common_shape((2, 3), (4, 3))
        with pytest.raises(RuntimeError):
            mt.ones(2, 3) + mt.ones(4, 3)


@pytest.mark.parametrize(
    "shape, strides, target",
    [
        ((1, 6), (6, 1), (4, 6)),  # a row stretched
        ((6, 1), (1, 6), (6, 5)),  # a transposed column stretched
        ((), (), (2, 3)),  # a 0-d tensor
        ((3,), (2,), (2, 3)),  # stepped, with a new leading dimension
        ((1, 0), (0, 1), (3, 0)),  # empty
    ],
)
def test_stretched_layout_is_expand(shape, strides, target):
    new_shape, new_strides, offset = layout.expand(shape, strides, 7, target)
    assert common.stretched_layout(shape, strides, target) == (new_shape, new_strides)
    assert offset == 7  # why the remembered layout may leave the offset out


def test_broadcast_view_keeps_the_offset():
    base = mt.arange(12.0).view(3, 4)
    column = base[1:, 2:3]  # offset 6, shape (2, 1)
    stretched = common.broadcast_view(column, (2, 5))
    assert stretched.storage_offset() == column.storage_offset() == 6
    assert stretched.stride() == (4, 0)
    assert_close(stretched.contiguous(), torch.arange(12.0).view(3, 4)[1:, 2:3].expand(2, 5))


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (2, 3, 4), (1,)])
@pytest.mark.parametrize("itemsize", [1, 4, 8])
def test_new_tensor_layout_is_checked_numel_and_contiguous_strides(shape, itemsize):
    count, strides = layout.new_tensor_layout(shape, itemsize)
    assert count == layout.checked_numel(shape, itemsize)
    assert strides == layout.contiguous_strides(shape)
    assert layout.new_tensor_layout(shape, itemsize) == (count, strides)


@pytest.mark.parametrize("shape", [(2**62, 2**62, 0), (2**40, 2**40), (0, 2**62, 4)])
def test_overflowing_shapes_raise_every_time(shape):
    for _ in range(2):
        with pytest.raises(RuntimeError, match="overflow"):
            layout.new_tensor_layout(shape, 4)
        with pytest.raises(RuntimeError, match="overflow"):
            mt.empty(*shape)


def test_storage_overflow_depends_on_the_itemsize():
    shape = (2**61,)
    assert layout.new_tensor_layout(shape, 1)[0] == 2**61
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        layout.new_tensor_layout(shape, 8)


def test_strided_built_directly_is_a_strided():
    t = mt.arange(6.0).view(2, 3).t()
    s = dispatch._strided(t)
    assert type(s) is Strided
    assert s == Strided(t._storage, (3, 2), (1, 3), 0)
    assert (s.shape, s.strides, s.offset) == ((3, 2), (1, 3), 0)
    assert s.storage is t._storage


# --------------------------------------------------------------------------------------
# Nothing is recorded unless someone records
# --------------------------------------------------------------------------------------


class _Exploding:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a dispatch record was built while nothing was recording")


def test_no_record_and_no_op_name_when_not_recording(monkeypatch):
    assert dispatch.recording is False
    monkeypatch.setattr(dispatch, "DispatchRecord", _Exploding)
    pushed = []

    class WatchedStack(list):
        def append(self, item):
            pushed.append(item)
            super().append(item)

    monkeypatch.setattr(dispatch.thread_state, "op_stack", WatchedStack())
    x = mt.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    y = (x * x.t() + 1).exp().sum()
    y.backward()
    assert pushed == []
    assert_close(x.grad, _torch_grad())


def _torch_grad():
    x = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    (x * x.t() + 1).exp().sum().backward()
    return x.grad


def test_records_and_op_names_inside_a_trace():
    x = mt.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    with dispatch.trace() as calls:
        assert dispatch.recording is True
        y = (x * x + 1).sum()
        y.backward()
    assert dispatch.recording is False
    forward = [(c.op, c.primitive) for c in calls if c.phase == "forward"]
    assert forward[:3] == [("Mul", "zip"), ("Add", "zip"), ("Sum", "reduce")]
    backward_ops = {c.op for c in calls if c.phase == "backward"}
    assert "Mul" in backward_ops  # the op a backward formula called, in phase "backward"
    assert dispatch.thread_state.op_stack == []
    assert_close(x.grad, 2 * torch.tensor([[1.0, -2.0], [3.0, 4.0]]))


def test_debug_level_turns_recording_on_and_off(capsys):
    previous = dispatch._debug
    try:
        dispatch.set_debug(1)
        assert dispatch.recording is True
        mt.ones(2) + 1
        assert "zip:add" in capsys.readouterr().err
    finally:
        dispatch.set_debug(previous)
    assert dispatch.recording is bool(previous)
    mt.ones(2) + 1
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------------------
# prepare: the common case and the general case agree
# --------------------------------------------------------------------------------------


OPERAND_PAIRS = [
    ("float32", "float32"),  # the common case
    ("float32", "float64"),  # promotion
    ("int64", "float32"),
    ("int32", "int64"),
    ("bool", "bool"),
    ("float32", 2),  # numbers
    ("int64", 3.5),
    ("bool", True),
]
PREPARE_CASES = [
    (op, a, b)
    for op in ("add", "mul", "div", "maximum", "eq")
    for a, b in OPERAND_PAIRS
    if op != "maximum" or isinstance(b, str)  # torch.maximum takes tensors only
]


@pytest.mark.parametrize("op, a, b", PREPARE_CASES)
def test_prepare_common_and_general_cases_agree_with_torch(op, a, b):
    def make(lib, spec, seed):
        if not isinstance(spec, str):
            return spec
        data = np.random.default_rng(seed).integers(-3, 4, size=(4, 4))
        return lib.tensor(data).to(getattr(lib, spec)) if spec != "bool" else lib.tensor(data > 0)

    ma, mb, ta, tb = make(mt, a, 1), make(mt, b, 2), make(torch, a, 1), make(torch, b, 2)
    assert_close(getattr(mt, op)(ma, mb), getattr(torch, op)(ta, tb))
    assert_close(getattr(mt, op)(ma.t(), mb), getattr(torch, op)(ta.t(), tb))  # strided


def test_checks_still_run_on_the_common_case():
    ints = mt.tensor([4, 5])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ints // mt.tensor([1, 0])
    with pytest.raises(RuntimeError, match="negative integer powers"):
        ints**-1  # a negative number exponent (a tensor one is computed, as in PyTorch: 4 ** -1 is 0)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
        mt.tensor([True]) - mt.tensor([False])
    with pytest.raises(NotImplementedError, match="remainder_cpu"):
        mt.tensor([True]) % mt.tensor([True])
    assert_close(mt.tensor([7, -7]) / mt.tensor([2, 2]), torch.tensor([7, -7]) / torch.tensor([2, 2]))


def test_operators_still_refuse_what_they_do_not_know():
    x = mt.ones(2)
    assert (x == None) is False  # noqa: E711 (the operator under test)
    with pytest.raises(TypeError):
        x + [1.0]
    assert_close(x + np.ones(2, dtype=np.float32), torch.ones(2) + 1)


# --------------------------------------------------------------------------------------
# Autograd bookkeeping
# --------------------------------------------------------------------------------------


class _MinMax(Function):
    """Two outputs; the second is marked non-differentiable in one call only."""

    @staticmethod
    def forward(ctx, x, mark):
        low, high = x.min(), x.max()
        if mark:
            ctx.mark_non_differentiable(high)
        ctx.save_for_backward(x)
        return low, high

    @staticmethod
    def backward(ctx, grad_low, grad_high):
        (x,) = ctx.saved_tensors
        return grad_low * (x == x.min()) + grad_high * (x == x.max()), None


def test_marking_outputs_in_one_ctx_does_not_leak_into_the_next():
    x = mt.tensor([1.0, 3.0, 2.0], requires_grad=True)
    _, marked_high = _MinMax.apply(x, True)
    _, high = _MinMax.apply(x, False)
    assert not marked_high.requires_grad
    assert high.requires_grad
    assert FunctionCtx._non_differentiable == frozenset()
    assert FunctionCtx().needs_input_grad == ()


def test_a_gradient_a_node_does_not_receive_arrives_as_zeros():
    x = mt.tensor([1.0, 3.0, 2.0], requires_grad=True)
    low, high = _MinMax.apply(x, False)
    (low * 2).backward()  # high gets no gradient: materialised as zeros
    assert_close(x.grad, torch.tensor([2.0, 0.0, 0.0]))


def test_without_materialize_a_missing_gradient_arrives_as_none():
    seen = []

    class Pair(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            seen.append((grad_a is None, grad_b is None))
            return grad_a * 2

    x = mt.tensor([1.0, 2.0], requires_grad=True)
    a, _ = Pair.apply(x)
    a.sum().backward()
    assert seen == [(False, True)]
    assert_close(x.grad, torch.tensor([2.0, 2.0]))


def test_hooks_and_retain_grad_still_run_in_the_lean_walk():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = tx * 3
    ty.retain_grad()
    ty.register_hook(lambda g: g * 10)
    (ty * ty).sum().backward()
    assert_close(y.grad, ty.grad)
    assert_close(x.grad, tx.grad)
