"""Screenshots of every widget at three notebook widths, for ``docs/widgets.md``.

    python scripts/widget_screenshots.py          # writes docs/screenshots/*.png

It starts JupyterLab on 127.0.0.1 (the browser tests' settings: a temporary root, a
random token, no news popups), opens a notebook with one cell per widget (the cells of
``tests/widgets/every_widget.py``) in headless Chromium driven by Playwright, runs it,
and for each width in ``WIDTHS`` sets the window to that width (the left sidebar
closed, so the notebook is about that wide), waits for the widgets to lay themselves
out again, and saves each widget's output, cropped to the widget, as
``docs/screenshots/<widget>-<width>.png``: a 256-colour palette PNG, a few tens of kB.
Then it writes the gallery page ``docs/widgets.md``. Run it after a visible change to
a widget, and commit the pictures with the change.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "widgets"), str(ROOT / "tests" / "browser")]

from conftest import CHROMIUM, CHROMIUM_FLAGS, SETTINGS, _free_port  # noqa: E402 - the browser tests' own
from every_widget import NOTEBOOK_CELLS  # noqa: E402

WIDTHS = (800, 1000, 1400)
SCREENSHOTS = ROOT / "docs" / "screenshots"
PAGE = ROOT / "docs" / "widgets.md"
# What each cell shows, for the gallery page.
CAPTIONS = {
    "strides": "`widgets.strides(t, tT=t.t(), row=t[1])`: one storage, three views of it.",
    "broadcast": "`widgets.broadcast(a, b)`: how the shapes of `a + b` line up.",
    "graph": "`widgets.graph(loss, params=model)`: the autograd graph, with step-through backward.",
    "static_graph": "`widgets.graph(compiled, autograd=eager_loss)`: a compiled training step's graph.",
    "dispatch_trace": "`widgets.dispatch_trace()`: every kernel a block dispatched (compilation apart).",
    "memory": "`widgets.memory()`: the caching allocator's blocks, labelled with their tensors.",
    "Playground": "`widgets.Playground(...)`: TensorFlow Playground on a real minitorch MLP.",
    "rank_timeline": "`widgets.rank_timeline(events)`: each rank's compute and communication on one clock.",
}
WIDGET_SELECTOR = ".mt-widget, .mt-pg"
SMALLEST_PX = 10  # 11 px text, drawn at 10/11 by a graph fitted to a narrow canvas
# How the widgets follow the width (the page's first section).
WIDTHS_SECTION = [
    "## Any width",
    "",
    "Every widget takes the width of its output and follows it when the notebook narrows",
    "(the file browser opens, the window shrinks): CSS for boxes and tables, and",
    "`watchWidth` (a `ResizeObserver`, `widgets/common.js`) for what is drawn to a width.",
    "Nothing scrolls sideways, and no text is drawn under 10 px.",
    "",
    "* **Graphs** are fitted when first shown and again whenever their canvas changes",
    "  width, at a zoom of 10/11 or more (the 11 px sub-labels stay at 10 px or more). What",
    "  does not fit at that zoom is collapsed into groups a student opens, not shrunk: a",
    "  watched model's autograd graph collapses its outermost modules (tick a box, or double",
    "  click the module, to open it); the captured graph of `minitorch.compile` collapses",
    "  phase bands into one row each (`▸ backward · 18 nodes`: click the name to open it),",
    "  first those too wide, then those that would make it taller than its canvas (the",
    "  forward phase always stays open); the autograd graph beside it moves below it",
    "  when half the widget cannot show the forward phase open.",
    "  A graph still too wide is drawn at 10/11 from its left edge and dragged sideways",
    "  inside its canvas, never the page.",
    "* **The dispatch viewer's table** wraps; a narrow run leaves out the columns the details",
    "  repeat (backend, dtype, strides, compile; then phase and primitive), and each row's",
    "  tooltip holds the whole call. A 2-D `x @ w` lists the matrices' shapes,",
    "  `(32,3) ← (32,2) ← (2,3)`; its details say the kernel ran on their batch of one,",
    "  `(1, 32, 3) ← (1, 32, 2) ← (1, 2, 3)`. The real-time timeline's time axis takes the",
    "  box's width.",
    "* **The memory viewer's strips** wrap onto more lines like text; a block's label is cut",
    "  with an ellipsis, whole in its tooltip and in the table. During a recording the",
    '  "peak" is the recording\'s own (the most bytes allocated since the block began), not',
    "  the allocator's peak since the start.",
    "* **The Playground** spreads the network's columns over its column (at least 54 px",
    "  apart: two hidden layers fit a 700 px window with the file browser open); its loss",
    "  chart marks the latest epoch with a dot, so it shows the first epoch already.",
    "",
    "`tests/browser/test_widths_in_lab.py` draws one of each widget at 1,400 px, 1,000 px and",
    "700 px with the file browser open, in one JupyterLab session, and checks all of this",
    "(no element scrolls sideways or sticks out, text of 10 px or more, graphs fitted after",
    "the resize, no console errors); its screenshots are `test-output/browser/widths-*.png`.",
]  # fmt: skip
# The smallest text a widget shows, as drawn: an element's font size times the scale of
# its SVG (a zoomed graph shrinks its labels); hidden elements do not count.
SMALLEST_TEXT = """(root) => {
  let smallest = Infinity, text = "";
  for (const e of root.querySelectorAll("*")) {
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const box = e.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    let size = parseFloat(getComputedStyle(e).fontSize);
    if (e instanceof SVGGraphicsElement) { const m = e.getScreenCTM(); size *= Math.hypot(m.a, m.b); }
    if (size < smallest) { smallest = size; text = e.textContent.trim().slice(0, 40); }
  }
  return [smallest, text];
}"""


def screenshot_name(widget: str, width: int) -> str:
    return f"{widget}-{width}.png"


def notebook_json() -> str:
    cells = [{"cell_type": "code", "metadata": {"name": name}, "source": source,
              "outputs": [], "execution_count": None} for name, source in NOTEBOOK_CELLS.items()]  # fmt: skip
    notebook = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    return json.dumps(notebook)


def start_lab(root: Path) -> tuple[subprocess.Popen, str]:
    """JupyterLab serving ``root``; returns the process and the notebook's URL."""
    for name, values in SETTINGS.items():
        path = root / ".settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    (root / ".workspaces").mkdir()
    port, token = _free_port(), secrets.token_hex(16)
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(root / ".settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(root / ".workspaces"), PYTHONPATH=python_path)  # fmt: skip
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
               f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
               "--allow-root"]  # fmt: skip
    quiet = subprocess.DEVNULL
    server = subprocess.Popen(command, stdout=quiet, stderr=quiet, env=env, cwd=root)
    base = f"http://127.0.0.1:{port}"
    for _ in range(180):
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                return server, f"{base}/lab/tree/widgets.ipynb?token={token}&reset"
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError("JupyterLab did not start")


def optimised_png(png: bytes) -> bytes:
    """The screenshot as a 256-colour palette PNG (widgets use few colours)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    image = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def take_screenshots(url: str) -> list[str]:
    """Write the pictures; return what drew text under ``SMALLEST_PX`` (empty if nothing)."""
    from playwright.sync_api import sync_playwright

    too_small = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS,
                                             headless=True)  # fmt: skip
        page = browser.new_page(viewport={"width": WIDTHS[-1], "height": 2400})
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                               " && window.jupyterapp.shell.currentWidget.content",
                               timeout=120_000)  # fmt: skip
        page.wait_for_function("() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
                               ".some(e => /\\|\\s*Idle/.test(e.textContent))", timeout=120_000)  # fmt: skip
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        rendered = f"document.querySelectorAll('{WIDGET_SELECTOR}').length >= {len(NOTEBOOK_CELLS)}"
        page.wait_for_function(f"() => {rendered}", timeout=300_000)
        page.wait_for_function("() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
                               ".some(e => /\\|\\s*Idle/.test(e.textContent))", timeout=300_000)  # fmt: skip
        visible_twins = page.locator(".minitorch-twin:visible").count()
        if visible_twins:  # the static twin must hide where the live view runs
            raise RuntimeError(f"{visible_twins} static twins are visible beside their live widgets")
        cells = page.locator(".jp-Notebook .jp-Cell")
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 2400})
            page.wait_for_timeout(2000)  # resize observers lay the widgets out again
            for index, name in enumerate(NOTEBOOK_CELLS):
                widget = cells.nth(index).locator(WIDGET_SELECTOR).first
                widget.scroll_into_view_if_needed()
                page.wait_for_timeout(300)
                path = SCREENSHOTS / screenshot_name(name, width)
                path.write_bytes(optimised_png(widget.screenshot(animations="disabled")))
                smallest, text = widget.evaluate(SMALLEST_TEXT)
                size = path.stat().st_size // 1024
                print(f"{path.relative_to(ROOT)}: {size} kB, smallest text {smallest:.1f} px")
                if smallest < SMALLEST_PX - 0.05:
                    too_small.append(f"{name} at {width} px: {text!r} drawn at {smallest:.1f} px")
        browser.close()
    return too_small


def write_page() -> None:
    lines = [
        "# The widgets at three widths",
        "",
        "Every widget of `minitorch.widgets`, as JupyterLab draws it in a notebook 800, 1,000",
        "and 1,400 pixels wide (the left sidebar closed). The pictures are made by",
        "`python scripts/widget_screenshots.py` from the cells of `tests/widgets/every_widget.py`;",
        "run it again after a visible change. The look follows one theme (`widgets/theme.css`):",
        "one type scale with no text under 11 px (a graph fitted to a narrow canvas draws it at",
        "10 px or more), colour only for meaning (blue inputs, green parameters, orange",
        "gradients and repeated reads, purple outputs, teal kernel time, grey dashed",
        "compilation), and the same colour for the same tensor in every widget.",
        "",
        *WIDTHS_SECTION,
        "",
    ]
    for name in NOTEBOOK_CELLS:
        lines += [f"## {name}", "", CAPTIONS[name], ""]
        for width in WIDTHS:
            lines += [f"![{name} at {width} px](screenshots/{screenshot_name(name, width)})", ""]
    PAGE.write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: install Debian's chromium (tests/run.sh does)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="widget-screenshots-"))
    (root / "widgets.ipynb").write_text(notebook_json(), encoding="utf-8")
    server, url = start_lab(root)
    try:
        too_small = take_screenshots(url)
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)
    write_page()
    if too_small:
        raise SystemExit(f"text under {SMALLEST_PX} px:\n" + "\n".join(too_small))


if __name__ == "__main__":
    main()
