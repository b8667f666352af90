"""The Playground in a real JupyterLab, driven by Playwright.

Uses the widgets tests' JupyterLab server and Chromium (``tests/browser/conftest.py``,
loaded by ``conftest.py`` here). Opens ``playground_demo.ipynb``, makes the Playground,
then, in order: plays and counts epochs (the in-browser speed is written to
``test-output/browser/playground-speed.txt``), changes the dataset and the network,
edits a weight, exports code, tries an impossible setting, drives the widget from
Python (the page redraws), and checks the browser console stayed clean. The screenshot
is ``test-output/browser/playground.png`` (the README's ``docs/images/playground.png``).

Tests in this module share one page and run in file order; ``@in_browser`` runs each
body in the thread that drives Chromium (see ``conftest.py``).
"""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import pytest

from .browser_thread import in_browser

pytestmark = pytest.mark.skipif(
    not Path("/usr/bin/chromium").exists(),
    reason="/usr/bin/chromium is missing: install Debian's chromium (bash tests/run.sh does, as root)",
)

STATE_CELL = 2
PYTHON_CELL = 3
SCREENSHOT_CELL = 4


def kernel_state(lab) -> dict:
    """Run the notebook's last cell and read the JSON it prints (each run prints its
    number, so an old output is never mistaken for the new one)."""
    lab.state_calls = getattr(lab, "state_calls", 1) + 1  # "run all" was the first
    lab.run_cell(STATE_CELL)
    wanted = f'"call": {lab.state_calls},'
    output = lab.page.locator(".jp-OutputArea-output", has_text=wanted)
    output.wait_for(timeout=60_000)
    text = output.last.text_content()
    return json.loads(text.split("KERNEL-STATE", 1)[1].strip())


def epoch(widget) -> int:
    return int(widget.locator(".mt-pg-epoch").text_content().replace(",", ""))


@in_browser
def test_play_counts_epochs_and_the_loss_falls(playground_lab) -> None:
    lab, page = playground_lab, playground_lab.page
    widget = lab.widget
    start_loss = float(widget.locator(".mt-pg-test-loss").text_content())
    assert epoch(widget) == 0
    widget.locator(".mt-pg-play").click()
    page.wait_for_function("() => parseInt(document.querySelector('.mt-pg-epoch').textContent"
                               ".replace(',', '')) >= 5", timeout=60_000)  # fmt: skip
    page.wait_for_timeout(1000)  # let the speed settle

    chrome = page.context.new_cdp_session(page)  # Chromium's own counters of the page's work
    chrome.send("Performance.enable")

    def now() -> tuple[int, float, int, float]:
        """Epoch shown, time, frames the page has drawn, seconds its main thread worked."""
        metrics = {m["name"]: m["value"] for m in chrome.send("Performance.getMetrics")["metrics"]}
        draws = int(widget.get_attribute("data-draws"))
        return epoch(widget), time.monotonic(), draws, metrics["TaskDuration"]

    first, started, first_draws, first_busy = now()
    page.wait_for_timeout(4000)
    second, ended, last_draws, last_busy = now()
    speed = widget.locator(".mt-pg-speed").text_content()  # the meter, read while playing
    epoch_time = widget.locator(".mt-pg-step-time").text_content()
    draw_ms = widget.get_attribute("data-draw-ms")
    widget.locator(".mt-pg-play").click()  # pause
    page.wait_for_function("() => document.querySelector('.mt-pg-play').textContent === '\u25b6'",
                               timeout=30_000)  # fmt: skip
    seconds = ended - started
    record = (f"epochs counted in the browser: {second - first} in {seconds:.1f} s = "
              f"{(second - first) / seconds:.1f} epochs/s; the meter: {speed} epochs/s ({epoch_time} "
              f"of training); the page drew {(last_draws - first_draws) / seconds:.1f} frames/s, "
              f"the last in {draw_ms} ms; its main thread was busy {(last_busy - first_busy) / seconds:.0%} "
              f"of the time")  # fmt: skip
    (lab.output / "playground-speed.txt").write_text(record + "\n")
    print(f"\nPlayground in JupyterLab: {record}")  # measured, never asserted: the machine varies
    assert second > first > 0
    assert re.fullmatch(r"\d+\.\d", speed), f"the meter shows {speed!r}, not epochs per second"
    assert re.fullmatch(r"\d+\.\d ms/epoch", epoch_time), epoch_time
    page.wait_for_timeout(500)
    assert float(widget.locator(".mt-pg-test-loss").text_content()) < start_loss
    curve = widget.locator(".mt-pg-chart")
    assert curve.is_visible()
    state = kernel_state(lab)
    assert state["epoch"] == epoch(widget) and state["history"] == state["epoch"]


def playground_shades() -> set[tuple[int, int, int, int]]:
    """The 30 shades (orange .. grey .. blue) a heatmap pixel may have, computed as
    playground.js's valueColour does, as opaque RGBA."""
    orange, middle, blue = (245, 147, 34), (232, 234, 235), (8, 119, 189)
    shades = set()
    for step in range(30):
        value = step / 29 * 2 - 1
        end = orange if value < 0 else blue
        shades.add((*(math.floor(m + (e - m) * abs(value) + 0.5) for m, e in zip(middle, end)), 255))
    return shades


@in_browser
def test_heatmap_pixels_are_playground_shades(playground_lab) -> None:
    """The page paints a heatmap through a table of whole 32-bit pixels: each pixel must
    come out as one of the 30 shades, opaque, in the right byte order."""
    widget = playground_lab.widget
    pixels = widget.locator("canvas.mt-pg-heatmap").evaluate(
        "(canvas) => Array.from(canvas.getContext('2d').getImageData(0, 0, 100, 100).data)"
    )
    seen = {tuple(pixels[i:i + 4]) for i in range(0, len(pixels), 4)}
    assert seen <= playground_shades(), seen - playground_shades()
    assert len(seen) > 3  # a trained boundary has many shades, not one colour


@in_browser
def test_change_the_dataset_and_the_network(playground_lab) -> None:
    lab, page = playground_lab, playground_lab.page
    widget = lab.widget
    widget.locator('[data-dataset="xor"]').click()
    page.wait_for_function("() => document.querySelector('[data-dataset=xor]').classList"
                               ".contains('mt-pg-selected')", timeout=30_000)  # fmt: skip
    # new data, so a new network: the epoch counter goes back to 0
    page.wait_for_function("() => document.querySelector('.mt-pg-epoch').textContent === '000,000'",
                           timeout=30_000)  # fmt: skip
    widget.locator(".mt-pg-add-layer").click()
    page.wait_for_function("() => /3 hidden layers/.test(document.querySelector('.mt-pg-layer-count')"
                               ".textContent)", timeout=30_000)  # fmt: skip
    widget.locator('.mt-pg-add-neuron[data-layer="1"]').click()
    page.wait_for_selector('.mt-pg-node[data-node="1:4"]', timeout=30_000)
    widget.locator('.mt-pg-input[data-feature="x1x2"]').click()  # switch a feature on
    page.wait_for_function("() => !document.querySelector('[data-feature=x1x2]').classList"
                               ".contains('mt-pg-off')", timeout=30_000)  # fmt: skip
    state = kernel_state(lab)
    assert state["dataset"] == "xor" and state["hidden"] == [5, 2, 2]
    assert state["features"] == ["x1", "x2", "x1x2"]
    # hovering a neuron shows its heatmap large
    widget.locator('.mt-pg-node[data-node="1:0"]').hover()
    assert "neuron 1 of layer 1" in widget.locator(".mt-pg-heatmap-title").text_content()


@in_browser
def test_edit_a_weight(playground_lab) -> None:
    lab, page = playground_lab, playground_lab.page
    widget = lab.widget
    link = widget.locator('.mt-pg-link-hit[data-layer="0"][data-neuron="1"][data-source="0"]')
    link.click()
    editor = widget.locator(".mt-pg-edit-input")
    editor.fill("2.5")
    editor.press("Enter")
    page.wait_for_timeout(300)
    state = kernel_state(lab)
    assert state["weight"] == 2.5  # model[0].weight[1, 0]
    page.mouse.move(0, 0)  # leave the link, so that hovering it again enters it
    link.hover()
    assert "2.500" in widget.locator(".mt-pg-hover-card").text_content()
    width = float(widget.locator('.mt-pg-link[data-layer="0"][data-neuron="1"][data-source="0"]')
                  .get_attribute("stroke-width"))  # fmt: skip
    assert width == pytest.approx(1 + 2.5 * 1.6, abs=0.01)  # the link's width shows |w|


@in_browser
def test_export_code(playground_lab) -> None:
    lab, page = playground_lab, playground_lab.page
    widget = lab.widget
    widget.locator(".mt-pg-export").click()
    page.wait_for_function("() => document.querySelector('.mt-pg-code').textContent"
                               ".includes('nn.Sequential(')", timeout=30_000)  # fmt: skip
    code = widget.locator(".mt-pg-code").text_content()
    assert "optimizer.step()" in code and "minitorch.data.xor(" in code
    compile(code, "<exported from the page>", "exec")
    assert kernel_state(lab)["code_lines"] == len(code.splitlines())


@in_browser
def test_impossible_settings_show_a_message_and_do_not_train(playground_lab) -> None:
    lab, page = playground_lab, playground_lab.page
    widget = lab.widget
    for feature in ("x1", "x2", "x1x2"):
        widget.locator(f'.mt-pg-input[data-feature="{feature}"]').click()
        page.wait_for_timeout(200)
    page.wait_for_function("() => /no input feature/.test(document.querySelector('.mt-pg-message')"
                               ".textContent)", timeout=30_000)  # fmt: skip
    before = epoch(widget)
    widget.locator(".mt-pg-play").click()
    page.wait_for_timeout(1500)
    assert epoch(widget) == before and widget.locator(".mt-pg-play").text_content() == "\u25b6"
    state = kernel_state(lab)
    assert "no input feature" in state["message"] and state["features"] == []
    widget.locator('.mt-pg-input[data-feature="x1"]').click()  # fixed: the message goes
    page.wait_for_function("() => document.querySelector('.mt-pg-message').textContent === ''",
                               timeout=30_000)  # fmt: skip


@in_browser
def test_beyond_playground_controls(playground_lab) -> None:
    """Three classes, snapshots, the gradient view, a point added by clicking,
    classroom mode and a shared settings string."""
    lab, page = playground_lab, playground_lab.page
    widget = lab.widget
    widget.locator('[data-dataset="blobs"]').click()  # three classes: cross-entropy
    page.wait_for_function("() => document.querySelectorAll('.mt-pg-add-label option').length === 3",
                           timeout=30_000)  # fmt: skip
    assert widget.locator(".mt-pg-layer-box", has_text="output (3 classes)").count() == 1
    widget.locator(".mt-pg-step").click()
    page.wait_for_function("() => document.querySelector('.mt-pg-epoch').textContent === '000,001'",
                           timeout=30_000)  # fmt: skip
    widget.locator(".mt-pg-snapshot").fill("0")  # scrub back to the first snapshot
    page.wait_for_function("() => document.querySelector('.mt-pg-epoch').textContent === '000,000'",
                           timeout=30_000)  # fmt: skip
    widget.locator(".mt-pg-step").click()
    page.wait_for_function("() => document.querySelector('.mt-pg-epoch').textContent === '000,001'",
                           timeout=30_000)  # fmt: skip
    widget.locator(".mt-pg-gradient-toggle").check()
    assert "\u2207W" in widget.locator(".mt-pg-grad-norm").first.text_content()
    widget.locator(".mt-pg-add-toggle").check()
    widget.locator(".mt-pg-add-label").select_option("2")
    before = kernel_state(lab)["points"]
    widget.locator(".mt-pg-points").click(position={"x": 150, "y": 150})
    page.wait_for_timeout(500)
    state = kernel_state(lab)
    assert state["points"] == before + 1 and state["last_point"] == [0.0, 0.0, 2.0]
    widget.locator("summary", has_text="Classroom mode").click()
    widget.locator('input[data-hide="noise"]').check()
    page.wait_for_function("() => getComputedStyle(document.querySelector('.mt-pg-noise')"
                           ".parentElement).display === 'none'", timeout=30_000)  # fmt: skip
    # The page hides the control at once; the kernel hears of it a moment later.
    for _ in range(20):
        if "noise" in kernel_state(lab)["hidden_controls"]:
            break
        page.wait_for_timeout(250)
    assert "noise" in kernel_state(lab)["hidden_controls"]
    shared = widget.locator(".mt-pg-share-input")
    assert "hidden_controls=noise" in shared.input_value()
    shared.fill(shared.input_value().replace("hidden_controls=noise", "hidden_controls=noise,speed"))
    widget.locator(".mt-pg-load").click()  # a shared string restores the settings
    page.wait_for_function("() => getComputedStyle(document.querySelector('.mt-pg-top [data-control=speed]'))"
                           ".display === 'none'", timeout=30_000)  # fmt: skip
    assert kernel_state(lab)["hidden_controls"] == ["noise", "speed"]


@in_browser
def test_driven_from_python_then_screenshot_and_a_clean_console(playground_lab) -> None:
    lab, page = playground_lab, playground_lab.page
    widget = lab.widget
    lab.run_cell(PYTHON_CELL)  # pg.set(dataset="spiral", ...) and pg.step(epochs=60)
    page.wait_for_function("() => document.querySelector('.mt-pg-epoch').textContent === '000,060'",
                           timeout=120_000)  # fmt: skip
    lab.wait_for_idle_kernel()
    assert widget.locator('[data-dataset="spiral"]').get_attribute("class").endswith("mt-pg-selected")
    assert widget.locator('.mt-pg-node[data-node="1:7"]').count() == 1  # 8 neurons drawn
    assert float(widget.locator(".mt-pg-test-loss").text_content()) < 0.2
    lab.run_cell(SCREENSHOT_CELL)  # a fresh Playground, trained 80 epochs
    fresh = page.locator(".mt-pg").nth(1)
    fresh.wait_for(timeout=120_000)
    page.wait_for_function("() => document.querySelectorAll('.mt-pg-epoch')[1]?.textContent === '000,080'",
                           timeout=120_000)  # fmt: skip
    lab.wait_for_idle_kernel()
    page.mouse.move(0, 0)
    path = lab.screenshot(fresh, "playground")
    assert path.stat().st_size > 10_000
    ignorable = re.compile(r"favicon|Failed to load resource.*404")
    errors = [e for e in lab.console_errors if not ignorable.search(e)]
    assert errors == [], errors
