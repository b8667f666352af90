"""The dispatch viewer: every kernel call a block of code made.

    with minitorch.widgets.dispatch_trace() as trace:
        loss = (x @ w + b).relu().sum()
        loss.backward()
    trace                      # the last line of a cell displays it

shows each dispatched call (op, phase, primitive, kernel, backend, dtype, shapes,
strides, contiguous fast path or strided path, time) as a table and a timeline, with
totals per op and per backend. Given a function instead of a block, it runs the
function once per backend and puts the runs side by side::

    minitorch.widgets.dispatch_trace(step, backends=["reference", "numba"])

A kernel's first call also compiles it (Numba, or the CUDA compiler): seconds, where
running it takes microseconds. Dispatch records that time apart (``compile_seconds``),
and the viewer draws it in its own row marked "compile (once)": it is never counted in a
kernel's time nor in the totals, so a first ReLU does not look slow.

The records come from ``minitorch.dispatch.trace()``; this file only arranges them.
Clicking a call can open the layout of one of its operands in the stride visualizer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import traitlets

from minitorch import dispatch
from minitorch.widgets.frontend import MinitorchWidget, bundle, styles
from minitorch.widgets.graph_extract import record_json
from minitorch.widgets.strides import layout_chain
from minitorch.widgets.svg import Drawing

MAX_ROWS = 5000  # records sent to the browser per run (totals always count all of them)


def run_json(label: str, records: Sequence[Any], error: str = "") -> dict:
    """One run (a list of DispatchRecords) as the front end draws it."""
    totals: dict[str, dict[str, list]] = {"op": {}, "backend": {}, "primitive": {}}
    for record in records:
        for key, table in totals.items():
            entry = table.setdefault(getattr(record, key), [0, 0.0])
            entry[0] += 1
            entry[1] += record.kernel_seconds * 1e6
    ordered = {
        key: sorted(([name, count, round(us, 2)] for name, (count, us) in table.items()),
                    key=lambda row: -row[2])
        for key, table in totals.items()
    }  # fmt: skip
    rows = [{**record_json(r), **matrix_shapes(r), "i": i, "contiguous": list(r.contiguous),
             "compile_us": round(r.compile_seconds * 1e6, 2)}
            for i, r in enumerate(records[:MAX_ROWS])]  # fmt: skip
    compiled = [r for r in records if r.compile_seconds]
    return {
        "label": label, "error": error, "calls": len(records),
        "total_us": round(sum(r.kernel_seconds for r in records) * 1e6, 2),  # kernel time only
        "compile_us": round(sum(r.compile_seconds for r in compiled) * 1e6, 2),
        "compiled_calls": len(compiled),
        "records": rows, "truncated": max(0, len(records) - MAX_ROWS),
        "totals_op": ordered["op"], "totals_backend": ordered["backend"],
        "totals_primitive": ordered["primitive"], "timeline": real_timeline(records),
    }  # fmt: skip


def matrix_shapes(record: Any) -> dict:
    """A product of two matrices (``x @ w``) as the student wrote it: the kernel takes
    3-D operands, and ran on the matrices' batch of one, ``[1, n, k] @ [1, k, m]``, so
    the table shows the matrices' 2-D shapes and strides, and the details the kernel's
    own (``kernel_shapes``). Any other call: nothing to change."""
    if not getattr(record, "matrices", False):
        return {}
    return {"shapes": [list(s[1:]) for s in record.shapes], "strides": [list(s[1:]) for s in record.strides],
            "kernel_shapes": [list(s) for s in record.shapes]}  # fmt: skip


def real_timeline(records: Sequence[Any]) -> dict:
    """The timeline's rows on one clock, in microseconds from the first call: the host row
    (when Python issued each call and how long it took) and one row per stream (when the
    kernels a call queued really ran there). A CUDA launch returns at once, so its host
    bar is thin and its kernel runs later on a stream row, maybe beside another stream's;
    on the CPU the kernel runs inside the host bar. Rows hold ``[call, start, end]``."""
    timed = [(i, r) for i, r in enumerate(records[:MAX_ROWS]) if r.issued]
    if not timed:
        return {"host": [], "streams": [], "span_us": 0.0}
    origin = min(r.issued for _, r in timed)

    def us(moment: float) -> float:
        return round((moment - origin) * 1e6, 2)

    host = [[i, us(r.issued), us(r.issued + r.seconds + r.compile_seconds)] for i, r in timed]
    streams: dict[str, list] = {}
    for i, r in timed:
        for work in r.launches:
            if work.finished.wait(timeout=60):  # (a stream row needs the kernel's end)
                streams.setdefault(work.stream, []).append([i, us(work.start), us(work.end)])
    span = max([end for _, _, end in host] + [row[2] for rows in streams.values() for row in rows])
    return {"host": host, "streams": [[name, rows] for name, rows in streams.items()], "span_us": span}


class DispatchWidget(MinitorchWidget):
    """Dispatch records of one or more runs (see the module docstring)."""

    _esm = bundle("dispatch.js")
    _css = styles("common.css", "strides.css", "dispatch.css")

    runs = traitlets.List().tag(sync=True)  # run_json(...) per run
    selected = traitlets.Dict().tag(sync=True)  # {"run": i, "row": j} clicked
    linked = traitlets.Dict().tag(sync=True)  # an operand's stride view

    def __init__(self) -> None:
        super().__init__()
        self.records: list[list] = []  # the DispatchRecords of each run
        self._block: contextlib.ExitStack | None = None
        self.on_msg(self._on_front_end_message)

    # ----- as a `with` block -------------------------------------------------------------

    def __enter__(self) -> DispatchWidget:
        self._block = contextlib.ExitStack()
        self._calls = self._block.enter_context(dispatch.trace())
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        assert self._block is not None
        self._block.__exit__(*exc_info)
        backends = sorted({r.backend for r in self._calls}) or [dispatch.get_backend("cpu")]
        self.set_runs([(" + ".join(backends), list(self._calls), "")])
        return False

    # ----- Python API ----------------------------------------------------------------------

    def set_runs(self, runs: Sequence[tuple[str, list, str]]) -> None:
        """Show these runs: ``(label, records, error message or "")`` each."""
        self.records = [list(records) for _, records, _ in runs]
        self.runs = [run_json(label, records, error) for label, records, error in runs]

    def totals(self, key: str = "op", run: int = 0) -> dict[str, tuple[int, float]]:
        """``{name: (calls, seconds)}`` per op (or ``key="backend"``, ``"primitive"``)."""
        return dispatch.DispatchTrace(self.records[run]).totals(key)

    def open_layout(self, run: int, row: int, operand: int = 0) -> Any:
        """A stride visualizer of one operand's layout (0 = the output, then inputs).
        The storage shows positions, not values: records keep layouts, not data."""
        from minitorch.widgets.strides import StrideWidget

        return StrideWidget(self._chain(run, row, operand))

    def _chain(self, run: int, row: int, operand: int) -> Any:
        record = self.records[run][row]
        if not 0 <= operand < len(record.shapes):
            raise IndexError(f"call {row} has {len(record.shapes)} operands (0 is the output)")
        role = "out" if operand == 0 else f"input {operand - 1}"
        shape, strides = record.shapes[operand], record.strides[operand]
        if getattr(record, "matrices", False):  # the matrix, not the kernel's batch of one of it
            shape, strides = shape[1:], strides[1:]
        return layout_chain(shape, strides, f"{record.op} {role}")

    def _select(self, run: int, row: int) -> None:
        self.records[run][row]  # raises IndexError for a bad row
        self.selected = {"run": run, "row": row}

    def _open_linked(self, run: int, row: int, operand: int) -> None:
        chain = self._chain(run, row, operand)
        self.linked = {"run": run, "row": row, "operand": operand, "title": chain.views[0].name,
                       "state": chain.state()}  # fmt: skip

    def _on_front_end_message(self, _widget: Any, content: dict, _buffers: Any) -> None:
        kind = content.get("type")
        if kind == "select":
            self._guarded(self._select, int(content.get("run", 0)), int(content.get("row", 0)))
        elif kind == "open":
            self._guarded(self._open_linked, int(content.get("run", 0)), int(content.get("row", 0)),
                          int(content.get("operand", 0)))  # fmt: skip

    # ----- static fallbacks ------------------------------------------------------------

    def to_text(self) -> str:
        if not self.runs:
            return "dispatch trace (empty: use it as `with minitorch.widgets.dispatch_trace() as trace:`)"
        lines = []
        for run in self.runs:
            lines.append(f"dispatch trace [{run['label']}]: {run['calls']} calls, {run['total_us']:.1f} us "
                         f"of kernel time{_compile_note(run)}")  # fmt: skip
            if run["error"]:
                lines.append(f"  error: {run['error']}")
            header = f"  {'#':>4} {'op':<16} {'phase':<8} {'primitive':<10} {'kernel':<10} {'backend':<9} " \
                     f"{'dtype':<8} {'path':<10} {'us':>8}  shapes"  # fmt: skip
            lines.append(header)
            for r in run["records"][:40]:
                shapes = " <- ".join(str(tuple(s)) for s in r["shapes"])
                lines.append(f"  {r['i']:>4} {r['op']:<16} {r['phase']:<8} {r['primitive']:<10} "
                             f"{r['kernel']:<10} {r['backend']:<9} {r['dtype']:<8} {r['path']:<10} "
                             f"{r['us']:>8.1f}  {shapes}{_compile_note(r)}")  # fmt: skip
            if run["calls"] > 40:
                lines.append(f"  ... {run['calls'] - 40} more calls")
            for key in ("op", "backend"):
                totals = ", ".join(f"{n} {c}x {us:.1f}us" for n, c, us in run[f"totals_{key}"])
                lines.append(f"  per {key}: {totals}")
        return "\n".join(lines)

    def to_svg(self) -> str:
        width, lane = 640, 150
        drawing = Drawing(width + 40, 30 + lane * max(len(self.runs), 1))
        for k, run in enumerate(self.runs):
            top = 20 + k * lane
            drawing.text(20, top, f"{run['label']}: {run['calls']} calls, {run['total_us']:.1f} µs of kernel "
                         f"time{_compile_note(run)}", anchor="start", bold=True)  # fmt: skip
            total = max(run["total_us"], 1e-9)
            x, kernels_width = 20.0, width
            if run["compile_us"]:  # its own segment, off the kernels' scale: compiling is not running
                drawing.rect(x, top + 8, 170, 18, fill="unused", stroke="muted", dash=True)
                label = f"compile (once) {run['compile_us'] / 1e3:.0f} ms"
                drawing.text(x + 85, top + 21, label, color="muted")
                x, kernels_width = x + 180, width - 180
            for r in run["records"]:
                w = kernels_width * r["us"] / total
                drawing.rect(x, top + 8, max(w, 0.5), 18, fill=_color(r["op"]), stroke="none")
                x += w
            for j, (name, count, us) in enumerate(run["totals_op"][:6]):
                y, bar = top + 44 + j * 16, max(width * 0.6 * us / total, 1)
                drawing.rect(150, y - 10, bar, 12, fill=_color(name), stroke="none")
                drawing.text(145, y, f"{name} ×{count}", anchor="end")
                drawing.text(155 + bar, y, f"{us:.1f} µs", anchor="start", color="muted")
        return str(drawing)


def _compile_note(entry: dict) -> str:
    """``"; compile (once): 2196.0 ms, not counted"`` for a run or a call that compiled."""
    if not entry["compile_us"]:
        return ""
    calls = f" in {entry['compiled_calls']} calls" if entry.get("compiled_calls", 1) > 1 else ""
    return f"; compile (once): {entry['compile_us'] / 1e3:.1f} ms{calls}, not counted"


def _color(name: str) -> str:
    """A stable colour per op name (the front end uses the same rule)."""
    hue = sum(ord(c) * 31**i for i, c in enumerate(name[:12])) % 360
    return f"hsl({hue}, 60%, 62%)"


def dispatch_trace(
    fn: Callable[[], Any] | Sequence[Any] | None = None,
    *,
    backends: Sequence[str] | None = None,
    warmup: bool = False,
) -> DispatchWidget:
    """A dispatch viewer.

    Without ``fn``, use it as a ``with`` block: it records the calls made inside.
    Given the records of a ``minitorch.dispatch.trace()`` block, it shows them.
    Given a function ``fn``, it calls ``fn()`` once per backend in ``backends`` (default: the
    current CPU backend) and shows the runs side by side. ``warmup=True`` calls ``fn``
    once more before each recorded run, so the recorded run compiles nothing (compiling is
    shown apart from kernel time either way); mind that ``fn`` then runs twice (a training
    step would step twice).
    """
    widget = DispatchWidget()
    if fn is None:
        if backends is not None:
            raise TypeError("backends= needs a function to run: dispatch_trace(fn, backends=[...])")
        return widget
    if isinstance(fn, (list, tuple)):  # records already traced with minitorch.dispatch.trace()
        backends_seen = sorted({r.backend for r in fn}) or [dispatch.get_backend("cpu")]
        widget.set_runs([(" + ".join(backends_seen), list(fn), "")])
        return widget
    runs = []
    for name in backends or [dispatch.get_backend("cpu")]:
        try:
            with dispatch.backend(name):
                if warmup:
                    fn()
                with dispatch.trace() as calls:
                    fn()
            runs.append((name, list(calls), ""))
        except Exception as problem:  # noqa: BLE001 - shown in the widget, next to the other runs
            runs.append((name, [], f"{type(problem).__name__}: {problem}"))
    widget.set_runs(runs)
    return widget
