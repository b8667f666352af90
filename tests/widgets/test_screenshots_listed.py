"""docs/widgets.md shows every public widget at the three widths, from files that exist
(``scripts/widget_screenshots.py`` makes them; issue 16, item 7)."""

from __future__ import annotations

import inspect
import struct
from pathlib import Path

from every_widget import NOTEBOOK_CELLS

import minitorch.widgets

ROOT = Path(__file__).resolve().parents[2]
WIDTHS = (800, 1000, 1400)  # as scripts/widget_screenshots.py
MOST_BYTES = 120_000  # cropped to the widget, a palette PNG: tens of kB


def public_widgets() -> set[str]:
    """The names a student calls to make a widget: the lower-case functions of
    ``minitorch.widgets`` except ``watch`` (a recording block, drawn by ``graph``), and
    the Playground."""
    names = {name for name in minitorch.widgets.__all__
             if name[0].islower() and inspect.isfunction(getattr(minitorch.widgets, name))}  # fmt: skip
    return (names - {"watch"}) | {"Playground"}


def test_every_public_widget_has_a_cell() -> None:
    assert public_widgets() <= set(NOTEBOOK_CELLS)


def test_the_page_shows_each_widget_at_three_widths() -> None:
    page = (ROOT / "docs" / "widgets.md").read_text(encoding="utf-8")
    for name in NOTEBOOK_CELLS:
        for width in WIDTHS:
            relative = f"screenshots/{name}-{width}.png"
            assert f"]({relative})" in page, f"docs/widgets.md does not show {relative}"
            png = (ROOT / "docs" / relative).read_bytes()
            assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) <= MOST_BYTES, relative
            drawn_width = struct.unpack(">I", png[16:20])[0]  # the IHDR chunk's width
            assert drawn_width <= width, f"{relative} is wider ({drawn_width} px) than its notebook"
