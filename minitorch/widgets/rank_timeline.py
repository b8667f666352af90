"""The rank timeline: what every process of a distributed run did, on one clock.

    events = ddp.timeline()               # or a pipeline's, or a parameter server's
    minitorch.widgets.rank_timeline({"overlap on": on, "overlap off": off})

draws one row per rank, and in each row two lanes: *compute* (forward, backward, the
optimizer step) and *communication* (each bucket's all-reduce, a send, a receive, a wait).
A bar sits where it ran, from its start to its end, on one clock for all ranks, so a
student sees what data-parallel training is built for: an all-reduce bar *under* a
backward bar is communication hidden behind computation; an all-reduce bar after the
last backward bar is communication the step waits for.

An event is a dict ``{"rank", "kind", "name", "start", "end"}`` (seconds on a clock all
ranks share: ``time.monotonic()``, on Linux the same clock in every
process of one machine). ``kind`` says the lane and the colour:

=====================  ==============  =====================================
kind                   lane            colour (``widgets/theme.css``)
=====================  ==============  =====================================
``forward``            compute         blue (the data going in)
``backward``           compute         orange (gradients)
``optimizer``          compute         green (parameters change)
``all_reduce`` ...     communication   purple (results of other ranks)
``wait``, ``idle``     communication   grey, dashed (time spent waiting)
=====================  ==============  =====================================

For each rank the widget measures (``overlap_summary``)::

    compute       = length of the union of its compute bars
    communication = length of the union of its communication bars
    hidden        = length of (compute union) ∩ (communication union)
    exposed       = communication - hidden      # what overlap could still save

Several runs (a dict ``{label: events}``) are drawn one above the other on the same
scale, so the run with overlap switched off is visibly longer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import traitlets

from minitorch.widgets.frontend import MinitorchWidget, bundle, styles
from minitorch.widgets.svg import MEANING, Drawing

COMPUTE_KINDS = ("forward", "backward", "optimizer", "compute", "loss")
WAIT_KINDS = ("wait", "idle")
# The colour of each kind, as the front end draws it (widgets/rank_timeline.css).
KIND_COLORS = {
    "forward": MEANING["input"],
    "backward": MEANING["grad"],
    "optimizer": MEANING["param"],
    "communication": MEANING["output"],
    "wait": MEANING["compile"],
}
REQUIRED = ("rank", "kind", "name", "start", "end")
LETTERS = {"forward": "F", "backward": "B", "optimizer": "O", "wait": "."}  # to_text's bars


def lane_of(kind: str) -> str:
    """``"compute"`` or ``"communication"``: which lane of its rank's row an event takes."""
    return "compute" if kind in COMPUTE_KINDS else "communication"


def color_key(kind: str) -> str:
    """The key of ``KIND_COLORS`` for an event kind (every collective is one colour)."""
    if kind in KIND_COLORS:
        return kind
    if kind in WAIT_KINDS:
        return "wait"
    return "compute" if kind in COMPUTE_KINDS else "communication"


def check_events(events: Any) -> list[dict]:
    """The events as a list of dicts with the five keys, or a clear ``TypeError``/``ValueError``.
    A recorder that keeps them in ``.events`` (DDP's ``ddp.timeline``) is read through it."""
    events = getattr(events, "events", events)
    if events is None or isinstance(events, (str, bytes)) or not isinstance(events, Iterable):
        raise TypeError(f"rank_timeline() expects a list of event dicts, got {type(events).__name__}")
    checked = []
    for i, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise TypeError(f"event {i} must be a dict with keys {REQUIRED}, got {type(event).__name__}")
        missing = [key for key in REQUIRED if key not in event]
        if missing:
            raise ValueError(f"event {i} lacks {missing} (an event has {REQUIRED})")
        start, end = float(event["start"]), float(event["end"])
        if end < start:
            raise ValueError(f"event {i} ({event['name']!r}) ends before it starts: {start} > {end}")
        checked.append({"rank": int(event["rank"]), "kind": str(event["kind"]), "name": str(event["name"]),
                        "start": start, "end": end})  # fmt: skip
    return checked


def union_length(intervals: Iterable[tuple[float, float]]) -> float:
    """Total length covered by ``intervals`` (overlapping ones counted once)."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def merged(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of ``intervals`` as disjoint, sorted intervals."""
    out: list[list[float]] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]


def intersection_length(a: Sequence[tuple[float, float]], b: Sequence[tuple[float, float]]) -> float:
    """Length of (union of ``a``) ∩ (union of ``b``): a two-pointer walk over both."""
    a, b = merged(a), merged(b)
    i = j = 0
    total = 0.0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0.0, high - low)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def overlap_summary(events: Any) -> dict[int, dict[str, float]]:
    """Per rank, in seconds: ``compute``, ``communication``, ``hidden`` (communication
    while the rank computed), ``exposed`` (communication alone) and ``span`` (first start
    to last end). Waits count as communication: waiting is what communication costs."""
    by_rank: dict[int, dict[str, list]] = {}
    for event in check_events(events):
        lanes = by_rank.setdefault(event["rank"], {"compute": [], "communication": []})
        lanes[lane_of(event["kind"])].append((event["start"], event["end"]))
    summary = {}
    for rank, lanes in sorted(by_rank.items()):
        every = lanes["compute"] + lanes["communication"]
        communication = union_length(lanes["communication"])
        hidden = intersection_length(lanes["compute"], lanes["communication"])
        summary[rank] = {
            "compute": union_length(lanes["compute"]), "communication": communication,
            "hidden": hidden, "exposed": communication - hidden,
            "span": max(e for _, e in every) - min(s for s, _ in every),
        }  # fmt: skip
    return summary


def run_json(label: str, events: list[dict]) -> dict:
    """One run as the front end draws it: times in microseconds from the run's first event."""
    origin = min((e["start"] for e in events), default=0.0)

    def us(t: float) -> float:
        return round((t - origin) * 1e6, 2)

    ranks: dict[int, dict] = {}
    for e in events:
        row = ranks.setdefault(e["rank"], {"rank": e["rank"], "compute": [], "communication": []})
        row[lane_of(e["kind"])].append([color_key(e["kind"]), e["name"], us(e["start"]), us(e["end"])])
    stats = overlap_summary(events)
    rows = []
    for rank in sorted(ranks):
        row = ranks[rank]
        row["stats"] = {key: round(value * 1e6, 2) for key, value in stats[rank].items()}
        rows.append(row)
    span = max((e["end"] for e in events), default=origin)
    return {"label": label, "span_us": us(span), "ranks": rows}


class RankTimelineWidget(MinitorchWidget):
    """Each rank's compute and communication on one clock (see the module docstring)."""

    _esm = bundle("rank_timeline.js")
    _css = styles("common.css", "rank_timeline.css")

    runs = traitlets.List().tag(sync=True)  # run_json(...) per run
    title = traitlets.Unicode("rank timeline").tag(sync=True)

    def set_runs(self, runs: Mapping[str, Any] | Sequence[Any]) -> None:
        """Show ``runs``: a list of events (one run) or ``{label: events}``."""
        if isinstance(runs, Mapping):
            named = [(str(label), check_events(events)) for label, events in runs.items()]
        else:
            named = [("", check_events(runs))]
        self.runs = [run_json(label, events) for label, events in named]

    def summary(self, run: int = 0) -> dict[int, dict[str, float]]:
        """``overlap_summary`` of one run, in microseconds."""
        return {row["rank"]: dict(row["stats"]) for row in self.runs[run]["ranks"]}

    # ----- static fallbacks ------------------------------------------------------------

    def to_text(self) -> str:
        lines = [f"{self.title}: {sum(len(r['ranks']) for r in self.runs)} rank rows"]
        width = 60
        longest = max([run["span_us"] for run in self.runs] + [1e-9])
        for run in self.runs:
            lines.append(f"[{run['label'] or 'run'}] {_ms(run['span_us'])} "
                         "(F forward, B backward, O optimizer, # communication, . wait)")  # fmt: skip
            for row in run["ranks"]:
                s = row["stats"]
                lines.append(f"  rank {row['rank']}: compute {_ms(s['compute'])}, communication "
                             f"{_ms(s['communication'])} ({_ms(s['hidden'])} hidden, "
                             f"{_ms(s['exposed'])} exposed)")  # fmt: skip
                for lane in ("compute", "communication"):
                    cells = [" "] * width
                    for key, _name, start, end in row[lane]:
                        first = min(int(start / longest * width), width - 1)
                        last = max(first, min(math.ceil(end / longest * width) - 1, width - 1))
                        for k in range(first, last + 1):
                            cells[k] = LETTERS.get(key, "#")
                    lines.append(f"    {lane[:7]:<7} |{''.join(cells)}|")
        return "\n".join(lines)

    def to_svg(self) -> str:
        label_w, width, lane_h = 90, 560, 14
        row_h = 2 * lane_h + 10
        heights = [24 + row_h * len(run["ranks"]) + 26 for run in self.runs] or [40]
        drawing = Drawing(label_w + width + 20, 24 + sum(heights))
        drawing.text(10, 16, self.title, anchor="start", bold=True, size=12)
        longest = max([run["span_us"] for run in self.runs] + [1e-9])
        scale = width / longest
        top = 24
        for run, height in zip(self.runs, heights):
            heading = f"{run['label'] or 'run'}: {_ms(run['span_us'])}"
            drawing.text(10, top + 14, heading, anchor="start", size=12)
            y = top + 22
            for row in run["ranks"]:
                drawing.text(label_w - 6, y + lane_h + 4, f"rank {row['rank']}", anchor="end", size=12)
                for k, lane in enumerate(("compute", "communication")):
                    lane_y = y + k * (lane_h + 2)
                    drawing.rect(label_w, lane_y, width, lane_h, fill="unused", stroke="none")
                    for key, _name, start, end in row[lane]:
                        strong, soft = KIND_COLORS[key]
                        drawing.rect(label_w + start * scale, lane_y, max((end - start) * scale, 0.8), lane_h,
                                     fill=soft, stroke=strong, dash=key == "wait")  # fmt: skip
                s = row["stats"]
                note = (f"communication {_ms(s['communication'])}: {_ms(s['hidden'])} hidden, "
                        f"{_ms(s['exposed'])} exposed")  # fmt: skip
                drawing.text(label_w + width, y + 2 * lane_h + 14, note, anchor="end", color="muted")
                y += row_h + 6
            top += height
        legend_x = label_w
        for name, key in (("forward", "forward"), ("backward", "backward"), ("optimizer", "optimizer"),
                          ("all-reduce / send / recv", "communication"), ("wait", "wait")):  # fmt: skip
            strong, soft = KIND_COLORS[key]
            drawing.rect(legend_x, top - 10, 10, 10, fill=soft, stroke=strong)
            drawing.text(legend_x + 14, top - 1, name, anchor="start")
            legend_x += 28 + len(name) * 7
        return str(drawing)


def _ms(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 100 else f"{us:.1f} µs"


def rank_timeline(runs: Mapping[str, Any] | Sequence[Any], *,
                  title: str = "rank timeline") -> RankTimelineWidget:  # fmt: skip
    """A rank timeline of ``runs``: a list of events ``{"rank", "kind", "name", "start",
    "end"}`` (one run), or ``{label: events}`` to compare runs on one scale."""
    if runs is None or isinstance(runs, (str, bytes)):
        raise TypeError(f"rank_timeline() expects events or {{label: events}}, got {type(runs).__name__}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    widget = RankTimelineWidget()
    widget.title = title
    widget.set_runs(runs)
    return widget
