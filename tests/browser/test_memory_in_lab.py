"""The memory viewer in a real JupyterLab (server and Chromium: conftest.py).

A notebook makes a 2 MiB tensor ``x`` with a view ``xt`` and shows
``widgets.memory()``. The test checks that each pool is drawn as a strip of blocks, that
x's block is labelled with both names, that no text is under 11 px; that ``del x, xt``
in a later cell frees the block on screen; that a recorded block of code can be stepped
through with the slider; and that the viewer grows while a cell is still allocating (the
changes on screen come before the cell's last line prints).
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

NOTEBOOK = "memory_demo.ipynb"
CELLS = [
    """import json

import minitorch
from minitorch import widgets

x = minitorch.ones(512, 1024) * 2  # 2 MiB: a block of the large pool
xt = x.t()
small = minitorch.ones(8) * 1
mem = widgets.memory()
mem""",
    "del x, xt",
    """with mem.record():
    y = (small * 2).exp()
print("KERNEL-STATE " + json.dumps({"frames": len(mem.frames), "allocated": mem.state["allocated"]}))""",
    """import time

kept = [minitorch.ones(256, 256) * 1.0]
for i in range(10):  # 256 KiB more every half second: the viewer follows while the cell runs
    time.sleep(0.5)
    kept.append(minitorch.ones(256, 256) * 1.0)
print("LIVE-" + "DONE", flush=True)""",
]


def notebook_json() -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source} for source in CELLS]  # fmt: skip
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook)


def test_memory_viewer_draws_blocks_and_follows_the_notebook(lab_server, browser) -> None:
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
        widget = page.locator(".mt-memory")
        expect(widget).to_have_count(1, timeout=120_000)
        expect(widget.locator('.mt-pool[data-pool="large"]')).to_have_count(1)
        expect(widget.locator('.mt-pool[data-pool="small"]')).to_have_count(1)
        x_block = widget.locator(".mt-block.mt-allocated", has_text="xt (view of x)")
        expect(x_block).to_have_count(1)
        assert x_block.get_attribute("data-size") == str(2 << 20)
        expect(x_block.locator(".mt-block-label")).to_have_text("x, xt (view of x)")
        expect(widget.locator(".mt-block.mt-free")).not_to_have_count(0)  # the cached rest of a segment
        allocated = int(widget.get_attribute("data-allocated"))
        assert allocated >= 2 << 20
        sizes = widget.evaluate(
            "root => [...root.querySelectorAll('*')]"
            ".filter(e => [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))"
            ".map(e => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert sizes and min(sizes) >= 11, f"text smaller than 11 px: {sorted(sizes)[:5]}"
        lab.screenshot(widget, "memory")

        lab.run_cell(1)  # del x, xt: the block is freed, and the viewer shows it
        expect(widget.locator(".mt-block", has_text="xt (view of x)")).to_have_count(0, timeout=30_000)
        page.wait_for_function(
            "([el, before]) => Number(el.dataset.allocated) <= before - (2 << 20)",
            arg=[widget.element_handle(), allocated], timeout=30_000,
        )

        lab.run_cell(2)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
            ".some((e) => e.textContent.includes('KERNEL-STATE'))",
            timeout=60_000,
        )
        output = page.locator(".jp-OutputArea-output", has_text="KERNEL-STATE")
        state = json.loads(output.inner_text().split("KERNEL-STATE", 1)[1].splitlines()[0])
        slider = widget.locator(".mt-frame-slider")
        expect(slider).to_have_attribute("max", str(state["frames"] - 1))
        caption = widget.locator(".mt-frame-caption")
        expect(caption).to_contain_text(f"frame {state['frames']} of {state['frames']}: end of the block")
        slider.fill("1")  # the first change: y's product allocated
        expect(caption).to_contain_text(f"frame 2 of {state['frames']}: +512 B allocated in Mul (forward)")
        widget.locator(".mt-live").click()
        expect(caption).to_contain_text("showing the allocator now")
        lab.screenshot(widget, "memory-recorded")

        # Every change of the allocated bytes on screen, timed, and when the cell's last line
        # printed: a change before that came while the cell was still running.
        page.evaluate(
            """root => {
              window.mtChanges = [];
              const changed = () => window.mtChanges.push([performance.now(), +root.dataset.allocated]);
              new MutationObserver(changed)
                .observe(root, { attributes: true, attributeFilter: ["data-allocated"] });
              window.mtDone = null;
              const outputs = new MutationObserver(() => {
                const printed = document.body.textContent.includes("LIVE-DONE");
                if (window.mtDone === null && printed) window.mtDone = performance.now();
              });
              outputs.observe(document.body, { childList: true, subtree: true, characterData: true });
            }""",
            widget.element_handle(),
        )
        before = int(widget.get_attribute("data-allocated"))
        lab.run_cell(3)
        page.wait_for_function("() => window.mtDone !== null", timeout=60_000)
        changes, done = page.evaluate("() => [window.mtChanges, window.mtDone]")
        during = [allocated for at, allocated in changes if at < done and allocated > before]
        assert len(set(during)) >= 3, f"too few updates while the cell ran: {changes}, cell done at {done}"
        assert console_errors == []
    except Exception:
        page.screenshot(path=str(OUTPUT / "memory-failure.png"), full_page=True)
        outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
        (OUTPUT / "memory-failure.txt").write_text("\n----\n".join(outputs + [f"console: {console_errors}"]))
        raise
    finally:
        context.close()
