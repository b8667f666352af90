"""Which ops ran, how often and for how long (PyTorch's ``torch.autograd.profiler``).

::

    with minitorch.profiler.profile(record_shapes=True) as prof:
        with minitorch.profiler.record_function("model_inference"):
            loss = model(x).sum()
        loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))

The profiler is a reader of the dispatch trace (``minitorch/dispatch/tracing.py``), the same
records the dispatch viewer draws: every kernel call, timed, with the stack of ops that
were running when it was launched (``Function.apply`` pushes one entry per call, forward
and backward). From those records:

* an op's **self** time is the time of the kernels it launched itself;
* its **total** time adds the kernels of the ops it called (``cross_entropy`` over
  ``log_softmax``...), and a ``record_function`` block's total is every kernel inside;
* its **number of calls** counts the distinct entries of the op stack, one per call;
* on CUDA a launch returns at once, so an op's CPU time is the time to launch its
  kernels, and its **CUDA** time is when they ran on their stream (the ``Self CUDA`` and
  ``CUDA total`` columns, as PyTorch shows them; on the CPU there is none).

What differs from PyTorch: times are kernel times only (Python's own overhead between
kernels is not measured), so a ``record_function`` block has no self time; ops that
launch no kernel (views such as ``view``, ``t``, slicing) do not appear; ops are named
by their minitorch ``Function`` (``Mm``, ``MmBackward0``), not ``aten::mm``.
"""

from __future__ import annotations

import contextlib
import enum
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from minitorch import dispatch


class ProfilerActivity(enum.Enum):
    """What to profile (``activities=``): minitorch records the kernels of every device."""

    CPU = "CPU"
    CUDA = "CUDA"


@dataclass
class FunctionEventAvg:
    """One row of the table: all the calls of one op (times in microseconds)."""

    key: str
    count: int = 0
    self_cpu_time_total: float = 0.0
    cpu_time_total: float = 0.0
    self_device_time_total: float = 0.0  # the CUDA kernels' time on their streams
    device_time_total: float = 0.0
    input_shapes: list = field(default_factory=list)
    is_user_annotation: bool = False

    @property
    def cpu_time(self) -> float:
        """The average total time of one call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self) -> float:
        """The average CUDA time of one call."""
        return self.device_time_total / self.count if self.count else 0.0

    self_cuda_time_total = property(lambda self: self.self_device_time_total)  # older names
    cuda_time_total = property(lambda self: self.device_time_total)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={format_time(self.self_cpu_time_total)} "
                f"cpu_time={format_time(self.cpu_time)} input_shapes={self.input_shapes}>")  # fmt: skip


def format_time(microseconds: float) -> str:
    """``1.234ms``, as PyTorch's tables write times."""
    if microseconds >= 1e6:
        return f"{microseconds / 1e6:.3f}s"
    if microseconds >= 1e3:
        return f"{microseconds / 1e3:.3f}ms"
    return f"{microseconds:.3f}us"


def format_share(microseconds: float, total: float) -> str:
    return "NaN" if total == 0 else f"{microseconds * 100.0 / total:.2f}%"


class EventList(list):
    """The rows of ``key_averages()``; ``table()`` prints them like PyTorch."""

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80,
              header: str | None = None, top_level_events_only: bool = False) -> str:  # fmt: skip
        """The table: one row per op, sorted by ``sort_by`` (an attribute such as
        ``"self_cpu_time_total"``, ``"cpu_time_total"``, ``"count"``), largest first,
        at most ``row_limit`` rows; an ``Input Shapes`` column when the rows were
        grouped by input shape."""
        rows = list(self)
        if sort_by is not None:
            rows.sort(key=lambda row: getattr(row, sort_by.replace("cuda", "device"), 0.0), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        with_shapes = any(row.input_shapes for row in self)
        names = [row.key for row in rows] or ["Name"]
        name_width = min(max(len(n) for n in names) + 4, max_name_column_width)
        with_device = any(row.device_time_total for row in self)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        headers += ["Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"] if with_device else []
        headers.append("# of Calls")
        widths = [name_width] + [12] * (len(headers) - 1)
        if with_shapes:
            shapes_width = min(max(len(str(row.input_shapes)) for row in rows) + 4, max_shapes_column_width)
            headers.append("Input Shapes")
            widths.append(max(shapes_width, len("Input Shapes") + 4))
        self_total = sum(row.self_cpu_time_total for row in self)
        device_total = sum(row.self_device_time_total for row in self)

        def line(cells: list[str]) -> str:
            return "".join(f"{cell:>{width}}  " for cell, width in zip(cells, widths))

        def shorten(text: str, width: int) -> str:
            return text if len(text) <= width else text[: width - 3] + "..."

        rule = "".join("-" * width + "  " for width in widths)
        lines = [header] if header else []
        lines += [rule, line(headers), rule]
        for row in rows:
            cells = [
                shorten(row.key, name_width),
                format_share(row.self_cpu_time_total, self_total),
                format_time(row.self_cpu_time_total),
                format_share(row.cpu_time_total, self_total),
                format_time(row.cpu_time_total),
                format_time(row.cpu_time),
            ]
            if with_device:
                cells += [format_time(row.self_device_time_total),
                          format_share(row.self_device_time_total, device_total),
                          format_time(row.device_time_total), format_time(row.device_time)]  # fmt: skip
            cells.append(str(row.count))
            if with_shapes:
                cells.append(shorten(str(row.input_shapes), widths[-1]))
            lines.append(line(cells))
        lines += [rule, f"Self CPU time total: {format_time(self_total)}"]
        lines += [f"Self CUDA time total: {format_time(device_total)}"] if with_device else []
        lines.append("")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    @property
    def self_cpu_time_total(self) -> float:
        return sum(row.self_cpu_time_total for row in self)


class UserRange(tuple):
    """The op-stack entry of a ``record_function`` block: ``(name, phase)`` like an op's,
    of its own type so the profiler can tell the two apart."""


class profile:  # noqa: N801 (PyTorch's name)
    """Record the ops run inside the ``with`` block (PyTorch's ``profile``; its other
    options, such as ``profile_memory``, ``with_stack``, ``schedule``, are accepted and
    ignored). ``use_cuda``/``activities`` do not change anything: the kernels of every
    device are recorded."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: Any = None,
                 record_shapes: bool = False, activities: Any = None, **options: Any) -> None:  # fmt: skip
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.records: list[dispatch.DispatchRecord] = []
        self._tracing: Any = None

    def __enter__(self) -> profile:
        if self.enabled:
            self._tracing = dispatch.trace()
            self.records = self._tracing.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._tracing is not None:
            self._tracing.__exit__(*exc)
            self._tracing = None

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)

    def step(self) -> None:
        """(PyTorch's schedules step here; minitorch records the whole block.)"""

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """One ``FunctionEventAvg`` per op name (per op name and input shapes with
        ``group_by_input_shape=True``), in the order the ops first ran."""
        rows: dict[Any, FunctionEventAvg] = {}
        calls: dict[Any, set[int]] = {}
        for record in self.records:
            events = self._events_of(record)
            seconds = record.seconds * 1e6
            device = record.kernel_seconds * 1e6 if record.launches else 0.0
            shapes = [list(s) for s in record.shapes[1:]]
            seen = set()
            for depth, (name, call_id, user) in enumerate(events):
                innermost = depth == len(events) - 1
                key = (name, str(shapes)) if group_by_input_shape and innermost else name
                row = rows.get(key)
                if row is None:
                    row = rows[key] = FunctionEventAvg(name, is_user_annotation=user)
                    calls[key] = set()
                    if self.record_shapes and group_by_input_shape:
                        row.input_shapes = shapes if innermost else []
                if call_id not in calls[key]:
                    calls[key].add(call_id)
                    row.count += 1
                if innermost:
                    row.self_cpu_time_total += seconds
                    row.self_device_time_total += device
                if key not in seen:  # a recursive op counts its kernels once
                    row.cpu_time_total += seconds
                    row.device_time_total += device
                    seen.add(key)
        return EventList(rows.values())

    @staticmethod
    def _events_of(record: dispatch.DispatchRecord) -> list[tuple[str, int, bool]]:
        """``(name, call id, is a record_function)`` for each op on the record's stack,
        outermost first, ending with the op that launched the kernel (the kernel's own
        name when it was launched outside any op)."""
        events = [(frame[0], id(frame), isinstance(frame, UserRange)) for frame in record.frames]
        if not events or events[-1][2]:
            events.append((f"{record.primitive}:{record.kernel}", id(record), False))
        return events

    def events(self) -> EventList:
        return self.key_averages()

    def table(self, **options: Any) -> str:
        return self.key_averages().table(**options)

    def export_chrome_trace(self, path: str) -> None:
        """The kernel calls as a Chrome trace (open it at chrome://tracing or Perfetto),
        at the times they happened: one track for the host (Python), and one per CUDA
        stream with each kernel when it ran there."""
        tracks = {"host (Python)": 0}
        events: list[dict] = []
        origin = min((r.issued for r in self.records), default=0.0)
        for record in self.records:
            args = {"kernel": f"{record.primitive}:{record.kernel}",
                    "shapes": [list(s) for s in record.shapes]}  # fmt: skip
            spans = [("host (Python)", record.issued, record.seconds)]
            for work in record.launches:
                work.finished.wait()  # (its stream stamps its start and end when it runs it)
                spans.append((work.stream, work.start, work.end - work.start))
            for track, start, seconds in spans:
                tid = tracks.setdefault(track, len(tracks))
                events.append({"name": record.op, "cat": record.phase, "ph": "X", "pid": 0, "tid": tid,
                               "ts": (start - origin) * 1e6, "dur": seconds * 1e6, "args": args})  # fmt: skip
        names = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": track}}
                 for track, tid in tracks.items()]  # fmt: skip
        with open(path, "w") as file:
            json.dump({"traceEvents": names + events}, file)


@contextlib.contextmanager
def record_function(name: str, args: str | None = None) -> Iterator[None]:
    """Name a block of code: inside a ``profile``, its kernels are counted under
    ``name`` too (a row of the table), and ops inside it keep their own rows."""
    stack = dispatch.thread_state.op_stack
    stack.append(UserRange((name, stack[-1][1] if stack else "forward")))
    try:
        yield
    finally:
        stack.pop()
