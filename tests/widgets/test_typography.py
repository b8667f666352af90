"""One type scale, no text under 11 px: in every widget's CSS and JavaScript, and in the
static SVG picture each widget saves into a notebook (issue 16, item 7).

The scale lives in ``widgets/theme.css`` (``--mt-text-*``) and, for the pictures drawn in
Python, in ``minitorch/widgets/svg.py`` (``TYPE_SCALE``); the two must agree."""

from __future__ import annotations

import re

import pytest
from every_widget import every_widget

from minitorch.widgets import svg
from minitorch.widgets.frontend import styles, widgets_folder

SMALLEST_PX = 11
THEME_SIZE = re.compile(r"--mt-text-([\w-]+):\s*(\d+(?:\.\d+)?)px")
CSS_FONT_SIZE = re.compile(r"font-size\s*:\s*([^;}\"'`]+)")
CSS_FONT_SHORTHAND = re.compile(r"\bfont\s*:\s*([^;}\"'`]+)")
# Font sizes a script can set: a style string or property, an SVG attribute, a canvas font.
JS_SIZES = [
    re.compile(r"""font-size["']?\s*[:=,]\s*["'`]?\s*(\d+(?:\.\d+)?)"""),
    re.compile(r"""fontSize\s*[:=]\s*["'`]?(\d+(?:\.\d+)?)"""),
    re.compile(r"""\.font\s*=\s*["'`][^"'`]*?(\d+(?:\.\d+)?)px"""),
]
SVG_ROOT = re.compile(r"<svg\b[^>]*>")
SVG_SIZE = re.compile(r"""font-size(?:=["']|\s*:\s*)(\d+(?:\.\d+)?)""")


def theme_scale() -> dict[str, float]:
    return {name: float(px) for name, px in THEME_SIZE.findall((widgets_folder() / "theme.css").read_text())}


def css_problems(name: str, source: str) -> list[str]:
    """Every font size in a style sheet that is neither a scale variable nor a px size on
    the scale (``font: inherit`` and the like are fine: they take the parent's size)."""
    scale = theme_scale()
    problems = []
    shorthands = [v for v in CSS_FONT_SHORTHAND.findall(source) if re.search(r"\d", v)]
    values = CSS_FONT_SIZE.findall(source) + shorthands
    for value in (v.strip() for v in values):
        variable = re.fullmatch(r"var\(--mt-text-([\w-]+)\)", value)
        if variable:
            if variable.group(1) not in scale:
                problems.append(f"{name}: {value} is not on the scale {sorted(scale)}")
            continue
        if value in ("inherit", "initial"):
            continue
        px = re.search(r"(\d+(?:\.\d+)?)px", value)
        if px is None or float(px.group(1)) not in scale.values():
            problems.append(f"{name}: font size {value!r} is not one of {sorted(scale.values())} px")
    return problems


def js_problems(name: str, source: str) -> list[str]:
    scale = set(theme_scale().values())
    sizes = [float(size) for pattern in JS_SIZES for size in pattern.findall(source)]
    return [f"{name}: a script sets font size {size:g}, not one of {sorted(scale)} px" for size in sizes
            if size not in scale]  # fmt: skip


def svg_sizes(picture: str) -> list[float]:
    """The rendered size of each text of an SVG picture: its font-size times the root's
    scale (width over viewBox width), since a viewBox shrinks or grows the text with it."""
    root = SVG_ROOT.search(picture)
    scale = 1.0
    if root:
        width = re.search(r'\bwidth="(\d+(?:\.\d+)?)"', root.group(0))
        box = re.search(r'viewBox="[-\d.]+ [-\d.]+ (\d+(?:\.\d+)?)', root.group(0))
        if width and box and float(box.group(1)) > 0:
            scale = float(width.group(1)) / float(box.group(1))
    return [float(size) * scale for size in SVG_SIZE.findall(picture)]


def test_theme_and_python_pictures_share_one_scale() -> None:
    assert theme_scale() == {name: float(px) for name, px in svg.TYPE_SCALE.items()}
    assert min(svg.TYPE_SCALE.values()) >= SMALLEST_PX
    assert styles("common.css").startswith((widgets_folder() / "theme.css").read_text())


@pytest.mark.parametrize("path", sorted(widgets_folder().glob("*.css")), ids=lambda p: p.name)
def test_style_sheets_use_only_the_scale(path) -> None:
    assert css_problems(path.name, path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", sorted(widgets_folder().glob("*.js")), ids=lambda p: p.name)
def test_scripts_set_no_size_off_the_scale(path) -> None:
    assert js_problems(path.name, path.read_text(encoding="utf-8")) == []


def test_the_checks_catch_small_text() -> None:
    assert css_problems("a.css", ".x { font-size: 10px; }")
    assert css_problems("a.css", ".x { font: bold 9px monospace; }")
    assert css_problems("a.css", ".x { font-size: var(--mt-text-tiny); }")
    assert not css_problems("a.css", ".x { font-size: var(--mt-text-small); font: inherit; }")
    assert js_problems("a.js", 'svgEl("text", { "font-size": 9 })')
    assert js_problems("a.js", "context.font = '10px sans-serif';")
    assert js_problems("a.js", "label.style.fontSize = '8px';")
    assert svg_sizes('<svg width="200" viewBox="0 0 100 100"><text font-size="6">a</text></svg>') == [12.0]
    assert svg_sizes('<svg width="100" viewBox="0 0 200 100"><text font-size="12">a</text></svg>') == [6.0]


def test_every_static_picture_draws_text_on_the_scale() -> None:
    scale = set(theme_scale().values())
    for name, widget in every_widget().items():
        picture = widget.to_svg()
        sizes = svg_sizes(picture)
        assert sizes, f"{name}: no text sizes found"
        assert all(size >= SMALLEST_PX for size in sizes), f"{name}: text at {sorted(set(sizes))} px"
        assert set(sizes) <= scale, f"{name}: sizes {sorted(set(sizes) - scale)} are off the scale"
