"""Fixtures for the Playground tests.

The Playground trains on the Numba backend (its default): the heatmaps feed a
10,000-point grid through the network, too slow for the reference backend's Python
loops. Every test starts from the same global random state.

The JupyterLab server fixture, the Chromium flags and the ``Lab`` page helper are the
widgets tests' own, from ``tests/browser/conftest.py``, loaded from that file by path.
Chromium itself is driven from a thread of its own (``BrowserThread``).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

import pytest

from .browser_thread import BrowserThread

_BROWSER_CONFTEST = Path(__file__).resolve().parents[1] / "browser" / "conftest.py"
_spec = importlib.util.spec_from_file_location("minitorch_browser_fixtures", _BROWSER_CONFTEST)
browser_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_fixtures)
lab_server = browser_fixtures.lab_server  # noqa: F401 - fixtures are found by name
NOTEBOOK = Path(__file__).with_name("playground_demo.ipynb")


def _open_notebook(worker: BrowserThread, base: str, token: str) -> Any:
    """In the browser thread: Chromium, the notebook, the Playground made and drawn."""
    chromium = worker.playwright.chromium.launch(
        executable_path=str(browser_fixtures.CHROMIUM), args=browser_fixtures.CHROMIUM_FLAGS, headless=True
    )
    context = chromium.new_context(viewport={"width": 1500, "height": 1700})  # the widget fits
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.goto(f"{base}/lab/tree/{NOTEBOOK.name}?token={token}&reset", wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.content", timeout=60_000)  # fmt: skip
    notebook = browser_fixtures.Lab(page, errors)
    notebook.chromium = chromium
    notebook.wait_for_idle_kernel()
    notebook.run_cell(1)  # make the Playground; the last cells run later, from the tests
    notebook.wait_for_idle_kernel(timeout=120_000)
    notebook.run_cell(2)
    page.wait_for_selector(".mt-pg .mt-pg-node canvas", timeout=120_000)
    page.wait_for_function("() => /\\d/.test(document.querySelector('.mt-pg-test-loss').textContent)",
                           timeout=60_000)  # fmt: skip
    notebook.wait_for_idle_kernel(timeout=120_000)
    notebook.widget = page.locator(".mt-pg").first
    notebook.output = browser_fixtures.OUTPUT
    return notebook


@pytest.fixture(scope="module")
def playground_lab(lab_server):
    """The Playground notebook open in JupyterLab (our own Chromium, in its own thread:
    see ``BrowserThread``); ``playground_lab.run(function, ...)`` runs in that thread."""
    base, token, root = lab_server
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    worker = BrowserThread()
    notebook = worker.run(_open_notebook, worker, base, token)
    notebook.run = worker.run
    yield notebook
    worker.run(notebook.chromium.close)
    worker.stop()
