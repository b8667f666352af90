"""Memory (issue 3, item 9; issue 18.5): 10,000 forward/backward/SGD steps of a small MLP
keep memory flat -- the graph of each step is freed after backward, nothing accumulates.

Measured by counting live objects with ``gc`` (tensors, graph nodes, everything): the
counts after the warm-up and after the last step must be (almost) the same.

And graphs are never reference cycles, so *reference counting alone* frees them: with the
cycle collector switched off, weak references to the nodes, the saved tensors and the
activations of a graph are dead the moment its last tensor is deleted (with or without
a backward pass), for every differentiable op of the op table, and with ``retain_grad``,
hooks, saved outputs, ``create_graph=True``, in-place writes and views of views.

One cycle remains, as in PyTorch (which warns about it): ``loss.backward(create_graph=True)``
stores in ``x.grad`` a tensor whose graph leads back to ``x``. Use ``autograd.grad`` for
higher derivatives, or set ``x.grad = None`` after use.
"""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections.abc import Iterator

import numpy as np
import pytest
from op_table import GRAD_OPS, build, floating_outputs, sample_arrays, seed_for

import minitorch as mt
from minitorch.autograd.function import BackwardNode

STEPS = 10_000


def live_objects() -> tuple[int, int]:
    gc.collect()
    objects = gc.get_objects()
    # type(o), not isinstance: isinstance asks o.__class__, which raises for a dead
    # weakref.proxy (Numba's compiler leaves some among the objects).
    tensors = sum(1 for o in objects if issubclass(type(o), mt.Tensor))
    return tensors, len(objects)


@pytest.mark.slow
def test_ten_thousand_training_steps_keep_memory_flat():
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((2, 2)), dtype=mt.float32)
    y = mt.tensor(rng.standard_normal((2, 1)), dtype=mt.float32)
    w1 = mt.tensor(rng.standard_normal((2, 3)) * 0.5, dtype=mt.float32, requires_grad=True)
    b1 = mt.zeros(3, requires_grad=True)
    w2 = mt.tensor(rng.standard_normal((3, 1)) * 0.5, dtype=mt.float32, requires_grad=True)
    params = [w1, b1, w2]

    def step() -> float:
        hidden = (x @ w1 + b1).tanh()
        loss = ((hidden @ w2 - y) ** 2).mean()
        loss.backward()
        with mt.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
        return loss.item()

    first = step()
    for _ in range(200):
        step()
    live_objects()  # the first scan may trigger lazy imports (isinstance on lazy modules)
    tensors_before, objects_before = live_objects()
    for _ in range(STEPS - 201):
        last = step()
    tensors_after, objects_after = live_objects()
    assert last < first, "training should reduce the loss"
    assert tensors_after <= tensors_before + 2, (
        f"live tensors grew from {tensors_before} to {tensors_after}: graphs kept alive?"
    )
    assert objects_after <= objects_before + 200, (
        f"live objects grew from {objects_before} to {objects_after}: something keeps "
        f"{(objects_after - objects_before) / (STEPS - 201):.2f} objects per step alive"
    )


def test_graph_is_freed_without_the_cycle_collector_after_backward():
    """After backward (which frees the saved tensors) and dropping the output, the whole
    graph is gone even with the cyclic garbage collector off: no reference cycles."""
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        before = sum(1 for o in gc.get_objects() if issubclass(type(o), mt.Tensor))
        for _ in range(50):
            y = ((x * 2).exp() + x).sum()
            y.backward()
            del y
        after = sum(1 for o in gc.get_objects() if issubclass(type(o), mt.Tensor))
    finally:
        gc.enable()
    # x.grad is one new tensor; anything else would be a leak through reference cycles
    assert after <= before + 2, f"{after - before} tensors survive 50 steps without gc"


@contextlib.contextmanager
def cycle_collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def graph_weakrefs(*tensors: mt.Tensor, keep: tuple = ()) -> list[weakref.ref]:
    """Weak references to every node reachable from ``tensors`` and to every tensor
    those nodes saved for backward (but the tensors of ``keep``, the test's own)."""
    refs, seen = [], {id(t) for t in keep}
    stack = [t.grad_fn for t in tensors if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        refs.append(weakref.ref(node))
        if isinstance(node, BackwardNode) and node.ctx._saved:
            refs.extend(weakref.ref(s.tensor) for s in node.ctx._saved
                        if s is not None and id(s.tensor) not in seen)  # fmt: skip
        stack.extend(next_node for next_node, _ in node.next_functions)
    return refs


def alive(refs: list[weakref.ref]) -> list:
    return [r() for r in refs if r() is not None]


def mlp_loss(x, w1, w2):
    hidden = (x @ w1).tanh()
    return ((hidden @ w2).sigmoid() ** 2).mean(), hidden


@pytest.mark.parametrize("run_backward", [False, True])
def test_graph_of_a_training_step_is_freed_by_reference_counting(run_backward):
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((8, 4)))
    w1 = mt.tensor(rng.standard_normal((4, 16)), requires_grad=True)
    w2 = mt.tensor(rng.standard_normal((16, 1)), requires_grad=True)
    with cycle_collector_off():
        loss, hidden = mlp_loss(x, w1, w2)
        refs = graph_weakrefs(loss, keep=(x, w1, w2)) + [weakref.ref(hidden)]
        assert len(refs) > 8
        if run_backward:
            loss.backward()
        del loss, hidden
        assert alive(refs) == []
    assert w1.grad is not None if run_backward else w1.grad is None


def test_memory_stays_flat_over_many_steps_without_the_cycle_collector():
    """The finder of issue 18.5: with gc off, 100 steps kept every graph alive."""
    rng = np.random.default_rng(1)
    x = mt.tensor(rng.standard_normal((8, 16)))
    w1 = mt.tensor(rng.standard_normal((16, 16)), requires_grad=True)
    w2 = mt.tensor(rng.standard_normal((16, 1)), requires_grad=True)

    def step() -> None:
        mlp_loss(x, w1, w2)[0].backward()
        with mt.no_grad():
            for w in (w1, w2):
                w -= 0.001 * w.grad
                w.grad = None

    with cycle_collector_off():
        for _ in range(10):  # warm-up: kernel and layout caches fill
            step()
        before = len(gc.get_objects())
        for _ in range(100):
            step()
        after = len(gc.get_objects())
    assert after - before < 50, f"{after - before} objects survive 100 steps without gc"


def test_retain_grad_hooks_and_saved_outputs_make_no_cycles():
    x = mt.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)  # a hook on a leaf: kept by the leaf, not a cycle
    with cycle_collector_off():
        y = x.exp()  # saves its output
        y.retain_grad()
        y.register_hook(lambda g: g + 1)
        z = y.sigmoid().tanh()  # two more saved outputs
        loss = z.sum()
        refs = graph_weakrefs(loss, keep=(x,)) + [weakref.ref(y)]
        loss.backward(retain_graph=True)
        assert y.grad is not None and x.grad is not None
        del y, z, loss
        assert alive(refs) == []
        hook_node = weakref.ref(x.grad_fn) if x.grad_fn is not None else None
        assert hook_node is None  # x is a leaf
        # The hook on x still runs in a new graph (the leaf kept it).
        x.grad = None
        (x * 1).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_create_graph_with_autograd_grad_makes_no_cycles():
    x = mt.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with cycle_collector_off():
        y = (x.sin() * x).sum()
        (g,) = mt.autograd.grad(y, x, create_graph=True)
        (gg,) = mt.autograd.grad(g.sum(), x, create_graph=True)
        refs = graph_weakrefs(y, g, gg, keep=(x,))
        del y, g, gg
        assert alive(refs) == []


def test_backward_with_create_graph_into_dot_grad_is_the_one_documented_cycle():
    x = mt.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with cycle_collector_off():
        (x.sin() * x).sum().backward(create_graph=True)
        refs = graph_weakrefs(x.grad, keep=(x,))
        assert alive(refs)
        x.grad = None  # the documented way out
        assert alive(refs) == []


def test_in_place_writes_and_renewed_views_make_no_cycles():
    x = mt.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)

    def graph_of_in_place_writes() -> list[weakref.ref]:
        a = x * 1
        b = a[:2]
        c = b[1:]
        a[0].mul_(10)  # b and c are renewed from a's new history when used
        a[2:].copy_(x[:2].exp())
        loss = (b * c).sum() + a.sum()
        refs = graph_weakrefs(loss, a, b, c, keep=(x,))
        loss.backward()
        return refs

    # Once with the collector on: a kernel compiled for the first time in this process
    # (a cold Numba cache, as in a fresh clone) leaves Numba's own exception-traceback
    # cycles behind, and their frames would keep this graph alive until the collector ran.
    graph_of_in_place_writes()
    with cycle_collector_off():
        assert alive(graph_of_in_place_writes()) == []


def _first_sample_graph(op) -> tuple[list[weakref.ref], int]:
    sample = op.samples("float64")[0]
    arrays = sample_arrays(op, sample, "float64", seed_for(op.name, "float64", 0))
    built = build(mt, sample, arrays, "float64", requires_grad=True)
    outputs = [o for o in floating_outputs(op.fn(mt, *built.args, **built.kwargs))
               if o.grad_fn is not None]  # fmt: skip
    refs = graph_weakrefs(*outputs)
    return refs, len(outputs)


def test_graph_of_every_differentiable_op_is_freed_by_reference_counting():
    # Every op once with the collector on first: a kernel compiled for the first time in
    # this process leaves Numba's exception-traceback cycles behind (see the test above),
    # whose frames would keep that op's graph alive until the collector ran.
    for op in GRAD_OPS:
        _first_sample_graph(op)
    gc.collect()
    failures = []
    with cycle_collector_off():
        for op in GRAD_OPS:
            refs, count = _first_sample_graph(op)  # everything it made is gone on return
            if count and not refs:
                failures.append(f"{op.name}: no graph recorded")
            survivors = [getattr(o, "name", lambda o=o: type(o).__name__)() for o in alive(refs)]
            if survivors:
                failures.append(f"{op.name}: reference cycles keep {survivors} alive")
    assert failures == []
