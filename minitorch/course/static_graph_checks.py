"""Checks for the static-graph exercises (chapter 9): walking a captured ``Graph``, and a
fusion pass that turns ``zip:add`` followed by ``map:tanh`` into one kernel.

Each check compiles a few small functions with ``minitorch.compile``, runs the student's
code on their graphs, and compares with a reference: the answer for a graph walk, the
eager results (and the nodes left) for a pass.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import minitorch
from minitorch.backends import Strided
from minitorch.compiler import CompiledFunction, Graph
from minitorch.course.report import CheckFailed, call_student, checker, fail


def as_array(operand: Strided) -> np.ndarray:
    """A NumPy view of what a kernel argument points at: ``storage[offset + sum(i * s)]``
    for each index ``i`` of ``shape``. Writing into the view writes the storage."""
    storage = operand.storage
    strides = tuple(s * storage.itemsize for s in operand.strides)
    return np.lib.stride_tricks.as_strided(storage[operand.offset :], operand.shape, strides)


def captured(fn: Callable, *args: minitorch.Tensor, passes: list | None = None) -> CompiledFunction:
    """``minitorch.compile(fn, passes=...)`` called until its graph exists (warm-up, capture)."""
    compiled = minitorch.compile(fn, passes=passes)
    compiled(*args)
    compiled(*args)
    return compiled


def _example_graphs() -> list[tuple[str, Graph]]:
    """Graphs with every kind of buffer: inputs, variables, constants, temps and state."""
    minitorch.manual_seed(0)
    w = minitorch.randn(3, 4, requires_grad=True)
    b = minitorch.zeros(4, requires_grad=True)
    optimizer = minitorch.optim.SGD([w, b], lr=0.1, momentum=0.9)

    def train_step(x):
        optimizer.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    def elementwise(x, y):
        return (x + y).tanh() * 2 - y

    x, y = minitorch.randn(5, 3), minitorch.randn(5, 3)
    return [
        ("elementwise: (x + y).tanh() * 2 - y", captured(elementwise, x, y).graph),
        ("a training step of x @ w + b with SGD and momentum", captured(train_step, x).graph),
        ("a transposed input: (x.t() + 1).exp().sum()", captured(lambda x: (x.t() + 1).exp().sum(), x).graph),
    ]


def reference_buffer_bytes(graph: Graph) -> dict[str, int]:
    """``{kind: bytes}`` over the graph's buffers (a kind with no buffer is left out)."""
    total: dict[str, int] = {}
    for buffer in graph.buffers:
        total[buffer.kind] = total.get(buffer.kind, 0) + buffer.count * buffer.dtype.itemsize
    return total


@checker
def check_buffer_bytes(buffer_bytes: Callable) -> str:
    """``buffer_bytes(graph)`` must return ``{kind: bytes}`` summed over ``graph.buffers``."""
    __tracebackhide__ = True
    cases = _example_graphs()
    for case, graph in cases:
        got = call_student("buffer_bytes", buffer_bytes, graph, case=case)
        expected = reference_buffer_bytes(graph)
        if not isinstance(got, dict):
            raise fail("buffer_bytes(graph)", case, expected, got, "return a dict {kind: bytes}")
        got = {kind: value for kind, value in got.items() if value}  # zero entries are fine
        if got != expected:
            hint = "bytes = buffer.count * buffer.dtype.itemsize (count is elements, not bytes)"
            raise fail("buffer_bytes(graph)", case, expected, got, hint)
    return f"buffer_bytes agrees with the reference on {len(cases)} captured graphs"


def _add_then_tanh(graph: Graph) -> int:
    """How many ``zip:add`` results are read by a ``map:tanh`` in ``graph``."""
    added = {n.writes[0].buffer for n in graph.nodes if n.primitive == "zip" and n.kernel == "add"}
    return sum(1 for n in graph.nodes if n.primitive == "map" and n.kernel == "tanh"
               and n.reads[0].buffer in added)  # fmt: skip


def _fusion_cases() -> list[tuple[str, Callable, tuple, int]]:
    """``(description, fn, args, add-tanh pairs that may fuse)``: pairs that must fuse,
    and an add whose result is also returned, which must stay."""
    minitorch.manual_seed(1)
    x, y = minitorch.randn(6, 5), minitorch.randn(6, 5)
    row, z = minitorch.randn(5), minitorch.randn(4, 5)
    return [
        ("(x[1:, 1:] + z.t()).tanh(), a slice at an offset plus a transposed view",
         lambda x, z: (x[1:, 1:] + z.t()).tanh(), (x, z), 1),
        ("(x + y).tanh()", lambda x, y: (x + y).tanh(), (x, y), 1),
        ("(x + row).tanh() * 3, row broadcast (a stride 0)", lambda x, r: (x + r).tanh() * 3, (x, row), 1),
        ("(x.t() + y.t()).tanh() + (x + 1).tanh(), transposed inputs and two pairs",
         lambda x, y: (x.t() + y.t()).tanh() + (x + 1).tanh().t(), (x, y), 2),
        ("s = x + y; return s.tanh(), s -- the sum is returned too, so it must be written",
         lambda x, y: ((s := x + y).tanh(), s), (x, y), 0),
    ]  # fmt: skip


@checker
def check_fuse_add_tanh(fuse_add_tanh: Callable) -> str:
    """``fuse_add_tanh(graph)`` must replace each ``zip:add`` whose temp only a
    ``map:tanh`` reads by one node, keep every other add, and compute what eager does."""
    __tracebackhide__ = True
    cases = _fusion_cases()
    for case, fn, args, fusible in cases:
        expected = fn(*args)
        compiled = minitorch.compile(fn, passes=["dead_code", fuse_add_tanh])
        got = None
        for _ in range(3):  # warm-up, capture (the pass runs), replay
            got = call_student("fuse_add_tanh", compiled, *args, case=case)
        graph = compiled.graph
        if graph is None:
            raise CheckFailed(f"no graph was captured for: {case}")
        plain = captured(fn, *args, passes=["dead_code"]).graph
        expected_nodes = len(plain.nodes) - fusible
        if len(graph.nodes) != expected_nodes:
            raise fail(
                "the number of nodes after fuse_add_tanh", case, expected_nodes, len(graph.nodes),
                "fuse an add only when the temp it writes is read by exactly one node, a map:tanh, "
                "and by nothing else (not returned); replace the two nodes by one",
            )  # fmt: skip
        results = (got,) if isinstance(got, minitorch.Tensor) else got
        wanted = (expected,) if isinstance(expected, minitorch.Tensor) else expected
        for position, (g, e) in enumerate(zip(results, wanted)):
            if not np.allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6):
                raise fail(
                    f"result {position} of the replayed graph", case, e.numpy(), g.numpy(),
                    "the fused kernel gets (out, a, b) as Strided arguments: read a and b with "
                    "their own strides and offsets (as_array does that), write tanh(a + b) to out",
                )  # fmt: skip
    return f"fuse_add_tanh fuses what it may and keeps eager's results on {len(cases)} functions"
