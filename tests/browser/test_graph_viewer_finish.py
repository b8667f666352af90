"""The graph viewer's finish, in a real JupyterLab (server and Chromium: conftest.py).

Each test checks one thing a student saw go wrong (issue 16, items 1 and 2):

* "fit" zoomed a small MLP to 0.72, so its text was drawn at 8.6 and 7 px: every text
  of the graph, its font size times the zoom, must be 11 px or more, at two widths,
  and the whole small graph must be visible (the canvas grows instead);
* the two edges of ``y * y`` were drawn on top of each other: apart, and labelled;
* the collapse checkboxes read "0" and "2": module names; "step 3 of 10" touched
  "collapse:";
* finished nodes faded to 0.55 opacity: they stay opaque and change colour;
* the steps can be played at a pace a person can follow (600 ms a step or slower) and
  paused;
* the viewer's backward worked neither after the notebook's own ``backward()`` ("Trying
  to backward through the graph a second time") nor before it without doubling the
  gradient the next cell printed: it now leaves every ``.grad`` as it was, in both orders;
  a viewer drawn only after the graph was freed says so, and what to do.

One notebook (``CELLS``) is opened once for the module; the tests run in file order.
"""

from __future__ import annotations

import importlib.util
import json
import re
import time
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

NOTEBOOK = "graph_viewer_finish.ipynb"
CELLS = [
    # 0: the small MLP of the issue, its forward watched (module names and kinds).
    """import json

import minitorch
from minitorch import nn, widgets

minitorch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = minitorch.randn(5, 3)
with widgets.watch(model):
    loss = model(x).pow(2).mean()
mlp = widgets.graph(loss, params=model)
mlp""",
    # 1: chapter 4's y * y: two edges from ExpBackward0 into MulBackward0.
    """t = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = t.exp()
z = (y * y).sum()
square = widgets.graph(z, params={"t": t})
square""",
    # 2: the notebook's own backward, after the viewer drew the graph.
    """z.backward()
print("GRAD-Z " + json.dumps(t.grad.tolist()))""",
    # 3: after the viewer's backward: t.grad is what cell 2 printed.
    """print("GRAD-Z-AGAIN " + json.dumps(t.grad.tolist()))""",
    # 4: the notebook's backward after the viewer's: one gradient, not two.
    """untouched = model[0].weight.grad is None
loss.backward()
(once,) = minitorch.autograd.grad(model(x).pow(2).mean(), [model[0].weight])
print("GRAD-MLP " + json.dumps({"untouched": untouched, "grad": model[0].weight.grad.tolist(),
                                "once": once.tolist()}))""",
    # 5: a viewer drawn after the notebook's backward freed the graph (cell 2).
    """late = widgets.graph(z, params={"t": t})
late""",
]


def notebook_json() -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source} for source in CELLS]  # fmt: skip
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook)


@pytest.fixture(scope="module")
def lab(lab_server, browser):
    """The notebook open in JupyterLab with cells 0 and 1 run (both viewers drawn)."""
    from playwright.sync_api import expect

    base, token, root = lab_server
    (Path(root) / NOTEBOOK).write_text(notebook_json())
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(f"page error: {error}"))
    page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}&reset", wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.content", timeout=60_000)  # fmt: skip
    notebook = Lab(page, console_errors)
    notebook.wait_for_idle_kernel()
    notebook.run_cell(0)
    notebook.run_cell(1)
    try:
        expect(page.locator(".mt-graph")).to_have_count(2, timeout=120_000)
    except AssertionError:
        page.screenshot(path=str(OUTPUT / "graph-finish-failure.png"), full_page=True)
        raise AssertionError(f"the graph viewers did not render; console errors: {console_errors}") from None
    yield notebook
    context.close()


def mlp(lab):
    return lab.page.locator(".mt-graph").nth(0)


def square(lab):
    return lab.page.locator(".mt-graph").nth(1)


def show_step(widget, index: int) -> None:
    """Press backward (once) and step forward until "step ``index`` of ..." shows."""
    from playwright.sync_api import expect

    if not widget.locator(".mt-step-label").inner_text():
        widget.locator(".mt-backward").click()
        expect(widget.locator(".mt-step-label")).to_contain_text("of")
    label = widget.locator(".mt-step-label")
    while (shown := int(re.search(r"step (\d+)", label.inner_text()).group(1))) < index:
        widget.locator(".mt-next").click()
        expect(label).to_contain_text(f"step {shown + 1} of")


def run_and_read(lab, cell: int, marker: str):
    """Run a cell and return the JSON it printed after ``marker``."""
    lab.wait_for_idle_kernel()
    lab.run_cell(cell)
    output = lab.page.locator(".jp-OutputArea-output", has_text=marker)
    output.wait_for(timeout=60_000)
    return json.loads(output.inner_text().split(marker, 1)[1])


# The px size of every text of a viewer's graph as drawn: its computed font size times
# the zoom applied to the graph (the viewport's transform).
DRAWN_TEXT_SIZES = """root => {
  const k = root.querySelector('.mt-viewport').transform.baseVal.consolidate().matrix.a;
  return [...root.querySelectorAll('.mt-viewport text')]
    .filter(e => getComputedStyle(e).display !== 'none')
    .map(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize) * k]);
}"""

# Whether the whole graph lies inside the canvas (nothing cut off at the chosen zoom).
GRAPH_INSIDE_CANVAS = """root => {
  const canvas = root.querySelector('.mt-canvas').getBoundingClientRect();
  const graph = root.querySelector('.mt-viewport').getBoundingClientRect();
  return graph.left >= canvas.left - 1 && graph.right <= canvas.right + 1
    && graph.top >= canvas.top - 1 && graph.bottom <= canvas.bottom + 1;
}"""


def test_fit_keeps_every_text_at_least_11_px(lab) -> None:
    for width in (1400, 900):
        lab.page.set_viewport_size({"width": width, "height": 1400})
        for widget in (mlp(lab), square(lab)):
            widget.locator(".mt-fit").click()
            sizes = widget.evaluate(DRAWN_TEXT_SIZES)
            assert len(sizes) >= 2 * int(widget.get_attribute("data-nodes"))
            smallest = min(sizes, key=lambda entry: entry[1])
            assert smallest[1] >= 11, f"at {width} px, {smallest[0]!r} is drawn at {smallest[1]:.1f} px"
            assert widget.evaluate(GRAPH_INSIDE_CANVAS), f"at {width} px the small graph is cut off"
    lab.page.set_viewport_size({"width": 1400, "height": 1400})
    mlp(lab).locator(".mt-fit").click()
    lab.screenshot(mlp(lab), "graph-finish-fit")


def test_two_edges_between_the_same_nodes_are_apart_and_labelled(lab) -> None:
    widget = square(lab)
    pair = widget.evaluate("""root => {
      const mul = [...root.querySelectorAll('.mt-node')].find(n => n.textContent.startsWith('MulBackward0'));
      const exp = [...root.querySelectorAll('.mt-node')].find(n => n.textContent.startsWith('ExpBackward0'));
      const between = (sel) => [...root.querySelectorAll(sel)].filter(e =>
        e.dataset.source === exp.dataset.node && e.dataset.target === mul.dataset.node);
      const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
      return { paths: between('path.mt-edge').map(e => [e.getAttribute('d'), box(e)]),
               labels: between('.mt-edge-label').map(e => [e.textContent, box(e)]) };
    }""")
    (d0, box0), (d1, box1) = pair["paths"]
    assert d0 != d1
    centre = lambda box: (box[0] + box[2]) / 2  # noqa: E731
    assert abs(centre(box0) - centre(box1)) >= 15, "the two edges are drawn on top of each other"
    assert sorted(text for text, _ in pair["labels"]) == ["input 0", "input 1"]
    (_, a), (_, b) = pair["labels"]
    assert a[2] <= b[0] or b[2] <= a[0], "the two labels overlap"
    lab.screenshot(widget, "graph-finish-parallel-edges")


def test_collapse_checkboxes_name_the_modules_and_keep_clear_of_the_step_label(lab) -> None:
    widget = mlp(lab)
    labels = [widget.locator(".mt-module").nth(i).inner_text().strip() for i in range(3)]
    assert labels == ["0 (Linear)", "1 (ReLU)", "2 (Linear)"]
    show_step(widget, 3)
    step = widget.locator(".mt-step-label").bounding_box()
    for part in (widget.locator(".mt-modules > span").first, widget.locator(".mt-modules")):
        other = part.bounding_box()
        left, right = sorted([step, other], key=lambda box: box["x"])
        top, bottom = sorted([step, other], key=lambda box: box["y"])
        apart = left["x"] + left["width"] + 12 <= right["x"] or top["y"] + top["height"] <= bottom["y"]
        assert apart, f"'step 3 of ...' {step} touches 'collapse:' {other}"


def test_finished_nodes_stay_legible(lab) -> None:
    widget = mlp(lab)
    show_step(widget, 3)  # two nodes are done
    done = widget.locator(".mt-node.mt-done")
    assert done.count() == 2
    for i in range(done.count()):
        looks = done.nth(i).evaluate("""node => {
          const opacity = (e) => {  // its own opacity times its ancestors'
            let o = 1;
            for (; e && e.nodeType === 1; e = e.parentNode) o *= parseFloat(getComputedStyle(e).opacity);
            return o;
          };
          const rect = node.querySelector('rect');
          return { rect: opacity(rect), texts: [...node.querySelectorAll('text')].map(opacity),
                   fill: getComputedStyle(rect).fill, kind: node.getAttribute('class') };
        }""")
        assert looks["rect"] >= 0.6 and min(looks["texts"]) >= 0.6, f"a finished node fades: {looks}"
        kind = re.search(r"mt-kind-\w+", looks["kind"]).group(0)
        others = widget.locator(f".mt-node.{kind}:not(.mt-done):not(.mt-current):not(.mt-target) rect")
        if others.count():
            not_done_fill = others.first.evaluate("r => getComputedStyle(r).fill")
            assert not_done_fill != looks["fill"], "a finished node looks like one not run yet"
    lab.screenshot(widget, "graph-finish-step-3")


def test_steps_play_at_a_pace_a_person_can_follow_and_pause(lab) -> None:
    from playwright.sync_api import expect

    widget = mlp(lab)
    speeds = widget.locator(".mt-speed option").evaluate_all("options => options.map(o => Number(o.value))")
    assert speeds and min(speeds) >= 600
    widget.evaluate("""root => {
      window.__stepTimes = [];
      const changes = { childList: true, characterData: true, subtree: true };
      new MutationObserver(() => window.__stepTimes.push(performance.now()))
        .observe(root.querySelector('.mt-step-label'), changes);
    }""")
    widget.locator(".mt-speed").select_option(str(min(speeds)))
    widget.locator(".mt-play").click()
    expect(widget).to_have_attribute("data-playing", "true")
    lab.page.wait_for_function("() => window.__stepTimes.length >= 4", timeout=30_000)
    widget.locator(".mt-play").click()  # pause
    expect(widget).to_have_attribute("data-playing", "false")
    times = lab.page.evaluate("() => window.__stepTimes")
    gaps = [b - a for a, b in zip(times[1:], times[2:])]  # (the first change follows the click at once)
    assert gaps and min(gaps) >= min(speeds) - 20, f"steps {gaps} ms apart"
    paused_at = widget.locator(".mt-step-label").inner_text()
    time.sleep(1.5)
    assert widget.locator(".mt-step-label").inner_text() == paused_at, "pause did not stop the steps"


def test_viewer_backward_works_after_the_notebooks_and_leaves_grad_alone(lab) -> None:
    from playwright.sync_api import expect

    printed = run_and_read(lab, 2, "GRAD-Z ")  # the notebook's z.backward() freed its graph
    widget = square(lab)
    widget.locator(".mt-backward").click()
    expect(widget.locator(".mt-step-label")).to_contain_text("of 4")
    expect(widget.locator(".mt-error")).to_be_hidden()
    widget.locator(".mt-node.mt-kind-param", has_text="t").click()
    expect(widget.locator(".mt-details")).to_contain_text("the viewer's backward")
    html_sizes = widget.evaluate("""root => [...root.querySelectorAll('*')]
      .filter(e => !e.closest('svg') && [...e.childNodes].some(c => c.nodeType === 3 && c.textContent.trim()))
      .map(e => [e.textContent.slice(0, 30), parseFloat(getComputedStyle(e).fontSize)])""")
    smallest = min(html_sizes, key=lambda entry: entry[1])
    assert smallest[1] >= 11, f"{smallest[0]!r} is {smallest[1]} px"  # the details, controls, steps
    show_step(widget, 2)  # MulBackward0 sends to ExpBackward0 twice, once per input
    panel = widget.locator(".mt-step-panel")
    expect(panel).to_contain_text("ExpBackward0 as input 0")
    expect(panel).to_contain_text("ExpBackward0 as input 1")
    expect(widget.locator("path.mt-edge.mt-flow")).to_have_count(2)
    assert run_and_read(lab, 3, "GRAD-Z-AGAIN ") == printed


def test_a_viewer_drawn_after_backward_says_what_happened(lab) -> None:
    from playwright.sync_api import expect

    lab.wait_for_idle_kernel()
    lab.run_cell(5)
    late = lab.page.locator(".mt-graph").nth(2)
    expect(late.locator(".mt-replay-problem")).to_contain_text("Draw the graph before calling backward()",
                                                               timeout=60_000)  # fmt: skip
    expect(late.locator(".mt-backward")).to_be_disabled()


def test_viewer_backward_first_then_the_notebooks_gives_one_gradient(lab) -> None:
    # The viewer's backward ran on the MLP in an earlier test; now the notebook's.
    state = run_and_read(lab, 4, "GRAD-MLP ")
    assert state["untouched"], "the viewer's backward wrote into model[0].weight.grad"
    flat = lambda rows: [v for row in rows for v in row]  # noqa: E731
    assert flat(state["grad"]) == pytest.approx(flat(state["once"]), rel=1e-5, abs=1e-7)  # not twice it
    assert lab.console_errors == []
