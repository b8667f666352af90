"""The Playground's finish in a real JupyterLab (server and Chromium: conftest.py).

What was seen, each checked here the way a student would have met it:

* the notebook got narrower (the file browser opened at 1,400 px) and the network was
  not laid out again: neurons drawn over the metrics and past the widget's right edge.
  At 1,400 px (file browser closed, then open), 1,000 px and 800 px, every neuron, bias
  and link must lie inside the widget's box, none over the output column and its
  metrics, and the widget inside the notebook's output area;
* the loss chart had no axes or scale: it needs tick numbers for loss and epochs (text of
  at least 11 px) and the curves inside its axes;
* "epochs per second" showed negative values (-188, -27) for about 1.5 s after the
  activation changed while playing: every value it shows must be a number >= 0.

Screenshots: ``test-output/browser/playground-finish-<width>.png``.
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

NOTEBOOK = "playground_finish.ipynb"
CELLS = [
    """from minitorch.widgets import Playground

pg = Playground(seed=1, hidden=[4, 2])
pg.step(epochs=25)  # a loss curve to draw
pg""",
    """print("KERNEL-STATE", pg.activation, pg.epoch, pg.is_playing, repr(pg.message))""",
]

# In the page: where the network's parts are drawn against the widget, its output column
# and the notebook's output area. Returns the problems found (none: an empty list).
LAYOUT_PROBLEMS = """(root) => {
  const rect = (e) => e.getBoundingClientRect();
  const box = rect(root);
  const output = rect(root.querySelector('.mt-pg-output'));
  const metrics = rect(root.querySelector('.mt-pg-metrics'));
  const cell = rect(root.closest('.jp-OutputArea-output'));
  const overlaps = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const problems = [];
  if (box.right > cell.right + 0.5) problems.push(`widget ends at ${box.right}, its cell at ${cell.right}`);
  if (root.scrollWidth > root.clientWidth + 1)
    problems.push(`widget content is ${root.scrollWidth} px wide in ${root.clientWidth}`);
  const scroller = root.querySelector('.mt-pg-network-scroll');
  if (scroller && scroller.scrollWidth > scroller.clientWidth + 1)
    problems.push(`the network needs ${scroller.scrollWidth} px, has ${scroller.clientWidth}`);
  const parts = root.querySelectorAll('.mt-pg-node, .mt-pg-bias, .mt-pg-link');
  if (parts.length < 20) problems.push(`only ${parts.length} parts of the network drawn`);
  for (const part of parts) {
    const r = rect(part);
    const name = part.dataset.node || part.dataset.feature || part.getAttribute('class');
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5
        || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
      problems.push(`${name} at x ${r.left}..${r.right} outside the widget ${box.left}..${box.right}`);
    if (overlaps(r, metrics)) problems.push(`${name} overlaps the metrics`);
    else if (overlaps(r, output)) problems.push(`${name} overlaps the output column`);
  }
  return problems;
}"""


def notebook_json() -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source} for source in CELLS]  # fmt: skip
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return json.dumps(
        {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    )


@pytest.fixture(scope="module")
def playground(lab_server, browser):
    """The notebook open at 1,400 px with the file browser closed, the Playground drawn."""
    base, token, root = lab_server
    (Path(root) / NOTEBOOK).write_text(notebook_json())
    context = browser.new_context(viewport={"width": 1400, "height": 1300})
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(f"page error: {error}"))
    page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}&reset", wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.content", timeout=60_000)  # fmt: skip
    lab = Lab(page, console_errors)
    lab.wait_for_idle_kernel()
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    lab.run_cell(0)
    try:
        page.wait_for_selector(".mt-pg .mt-pg-node canvas", timeout=120_000)
        page.wait_for_function("() => /\\d/.test(document.querySelector('.mt-pg-test-loss').textContent)",
                               timeout=60_000)  # fmt: skip
        lab.wait_for_idle_kernel(timeout=120_000)
    except Exception:
        page.screenshot(path=str(OUTPUT / "playground-finish-failure.png"), full_page=True)
        raise AssertionError(f"the Playground did not render; console errors: {console_errors}") from None
    lab.widget = page.locator(".mt-pg").first
    yield lab
    context.close()


def assert_laid_out(lab: Lab, label: str) -> None:
    """Wait (up to 10 s) for a layout without problems; fail listing them."""
    widget = lab.widget
    handle = widget.element_handle()
    try:
        lab.page.wait_for_function(
            f"(root) => ({LAYOUT_PROBLEMS})(root).length === 0", arg=handle, timeout=10_000
        )
    except Exception:
        problems = widget.evaluate(LAYOUT_PROBLEMS)
        lab.screenshot(widget, f"playground-finish-{label}-failure")
        raise AssertionError(f"at {label}: {len(problems)} layout problems, e.g. {problems[:6]}") from None
    lab.page.wait_for_timeout(200)  # the heatmaps of the new layout are painted
    lab.screenshot(widget, f"playground-finish-{label}")


def test_network_is_laid_out_again_at_every_width(playground) -> None:
    page = playground.page
    assert_laid_out(playground, "1400")
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")  # the seen case
    page.wait_for_function("() => !window.jupyterapp.shell.leftCollapsed", timeout=10_000)
    assert_laid_out(playground, "1400-file-browser")
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    for width in (1000, 800):
        page.set_viewport_size({"width": width, "height": 1300})
        assert_laid_out(playground, str(width))
    page.set_viewport_size({"width": 1400, "height": 1300})  # and wider again
    assert_laid_out(playground, "1400-again")


def test_loss_chart_has_axes_and_a_scale(playground) -> None:
    chart = playground.widget.locator(".mt-pg-chart")
    reading = chart.evaluate(
        """(svg) => {
          const texts = (selector) => [...svg.querySelectorAll(selector)].map((t) => ({
            text: t.textContent, y: t.getBoundingClientRect().top, x: t.getBoundingClientRect().left,
            size: parseFloat(getComputedStyle(t).fontSize) }));
          const curve = svg.querySelector('.mt-pg-curve-test');
          return { y: texts('.mt-pg-tick-y'), x: texts('.mt-pg-tick-x'), names: texts('.mt-pg-axis-name'),
                   all: texts('text'), axes: svg.querySelectorAll('.mt-pg-axis-x, .mt-pg-axis-y').length,
                   curve: curve ? curve.getBoundingClientRect().toJSON() : null,
                   points: curve ? curve.points.numberOfItems : 0,
                   plot: svg.querySelector('.mt-pg-axis-y').getBoundingClientRect().toJSON() };
        }"""
    )
    assert reading["axes"] == 2
    assert [n["text"] for n in reading["names"]] == ["epoch", "loss"]
    losses = [float(t["text"]) for t in reading["y"]]
    epochs = [float(t["text"]) for t in reading["x"]]
    assert len(losses) >= 2 and losses == sorted(losses) and losses[0] == 0
    assert [t["y"] for t in reading["y"]] == sorted((t["y"] for t in reading["y"]), reverse=True)  # up
    assert len(epochs) >= 2 and epochs == sorted(epochs) and all(e == int(e) for e in epochs)
    assert epochs[0] == 0 and epochs[-1] >= 25  # the 25 epochs trained are on the scale
    assert min(t["size"] for t in reading["all"]) >= 11, reading["all"]
    assert reading["points"] >= 20  # one point per epoch trained
    curve, plot = reading["curve"], reading["plot"]
    assert plot["top"] - 0.5 <= curve["top"] and curve["bottom"] <= plot["bottom"] + 0.5  # inside the axes


def test_meter_never_negative_when_the_activation_changes_while_playing(playground) -> None:
    """Every value the meter shows is recorded (a MutationObserver). Each switch waits
    until the epoch counter went back (the new network) and shows 3 epochs or more with a
    speed: the moment the old meter went negative."""
    lab, page, widget = playground, playground.page, playground.widget
    widget.evaluate(
        """(root) => {
          window.__meter = [];
          const speed = root.querySelector('.mt-pg-speed');
          new MutationObserver(() => window.__meter.push(speed.textContent))
            .observe(speed, { childList: true, characterData: true, subtree: true });
          // Every epoch shown, too: on a loaded machine a poll can miss the moment the
          // new network's epoch is still below the old one's.
          window.__epochs = [];
          const epoch = root.querySelector('.mt-pg-epoch');
          new MutationObserver(() => window.__epochs.push(parseInt(epoch.textContent.replace(/,/g, ''))))
            .observe(epoch, { childList: true, characterData: true, subtree: true });
        }"""
    )
    epoch_shown = "parseInt(document.querySelector('.mt-pg-epoch').textContent.replace(',', ''))"
    speed_shown = "/^\\d/.test(document.querySelector('.mt-pg-speed').textContent)"
    widget.locator(".mt-pg-play").click()
    activation = widget.locator('[data-control="activation"] select')
    for name in ("relu", "sigmoid", "tanh"):  # each rebuilds the network: epoch back to 0
        page.wait_for_function(f"() => {epoch_shown} >= 20 && {speed_shown}", timeout=90_000)
        before = page.evaluate(f"() => {{ window.__epochs = []; return {epoch_shown}; }}")
        activation.select_option(name)
        went_back = "window.__epochs.some((e) => e < before)"
        rebuilt = f"(before) => {went_back} && {epoch_shown} >= 3 && {speed_shown}"
        try:
            page.wait_for_function(rebuilt, arg=before, timeout=90_000)
        except Exception:
            lab.run_cell(1)
            page.wait_for_selector(".jp-OutputArea-output:has-text('KERNEL-STATE')", timeout=60_000)
            kernel = page.locator(".jp-OutputArea-output", has_text="KERNEL-STATE").inner_text()
            seen = page.evaluate(f"() => [{epoch_shown}, window.__meter.slice(-8)]")
            message = f"after {name} at epoch {before}: epoch, speeds shown {seen}; {kernel}"
            raise AssertionError(message) from None
        page.wait_for_timeout(500)  # more frames of the new network, within the old window
    widget.locator(".mt-pg-play").click()  # pause
    page.wait_for_function("() => document.querySelector('.mt-pg-play').textContent === '\u25b6'",
                           timeout=30_000)  # fmt: skip
    shown = page.evaluate("() => window.__meter")
    numbers = [float(text) for text in shown if text != "\u2014"]
    assert len(numbers) >= 6, shown
    assert min(numbers) >= 0, f"the meter showed {[n for n in numbers if n < 0]}"
    assert all(text == "\u2014" or text.replace(".", "", 1).isdigit() for text in shown), shown
    assert lab.console_errors == []
