"""The demo notebook runs headless (nbclient), and its saved outputs carry a static
picture: exported to HTML without widget state, every widget still shows its SVG."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "tests" / "browser" / "widgets_demo.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()  # fmt: skip
    return notebook


def test_every_widget_cell_has_a_live_view_and_a_static_picture(executed) -> None:
    # each live view is followed by its static twin (the picture kept for places without widgets)
    pairs = [(outputs[i], outputs[i + 1]) for outputs in (c.get("outputs", []) for c in executed.cells)
             for i, output in enumerate(outputs) if WIDGET_VIEW in output.get("data", {})]  # fmt: skip
    assert len(pairs) == 7
    for _live, twin in pairs:
        assert "<svg" in twin["data"]["text/html"]
        assert twin["data"]["text/plain"]
    assert "state" in executed.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]


def test_kernel_state_after_a_headless_run(executed) -> None:
    text = "".join(o.get("text", "") for o in executed.cells[-1].outputs)
    state = json.loads(text.split("KERNEL-STATE", 1)[1])
    assert state["big_nodes"] >= 1000
    assert state["strides_views"] == 3 and state["strides_error"] == ""


def test_html_export_without_widget_state_shows_the_pictures(executed) -> None:
    from nbconvert import HTMLExporter

    notebook = nbformat.from_dict(json.loads(json.dumps(executed)))
    notebook.metadata.pop("widgets", None)  # what a front end without widgets would keep
    body, _ = HTMLExporter().from_notebook_node(notebook)
    assert body.count('class="minitorch-static minitorch-twin"') == 7
