"""Every widget at three notebook widths, in a real JupyterLab (server and Chromium: conftest.py).

One notebook shows one of each widget (issue 33). The page is drawn at 1,400 px, then
1,000 px, then 700 px with the file browser open (the narrowest notebook a student
reads), in one JupyterLab session: the viewport is resized, nothing is run again. At
each width, for every widget:

* nothing scrolls sideways and nothing sticks out of the widget (``PROBLEMS``): a table
  wraps or abbreviates, a timeline or a strip scales to the width;
* no text is drawn under 10 px, SVG text measured at its zoom;
* each graph is fitted again after the resize: its visible nodes lie inside their canvas
  from left to right (the captured graph collapses the phases that do not fit);

and no widget code wrote an error to the console. The numbers issue 33 found misleading
are read on the page: a 2-D ``x @ w`` lists 2-D shapes, a recording reports its own
peak, the Playground's loss chart draws at epoch 1. Screenshots of every widget at each
width go to ``test-output/browser/widths-<width>-<widget>.png``.
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

NOTEBOOK = "widths_demo.ipynb"
SOURCE = """\
import minitorch
from minitorch import nn, widgets

minitorch.manual_seed(0)
t = minitorch.arange(6.0).view(2, 3)
display(widgets.strides(t, tT=t.t(), row=t[1]))
display(widgets.broadcast(minitorch.arange(6.0).view(2, 3), minitorch.tensor([10.0, 20.0, 30.0])))

model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
x, y = minitorch.randn(32, 2), minitorch.randn(32, 1)
with widgets.watch(model):
    loss = nn.functional.mse_loss(model(x), y)
display(widgets.graph(loss, params=model))

w = minitorch.randn(2, 3, requires_grad=True)
with widgets.dispatch_trace() as trace:
    (x @ w).relu().sum().backward()
trace.selected = {"run": 0, "row": 0}  # the x @ w call: its details name the kernel's batch of one
display(trace)

opt = minitorch.optim.SGD(model.parameters(), lr=0.03)
@minitorch.compile(passes=["dead_code", "fuse_elementwise"])
def step(x, y):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss
eager = step(x, y)
step(x, y)
display(widgets.graph(step, autograd=eager))

earlier = minitorch.zeros(200_000)  # an earlier cell's peak: 800 kB
del earlier
mem = widgets.memory()
kept = minitorch.ones(64, 64)
with mem.record():
    doubled = (kept * 2).exp()
    del doubled
display(mem)

pg = widgets.Playground("dataset=xor&hidden=4,2")
pg.step(epochs=1)
display(pg)
"""
WIDGETS = ".mt-widget, .mt-pg"

# What is wrong with the widgets' layout now: a list of sentences, empty when all is well.
PROBLEMS = """(minimum) => {
  const problems = [];
  const outermost = (r) => !r.parentElement.closest('.mt-widget, .mt-pg');
  const roots = [...document.querySelectorAll('.mt-widget, .mt-pg')].filter(outermost);
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const name = (e) => (e.getAttribute('class') || e.tagName).split(' ').slice(0, 2).join(' ');
  const px = (x) => Math.round(x);
  for (const root of roots) {
    const kind = name(root);
    const area = root.closest('.jp-OutputArea-output') || root.parentElement;
    const box = root.getBoundingClientRect();
    if (box.right > area.getBoundingClientRect().right + 1)
      problems.push(`${kind} sticks out of its output (${box.width} px)`);
    for (const e of [root, ...root.querySelectorAll('*')]) {
      if (!shown(e)) continue;
      const inSvg = e instanceof SVGElement && e.tagName !== 'svg';
      const style = getComputedStyle(e);
      const scrolls = ['auto', 'scroll'].includes(style.overflowX);
      if (!inSvg && scrolls && e.scrollWidth > e.clientWidth + 1)
        problems.push(`${kind}: ${name(e)} scrolls sideways (${e.scrollWidth} px in ${e.clientWidth})`);
      if (!inSvg) {
        const r = e.getBoundingClientRect();
        const scroller = '[style*="overflow"], .mt-table-box, .mt-pg-network-scroll';
        const clipped = e.parentElement && e.parentElement.closest(scroller);
        if (r.width > 0 && !clipped && (r.right > box.right + 1 || r.left < box.left - 1))
          problems.push(`${kind}: ${name(e)} at x ${px(r.left)}..${px(r.right)}`
                        + ` outside ${px(box.left)}..${px(box.right)}`);
      }
      const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (text && !e.closest('.mt-collapsed, .mt-far')) {
        let size = parseFloat(style.fontSize);
        const m = e instanceof SVGElement ? e.getScreenCTM() : null;
        if (m) size *= Math.hypot(m.a, m.b);  // SVG text at its zoom
        if (size < minimum - 0.01)
          problems.push(`${kind}: "${e.textContent.trim().slice(0, 30)}" drawn at ${size.toFixed(1)} px`);
      }
    }
    for (const canvas of root.querySelectorAll('svg.mt-canvas')) {
      const c = canvas.getBoundingClientRect();
      const drawn = [...canvas.querySelectorAll('[data-node], .mt-band rect')].filter(shown);
      const nodes = drawn.map((n) => n.getBoundingClientRect());
      if (!nodes.length) continue;
      const left = Math.min(...nodes.map((n) => n.left));
      const right = Math.max(...nodes.map((n) => n.right));
      // fitted: inside the canvas; or, too wide even at the smallest readable zoom, drawn
      // at that zoom from the left edge (the rest is dragged into view inside the canvas)
      const k = canvas.querySelector('.mt-viewport').transform.baseVal.consolidate().matrix.a;
      const smallest = k <= 10 / 11 + 1e-3 && left >= c.left - 1 && left <= c.left + 40;
      if (!smallest && (left < c.left - 1 || right > c.right + 1))
        problems.push(`${kind}: graph ${px(left)}..${px(right)} not fitted to its canvas`
                      + ` ${px(c.left)}..${px(c.right)}`);
    }
  }
  return problems;
}"""


def notebook_json() -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": SOURCE}
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = {"cells": [cell], "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook)


def assert_fits(lab: Lab, label: str) -> None:
    """Wait (up to 10 s: a resize re-fits next frame) for no layout problem; then take a
    screenshot of each widget."""
    try:
        lab.page.wait_for_function(f"() => ({PROBLEMS})(10).length === 0", timeout=10_000)
    except Exception:
        problems = lab.page.evaluate(f"() => ({PROBLEMS})(10)")
        lab.page.screenshot(path=str(OUTPUT / f"widths-{label}-failure.png"))
        raise AssertionError(f"at {label}: {len(problems)} problems: {problems[:30]}") from None
    widgets = lab.page.locator(WIDGETS)
    for i in range(widgets.count()):
        widget = widgets.nth(i)
        kind = widget.get_attribute("class").split()[-1].removeprefix("mt-")
        lab.screenshot(widget, f"widths-{label}-{i}-{kind}")


def test_every_widget_fits_1400_1000_and_700_px_with_file_browser(lab_server, browser) -> None:
    from playwright.sync_api import expect

    base, token, root = lab_server
    (Path(root) / NOTEBOOK).write_text(notebook_json())
    for old in OUTPUT.glob("widths-*.png"):  # (an earlier run's pictures, numbered differently)
        old.unlink()
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(f"page error: {error}"))
    try:
        page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}&reset", wait_until="domcontentloaded")
        page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
            " && window.jupyterapp.shell.currentWidget.content",
            timeout=60_000,
        )
        lab = Lab(page, console_errors)
        lab.wait_for_idle_kernel()
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        lab.run_cell(0)
        try:
            page.wait_for_selector(".mt-pg .mt-pg-node canvas", timeout=180_000)
            lab.wait_for_idle_kernel(timeout=120_000)
            expect(page.locator(".mt-static-graph")).to_have_count(1)
            expect(page.locator(".mt-memory")).to_have_count(1)
        except AssertionError:
            page.screenshot(path=str(OUTPUT / "widths-failure.png"))
            raise AssertionError(f"the widgets did not render; console errors: {console_errors}") from None

        # the numbers of issue 33.2, as the page shows them
        first_call = page.locator(".mt-dispatch .mt-record").first
        expect(first_call).to_contain_text("(32,3) ← (32,2) ← (2,3)")
        kernel_shapes = page.locator(".mt-dispatch .mt-kernel-shapes")
        expect(kernel_shapes).to_contain_text("(1, 32, 3) ← (1, 32, 2) ← (1, 2, 3)")
        expect(page.locator(".mt-memory .mt-peak-key")).to_contain_text("peak in the recording")
        expect(page.locator(".mt-pg .mt-pg-point-test")).to_have_count(1)

        assert_fits(lab, "1400")
        captured = page.locator(".mt-canvas-captured")
        page.set_viewport_size({"width": 1000, "height": 2000})
        assert_fits(lab, "1000")
        page.set_viewport_size({"width": 700, "height": 2000})
        page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
        page.wait_for_function("() => !window.jupyterapp.shell.leftCollapsed", timeout=10_000)
        assert_fits(lab, "700-file-browser")
        # a narrow notebook collapses the captured graph's later phases; a click opens one
        assert "backward" in captured.get_attribute("data-collapsed")
        captured.locator(".mt-band-backward .mt-band-label").click()
        assert "backward" not in captured.get_attribute("data-collapsed")
        backward = captured.locator(".mt-band-backward").get_attribute("data-band")
        expect(captured.locator(f'.mt-node[data-band="{backward}"]').first).to_be_visible()
        zoom = float(captured.get_attribute("data-zoom"))
        assert zoom >= 10 / 11 - 1e-3, f"an opened phase is shrunk to zoom {zoom}"
        assert console_errors == []
    finally:
        context.close()
