"""The front-end files: found in a checkout or a wheel, bundled into valid modules, and
every widget's output carries a static fallback next to the live view."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import minitorch
from minitorch.widgets import broadcast, dispatch_trace, frontend, graph, strides
from minitorch.widgets.frontend import bundle, widgets_folder

ENTRIES = ["strides.js", "graph.js", "dispatch.js"]


def test_front_end_files_ship_with_the_package() -> None:
    names = {path.name for path in widgets_folder().iterdir()}
    assert {"common.js", "common.css", "strides.css", "graph.css", "dispatch.css", *ENTRIES} <= names


@pytest.mark.parametrize("entry", ENTRIES)
def test_bundles_inline_each_dependency_once(entry: str) -> None:
    source = bundle(entry)
    assert source.count("===== widgets/common.js =====") == 1
    assert "import {" not in source
    assert source.count("===== widgets/connection.js =====") == 1
    assert source.rstrip().endswith("export default { render: liveRender(render) };")  # marks it live


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("entry", ENTRIES)
def test_bundles_are_valid_javascript(entry: str, tmp_path) -> None:
    path = tmp_path / (entry.replace(".js", ".mjs"))
    path.write_text(bundle(entry))
    result = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_bundle_rejects_imports_it_cannot_inline(tmp_path, monkeypatch) -> None:
    (tmp_path / "a.js").write_text('import { x as y } from "./b.js";\nexport default { render };\n')
    (tmp_path / "b.js").write_text("export const x = 1;\n")
    shutil.copy(widgets_folder() / "connection.js", tmp_path)  # every bundle includes it
    monkeypatch.setattr(frontend, "widgets_folder", lambda: tmp_path)
    with pytest.raises(RuntimeError, match="without `as`"):
        bundle("a.js")
    (tmp_path / "a.js").write_text('import * as b from "./b.js";\nexport default { render };\n')
    with pytest.raises(RuntimeError, match="use only"):
        bundle("a.js")


def test_every_widget_has_a_static_fallback() -> None:
    t = minitorch.arange(6.0).view(2, 3)
    x = minitorch.randn(2, requires_grad=True)
    with dispatch_trace() as trace:
        loss = (x * x).sum()
    for widget in [strides(t, t.t()), broadcast(t, t[0]), graph(loss), trace]:
        data, _ = widget._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in data
        assert data["text/html"].startswith('<div class="minitorch-static"><svg')
        assert data["text/plain"] == widget.to_text() == repr(widget)


def test_save_writes_svg_or_text(tmp_path) -> None:
    widget = strides(minitorch.arange(4.0))
    assert widget.save(tmp_path / "t.svg").read_text().startswith("<svg")
    assert "storage 0" in widget.save(tmp_path / "t.txt").read_text()
    with pytest.raises(ValueError, match=".svg or .txt"):
        widget.save(tmp_path / "t.png")


def test_export_button_gets_the_svg_from_python() -> None:
    widget = strides(minitorch.arange(4.0))
    sent = []
    widget.send = sent.append
    widget._send_svg_on_request(widget, {"type": "export"}, None)
    assert sent[0]["type"] == "svg" and sent[0]["svg"] == widget.to_svg()
