"""Fixtures for the Playground tests.

The Playground trains on the Numba backend (its default): the heatmaps feed a
10,000-point grid through the network, too slow for the reference backend's Python
loops. Every test starts from the same global random state.

The browser fixtures (one JupyterLab server, one headless Chromium) are the widgets
tests' own, from ``tests/browser/conftest.py``, loaded from that file by path.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import minitorch

_BROWSER_CONFTEST = Path(__file__).resolve().parents[1] / "browser" / "conftest.py"
_spec = importlib.util.spec_from_file_location("minitorch_browser_fixtures", _BROWSER_CONFTEST)
browser_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_fixtures)
lab_server = browser_fixtures.lab_server  # noqa: F401 - fixtures are found by name
browser = browser_fixtures.browser  # noqa: F401


@pytest.fixture(autouse=True)
def _seed():
    minitorch.manual_seed(0)
    yield

