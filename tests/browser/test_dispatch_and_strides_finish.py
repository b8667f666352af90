"""The dispatch viewer's compile time and the stride visualizer's names, in a real JupyterLab
(server and Chromium: conftest.py).

The notebook gives Numba a new, empty disk cache before minitorch is imported, so the
first ``relu`` in the traced block really compiles (the case of issue 16: a ReLU shown
as 2,196 ms). The test checks that the compile time is drawn in its own hatched row
marked "compile (once)" and left out of the kernel times; then that stride views carry
the names written in the call, that stride 0 is marked as repeated reads, that
``broadcast(x, bias)`` is headed "broadcasting x + bias" and that ``show_layout(x, "x")``
titles its view "x".
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

# The constants and the Lab helper of this folder's conftest (its fixtures pytest finds itself).
_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
_browser = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_browser)
CHROMIUM, OUTPUT, Lab = _browser.CHROMIUM, _browser.OUTPUT, _browser.Lab

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing: install Debian's chromium (bash tests/run.sh does, as root)",
)

NOTEBOOK = "dispatch_strides_finish.ipynb"
CELLS = [
    """import os, tempfile
os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp()  # an empty cache: relu compiles below
import json

import minitorch
from minitorch import widgets
from minitorch.course.show import show_layout

x = minitorch.randn(64, 64)""",
    """with widgets.dispatch_trace() as trace:
    first = x.relu()
    again = x.relu()
trace""",
    """t = minitorch.arange(12.0).view(3, 4)
sv = widgets.strides(t, t.t(), t[1:], row=t[:1].expand(3, 4))
sv""",
    """column, bias = minitorch.arange(3.0).view(3, 1), minitorch.arange(4.0)
bw = widgets.broadcast(column, bias)
bw""",
    """show_layout(t, "x")""",
    """run = trace.runs[0]
print("KERNEL-STATE " + json.dumps({"compile_us": run["compile_us"], "total_us": run["total_us"],
      "rows": [[r["us"], r["compile_us"]] for r in run["records"]]}))""",
]
WIDGETS = (".mt-dispatch", ".mt-strides.mt-widget")  # one dispatch viewer, three stride visualizers


def notebook_json() -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source} for source in CELLS]  # fmt: skip
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook)


def kernel_state(page) -> dict:
    output = page.locator(".jp-OutputArea-output", has_text="KERNEL-STATE").last
    output.wait_for(timeout=60_000)
    return json.loads(output.inner_text().split("KERNEL-STATE ", 1)[1].strip())


def font_sizes(locator) -> list[float]:
    return locator.evaluate_all("nodes => nodes.map(n => parseFloat(getComputedStyle(n).fontSize))")


@pytest.fixture(scope="module")
def page(lab_server, browser):
    """The notebook open in JupyterLab, every cell run, every widget rendered."""
    from playwright.sync_api import expect

    base, token, root = lab_server
    (Path(root) / NOTEBOOK).write_text(notebook_json())
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(f"page error: {error}"))
    page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}&reset", wait_until="domcontentloaded")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.content",
        timeout=60_000,
    )
    lab = Lab(page, console_errors)
    lab.wait_for_idle_kernel()
    lab.command("notebook:run-all-cells")
    try:
        expect(page.locator(WIDGETS[0])).to_have_count(1, timeout=180_000)
        expect(page.locator(WIDGETS[1])).to_have_count(3, timeout=60_000)
        lab.wait_for_idle_kernel(timeout=120_000)
    except AssertionError:
        page.screenshot(path=str(OUTPUT / "dispatch-strides-failure.png"), full_page=True)
        raise AssertionError(f"the widgets did not render; console errors: {console_errors}") from None
    page.lab = lab
    yield page
    assert not console_errors, console_errors
    context.close()


def test_compile_time_is_its_own_segment_and_not_kernel_time(page) -> None:
    from playwright.sync_api import expect

    state = kernel_state(page)
    (first_us, first_compile), (again_us, again_compile) = state["rows"]
    assert first_compile > 50_000 and again_compile == 0  # Numba compiled relu on its first call
    assert state["total_us"] == pytest.approx(first_us + again_us, abs=0.05)
    assert state["total_us"] < state["compile_us"]

    viewer = page.locator(".mt-dispatch")
    row = viewer.locator(".mt-compile-row")
    expect(row.locator(".mt-compile-label")).to_have_text("compile (once)")
    segments = row.locator(".mt-compile-segment")
    expect(segments).to_have_count(1)
    expect(segments.first).to_have_attribute("data-row", "0")
    expect(segments.first).to_contain_text("relu")
    # Drawn unlike a kernel bar: hatched, in its own row, not inside the kernel timeline.
    background = segments.first.evaluate("n => getComputedStyle(n).backgroundImage")
    assert "repeating-linear-gradient" in background
    expect(viewer.locator(".mt-timeline .mt-compile-segment")).to_have_count(0)
    expect(viewer.locator(".mt-timeline .mt-tick")).to_have_count(2)
    # The real-time row holds the compiling (it is real time), drawn hatched and labelled.
    host_compile = viewer.locator(".mt-real-timeline .mt-compile-tick")
    expect(host_compile).to_have_count(1)
    expect(host_compile).to_have_attribute("data-row", "0")
    assert host_compile.get_attribute("fill").startswith("url(#mt-compile-hatch")
    expect(viewer.locator(".mt-real-timeline .mt-compile-text")).to_contain_text("compile (once)")
    title = viewer.locator(".mt-run-title")
    expect(title).to_contain_text("2 calls")
    expect(title).to_contain_text("of kernel time")
    expect(title.locator(".mt-compile-total")).to_contain_text("compile (once)")
    expect(title.locator(".mt-compile-total")).to_contain_text("not counted")
    # The table: kernel time in one column, compile time in its own, only for the first call.
    header = viewer.locator(".mt-records tr").first
    expect(header).to_contain_text("kernel time")
    expect(header).to_contain_text("compile (once)")
    cells = viewer.locator(".mt-record td.mt-compile-cell")
    expect(cells).to_have_count(1)
    expect(viewer.locator('.mt-record[data-row="0"] td.mt-compile-cell')).not_to_be_empty()
    assert min(font_sizes(viewer.locator(".mt-compile-row, .mt-compile-row *, .mt-compile-total"))) >= 11
    segments.first.click()
    expect(viewer.locator(".mt-details-title")).to_contain_text("compiling its kernel first")
    page.lab.screenshot(viewer, "dispatch-compile-once")


def test_stride_views_are_titled_by_what_was_written(page) -> None:
    from playwright.sync_api import expect

    sv = page.locator(".mt-strides.mt-widget").nth(0)
    expect(sv.locator(".mt-title")).to_have_text("stride visualizer")
    expect(sv.locator(".mt-views > .mt-view .mt-view-name")).to_have_text(["t", "t.t()", "t[1:]", "row"])
    # row = t[:1].expand(3, 4): stride 0 along dim 0, so each of the cells 0..3 is read 3 times.
    badges = sv.locator(".mt-repeat-badge")
    expect(badges).to_have_count(1)
    expect(sv.locator('.mt-view[data-view="3"] .mt-repeat-badge')).to_contain_text("stride 0: repeats")
    expect(sv.locator('.mt-view[data-view="3"] .mt-repeat-badge')).to_contain_text("dim 0")
    expect(sv.locator('.mt-view[data-view="3"] .mt-el.mt-repeat')).to_have_count(12)
    expect(sv.locator('.mt-view[data-view="0"] .mt-el.mt-repeat')).to_have_count(0)
    reread = sv.locator(".mt-cell.mt-reread")
    expect(reread).to_have_count(4)
    expect(reread.locator(".mt-reads")).to_have_text(["×3"] * 4)
    assert [reread.nth(i).get_attribute("data-position") for i in range(4)] == ["0", "1", "2", "3"]
    assert min(font_sizes(sv.locator(".mt-reads, .mt-repeat-badge"))) >= 11
    sv.locator('.mt-view[data-view="3"] .mt-el[data-ordinal="4"]').hover()  # row[1, 0] reads cell 0
    expect(sv.locator(".mt-readout")).to_contain_text("row reads cell 0 3 times (stride 0)")
    page.lab.screenshot(sv, "strides-names-and-stride-zero")


def test_broadcast_is_headed_by_its_operands_and_derives_clearly(page) -> None:
    from playwright.sync_api import expect

    bw = page.locator(".mt-strides.mt-widget").nth(1)
    expect(bw.locator(".mt-title")).to_have_text("broadcasting column + bias")
    expect(bw.locator(".mt-header")).not_to_contain_text("stride visualizer")
    expect(bw.locator(".mt-bcast tr").nth(1).locator("th")).to_have_text("column (3, 1)")
    expect(bw.locator(".mt-views > .mt-view .mt-view-name")).to_have_text(
        ["column", "bias", "column.expand(3, 4)", "bias.expand(3, 4)", "column + bias"]
    )
    expect(bw.locator(".mt-derive-code")).to_have_text("v5 = (column + bias).")
    bw.locator("select.mt-op").select_option("permute")
    bw.locator(".mt-args").fill("1, 0")
    bw.locator(".mt-apply").click()
    derived = bw.locator('.mt-view[data-view="5"] .mt-view-name')
    expect(derived).to_have_text("v5 = (column + bias).permute(1, 0)")
    expect(bw.locator(".mt-derive-code")).to_have_text("v6 = v5.")
    # Both expanded inputs repeat cells; the sum is a new tensor and does not.
    for view, dims in (("2", "dim 1"), ("3", "dim 0")):
        expect(bw.locator(f'.mt-view[data-view="{view}"] .mt-repeat-badge')).to_contain_text(dims)
    expect(bw.locator('.mt-view[data-view="4"] .mt-repeat-badge')).to_have_count(0)
    page.lab.screenshot(bw, "broadcast-names")


def test_show_layout_titles_the_view_with_its_name(page) -> None:
    from playwright.sync_api import expect

    shown = page.locator(".mt-strides.mt-widget").nth(2)
    expect(shown.locator(".mt-views > .mt-view .mt-view-name")).to_have_text(["x"])
