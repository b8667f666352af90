"""``minitorch.profiler`` / ``minitorch.autograd.profiler``: what can be tested of a
profiler without timing anything (times are noisy; their sums are checked).

Op names and call counts (forward and backward), nesting of ``record_function``
blocks, self time versus total time, ``group_by_input_shape``, the table's columns
and sorting, PyTorch's constructor arguments accepted.
"""

from __future__ import annotations

import json

import pytest

import minitorch
from minitorch.autograd.profiler import format_time


def rows_by_name(prof, **options) -> dict:
    return {row.key: row for row in prof.key_averages(**options)}


def test_op_names_and_call_counts():
    x = minitorch.randn(8, 8, requires_grad=True)
    with minitorch.profiler.profile() as prof:
        for _ in range(3):
            y = (x @ x).relu()
        y.sum().backward()
    rows = rows_by_name(prof)
    assert rows["Mm"].count == 3 + 2  # and two inside MmBackward0, as torch counts aten::mm
    assert rows["Relu"].count == 3
    assert rows["Sum"].count == 1
    assert rows["MmBackward0"].count == 1
    assert rows["ReluBackward0"].count == 1


def test_nothing_is_recorded_outside_the_block_or_when_disabled():
    x = minitorch.randn(4)
    with minitorch.profiler.profile(enabled=False) as prof:
        x.exp()
    assert prof.key_averages() == []
    with minitorch.profiler.profile() as prof:
        x.exp()
    x.sin()
    assert list(rows_by_name(prof)) == ["Exp"]


def test_record_function_nests_and_totals():
    x = minitorch.randn(16, 16)
    with minitorch.profiler.profile() as prof:
        with minitorch.profiler.record_function("outer"):
            x.exp()
            with minitorch.autograd.profiler.record_function("inner"):
                x.sin()
                x.sin()
        x.cos()
    rows = rows_by_name(prof)
    assert rows["outer"].count == 1 and rows["inner"].count == 1
    assert rows["outer"].is_user_annotation and not rows["Sin"].is_user_annotation
    assert rows["inner"].cpu_time_total == pytest.approx(rows["Sin"].cpu_time_total)
    inside = rows["Exp"].cpu_time_total + rows["Sin"].cpu_time_total
    assert rows["outer"].cpu_time_total == pytest.approx(inside)
    assert rows["outer"].self_cpu_time_total == 0  # kernel time only: the ops hold it
    self_total = sum(row.self_cpu_time_total for row in rows.values())
    kernels = sum(record.seconds for record in prof.records) * 1e6
    assert self_total == pytest.approx(kernels)
    assert rows["Cos"].cpu_time_total == pytest.approx(rows["Cos"].self_cpu_time_total)


def test_an_op_inside_an_op_counts_in_both_totals():
    logits = minitorch.randn(4, 5, requires_grad=True)
    target = minitorch.tensor([0, 1, 2, 3])
    with minitorch.profiler.profile() as prof:
        minitorch.nn.functional.cross_entropy(logits, target).backward()
    rows = rows_by_name(prof)
    assert rows["NllLoss"].count == 1
    assert rows["LogSoftmax"].count == 1
    assert rows["NllLoss"].cpu_time_total >= rows["NllLoss"].self_cpu_time_total
    assert "NllLossBackward0" in rows and "LogSoftmaxBackward0" in rows


def test_kernels_outside_any_op_are_named_by_their_kernel():
    """(A kernel launched with no op on the stack, or straight inside a record_function
    block, gets a row named after its primitive and kernel.)"""
    from types import SimpleNamespace

    from minitorch.autograd.profiler import UserRange, profile

    block = UserRange(("block", "forward"))
    record = SimpleNamespace(frames=(block,), primitive="map", kernel="copy")
    assert [(name, user) for name, _, user in profile._events_of(record)] == [
        ("block", True), ("map:copy", False)]  # fmt: skip
    record = SimpleNamespace(frames=(), primitive="zip", kernel="add")
    assert [name for name, _, _ in profile._events_of(record)] == ["zip:add"]


def test_group_by_input_shape():
    a, b = minitorch.randn(2, 3), minitorch.randn(4, 3)
    with minitorch.profiler.profile(record_shapes=True) as prof:
        a.exp()
        b.exp()
        b.exp()
    rows = prof.key_averages(group_by_input_shape=True)
    shapes = sorted((row.count, str(row.input_shapes)) for row in rows if row.key == "Exp")
    assert shapes == [(1, "[[2, 3]]"), (2, "[[4, 3]]")]
    assert "Input Shapes" in rows.table()


def test_table_columns_sorting_and_row_limit():
    x = minitorch.randn(32, 32)
    with minitorch.profiler.profile(activities=[minitorch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(5):
            x.exp()
        x.sin()
        x @ x
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=2)
    lines = table.splitlines()
    columns = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    assert all(column in lines[1] for column in columns)
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert len(lines) == 2 + 3 + 2  # rules and header, two rows, rule and footer
    assert lines[-1].startswith("Self CPU time total: ")
    by_count = prof.key_averages().table(sort_by="count", row_limit=1).splitlines()
    assert by_count[3].split()[0] == "Exp" and by_count[3].split()[-1] == "5"
    rows = prof.key_averages()
    largest = max(rows, key=lambda row: row.self_cpu_time_total)
    assert lines[3].split()[0] == largest.key
    assert str(rows) == rows.table()


def test_format_time_like_torch():
    assert format_time(12.3456) == "12.346us"
    assert format_time(1234.5) == "1.234ms"  # (round-half-even of the float, as torch)
    assert format_time(2.5e6) == "2.500s"


def test_export_chrome_trace(tmp_path):
    with minitorch.profiler.profile() as prof:
        minitorch.randn(3).exp()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    assert any(e["name"] == "Exp" for e in events)


def test_torch_style_arguments_are_accepted():
    options = dict(record_shapes=True, profile_memory=True, with_stack=True)
    with minitorch.autograd.profiler.profile(use_cuda=False, **options) as prof:
        minitorch.ones(2).exp()
        prof.step()
    assert "Exp" in rows_by_name(prof)
