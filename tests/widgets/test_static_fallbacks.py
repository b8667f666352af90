"""A saved notebook shows every widget where widgets cannot run (issue 16, item 8).

GitHub and nbviewer render a saved notebook without a kernel and without widget state:
what they show is each output's ``text/html``. We run a notebook with every widget in a
real kernel (nbclient), save it, and check that each widget's output carries its static
twin, an SVG picture of the widget's content; that the twin is current (a change after
the widget was displayed reaches the saved picture); and that ``nbconvert`` renders the
pictures into HTML."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
nbconvert = pytest.importorskip("nbconvert")

from every_widget import NOTEBOOK_CELLS  # noqa: E402 - after the skips

from minitorch.widgets.frontend import WIDGET_VIEW, Throttle  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# What each widget's picture must show: text drawn from the program's own tensors.
CONTENT = {
    "strides": ["tT", "row", "storage 0"],
    "broadcast": ["broadcasting a + b", "(2, 3)"],
    "graph": ["AddmmBackward0", "2.bias", "output"],
    "dispatch_trace": ["Relu", "calls", "compile (once)"],
    "static_graph": ["forward", "backward", "optimizer", "model.0.weight"],
    "memory": ["memory on cpu", "small pool"],
    "Playground": ["EPOCH", "Test loss", "<image", "<circle"],
    "rank_timeline": ["GPipe on 2 stages", "rank 1", "4 micro-batches", "hidden"],
}
# After display, change the state: the saved pictures must show the change (the last
# picture is sent at the end of the cell, not by the throttle's timer, which a loaded
# machine may run late).
LATER = """\
import hashlib
pg.step(epochs=30)
print(hashlib.sha1(pg.to_svg().encode()).hexdigest())"""


@pytest.fixture(scope="module")
def saved_notebook(tmp_path_factory) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source, metadata={"name": name})
                      for name, source in NOTEBOOK_CELLS.items()]  # fmt: skip
    notebook.cells.append(nbformat.v4.new_code_cell(
        LATER,
        metadata={"name": "later"}))  # fmt: skip
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    os.environ["PYTHONPATH"] = pythonpath  # the kernel imports this checkout's minitorch
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3")
    client.execute()
    path = tmp_path_factory.mktemp("saved") / "every_widget.ipynb"
    nbformat.write(notebook, path)
    return nbformat.read(path, as_version=4)


def cell(notebook, name: str):
    return next(c for c in notebook.cells if c.metadata.get("name") == name)


@pytest.mark.parametrize("name", list(NOTEBOOK_CELLS))
def test_each_saved_widget_carries_its_picture(saved_notebook, name: str) -> None:
    outputs = cell(saved_notebook, name).outputs
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, errors
    live = [o for o in outputs if WIDGET_VIEW in o.get("data", {})]
    static = [o for o in outputs if "text/html" in o.get("data", {})]
    assert len(live) == 1 and len(static) == 1, [o.get("data", {}).keys() for o in outputs]
    picture = static[0].data["text/html"]
    assert picture.startswith('<div class="minitorch-static minitorch-twin"><svg')
    assert static[0].metadata.get("transient") is None  # nothing needed only while running
    for shown in CONTENT[name]:
        assert shown in picture, f"{name}'s saved picture lacks {shown!r}"


def test_saved_pictures_are_current(saved_notebook) -> None:
    import hashlib

    later = cell(saved_notebook, "later")
    final = "".join(o.text for o in later.outputs if o.output_type == "stream").strip()
    twin = next(o for o in cell(saved_notebook, "Playground").outputs if "text/html" in o.get("data", {}))
    assert "epoch 35" in twin.data["text/plain"]  # 5 epochs before it was displayed, 30 after
    picture = twin.data["text/html"].split('minitorch-twin">')[1].split("<details>")[0]
    assert hashlib.sha1(picture.encode()).hexdigest() == final


def test_nbconvert_renders_the_pictures_without_widget_state(saved_notebook) -> None:
    saved_notebook.metadata.pop("widgets", None)  # as GitHub sees it: no widget state
    body, _ = nbconvert.HTMLExporter().from_notebook_node(saved_notebook)
    assert body.count('class="minitorch-static minitorch-twin"><svg') == len(NOTEBOOK_CELLS)
    for shown in ["tT", "model.0.weight", "memory on cpu", "Relu"]:
        assert shown in body


def test_throttle_runs_at_once_then_once_more_for_the_last_request() -> None:
    import threading
    import time

    runs: list[float] = []
    done = threading.Event()
    throttle = Throttle(0.2, lambda: (runs.append(time.monotonic()), len(runs) == 2 and done.set()))
    for _ in range(50):
        throttle.request()
    assert len(runs) == 1  # the first at once, the other 49 wait
    assert done.wait(5)
    time.sleep(0.3)
    assert len(runs) == 2 and runs[1] - runs[0] >= 0.19


def test_throttle_flush_runs_the_waiting_run_at_once_and_only_then() -> None:
    runs: list[int] = []
    throttle = Throttle(60.0, lambda: runs.append(len(runs)))
    throttle.flush()
    assert runs == []  # nothing waits: nothing runs
    throttle.request()
    throttle.request()
    assert runs == [0]  # the second waits a minute
    throttle.flush()
    assert runs == [0, 1]
    throttle.flush()
    assert runs == [0, 1]  # served: the timer was cancelled
