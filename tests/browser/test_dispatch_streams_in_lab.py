"""The dispatch viewer's real-time rows, in a real JupyterLab (server and Chromium:
conftest.py): a host row and one row per CUDA stream, on one clock.

The notebook runs device "cuda" on the emulator and traces two kernels on the default
stream and one on a second stream. The test checks that the rows are named, that each
kernel bar sits on its stream's row no earlier than the host issued it, that a click
on a stream bar selects its call, and that the row labels are readable (11 px or more).
"""

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

NOTEBOOK = "dispatch_streams.ipynb"
CELLS = [
    """import json
import minitorch
from minitorch import widgets

minitorch.cuda.use_emulator()
x = minitorch.ones(32, 32, device="cuda")
(x @ x + x * 2).sum().item()  # compile the kernels before tracing
side = minitorch.cuda.Stream()""",
    """with widgets.dispatch_trace() as trace:
    y = x @ x
    with minitorch.cuda.stream(side):
        z = x * 2
    w = y + 1
minitorch.cuda.synchronize()
trace""",
    """rows = trace.runs[0]["timeline"]["streams"]
print("KERNEL-STATE " + json.dumps({"side": side._queue.name,
      "streams": [[name, [bar[0] for bar in bars]] for name, bars in rows]}))""",
]


def notebook_json() -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source} for source in CELLS]  # fmt: skip
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook)


def test_a_host_row_and_one_row_per_stream(lab_server, browser) -> None:
    from playwright.sync_api import expect

    base, token, root = lab_server
    (Path(root) / NOTEBOOK).write_text(notebook_json())
    context = browser.new_context(viewport={"width": 1200, "height": 1600})
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
    viewer = page.locator(".mt-dispatch")
    expect(viewer).to_have_count(1, timeout=180_000)
    output = page.locator(".jp-OutputArea-output", has_text="KERNEL-STATE").last
    output.wait_for(timeout=120_000)
    state = json.loads(output.inner_text().split("KERNEL-STATE ", 1)[1].strip())
    assert state["streams"] == [["default stream", [0, 2]], [state["side"], [1]]]

    real = viewer.locator("svg.mt-real-timeline")
    expect(real.locator("text.mt-row-label").first).to_have_text("host (Python)")
    labels = real.locator("text.mt-row-label").all_text_contents()
    assert labels[:3] == ["host (Python)", "default stream", state["side"]]
    expect(real.locator('rect[data-lane="host"]')).to_have_count(3)
    expect(real.locator('rect[data-lane="default stream"]')).to_have_count(2)
    side_bar = real.locator(f'rect[data-lane="{state["side"]}"]')
    expect(side_bar).to_have_count(1)
    for row in ("0", "1", "2"):  # a kernel runs on its stream no earlier than the host issued it
        host_x = float(real.locator(f'rect[data-lane="host"][data-row="{row}"]').get_attribute("x"))
        kernel = real.locator(f'rect[data-row="{row}"]:not([data-lane="host"])')
        assert float(kernel.get_attribute("x")) >= host_x
    sizes = real.locator("text.mt-row-label").evaluate_all(
        "nodes => nodes.map(n => parseFloat(getComputedStyle(n).fontSize))")  # fmt: skip
    assert min(sizes) >= 11
    side_bar.click()
    expect(viewer.locator(".mt-details-title")).to_contain_text("call #1")
    lab.screenshot(viewer, "dispatch-streams")
    assert not errors, errors
    context.close()
