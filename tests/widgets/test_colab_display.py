"""Where a widget writes its outputs: two (live view + static twin) in JupyterLab, one in
Colab, whose per-output frames would show the twin under the live view."""

from __future__ import annotations

import types

import IPython.display
import pytest

import minitorch
from minitorch.widgets.frontend import WIDGET_VIEW


@pytest.fixture
def shown(monkeypatch):
    calls = []

    def fake_display(data, metadata=None, raw=False, display_id=None):
        calls.append(dict(data))
        return types.SimpleNamespace(update=lambda *args, **kwargs: None)

    monkeypatch.setattr(IPython.display, "display", fake_display)
    return calls


def test_jupyterlab_gets_the_live_view_and_a_static_twin(shown, monkeypatch):
    monkeypatch.delitem(__import__("sys").modules, "google.colab", raising=False)
    minitorch.widgets.strides(minitorch.ones(2, 3))._ipython_display_()
    assert len(shown) == 2
    assert set(shown[0]) == {WIDGET_VIEW}
    assert "<svg" in shown[1]["text/html"] and WIDGET_VIEW not in shown[1]


def test_colab_gets_one_output_with_its_picture_inside(shown, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "google.colab", types.ModuleType("google.colab"))
    minitorch.widgets.strides(minitorch.ones(2, 3))._ipython_display_()
    assert len(shown) == 1
    assert WIDGET_VIEW in shown[0] and "<svg" in shown[0]["text/html"]
