"""Gradients of every differentiable op in the op table (``tests/op_table.py``):

* first-order gradients vs PyTorch (float64 and float32) for every sample input
  (broadcasting, transposed, sliced and expanded inputs: the leaves are the bases, so
  gradients also flow back through those views);
* ``minitorch.autograd.gradcheck`` (finite differences) in float64;
* second-order gradients (``create_graph=True``) vs PyTorch in float64;
* ``gradgradcheck`` for the elementwise ops;
* non-differentiable ops (comparisons, arg-reductions, integer results) carry no grad.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, dtype_name, flatten_outputs, to_numpy
from op_table import (
    ARITHMETIC,
    GRAD_OPS,
    OPS,
    UNARY,
    build,
    build_pair,
    call_with_bases,
    floating_outputs,
    sample_arrays,
    seed_for,
)

import minitorch as mt

GRAD_PARAMS = [pytest.param(op, id=op.name) for op in GRAD_OPS]
ELEMENTWISE = set(UNARY) | {f"a{s}b" for s in ARITHMETIC} | {"where", "maximum", "clamp"}
ELEMENTWISE_PARAMS = [
    pytest.param(op, id=op.name) for op in GRAD_OPS if op.name in ELEMENTWISE
]
# floor division of floats is left out: its output requires grad in torch (whose backward
# then raises "not implemented"); minitorch may do either.
NONDIFF_PARAMS = [
    pytest.param(op, dtype, id=f"{op.name}-{dtype}")
    for op in OPS
    if not op.grad and "//" not in op.name and "floor_divide" not in op.name
    for dtype in op.dtypes
    if dtype in ("float32", "float64")
]


def upstream_for(outputs: list, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(o.shape)) for o in outputs]


def _describe(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return f"{type(error).__name__}: " + " | ".join(lines[:6])


def _combine(outputs: list, upstream: list, lib) -> object:
    """sum_k (outputs[k] * upstream[k]).sum(): one scalar to call backward() on."""
    total = None
    for out, u in zip(outputs, upstream):
        term = (out * lib.tensor(u, dtype=out.dtype)).sum()
        total = term if total is None else total + term
    return total


def run_grads(op, dtype: str) -> list[str]:
    failures = []
    for i, sample in enumerate(op.samples(dtype)):
        m, t = build_pair(op, sample, dtype, i, requires_grad=True)
        if not t.leaves:
            continue
        t_outs = [o for o in floating_outputs(op.fn(torch, *t.args, **t.kwargs))]
        t_outs = [o for o in t_outs if o.requires_grad]
        if not t_outs:
            continue
        upstream = upstream_for(t_outs, seed_for(op.name, i, "upstream"))
        if len(t_outs) == 1:
            t_outs[0].backward(torch.tensor(upstream[0], dtype=t_outs[0].dtype))
        else:
            _combine(t_outs, upstream, torch).backward()
        try:
            m_outs = floating_outputs(op.fn(mt, *m.args, **m.kwargs))
            assert len(m_outs) == len(t_outs), f"{len(m_outs)} float outputs, expected {len(t_outs)}"
            for k, (o, e) in enumerate(zip(m_outs, t_outs)):
                assert o.requires_grad, f"output {k} does not require grad"
                assert (o.grad_fn is None) == (e.grad_fn is None), (
                    f"output {k}: grad_fn {o.grad_fn}, torch {e.grad_fn}"
                )
            if len(m_outs) == 1:
                m_outs[0].backward(mt.tensor(upstream[0], dtype=m_outs[0].dtype))
            else:
                _combine(m_outs, upstream, mt).backward()
            for k, (ml, tl) in enumerate(zip(m.leaves, t.leaves)):
                if tl.grad is None:
                    assert ml.grad is None, f"leaf {k}: torch has no grad, minitorch has one"
                    continue
                assert ml.grad is not None, f"leaf {k}: no .grad"
                assert_close(ml.grad, tl.grad, msg=f"grad of leaf {k}")
        except Exception as error:  # noqa: BLE001 - collect every failing sample
            failures.append(f"sample {i} ({sample.desc}): {_describe(error)}")
    return failures


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op", GRAD_PARAMS)
def test_grads_match_torch(op, dtype):
    failures = run_grads(op, dtype)
    assert not failures, f"grad of {op.name} [{dtype}] failed on:\n" + "\n".join(failures)


@pytest.mark.parametrize("op", [p for p in GRAD_PARAMS if p.values[0].gradcheck])
def test_gradcheck(op):
    """Finite differences (float64) through minitorch.autograd.gradcheck."""
    failures = []
    for i, sample in enumerate(op.samples("float64")):
        arrays = sample_arrays(op, sample, "float64", seed_for(op.name, "float64", i))
        built = build(mt, sample, arrays, "float64", requires_grad=True)
        if not built.leaves or any(leaf.numel() == 0 for leaf in built.leaves):
            continue
        leaf_ids = [id(b) for b in built.leaves]
        others = {k: b for k, b in enumerate(built.bases) if id(b) not in leaf_ids}
        count = len(built.bases)

        def fn(*leaves, sample=sample, others=others, count=count):
            it = iter(leaves)
            bases = [others[k] if k in others else next(it) for k in range(count)]
            outputs = floating_outputs(call_with_bases(mt, op, sample, bases))
            return tuple(as_float64(o) for o in outputs)

        try:
            result = mt.autograd.gradcheck(
                fn, tuple(built.leaves), eps=1e-6, atol=1e-5, rtol=1e-3
            )
            assert result is True, f"gradcheck returned {result!r}"
        except Exception as error:  # noqa: BLE001
            failures.append(f"sample {i} ({sample.desc}): {_describe(error)}")
    assert not failures, f"gradcheck of {op.name} failed on:\n" + "\n".join(failures)


def as_float64(t):
    """float32 outputs are compared in float64 (finite differences need the precision)."""
    return t if dtype_name(t.dtype) == "float64" else t.double()


def _second_order(lib, op, sample, built, seed) -> list:
    """d/dleaves of sum(grad(outputs, leaves, v) * w), with create_graph=True."""
    outs = [o for o in floating_outputs(call_with_bases(lib, op, sample, built.bases))]
    outs = [o for o in outs if o.requires_grad]
    if not outs:
        return [None] * len(built.leaves)
    rng = np.random.default_rng(seed)
    v = [lib.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outs]
    grads = lib.autograd.grad(outs, built.leaves, v, create_graph=True, allow_unused=True)
    total = None
    for g in grads:
        if g is None:
            continue
        w = lib.tensor(rng.standard_normal(tuple(g.shape)), dtype=g.dtype)
        term = (g * w).sum()
        total = term if total is None else total + term
    if total is None or not total.requires_grad:
        return [None] * len(built.leaves)
    return list(lib.autograd.grad(total, built.leaves, allow_unused=True))


@pytest.mark.parametrize("op", [p for p in GRAD_PARAMS if p.values[0].gradgrad])
def test_second_order_grads_match_torch(op):
    failures = []
    for i, sample in enumerate(op.samples("float64")):
        arrays = sample_arrays(op, sample, "float64", seed_for(op.name, "float64", i))
        t_built = build(torch, sample, arrays, "float64", requires_grad=True)
        if not t_built.leaves:
            continue
        expected = _second_order(torch, op, sample, t_built, seed_for(op.name, i, "gg"))
        try:
            m_built = build(mt, sample, arrays, "float64", requires_grad=True)
            actual = _second_order(mt, op, sample, m_built, seed_for(op.name, i, "gg"))
            for k, (a, e, leaf) in enumerate(zip(actual, expected, t_built.leaves)):
                if e is None or e._is_zerotensor():
                    e = torch.zeros_like(leaf)
                if a is None:
                    a_values = np.zeros(tuple(leaf.shape))
                else:
                    assert tuple(a.shape) == tuple(e.shape), f"shape of 2nd-order grad {k}"
                    a_values = to_numpy(a)
                np.testing.assert_allclose(
                    a_values, to_numpy(e), rtol=1e-6, atol=1e-8,
                    err_msg=f"second-order grad of leaf {k}",
                )
        except Exception as error:  # noqa: BLE001
            failures.append(f"sample {i} ({sample.desc}): {_describe(error)}")
    assert not failures, f"second-order grad of {op.name} failed on:\n" + "\n".join(failures)


@pytest.mark.parametrize("op", ELEMENTWISE_PARAMS)
def test_gradgradcheck_elementwise(op):
    failures = []
    for i, sample in enumerate(op.samples("float64")[:4]):
        arrays = sample_arrays(op, sample, "float64", seed_for(op.name, "float64", i))
        built = build(mt, sample, arrays, "float64", requires_grad=True)
        if not built.leaves or any(leaf.numel() == 0 for leaf in built.leaves):
            continue
        leaf_ids = [id(b) for b in built.leaves]
        others = {k: b for k, b in enumerate(built.bases) if id(b) not in leaf_ids}
        count = len(built.bases)

        def fn(*leaves, sample=sample, others=others, count=count):
            it = iter(leaves)
            bases = [others[k] if k in others else next(it) for k in range(count)]
            outputs = floating_outputs(call_with_bases(mt, op, sample, bases))
            return tuple(as_float64(o) for o in outputs)

        try:
            assert mt.autograd.gradgradcheck(fn, tuple(built.leaves)) is True
        except Exception as error:  # noqa: BLE001
            failures.append(f"sample {i} ({sample.desc}): {_describe(error)}")
    assert not failures, f"gradgradcheck of {op.name} failed on:\n" + "\n".join(failures)


@pytest.mark.parametrize(("op", "dtype"), NONDIFF_PARAMS)
def test_non_differentiable_ops_carry_no_grad(op, dtype):
    """Comparisons, arg-reductions, floor division, integer conversions: outputs that
    PyTorch does not let require grad must not require grad in minitorch either."""
    failures = []
    for i, sample in enumerate(op.samples(dtype)):
        m, t = build_pair(op, sample, dtype, i, requires_grad=True)
        if not t.leaves:
            continue
        t_outs = flatten_outputs(op.fn(torch, *t.args, **t.kwargs))
        try:
            m_outs = flatten_outputs(op.fn(mt, *m.args, **m.kwargs))
            for k, (a, e) in enumerate(zip(m_outs, t_outs)):
                assert a.requires_grad == e.requires_grad, (
                    f"output {k}: requires_grad {a.requires_grad}, torch {e.requires_grad}"
                )
                if not e.requires_grad:
                    assert a.grad_fn is None, f"output {k} has a grad_fn"
        except Exception as error:  # noqa: BLE001
            failures.append(f"sample {i} ({sample.desc}): {_describe(error)}")
    assert not failures, f"{op.name} [{dtype}] failed on:\n" + "\n".join(failures)
