"""The graph viewer's static mode in a real JupyterLab (server and Chromium: conftest.py).

A notebook compiles a training step, runs it twice (warm-up, capture) and shows
``widgets.graph(step, autograd=loss)``. The test checks that the captured graph renders
every node the kernel sent, with its three phase bands, the parameters' names and text
of at least 11 px, beside the autograd graph; and that a click shows a kernel's details,
and a fused kernel's generated source (opening its phase first when the first view
collapsed it to fit the width: test_widths_in_lab.py checks the fitting).
"""

from __future__ import annotations

import importlib.util
import json
import re
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

NOTEBOOK = "static_graph_demo.ipynb"
CELLS = [
    """import json

import minitorch
from minitorch import nn, widgets

minitorch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
opt = minitorch.optim.SGD(model.parameters(), lr=0.03)
x, y = minitorch.randn(32, 2), minitorch.randn(32, 1)


@minitorch.compile(passes=["dead_code", "fuse_elementwise"])
def step(x, y):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss


loss = step(x, y)  # the first call runs eagerly: its loss has an autograd graph
step(x, y)  # the second call captures the graph of kernel calls
sg = widgets.graph(step, autograd=loss)
sg""",
    """fused = {n.name: n.source.splitlines()[0] for n in step.graph.nodes if n.primitive == "fused"}
print("KERNEL-STATE " + json.dumps({"nodes": len(sg.captured["nodes"]), "fused_sources": fused,
      "autograd_nodes": len(sg.autograd["nodes"]), "selected": sg.selected}))""",
]


def notebook_json() -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source} for source in CELLS]  # fmt: skip
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook)


def test_static_graph_renders_beside_the_autograd_graph(lab_server, browser) -> None:
    from playwright.sync_api import expect

    base, token, root = lab_server
    (Path(root) / NOTEBOOK).write_text(notebook_json())
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
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
        lab.run_cell(0)
        widget = page.locator(".mt-static-graph")
        try:
            expect(widget).to_have_count(1, timeout=120_000)
        except AssertionError:
            page.screenshot(path=str(OUTPUT / "static-graph-failure.png"), full_page=True)
            message = f"the static graph did not render; console errors: {console_errors}"
            raise AssertionError(message) from None
        captured = widget.locator(".mt-canvas-captured")
        autograd = widget.locator(".mt-canvas-autograd")
        nodes = int(widget.get_attribute("data-nodes"))
        # kernels plus buffers: a two-layer step's forward, backward and optimizer kernels
        # (18 since a leaf keeps a gradient no one else holds, with no copy kernel)
        assert nodes > int(widget.get_attribute("data-kernels")) > 15
        expect(captured.locator("[data-node]")).to_have_count(nodes)
        expect(autograd.locator("[data-node]")).not_to_have_count(0)
        expect(captured.locator(".mt-band")).to_have_count(3)
        phases = [captured.locator(".mt-band").nth(i).get_attribute("data-phase") for i in range(3)]
        assert phases == ["forward", "backward", "optimizer"]
        # read by the forward, read and written by the optimizer step
        expect(captured.locator(".mt-node.mt-kind-variable", has_text="model.0.weight")).to_have_count(3)
        expect(autograd.locator(".mt-node", has_text="model.0.weight")).to_have_count(1)
        sizes = widget.evaluate(
            "root => [...root.querySelectorAll('text, .mt-details, .mt-stats, .mt-column-title')]"
            ".map(e => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert sizes and min(sizes) >= 11, f"text smaller than 11 px: {sorted(sizes)[:5]}"
        lab.screenshot(widget, "static-graph")

        def open_band_of(node) -> None:  # a phase that did not fit the width is collapsed: open it
            if "mt-collapsed" in node.get_attribute("class"):
                captured.locator(f'[data-band-toggle="{node.get_attribute("data-band")}"]').click()
            expect(node).to_be_visible()

        matmul = captured.locator('[data-node="n0"]')
        open_band_of(matmul)
        matmul.click()
        expect(matmul).to_have_class(re.compile(r"(^|\s)mt-selected(\s|$)"))
        details = widget.locator(".mt-details")
        expect(details.locator(".mt-details-title")).to_contain_text("n0 matmul")
        expect(details).to_contain_text("forward")
        expect(details).to_contain_text("b0[1, 32, 2]")  # x, as the kernel read it
        fused = captured.locator(".mt-node.mt-kind-fused").first
        open_band_of(fused)
        fused.click()
        expect(details.locator(".mt-source")).to_contain_text("A fused elementwise kernel generated by")
        lab.screenshot(widget, "static-graph-fused-source")

        lab.run_cell(1)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
            ".some((e) => e.textContent.includes('KERNEL-STATE'))",
            timeout=60_000,
        )
        output = page.locator(".jp-OutputArea-output", has_text="KERNEL-STATE")
        state = json.loads(output.inner_text().split("KERNEL-STATE", 1)[1])
        assert state["nodes"] == nodes
        assert state["autograd_nodes"] == autograd.locator("[data-node]").count()
        assert state["selected"] == f"captured:{fused.get_attribute('data-node')}"
        assert state["fused_sources"][state["selected"].split(":")[1]] in details.inner_text()
        assert console_errors == []
    finally:
        context.close()
