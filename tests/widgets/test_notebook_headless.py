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
    widget_outputs = [output for cell in executed.cells if cell.cell_type == "code"
                      for output in cell.outputs if WIDGET_VIEW in output.get("data", {})]  # fmt: skip
    assert len(widget_outputs) == 7
    for output in widget_outputs:
        assert "<svg" in output["data"]["text/html"]
        assert output["data"]["text/plain"]
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
    assert body.count('class="minitorch-static"') == 7
