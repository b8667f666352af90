"""A course notebook, opened and run in a real JupyterLab, as a student would.

Uses the session's JupyterLab server and Chromium (``conftest.py``), in a page of its
own: the chapter on storage and strides runs top to bottom with no error output and no
browser console errors, and its stride pictures render as live widgets.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

# The constants and the Lab helper of this folder's conftest (its fixtures pytest finds itself).
_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
_browser = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_browser)
CHROMIUM, OUTPUT, ROOT, Lab = _browser.CHROMIUM, _browser.OUTPUT, _browser.ROOT, _browser.Lab

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing: install Debian's chromium (bash tests/run.sh does, as root)",
)

CHAPTER = ROOT / "notebooks" / "01_tensors_storage_strides.ipynb"


def test_course_chapter_runs_in_jupyterlab(lab_server, browser) -> None:
    base, token, root = lab_server
    shutil.copy(CHAPTER, Path(root) / CHAPTER.name)  # the server's folder, not the repo
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(f"page error: {error}"))
    try:
        page.goto(f"{base}/lab/tree/{CHAPTER.name}?token={token}&reset", wait_until="domcontentloaded")
        page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
            " && window.jupyterapp.shell.currentWidget.content",
            timeout=60_000,
        )
        notebook = Lab(page, console_errors)
        notebook.wait_for_idle_kernel()
        notebook.command("notebook:run-all-cells")
        # Every code cell gets an execution count once it has run.
        page.wait_for_function(
            "() => { const cells = [...document.querySelectorAll('.jp-CodeCell')];"
            " return cells.length > 0 && cells.every(c => /\\[\\d+\\]/.test("
            "c.querySelector('.jp-InputPrompt').textContent)); }",
            timeout=240_000,
        )
        notebook.wait_for_idle_kernel(timeout=120_000)
        page.screenshot(path=str(OUTPUT / "course-chapter-01.png"), full_page=False)
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        tracebacks = [text for text in errors.all_inner_texts() if "Traceback" in text or "Error" in text]
        assert not tracebacks, f"the chapter printed errors: {tracebacks[:2]}"
        assert page.locator(".mt-widget").count() >= 1, "the chapter's stride pictures did not render"
        # The Colab badge is an image on the internet, which the test machine cannot reach.
        ours = [e for e in console_errors if "ERR_NAME_NOT_RESOLVED" not in e]
        assert not ours, f"browser console errors: {ours}"
    finally:
        context.close()
