"""The rank timeline (minitorch/widgets/rank_timeline.py): its overlap arithmetic against
a brute-force count on a fine grid, its checks of bad events, and its static fallbacks
(the SVG picture a saved notebook shows, and the text a terminal shows)."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("anywidget")

from minitorch.widgets.frontend import widgets_folder  # noqa: E402
from minitorch.widgets.rank_timeline import (  # noqa: E402
    intersection_length,
    overlap_summary,
    rank_timeline,
    union_length,
)


def step_events(overlap: bool) -> list[dict]:
    """Two ranks of a data-parallel step (milliseconds): forward, backward, two buckets'
    all-reduces that start during the backward (overlap) or after it, the optimizer."""
    ms = 1e-3
    events = []
    for rank in (0, 1):
        late = 0.5 * rank  # rank 1 starts half a millisecond later
        first = late + (4 if overlap else 6)
        for kind, name, start, end in [
            ("forward", "forward", late, late + 2),
            ("backward", "backward", late + 2, late + 6),
            ("all_reduce", "bucket 0", first, first + 1.5),
            ("all_reduce", "bucket 1", late + 6.5, late + 8),
            ("optimizer", "step", late + 8, late + 9),
        ]:
            events.append({"rank": rank, "kind": kind, "name": name, "start": start * ms, "end": end * ms})
    return events


def grid_measure(intervals_a, intervals_b=None, step=1e-6, top=0.02) -> float:
    """Length covered (by a, or by a and b both), counted on a grid of ``step`` seconds."""
    t = np.arange(0, top, step) + step / 2
    cover = np.zeros_like(t, dtype=bool)
    for s, e in intervals_a:
        cover |= (t >= s) & (t < e)
    if intervals_b is not None:
        other = np.zeros_like(cover)
        for s, e in intervals_b:
            other |= (t >= s) & (t < e)
        cover &= other
    return cover.sum() * step


def test_union_and_intersection_agree_with_a_grid_count() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = [tuple(sorted(rng.uniform(0, 0.018, 2))) for _ in range(rng.integers(1, 7))]
        b = [tuple(sorted(rng.uniform(0, 0.018, 2))) for _ in range(rng.integers(1, 7))]
        assert union_length(a) == pytest.approx(grid_measure(a), abs=2e-5)
        assert intersection_length(a, b) == pytest.approx(grid_measure(a, b), abs=2e-5)
    assert union_length([]) == 0.0 and intersection_length([(0, 1)], []) == 0.0


def test_overlap_summary_counts_hidden_and_exposed_communication() -> None:
    on, off = overlap_summary(step_events(True)), overlap_summary(step_events(False))
    for rank in (0, 1):
        assert on[rank]["compute"] == pytest.approx(7e-3)  # forward 2 + backward 4 + step 1
        # overlap on: bucket 0 runs 4..5.5 ms, under the backward (2..6): all of it hidden
        assert on[rank]["hidden"] == pytest.approx(1.5e-3)
        assert on[rank]["communication"] == pytest.approx(3e-3)
        assert on[rank]["exposed"] == pytest.approx(1.5e-3)
        # overlap off: bucket 0 runs 6..7.5 ms, after the backward, and meets bucket 1
        assert off[rank]["hidden"] == pytest.approx(0.0)
        assert off[rank]["communication"] == pytest.approx(2e-3)
        assert off[rank]["exposed"] == off[rank]["communication"]


def test_runs_share_one_clock_from_their_first_event() -> None:
    widget = rank_timeline({"overlap on": step_events(True), "overlap off": step_events(False)})
    assert [run["label"] for run in widget.runs] == ["overlap on", "overlap off"]
    run = widget.runs[0]
    assert run["span_us"] == pytest.approx(9500)
    rank1 = run["ranks"][1]
    assert rank1["compute"][0][2:] == [500.0, 2500.0]  # rank 1's forward, from the run's first event
    assert [bar[0] for bar in rank1["communication"]] == ["communication", "communication"]
    assert widget.summary(1)[0]["hidden"] == pytest.approx(0.0)


def test_a_recorder_with_events_is_read_through_them() -> None:
    class Recorder:  # as DDP's ddp.timeline keeps them
        events = step_events(True)

    assert rank_timeline(Recorder()).runs == rank_timeline(step_events(True)).runs


def test_bad_events_raise_pytorch_style_errors() -> None:
    for bad in (None, "events", 3):
        with pytest.raises(TypeError):
            rank_timeline(bad)
    with pytest.raises(TypeError):
        rank_timeline([1, 2])
    with pytest.raises(ValueError, match="lacks"):
        rank_timeline([{"rank": 0, "kind": "forward", "start": 0.0, "end": 1.0}])
    with pytest.raises(ValueError, match="ends before it starts"):
        rank_timeline([{"rank": 0, "kind": "forward", "name": "f", "start": 2.0, "end": 1.0}])
    with pytest.raises(TypeError):
        rank_timeline([], title=None)


def test_static_picture_and_text_show_every_rank_and_the_overlap() -> None:
    widget = rank_timeline({"overlap on": step_events(True), "overlap off": step_events(False)})
    svg = widget.to_svg()
    assert svg.startswith("<svg") and "rank 0" in svg and "rank 1" in svg
    assert "overlap on" in svg and "overlap off" in svg and "1.50 ms hidden" in svg
    sizes = [float(s) for s in re.findall(r'font-size="(\d+(?:\.\d+)?)"', svg)]
    assert min(sizes) >= 11
    text = widget.to_text()
    assert "rank 1: compute 7.00 ms, communication 3.00 ms (1.50 ms hidden, 1.50 ms exposed)" in text
    lanes = [line for line in text.splitlines() if "|" in line]
    assert len(lanes) == 8 and all(len(line.split("|")[1]) == 60 for line in lanes)


def test_the_live_view_has_no_fixed_width() -> None:
    """Bars are placed in percent of the span, so the widget takes its cell's width."""
    css = (widgets_folder() / "rank_timeline.css").read_text()
    js = (widgets_folder() / "rank_timeline.js").read_text()
    widths = re.findall(r"(?<![-\w])(?:min-|max-)?width\s*:\s*(\d+)px", css + js)
    assert all(int(w) <= 16 for w in widths), widths  # only the legend's swatch
    assert "overflow-x: hidden" in css and "percent(start, span)" in js
