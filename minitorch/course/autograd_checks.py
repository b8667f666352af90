"""Checks for the autograd exercises (chapter 4): custom ``Function``s and the backward walk.

``check_function`` compares a student's ``autograd.Function`` with a reference written in
built-in ops, forward values *and* gradients, on non-contiguous and broadcast inputs, with
a random incoming gradient (so forgetting the chain rule shows).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import minitorch
from minitorch.autograd.engine import sum_to
from minitorch.course.cases import KINDS, describe_tensor, random_shape, random_tensor, rng
from minitorch.course.report import CheckFailed, call_student, checker, fail

NAMES = "abcd"


def _input_shapes(generator, arity: int) -> list[tuple[int, ...]]:
    """Shapes that broadcast together (the first is the full shape)."""
    full = random_shape(generator, max_ndim=3)
    shapes = [full]
    for _ in range(arity - 1):
        keep = generator.randint(0, len(full))
        tail = full[len(full) - keep :]
        shapes.append(tuple(1 if generator.random() < 0.3 else s for s in tail))
    generator.shuffle(shapes)
    return shapes


def _numpy(t: minitorch.Tensor | None) -> np.ndarray | None:
    return None if t is None else t.detach().numpy().copy()


def _full_gradients(reference: Callable, inputs: list, upstream: minitorch.Tensor) -> list:
    """The reference gradients of the inputs *before* un-broadcasting: each input is
    expanded to the output's shape first (to recognise gradients returned in the wrong
    order when the inputs' shapes differ)."""
    shape = tuple(upstream.shape)
    leaves = [t.detach().expand(*shape).clone().requires_grad_() for t in inputs]
    reference(*leaves).backward(upstream)
    return [leaf.grad for leaf in leaves]


def _gradient_hint(which: int, got: np.ndarray, expected: list, local: list, full: list,
                   shape: tuple[int, ...]) -> str:  # fmt: skip
    if local[which] is not None and got.shape == local[which].shape and np.allclose(got, local[which]):
        return ("this is the local derivative alone: multiply it by the incoming gradient "
                "`grad` (the chain rule).")  # fmt: skip
    for other, grad in enumerate(full):
        if other == which or grad is None:
            continue
        want = sum_to(grad, shape).detach().numpy()
        if want.shape == got.shape and np.allclose(got, want):
            return (f"this is the gradient of input {NAMES[other]}: backward must return the "
                    "gradients in the same order as forward's arguments.")  # fmt: skip
    if got.shape == expected[which].shape and np.allclose(got, -expected[which]):
        return "the sign is wrong."
    return ""


@checker
def check_function(student: type, reference: Callable, name: str = "", arity: int = 1,
                   positive: bool = False, cases: int = 40) -> str:  # fmt: skip
    """``student.apply(*inputs)`` must match ``reference(*inputs)`` in value and gradient.

    ``positive=True`` keeps inputs away from zero and negatives (for ``log``, ``sqrt``).
    """
    __tracebackhide__ = True
    name = name or getattr(student, "__name__", "your Function")
    generator = rng(20 + arity)
    for n in range(cases):
        shapes = _input_shapes(generator, arity)
        inputs = []
        for i, shape in enumerate(shapes):
            t = random_tensor(generator, shape, KINDS[(n + i) % len(KINDS)])
            if positive:
                t = t.abs() + 0.5
            inputs.append(t.detach())
        description = "; ".join(describe_tensor(NAMES[i], t) for i, t in enumerate(inputs))
        case = f"{name} with {description}"
        leaves = [t.detach().requires_grad_() for t in inputs]
        out = call_student(f"{name}.forward", student.apply, *leaves, case=case)
        if not isinstance(out, minitorch.Tensor):
            raise CheckFailed(f"{name}.apply returned {type(out).__name__}, not a Tensor, on {case}")
        ref_leaves = [t.detach().requires_grad_() for t in inputs]
        ref_out = reference(*ref_leaves)
        if tuple(out.shape) != tuple(ref_out.shape) or not np.allclose(
            _numpy(out), _numpy(ref_out), equal_nan=True
        ):
            raise fail(f"{name}.forward", case, _numpy(ref_out), _numpy(out))
        if out.grad_fn is None:
            raise CheckFailed(f"{name}'s output has no grad_fn: call it as {name}.apply(...), "
                              "and return a floating-point tensor from forward.")  # fmt: skip
        upstream = minitorch.randn(*out.shape, dtype=out.dtype)
        call_student(f"{name}.backward", out.backward, upstream, case=case)
        ref_out.backward(upstream)
        expected = [_numpy(t.grad) for t in ref_leaves]
        local_leaves = [t.detach().requires_grad_() for t in inputs]
        reference(*local_leaves).backward(minitorch.ones(*out.shape, dtype=out.dtype))
        local = [_numpy(t.grad) for t in local_leaves]
        for which, leaf in enumerate(leaves):
            got = _numpy(leaf.grad)
            what = f"{name}.backward: the gradient of input {NAMES[which]}"
            if got is None:
                raise fail(what, case, expected[which], None,
                           f"backward must return one gradient per input ({arity} here).")  # fmt: skip
            if got.shape != expected[which].shape or not np.allclose(got, expected[which]):
                full = _full_gradients(reference, inputs, upstream)
                hint = _gradient_hint(which, got, expected, local, full, tuple(inputs[which].shape))
                raise fail(what, case + " (with a random incoming gradient)", expected[which], got,
                           hint)  # fmt: skip
    return f"{name} agrees with the reference (values and gradients) on {cases} cases."


def _graph(make: Callable[[], minitorch.Tensor]) -> tuple[minitorch.Tensor, list]:
    """Run ``make`` and collect every node reachable from its output's ``grad_fn``."""
    out = make()
    nodes, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or any(node is seen for seen in nodes):
            continue
        nodes.append(node)
        stack.extend(child for child, _ in node.next_functions)
    return out, nodes


def _example_graphs() -> list[tuple[str, Callable[[], minitorch.Tensor]]]:
    def leaf(*shape: int) -> minitorch.Tensor:
        return minitorch.randn(*shape, requires_grad=True)

    x, y, w = leaf(3), leaf(3), leaf(3, 3)
    return [
        ("x.exp()", lambda: x.exp()),
        ("(x * y).sum()", lambda: (x * y).sum()),
        ("x used twice: (x * x + x).sum()", lambda: (x * x + x).sum()),
        ("a diamond: a = x.exp(); (a.sin() * a.cos()).sum()",
         lambda: (lambda a: (a.sin() * a.cos()).sum())(x.exp())),
        ("a chain of 30 ops", lambda: _chain(x, 30)),
        ("a small network: ((w @ x).relu() + y).pow(2).mean()",
         lambda: ((w @ x).relu() + y).pow(2).mean()),
    ]  # fmt: skip


def _chain(x: minitorch.Tensor, length: int) -> minitorch.Tensor:
    for _ in range(length):
        x = x * 0.9 + 0.1
    return x.sum()


@checker
def check_topological_order(student: Callable) -> str:
    """``student(node)`` must list every node reachable from ``node`` exactly once, each
    before the nodes it sends gradients to (its ``next_functions``)."""
    __tracebackhide__ = True
    graphs = _example_graphs()
    for description, make in graphs:
        out, nodes = _graph(make)
        case = f"the graph of {description} ({len(nodes)} nodes)"
        order = call_student("topological_order", student, out.grad_fn, case=case)
        order = list(order) if order is not None else []
        names = [node.name() for node in order]
        missing = [node.name() for node in nodes if not any(node is o for o in order)]
        if missing:
            raise fail("topological_order", case, f"all {len(nodes)} nodes", names,
                       f"these nodes are missing: {missing}. Follow next_functions all the way to "
                       "the leaves (AccumulateGrad nodes).")  # fmt: skip
        if len(order) != len(nodes):
            raise fail("topological_order", case, f"{len(nodes)} nodes, each once", names,
                       "a node reached along two paths must still appear only once.")  # fmt: skip
        position = {id(node): i for i, node in enumerate(order)}
        for node in order:
            for child, _ in node.next_functions:
                if child is not None and position[id(child)] < position[id(node)]:
                    raise fail("topological_order", case, "each node before its next_functions",
                               names, f"{child.name()} comes before {node.name()}, which sends "
                               "it a gradient: a node may only run after *all* its gradients "
                               "have arrived. Hint: a depth-first search that appends a node "
                               "after visiting its children gives the reverse order.")  # fmt: skip
    return f"topological_order is right on {len(graphs)} graphs (fan-out, diamonds, long chains)."
