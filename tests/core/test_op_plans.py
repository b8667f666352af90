"""Plans: what the ops layer (``apply_zip`` in ``minitorch/ops/elementwise.py``) and
dispatch's primitives (``minitorch/dispatch/__init__.py``) remember per layout, in the one
cache of ``minitorch/dispatch/plans.py``, against PyTorch.

A plan is found again by its key (op, backend, dtypes, shape, strides) and runs with the
storages and offsets of the call. These tests check that a remembered plan gives the
same results as the first call, that another layout, dtype or backend of the same shape
gets a plan of its own, that nothing a plan could hold goes stale (in-place writes, views
of changed bases, a tensor's ``data`` replaced, storage the allocator hands out again),
that plans are taken exactly when they should be (a dictionary that counts the lookups
that found one, by kind: ``"zip_op"`` for the ops layer's), that casts and integer value
checks are never remembered, that bad input still raises PyTorch's errors, and that
threads share plans safely.
"""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import dispatch
from minitorch.backends.numba import parallel_policy
from minitorch.dispatch import plans as dispatch_plan_cache
from minitorch.ops import elementwise

from .test_zip_plans import as_tensors, check_like_torch

OPS = {"add": (lambda a, b: a + b), "sub": (lambda a, b: a - b),
       "mul": (lambda a, b: a * b), "div": (lambda a, b: a / b)}  # fmt: skip


class CountingPlans(dict):
    """A plan dictionary that counts the lookups that found a plan, in all (``found``)
    and by the kind its key starts with (``found_of``: ``"zip_op"``, ``"zip"``, ...)."""

    def __init__(self) -> None:
        super().__init__()
        self.found = 0
        self.found_kinds: dict[str, int] = {}

    def get(self, key, default=None):
        plan = super().get(key, default)
        if plan is not None:
            self.found += 1
            self.found_kinds[key[0]] = self.found_kinds.get(key[0], 0) + 1
        return plan

    def found_of(self, kind: str) -> int:
        return self.found_kinds.get(kind, 0)

    def keys_of(self, kind: str) -> list[tuple]:
        return [key for key in self if key[0] == kind]


@pytest.fixture
def dispatch_plans(monkeypatch):
    """The one plan cache, counting: the primitives' plans and the ops layer's."""
    plans = CountingPlans()
    monkeypatch.setattr(dispatch, "plan_cache", plans)  # where the primitives look
    monkeypatch.setattr(dispatch_plan_cache, "cache", plans)  # where new plans are kept
    return plans


@pytest.fixture
def zip_plans(dispatch_plans):
    """The same counting cache, for tests of ``apply_zip``'s plans (keys ``"zip_op"``)."""
    return dispatch_plans


def layouts(rng: np.random.Generator, dtype: str) -> dict[str, tuple]:
    """``(x, y)`` NumPy pairs of one shape, each a different layout."""

    def normal(*shape):
        return rng.standard_normal(shape).astype(dtype)

    return {
        "contiguous": (normal(4, 5), normal(4, 5)),
        "transposed": (normal(5, 4).T, normal(5, 4).T),
        "one transposed": (normal(4, 5), normal(5, 4).T),
        "sliced": (normal(6, 11)[1:5, 1::2], normal(4, 7)[:, 2:7]),
        "expanded": (np.broadcast_to(normal(1, 5), (4, 5)), normal(5, 4).T),
        "both expanded": (np.broadcast_to(normal(4, 1), (4, 5)), np.broadcast_to(normal(1, 5), (4, 5))),
        "0-d": (normal(), normal()),
        "empty": (normal(0, 3), normal(0, 3)),
    }


def as_tensor(lib, array: np.ndarray):
    """``array``'s values in ``lib`` (minitorch or torch), with ``array``'s strides and offset."""
    return as_tensors(lib, [array])[0]


# ----- remembered plans give the first call's results ----------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_a_remembered_plan_agrees_with_pytorch_on_every_layout(op, dtype, zip_plans):
    function = OPS[op]
    for name, (x, y) in layouts(np.random.default_rng(len(op)), dtype).items():
        a, b = as_tensor(mt, x), as_tensor(mt, y)
        expected = function(as_tensor(torch, x), as_tensor(torch, y))
        first = function(a, b)
        assert elementwise.plan_key(op, a, b) in zip_plans, f"{name}: the first call keeps its plan"
        found, made = zip_plans.found_of("zip_op"), dispatch_plan_cache.made
        again = function(a, b)
        assert dispatch_plan_cache.made == made, f"{name}: the second call makes no plan"
        assert zip_plans.found_of("zip_op") == found + 1, f"{name}: the second call finds its plan"
        for result in (first, again):
            check_like_torch(result, expected)


@pytest.mark.parametrize("op", sorted(OPS))
def test_the_same_shape_with_other_strides_or_dtype_gets_its_own_plan(op, zip_plans):
    """A (4, 5) plan for row-major float32 operands is not used for column-major ones,
    nor for float64 or float16 operands of the same strides."""
    function = OPS[op]
    x, y = np.random.default_rng(7).standard_normal((2, 4, 5))
    for dtype in ("float32", "float64", "float16"):
        for xs, ys in ((x, y), (np.asfortranarray(x), y), (x, np.asfortranarray(y))):
            xs, ys = xs.astype(dtype, order="K"), ys.astype(dtype, order="K")
            a, b = as_tensor(mt, xs), as_tensor(mt, ys)
            expected = function(as_tensor(torch, xs), as_tensor(torch, ys))
            for _ in range(2):
                check_like_torch(function(a, b), expected)
    keys = zip_plans.keys_of("zip_op")  # ("zip_op", op, backend, a's dtype, shape, strides, b's ...)
    assert len(keys) == 9 and zip_plans.found_of("zip_op") == 9
    assert {key[3] for key in keys} == {key[6] for key in keys} == {mt.float32, mt.float64, mt.float16}
    assert len({(key[5], key[8]) for key in keys}) == 3  # three pairs of strides


@pytest.mark.parametrize("number", [2.0, -3, 0.5, -0.0, 0.0, float("inf"), 7])
def test_a_number_operand_uses_its_own_value_on_every_call(number, zip_plans):
    """Numbers of one type share one plan per layout (keyed by the type): the value comes
    with each call, so ``x / 0.0`` and ``x / -0.0`` differ, and ``x * 2`` is not ``x * 7``."""
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    for a, ta in ((mt.tensor(x), torch.tensor(x)), (mt.tensor(x).t(), torch.tensor(x).t()),
                  (mt.tensor(1.5), torch.tensor(1.5))):  # fmt: skip
        for function in OPS.values():
            for _ in range(2):
                check_like_torch(function(a, number), function(ta, number))
    keys = zip_plans.keys_of("zip_op")
    assert len(keys) == 3 * len(OPS) and all(key[-1] is type(number) for key in keys)
    assert zip_plans.found_of("zip_op") == 3 * len(OPS)  # each second call


def test_the_dispatch_plans_of_the_general_path_agree_with_pytorch(dispatch_plans):
    """Ops that record a graph (and unary maps) go through ``dispatch.zip``/``map``, which
    keep plans too: the second call finds them, and values and gradients are right."""
    rng = np.random.default_rng(4)
    for name, (x, y) in layouts(rng, "float32").items():
        if name == "0-d":
            continue
        results = []
        for _ in range(2):
            a = as_tensor(mt, x).detach().requires_grad_()
            b = as_tensor(mt, y)
            ta = as_tensor(torch, x).detach().requires_grad_()
            tb = as_tensor(torch, y)
            out, expected = (a * b).tanh(), (ta * tb).tanh()
            out.sum().backward()
            expected.sum().backward()
            check_like_torch(out, expected)
            # (values only: an expanded leaf's gradient is laid out unlike PyTorch's,
            # which makes it contiguous; that is the engine's rule, not the plans')
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)
            results.append(dispatch_plans.found)
        assert results[1] > results[0], name


def close_to_torch(actual: mt.Tensor, expected: torch.Tensor) -> None:
    """Sums: PyTorch's dtype and shape, its values up to the rounding of another order."""
    assert str(actual.dtype) == str(expected.dtype) and tuple(actual.shape) == tuple(expected.shape)
    tolerance = 1e-2 if actual.element_size() == 2 else 1e-5
    np.testing.assert_allclose(actual.float().numpy(), expected.float().numpy(),
                               rtol=tolerance, atol=tolerance)  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_reductions_keep_plans_per_layout_and_dim_and_agree_with_pytorch(dtype, dispatch_plans, backend):
    """``dispatch.reduce`` keeps a plan per (a's shape and strides, dim, out's strides):
    a second call finds it, and every layout and dim gives PyTorch's sums and maxima (a
    16-bit float goes through the primitive's own plan, which widens it)."""
    rng = np.random.default_rng(9)
    for name, (x, _) in layouts(rng, "float64").items():
        x = (x * 4).astype(dtype)
        a, ta = as_tensor(mt, x), as_tensor(torch, x)
        dims = [None, *range(x.ndim), *([(0, 1)] if x.ndim == 2 else [])]
        for dim in dims:
            keyed = len(dispatch_plans)
            for _ in range(2):
                found = dispatch_plans.found
                close_to_torch(a.sum(dim), ta.sum(dim))
                if x.size and dim is not None and not isinstance(dim, tuple):
                    check_like_torch(a.amax(dim), ta.amax(dim))
            assert dispatch_plans.found > found, f"{name}, dim {dim}: the second call finds its plans"
            assert len(dispatch_plans) >= keyed
    assert {key[0] for key in dispatch_plans} >= {"reduce"}
    assert {key[6] for key in dispatch_plans if key[0] == "reduce"} <= {0, 1}  # the dims


def matmul_operands(rng: np.random.Generator, dtype: str) -> dict[str, tuple]:
    """``(a, b)`` NumPy pairs that multiply, in different layouts and sizes: each of the
    three kernels (rows, columns, tiled), transposed and sliced operands, batches, a
    broadcast batch and empty sums."""

    def normal(*shape):
        return (rng.standard_normal(shape) * 2).astype(dtype)

    return {
        "rows": (normal(9, 6), normal(6, 10)),
        "rows, b transposed": (normal(13, 7), normal(12, 7).T),
        "columns": (normal(50, 3), normal(3, 1)),
        "tiled": (normal(8, 40), normal(40, 5)),
        "a transposed, sliced": (normal(12, 9)[::2, 1:].T, normal(6, 11)[:, 2:]),
        "batched": (normal(3, 5, 4), normal(3, 4, 9)),
        "broadcast batch": (normal(2, 1, 5, 4), normal(3, 4, 8)),
        "empty sums": (normal(4, 0), normal(0, 8)),
        "empty rows": (normal(0, 3), normal(3, 8)),
    }


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
def test_matmul_keeps_plans_per_layout_and_agrees_with_pytorch(dtype, dispatch_plans, backend):
    """``dispatch.matmul`` keeps a plan per (out's shape, the length of the sums, the
    strides): a second product of the same layouts finds it, and every layout gives
    PyTorch's product (a 16-bit float through the primitive's own plan, which widens it)."""
    rng = np.random.default_rng(10)
    for name, (x, y) in matmul_operands(rng, "float64").items():
        x, y = x.astype(dtype), y.astype(dtype)
        a, b, ta, tb = as_tensor(mt, x), as_tensor(mt, y), as_tensor(torch, x), as_tensor(torch, y)
        for _ in range(2):
            found = dispatch_plans.found
            close_to_torch(a @ b, ta @ tb)
        if x.size and y.size:
            assert dispatch_plans.found > found, f"{name}: the second product finds its plan"
    assert {key[0] for key in dispatch_plans} >= {"matmul"}
    assert {key[6] for key in dispatch_plans if key[0] == "matmul"} == {0, 3, 4, 6, 7, 40}  # sums


def test_a_product_of_matrices_is_the_matmul_plan_of_its_batch_of_one(dispatch_plans, backend):
    """Two matrices take the one way every product takes: ``dispatch.matmul`` on their
    batch of one ``[1, n, k] @ [1, k, m]`` (no second kind of plan), and transposed and
    sliced (offset) operands give PyTorch's product, the second call finding its plan."""
    rng = np.random.default_rng(11)
    for name, (x, y) in matmul_operands(rng, "float32").items():
        if x.ndim != 2 or y.ndim != 2:
            continue
        a, b, ta, tb = as_tensor(mt, x), as_tensor(mt, y), as_tensor(torch, x), as_tensor(torch, y)
        for _ in range(2):
            found = dispatch_plans.found
            close_to_torch(a @ b, ta @ tb)
            close_to_torch(mt.nn.functional.linear(a, b.mT), torch.nn.functional.linear(ta, tb.mT))
        if x.size and y.size:
            assert dispatch_plans.found > found, f"{name}: the second product finds its plan"
    kinds = {key[0] for key in dispatch_plans}
    assert "matmul" in kinds and "matrix product" not in kinds
    assert all(key[5][0] == 1 for key in dispatch_plans if key[0] == "matmul")  # batches of one


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
def test_gather_keeps_plans_per_layout_and_agrees_with_pytorch(dtype, dispatch_plans, backend):
    """``dispatch.gather`` keeps a plan per (out's shape, dim, a's shape, the strides): a
    second gather of the same layouts finds it, and every layout gives PyTorch's values
    (a loss's pick of each sample's class is ``dim=1`` with one column of indices)."""
    rng = np.random.default_rng(11)
    source = (rng.standard_normal((6, 5, 4)) * 3).astype(dtype)
    cases = {  # name -> (source view, dim, index shape)
        "rows, one column": (source[:, :, 0], 1, (6, 1)),
        "transposed": (source[:, 0, :].T, 0, (3, 6)),
        "sliced, 3-d": (source[::2, 1:, :], 2, (3, 4, 2)),
        "dim 0": (source[:, :, 1], 0, (4, 5)),
        "empty": (source[:, :, 2], 1, (0, 5)),
    }
    for name, (x, dim, index_shape) in cases.items():
        index = rng.integers(0, x.shape[dim], size=index_shape)
        a, ta = as_tensor(mt, x), as_tensor(torch, x)
        i, ti = mt.tensor(index), torch.tensor(index)
        for _ in range(2):
            found = dispatch_plans.found
            close_to_torch(a.gather(dim, i), ta.gather(dim, ti))
        if index.size:
            assert dispatch_plans.found > found, f"{name}: the second gather finds its plan"
    assert {key[6] for key in dispatch_plans if key[0] == "gather"} == {0, 1, 2}  # the dims


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
def test_scatter_add_keeps_plans_per_layout_and_agrees_with_pytorch(dtype, dispatch_plans, backend):
    """``dispatch.scatter_add`` keeps a plan per (src's shape, dim, out's shape, the
    strides): a second scatter of the same layouts finds it, and every layout, with
    repeated indices adding into one cell, gives PyTorch's values (a loss's gradient is
    ``dim=1`` with one column of indices)."""
    rng = np.random.default_rng(12)
    target = (rng.standard_normal((6, 5, 4)) * 3).astype(dtype)
    values = (rng.standard_normal((6, 5, 4)) * 3).astype(dtype)
    cases = {  # name -> (target view, dim, source view)
        "rows, one column": (target[:, :, 0], 1, values[:, :1, 0]),
        "transposed": (target[:, 0, :].T, 0, values[:3, 0, :].T),
        "sliced, 3-d": (target[::2, 1:, :], 2, values[::2, 1:, :2]),
        "dim 0, repeated": (target[:, :, 1], 0, values[:, :, 1]),
        "empty": (target[:, :, 2], 1, values[:, :0, 2]),
    }
    for name, (x, dim, src) in cases.items():
        index = rng.integers(0, x.shape[dim], size=src.shape)
        i, ti = mt.tensor(index), torch.tensor(index)
        s, ts = as_tensor(mt, src), as_tensor(torch, src)
        for _ in range(2):
            found = dispatch_plans.found
            a, ta = as_tensor(mt, x), as_tensor(torch, x)
            close_to_torch(a.scatter_add(dim, i, s), ta.scatter_add(dim, ti, ts))
        if index.size:
            assert dispatch_plans.found > found, f"{name}: the second scatter finds its plan"
    assert {key[6] for key in dispatch_plans if key[0] == "scatter_add"} == {0, 1, 2}  # the dims


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int32", "bool"])
def test_dtypes_without_a_runner_use_the_primitive_through_their_plan(dtype):
    """16-bit floats are widened by the Numba primitives, so their plans call ``zip`` and
    ``map`` with ``Strided`` operands; integers and bools take the runners."""
    x = np.random.default_rng(5).standard_normal((3, 4)) * 4
    tdtype = getattr(torch, dtype)
    a, ta = mt.tensor(x).to(getattr(mt, dtype)), torch.tensor(x).to(tdtype)
    for _ in range(2):
        check_like_torch(a.t() + a.t(), ta.t() + ta.t())
        check_like_torch(a == a.t().t(), ta == ta.t().t())
        check_like_torch(a.abs() if dtype != "bool" else a.logical_not(),
                         ta.abs() if dtype != "bool" else ta.logical_not())  # fmt: skip


def test_another_backend_gets_its_own_plans(backend, zip_plans):
    other = "reference" if backend != "reference" else "numba"
    x, y = np.random.default_rng(6).standard_normal((2, 3, 4)).astype(np.float32)
    a, b, ta, tb = mt.tensor(x), mt.tensor(y), torch.tensor(x), torch.tensor(y)
    check_like_torch(a + b, ta + tb)
    check_like_torch((a + b).exp(), (ta + tb).exp())
    before = zip_plans.keys_of("zip_op")
    assert len(before) == 1
    with mt.backend(other):
        check_like_torch(a + b, ta + tb)
        check_like_torch((a + b).exp(), (ta + tb).exp())
    assert len(zip_plans.keys_of("zip_op")) == 2
    assert {key[2] for key in zip_plans} == {backend, other}  # (every kind's key names it)
    found = zip_plans.found_of("zip_op")
    check_like_torch(a + b, ta + tb)  # back on the first backend: its plan again
    assert zip_plans.found_of("zip_op") == found + 1 and len(zip_plans.keys_of("zip_op")) == 2


def test_no_plan_while_something_records(zip_plans):
    """A trace must see every call (with the op's name), so neither ``apply_zip``'s plans
    nor the primitives' run while one is open; afterwards they do again."""
    a, b = mt.randn(3, 4), mt.randn(3, 4)
    a + b
    a.exp()
    found = dict(zip_plans.found_kinds)
    with dispatch.trace() as calls:
        c = a + b
        d = c.exp()
    assert [call.primitive for call in calls] == ["zip", "map"]
    assert [call.op for call in calls] == ["Add", "Exp"]
    for kind in ("zip_op", "map"):  # (a miss of ``apply_zip`` runs ``dispatch.zip``, which records)
        assert zip_plans.found_of(kind) == found.get(kind, 0), f"no {kind} plan served while recording"
    np.testing.assert_allclose(d.numpy(), np.exp(a.numpy() + b.numpy()), rtol=1e-6)
    a + b
    a.exp()
    assert zip_plans.found_of("zip_op") == found.get("zip_op", 0) + 1
    assert zip_plans.found_of("map") == found.get("map", 0) + 1


def test_a_recorded_op_runs_its_kernel_through_the_same_plan(zip_plans):
    """``Add.apply`` records a node when a gradient is needed and ``Add.forward`` runs
    ``apply_zip`` either way: one plan serves the recorded op, the same op under
    ``no_grad``, and the same op on inputs that need no gradient."""
    a, b = mt.randn(3, 4, requires_grad=True), mt.randn(3, 4)
    recorded = a + b
    assert recorded.grad_fn is not None
    assert len(zip_plans.keys_of("zip_op")) == 1 and zip_plans.found_of("zip_op") == 0
    with mt.no_grad():
        out = a + b
    assert out.grad_fn is None and zip_plans.found_of("zip_op") == 1
    plain = a.detach() + b
    assert plain.grad_fn is None and zip_plans.found_of("zip_op") == 2
    assert len(zip_plans.keys_of("zip_op")) == 1
    np.testing.assert_array_equal(out.numpy(), recorded.detach().numpy())
    np.testing.assert_array_equal(plain.numpy(), recorded.detach().numpy())


@pytest.mark.parametrize("op", ["floordiv", "remainder", "pow"])
def test_integer_value_checks_casts_and_numpy_numbers_keep_no_plan(op, zip_plans):
    """Integer ``//``, ``%`` and ``**`` check the divisor or exponent, a cast makes a new
    copy, and a numpy number is promoted by its value's kind: ``prepare`` runs on every
    such call (no ``"zip_op"`` plan is kept), with PyTorch's values each time, while the
    same op on floats of one dtype keeps one."""
    x = np.array([[7, -3, 4], [9, -8, 5]])
    y = np.array([[2, 3, -3], [4, 1, 2]]) if op != "pow" else np.array([[2, 0, 1], [3, 1, 2]])
    function = {"floordiv": lambda a, b: a // b, "remainder": lambda a, b: a % b,
                "pow": lambda a, b: a**b}[op]  # fmt: skip
    calls = [(x, y), (x, 2), (x.astype(np.float32), y), (x.astype(np.float32), np.float64(2.0))]
    for u, v in calls:
        for _ in range(2):
            ours = [mt.tensor(w) if isinstance(w, np.ndarray) else w for w in (u, v)]
            theirs = [torch.tensor(w) if isinstance(w, np.ndarray) else w for w in (u, v)]
            check_like_torch(function(*ours), function(*theirs))
    # (the check ``(b == 0).any()`` is an op of its own, whose plan is kept)
    assert [key for key in zip_plans.keys_of("zip_op") if key[1] == op] == []
    a, ta = mt.tensor(x.astype(np.float32)), torch.tensor(x.astype(np.float32))
    found = zip_plans.found_of("zip_op")
    for _ in range(2):
        check_like_torch(function(a, a), function(ta, ta))
    assert len([key for key in zip_plans.keys_of("zip_op") if key[1] == op]) == 1
    assert zip_plans.found_of("zip_op") == found + 1


# ----- nothing goes stale ---------------------------------------------------------------


def test_in_place_writes_and_changed_bases_are_seen(zip_plans):
    base = mt.zeros(4, 6)
    tbase = torch.zeros(4, 6)
    view, tview = base[:, 1:5], tbase[:, 1:5]
    other, tother = mt.ones(4, 4), torch.ones(4, 4)
    check_like_torch(view * other, tview * tother)
    base.add_(2.0)  # the view's base changed
    tbase.add_(2.0)
    check_like_torch(view * other, tview * tother)
    view.mul_(3.0)  # and the view itself
    tview.mul_(3.0)
    check_like_torch(view * other, tview * tother)
    check_like_torch(base + 1, tbase + 1)
    assert zip_plans.found_of("zip_op") >= 2


def test_a_replaced_data_is_read_on_every_call(zip_plans):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a, b = mt.tensor(x), mt.tensor(x)
    check_like_torch(a + b, torch.tensor(x) + torch.tensor(x))
    a.data = mt.tensor(x.T.copy()).t()  # same shape and dtype, other strides and storage
    check_like_torch(a + b, torch.tensor(x.T.copy()).t() + torch.tensor(x))
    a.data = mt.tensor(x * 10, dtype=mt.float64)
    b.data = mt.tensor(x, dtype=mt.float64)
    check_like_torch(a + b, torch.tensor(x * 10, dtype=torch.float64) + torch.tensor(x, dtype=torch.float64))


def test_storage_handed_out_again_is_just_another_storage(zip_plans):
    """Free a tensor and make new ones of its size (the allocator reuses its block): a
    plan made for the freed tensor's layout serves them with their own values."""
    rng = np.random.default_rng(8)
    for _ in range(5):
        x, y = rng.standard_normal((2, 5, 5)).astype(np.float32)
        a, b = mt.tensor(x), mt.tensor(y)
        out = a * b
        np.testing.assert_allclose(out.numpy(), x * y, rtol=1e-6)
        del a, out
        gc.collect()
    assert zip_plans.found_of("zip_op") >= 4


def test_a_plan_follows_the_serial_or_parallel_choice_of_each_call(backend):
    if backend != "numba":
        pytest.skip("the serial-or-parallel choice is the Numba backend's")
    x = np.random.default_rng(9).standard_normal((300, 7)).astype(np.float32)
    a, ta = mt.tensor(x), torch.tensor(x)
    check_like_torch(a * 3.0 + a.t().t(), ta * 3.0 + ta)
    for path in ("parallel", "serial", None):
        with parallel_policy.force(path):
            calls = parallel_policy.parallel_calls["zip"]
            check_like_torch(a * 3.0 + a, ta * 3.0 + ta)
            check_like_torch(a.exp(), ta.exp())
            assert (parallel_policy.parallel_calls["zip"] > calls) == (path == "parallel")


def test_the_plan_cache_stays_bounded(monkeypatch):
    monkeypatch.setattr(dispatch_plan_cache, "PLAN_CACHE_SIZE", 8)
    bounded: dict = {}
    monkeypatch.setattr(dispatch, "plan_cache", bounded)
    monkeypatch.setattr(dispatch_plan_cache, "cache", bounded)
    made, kinds = dispatch_plan_cache.made, set()
    for n in range(1, 30):
        a, ta = mt.arange(float(n)), torch.arange(float(n))  # float32: exp(10 * 10) is inf
        np.testing.assert_allclose((a * a).exp().numpy(), (ta * ta).exp().numpy(), rtol=1e-6)
        assert len(bounded) <= 8
        kinds.update(key[0] for key in bounded)
    assert dispatch_plan_cache.made - made > 8, "the cache filled up and started afresh"
    assert {"zip_op", "zip", "map"} <= kinds  # the ops layer's plans and the primitives' share it


# ----- errors stay PyTorch's -------------------------------------------------------------


def test_bad_operands_raise_as_before_after_plans_are_made():
    a = mt.randn(4, 5)
    a + a
    a * 2.0
    with pytest.raises(RuntimeError, match=r"size of tensor a \(5\) must match the size of tensor b \(6\)"):
        a + mt.randn(4, 6)
    with pytest.raises(TypeError):
        a + "2"
    with pytest.raises(TypeError):
        a * [1, 2]


def test_two_devices_raise_after_plans_are_made():
    """Plans are keyed by the device's backend: a CPU plan never runs a CUDA operand
    (on the emulator, the same check as on a GPU)."""
    from minitorch.backends import cuda, cuda_emulator

    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    a = mt.randn(4, 5)
    a + a
    a.exp()
    with cuda.emulated():
        b = mt.randn(4, 5, device="cuda")
        for call in (lambda: a + b, lambda: b * a, lambda: mt.tanh(a) * b):
            with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
                call()
        mt.cuda.synchronize()


# ----- threads -----------------------------------------------------------------------------


def test_threads_share_plans_and_keep_their_own_grad_mode():
    """Four threads run ops on several layouts and dtypes at once, two of them with grad
    mode off and two recording graphs (one plan per layout serves both): every result is
    right, and only the recording threads' results have a graph."""
    rng = np.random.default_rng(10)
    inputs = [rng.standard_normal((6, 7)).astype(dtype) for dtype in ("float32", "float64")]
    failures: list[str] = []
    start = threading.Barrier(4)

    def work(index: int) -> None:
        start.wait()
        recording = index % 2 == 0
        for step in range(150):
            x = inputs[step % 2]
            a = mt.tensor(x, requires_grad=recording)
            for lhs, value in ((a, x), (a.t(), x.T), (a[1:, ::2], x[1:, ::2])):
                if recording:
                    out = lhs * lhs + 1.5
                else:
                    with mt.no_grad():
                        out = lhs * lhs + 1.5
                if (out.grad_fn is not None) != recording:
                    failures.append(f"thread {index}: graph {out.grad_fn} when recording={recording}")
                if not np.allclose(out.detach().numpy(), value * value + 1.5, rtol=1e-6):
                    failures.append(f"thread {index}, step {step}: wrong values")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


@pytest.mark.parametrize("reduction", ["sum", "prod", "amax", "amin", "mean"])
def test_a_reduction_of_a_0d_tensor_is_a_new_tensor(reduction):
    """Folding nothing still makes a new tensor, as in PyTorch: writing into the result
    leaves the input alone (it used to return a view of it)."""
    a, ta = mt.tensor(2.5), torch.tensor(2.5)
    out, expected = getattr(a, reduction)(), getattr(ta, reduction)()
    assert out.shape == expected.shape == ()
    out.add_(1)
    expected.add_(1)
    assert a.item() == ta.item() == 2.5 and out.item() == expected.item()
    assert getattr(a, reduction)(0, keepdim=True).shape == getattr(ta, reduction)(0, keepdim=True).shape
