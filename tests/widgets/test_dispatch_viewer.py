"""The dispatch viewer: records, totals, two backends side by side, linked layouts."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

import minitorch
from minitorch import dispatch
from minitorch.widgets import dispatch_trace
from minitorch.widgets.stride_state import positions_of


def program():
    minitorch.manual_seed(0)
    x = minitorch.randn(4, 3, requires_grad=True)
    w = minitorch.randn(3, 2, requires_grad=True)
    return x, w


def test_with_block_records_what_dispatch_traced() -> None:
    x, w = program()
    with dispatch_trace() as trace, dispatch.trace() as inner:
        loss = (x @ w).t().exp().sum()
        loss.backward()
    assert trace.records[0] == list(inner)
    rows = trace.runs[0]["records"]
    assert [r["op"] for r in rows] == [r.op for r in inner]
    assert {r["phase"] for r in rows} == {"forward", "backward"}
    assert trace.runs[0]["calls"] == len(inner)
    expected = inner.totals("op")
    assert {name: count for name, count, _ in trace.runs[0]["totals_op"]} == {
        k: c for k, (c, _) in expected.items()
    }
    assert trace.totals("backend") == inner.totals("backend")
    exp_row = next(r for r in rows if r["kernel"] == "exp")
    assert exp_row["path"] == "strided" and exp_row["strides"][1] == [1, 2]  # exp of a transpose


def test_two_backends_side_by_side() -> None:
    x, w = program()
    both = dispatch_trace(lambda: (x @ w).relu().sum(), backends=["reference", "numba"])
    reference, numba = both.runs
    assert (reference["label"], numba["label"]) == ("reference", "numba")
    assert [r["op"] for r in reference["records"]] == [r["op"] for r in numba["records"]]
    assert {r["backend"] for r in numba["records"]} == {"numba"}
    assert dispatch.get_backend("cpu") == dispatch.DEFAULT_BACKEND["cpu"]  # restored


def test_a_failing_backend_is_shown_not_raised() -> None:
    x, w = program()
    runs = dispatch_trace(lambda: x @ w, backends=["reference", "no-such-backend"]).runs
    assert runs[0]["error"] == "" and runs[0]["calls"] > 0
    assert "unknown backend 'no-such-backend'" in runs[1]["error"]
    with pytest.raises(TypeError, match="needs a function"):
        dispatch_trace(backends=["reference"])


def test_a_product_of_two_matrices_shows_their_shapes() -> None:
    """x @ w runs the kernel on the matrices' batch of one: the table shows the 2-D shapes
    and strides the student wrote, the details the kernel's own 3-D ones; a real batched
    product of one matrix (bmm of [1, 4, 3]) keeps its batch dimension."""
    x, w = program()
    batched = minitorch.randn(1, 4, 3)
    with dispatch_trace() as trace:
        (x @ w).sum().backward()
        minitorch.bmm(batched, w.detach().unsqueeze(0))
    rows = [r for r in trace.runs[0]["records"] if r["primitive"] == "matmul"]
    forward, *gradients, bmm = rows
    assert forward["shapes"] == [[4, 2], [4, 3], [3, 2]]
    assert forward["strides"] == [[2, 1], [3, 1], [2, 1]]
    assert forward["kernel_shapes"] == [[1, 4, 2], [1, 4, 3], [1, 3, 2]]
    expected = {(tuple(x.grad.shape), (4, 2), tuple(w.shape[::-1])), (tuple(w.grad.shape), (3, 4), (4, 2))}
    assert {tuple(tuple(s) for s in r["shapes"]) for r in gradients} == expected
    assert all(len(r["kernel_shapes"][0]) == 3 for r in gradients)
    assert bmm["shapes"] == [[1, 4, 2], [1, 4, 3], [1, 3, 2]] and "kernel_shapes" not in bmm
    row = trace.runs[0]["records"].index(forward)
    assert trace.open_layout(0, row, 1).views[0].stride() == (3, 1)  # the matrix x itself


def test_linked_layout_of_an_operand() -> None:
    x = minitorch.arange(6.0).view(2, 3)
    with dispatch_trace() as trace:
        x.t().exp()
        x.flip(1)
    exp_row = next(i for i, r in enumerate(trace.records[0]) if r.kernel == "exp")
    trace._on_front_end_message(trace, {"type": "select", "run": 0, "row": exp_row}, None)
    assert trace.selected == {"run": 0, "row": exp_row}
    trace._on_front_end_message(trace, {"type": "open", "run": 0, "row": exp_row, "operand": 1}, None)
    view = trace.linked["state"]["views"][0]
    assert (view["shape"], view["strides"]) == ([3, 2], [1, 3])
    assert view["positions"] == positions_of((3, 2), (1, 3), 0)
    flip_row = next(i for i, r in enumerate(trace.records[0]) if r.op == "Flip")
    widget = trace.open_layout(0, flip_row, 1)  # the reversed read: a negative stride
    assert widget.views[0].stride() == (3, -1)
    assert min(widget.state["views"][0]["positions"]) == 0
    trace._on_front_end_message(trace, {"type": "open", "run": 0, "row": exp_row, "operand": 7}, None)
    assert "operands" in trace.error
    trace._on_front_end_message(trace, {"type": "select", "run": 0, "row": 999}, None)
    assert "IndexError" in trace.error


def test_static_fallbacks() -> None:
    x, w = program()
    with dispatch_trace() as trace:
        (x @ w).sum()
    text = trace.to_text()
    assert text.startswith("dispatch trace [reference") or text.startswith("dispatch trace [")
    assert "matmul" in text and "per op:" in text
    ElementTree.fromstring(trace.to_svg())
    assert "empty" in dispatch_trace().to_text()
