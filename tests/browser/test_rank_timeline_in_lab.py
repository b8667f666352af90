"""The rank timeline in a real JupyterLab (server and Chromium: conftest.py): one row per
rank with a compute and a communication lane, every bar where its times put it, at any
width. The page is drawn 1,200 px wide, then 700: nothing scrolls sideways, a bar's
position in its lane is the same share of the lane at both widths (bars are placed in
percent of the span, not in pixels), text stays at 11 px or more, and the console stays
clean."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
_browser = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_browser)
CHROMIUM, Lab = _browser.CHROMIUM, _browser.Lab

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing: install Debian's chromium (bash tests/run.sh does, as root)",
)

NOTEBOOK = "rank_timeline.ipynb"
SOURCE = """\
from minitorch import widgets
ms = 1e-3
events = []
for rank in (0, 1):
    events += [
        {"rank": rank, "kind": "forward", "name": "forward", "start": 0, "end": 2 * ms},
        {"rank": rank, "kind": "backward", "name": "backward", "start": 2 * ms, "end": 6 * ms},
        {"rank": rank, "kind": "allreduce", "name": "bucket 0", "start": 4 * ms, "end": 5.5 * ms},
        {"rank": rank, "kind": "allreduce", "name": "bucket 1", "start": 6 * ms, "end": 8 * ms},
    ]
widgets.rank_timeline({"overlap on": events}, title="two ranks")"""

GEOMETRY = """(root) => {
  const lane = root.querySelector('.mt-lane-communication').getBoundingClientRect();
  const bar = root.querySelector('.mt-lane-communication .mt-bar').getBoundingClientRect();
  const texts = [...root.querySelectorAll('*')].filter((e) => [...e.childNodes].some(
    (n) => n.nodeType === 3 && n.textContent.trim()) && e.getBoundingClientRect().width);
  return {
    scrolls: root.scrollWidth > root.clientWidth + 1,
    outside: [...root.querySelectorAll('.mt-bar')]
      .some((b) => b.getBoundingClientRect().right > lane.right + 1),
    share: (bar.left - lane.left) / lane.width, width: root.getBoundingClientRect().width,
    smallest: Math.min(...texts.map((e) => parseFloat(getComputedStyle(e).fontSize))),
  };
}"""


def notebook_json() -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": SOURCE}
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = {"cells": [cell], "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook)


def test_rank_rows_lanes_and_any_width(lab_server, browser) -> None:
    from playwright.sync_api import expect

    base, token, root = lab_server
    (Path(root) / NOTEBOOK).write_text(notebook_json())
    context = browser.new_context(viewport={"width": 1200, "height": 1200})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}&reset", wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.content", timeout=60_000)  # fmt: skip
    lab = Lab(page, errors)
    lab.wait_for_idle_kernel()
    lab.command("notebook:run-all-cells")
    widget = page.locator(".mt-rank-timeline")
    expect(widget).to_have_count(1, timeout=120_000)
    expect(widget.locator(".mt-rank")).to_have_count(3)  # two ranks and the time axis
    expect(widget.locator(".mt-lane-compute .mt-bar")).to_have_count(4)
    expect(widget.locator(".mt-lane-communication .mt-bar.mt-kind-communication")).to_have_count(4)
    expect(widget.locator(".mt-caption").nth(1)).to_contain_text("1.50 ms hidden behind compute")
    wide = widget.evaluate(GEOMETRY)
    page.set_viewport_size({"width": 700, "height": 1200})
    page.wait_for_timeout(1000)
    narrow = widget.evaluate(GEOMETRY)
    assert narrow["width"] < wide["width"] - 200, (wide, narrow)
    for geometry in (wide, narrow):
        assert not geometry["scrolls"] and not geometry["outside"], geometry
        assert geometry["share"] == pytest.approx(0.5, abs=0.01)  # bucket 0 starts at 4 of 8 ms
        assert geometry["smallest"] >= 11
    lab.screenshot(widget, "rank-timeline-700")
    assert not errors, errors
    context.close()
