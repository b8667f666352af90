"""Where the live model is gone, each widget's static picture shows instead of ipywidgets'
"Error displaying widget: model not found": after a kernel restart in the same page, and
after reopening the saved notebook (the kernel restarted, no widget state saved). A page
reloaded while the kernel still runs shows the live views again, their pictures hidden.

Its own small notebook, workspace and page, so the demo notebook's kernel is untouched.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import CHROMIUM, Lab

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Chromium at /usr/bin/chromium")

CELLS = [
    "import minitorch\nfrom minitorch import widgets",
    "widgets.strides(minitorch.arange(6.0).view(2, 3))",
    "x = minitorch.tensor([1.0, 2.0], requires_grad=True)\nwidgets.graph((x * x).sum(), params={'x': x})",
]
NAME = "restart_demo.ipynb"
LIVE = ".mt-live .mt-widget"  # a widget's view, connected to its kernel (widgets/connection.js)
VIEW = ".mt-widget"  # a widget's view, connected or not
TWIN = ".minitorch-twin svg"


def notebook_json() -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
             for source in CELLS]  # fmt: skip
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return json.dumps(
        {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    )


def visible_count(page, selector: str) -> int:
    return page.evaluate(
        "(s) => [...document.querySelectorAll(s)].filter(e => e.checkVisibility()).length", selector
    )


def model_not_found_shown(page) -> bool:
    return page.evaluate(
        "() => [...document.querySelectorAll('.jp-OutputArea-output')].some(e =>"
        " /model not found|Error displaying widget/.test(e.textContent) && e.checkVisibility())"
    )


def wait_until_settled(page) -> None:
    """Until no widget output still says "Loading widget..." (ipywidgets then knows the
    model is gone and writes its error, which must stay hidden)."""
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.jp-OutputArea-output')]"
        ".some(e => e.textContent.startsWith('Loading widget'))",
        timeout=60_000,
    )


def test_restart_and_reopen_show_the_static_pictures(lab_server, browser) -> None:
    base, token, root = lab_server
    (root / NAME).write_text(notebook_json())
    context = browser.new_context(viewport={"width": 1200, "height": 1600})
    page = context.new_page()
    url = f"{base}/lab/workspaces/restart/tree/{NAME}?token={token}&reset"
    ready = ("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
             " && window.jupyterapp.shell.currentWidget.content")  # fmt: skip
    try:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_function(ready, timeout=60_000)
        lab = Lab(page, [])
        lab.wait_for_idle_kernel()
        lab.command("notebook:run-all-cells")
        page.wait_for_function(f"() => document.querySelectorAll('{LIVE}').length >= 2", timeout=120_000)
        lab.wait_for_idle_kernel(timeout=120_000)
        assert visible_count(page, LIVE) == 2 and visible_count(page, TWIN) == 0  # live: twins hidden
        lab.command("docmanager:save")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty",
                               timeout=30_000)  # fmt: skip
        assert (root / NAME).read_text().count("minitorch-twin") >= 2

        page.goto(url, wait_until="domcontentloaded")  # a reload: the kernel still has the models
        page.wait_for_function(ready, timeout=60_000)
        page.wait_for_function(f"() => document.querySelectorAll('{LIVE}').length >= 2", timeout=60_000)
        wait_until_settled(page)
        assert visible_count(page, LIVE) == 2 and visible_count(page, TWIN) == 0, "live again, twins hidden"

        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
        lab.wait_for_idle_kernel(timeout=120_000)
        page.wait_for_function(f"() => document.querySelectorAll('{LIVE}').length === 0", timeout=30_000)
        wait_until_settled(page)
        page.screenshot(path=str(lab.output / "restart-same-page.png"), full_page=True)
        assert visible_count(page, TWIN) == 2, "after a restart each widget's picture shows"
        assert visible_count(page, VIEW) == 0, "and the disconnected views are hidden"
        assert not model_not_found_shown(page)

        page.goto(url, wait_until="domcontentloaded")  # reopen: the kernel has no models now
        page.wait_for_function(ready, timeout=60_000)
        lab.wait_for_idle_kernel()
        page.wait_for_function(f"() => document.querySelectorAll('{TWIN}').length >= 2", timeout=60_000)
        page.wait_for_timeout(3000)  # ipywidgets waits about 2 s for a model before it gives up
        wait_until_settled(page)
        page.screenshot(path=str(lab.output / "restart-reopened.png"), full_page=True)
        assert visible_count(page, TWIN) == 2, "the reopened notebook shows each widget's picture"
        assert not model_not_found_shown(page)
        assert visible_count(page, VIEW) == 0
    finally:
        context.close()
