"""One JupyterLab server and one headless Chromium for all browser tests.

The session starts ``jupyter lab`` on 127.0.0.1 (a free port, a random token, a
temporary root folder holding a copy of ``widgets_demo.ipynb``, fresh settings and
workspaces), opens the notebook with Playwright driving Debian's Chromium, runs every
cell and waits until each widget has rendered. Tests then click and hover in that one
page. Screenshots go to ``test-output/browser/`` (a CI artifact).

The tests are skipped, with the reason, only when ``/usr/bin/chromium`` is missing
(``bash tests/run.sh`` installs it when run as root, as CI does).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = Path(__file__).with_name("widgets_demo.ipynb")
OUTPUT = ROOT / "test-output" / "browser"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync",
]  # fmt: skip
# JupyterLab settings for a quiet, predictable page: no news popup, every cell rendered.
SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}  # fmt: skip
STARTUP_SECONDS = 90


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory):
    """A running JupyterLab: yields (base url, token, root folder)."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)  # autosave writes into the copy, not the repo
    settings, workspaces = root / ".settings", root / ".workspaces"
    for name, values in SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    workspaces.mkdir()
    port, token = _free_port(), secrets.token_hex(16)
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(workspaces),
        PYTHONPATH=python_path,
    )
    OUTPUT.mkdir(parents=True, exist_ok=True)
    log = open(OUTPUT / "jupyterlab.log", "w")  # noqa: SIM115 - closed below
    command = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True", "--allow-root",
    ]  # fmt: skip
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as reply:
                if reply.status == 200:
                    break
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            log.close()
            pytest.fail(f"JupyterLab did not start; see {OUTPUT / 'jupyterlab.log'}")
        time.sleep(0.5)
    yield base, token, root
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        yield chromium
        chromium.close()


class Lab:
    """The notebook page, plus what the browser console said."""

    def __init__(self, page, console_errors: list[str]) -> None:
        self.page = page
        self.console_errors = console_errors
        self.output = OUTPUT  # where screenshots and measurements go

    def command(self, name: str, args: dict | None = None) -> None:
        """Run a JupyterLab command (the app is exposed as window.jupyterapp)."""
        self.page.evaluate(
            "([name, args]) => window.jupyterapp.commands.execute(name, args)", [name, args or {}]
        )

    def wait_for_idle_kernel(self, timeout: float = 60_000) -> None:
        # The status bar shows the kernel's state once it is connected; the toolbar
        # says "idle" earlier, before Run All would work.
        self.page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
            ".some(e => /\\|\\s*Idle/.test(e.textContent))",
            timeout=timeout,
        )

    def run_cell(self, index: int) -> None:
        """Select cell ``index`` of the notebook and run it."""
        self.page.evaluate(
            "(i) => { const panel = window.jupyterapp.shell.currentWidget;"
            " panel.content.activeCellIndex = i; }",
            index,
        )
        self.command("notebook:run-cell")

    def screenshot(self, locator, name: str) -> Path:
        path = OUTPUT / f"{name}.png"
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(path))
        return path


@pytest.fixture(scope="session")
def lab(lab_server, browser):
    """The demo notebook open in JupyterLab, every cell run, every widget rendered."""
    base, token, _root = lab_server
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    page = context.new_page()
    console_errors: list[str] = []
    page.on(
        "console", lambda message: console_errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: console_errors.append(f"page error: {error}"))
    page.goto(f"{base}/lab/tree/{NOTEBOOK.name}?token={token}&reset", wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.content", timeout=60_000)  # fmt: skip
    notebook = Lab(page, console_errors)
    notebook.wait_for_idle_kernel()
    notebook.command("notebook:run-all-cells")
    try:
        page.wait_for_function(
            "() => document.querySelectorAll('.mt-strides.mt-widget').length >= 3"
            " && document.querySelectorAll('.mt-graph').length >= 2"
            " && document.querySelectorAll('.mt-dispatch').length >= 2",
            timeout=120_000,
        )
        notebook.wait_for_idle_kernel(timeout=120_000)
    except Exception:
        page.screenshot(path=str(OUTPUT / "startup-failure.png"), full_page=True)
        raise AssertionError(f"the widgets did not render; console errors: {console_errors}") from None
    yield notebook
    context.close()
