"""A very small SVG writer for the widgets' static pictures.

The static pictures (``widget.to_svg()``) are drawn in Python so they exist without a
browser: in ``nbconvert`` output, in a terminal session saved to a file, on slides.
They use the live widgets' theme (``widgets/theme.css``): the same type scale and the
same colours, so a saved notebook's picture looks like the widget it stands for.
"""

from __future__ import annotations

from html import escape

FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"
# The one type scale (px), as ``--mt-text-*`` in widgets/theme.css: no text under 11 px.
TYPE_SCALE = {"small": 11, "body": 12, "control": 13, "heading": 15, "title": 18, "number": 22}
SMALL, BODY, HEADING = TYPE_SCALE["small"], TYPE_SCALE["body"], TYPE_SCALE["heading"]
# What each colour means (strong colour, soft fill), as ``--mt-<meaning>`` in theme.css.
MEANING = {
    "input": ("#2f6fde", "#dbe9ff"),
    "param": ("#2e9e5b", "#cfe3d8"),
    "grad": ("#e8833a", "#ffe6d1"),
    "output": ("#7b4fc9", "#ece4fb"),
    "kernel": ("#13868a", "#d3eeee"),
    "compile": ("#6b7785", "#eef1f4"),
}
COLORS = {
    "ink": "#1f2933",
    "muted": "#6b7785",
    "line": "#c5ccd3",
    "cell": "#ffffff",
    "unused": "#eef1f4",
    "accent": "#2f6fde",
    "warm": "#e8833a",
    "good": "#2e9e5b",
    "bad": "#d64545",
    "leaf": MEANING["input"][1],
    "param": MEANING["param"][1],
    "op": "#f4f5f7",
    "output": MEANING["output"][1],
    "saved": "#fff1d6",
    "module": "#f4f5f7",
}


class Drawing:
    """Collects SVG elements; ``str(drawing)`` is the finished picture."""

    def __init__(self, width: float, height: float) -> None:
        self.width, self.height = width, height
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str = "cell",
             stroke: str = "line", radius: float = 0, dash: bool = False) -> None:  # fmt: skip
        style = ' stroke-dasharray="4 3"' if dash else ""
        self.parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{radius}" '
            f'fill="{COLORS.get(fill, fill)}" stroke="{COLORS.get(stroke, stroke)}"{style}/>'
        )

    def text(self, x: float, y: float, content: str, size: float = SMALL, color: str = "ink",
             anchor: str = "middle", bold: bool = False) -> None:  # fmt: skip
        weight = ' font-weight="bold"' if bold else ""
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'fill="{COLORS.get(color, color)}"{weight}>{escape(str(content))}</text>'
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str = "line",
             width: float = 1, dash: bool = False) -> None:  # fmt: skip
        style = ' stroke-dasharray="4 3"' if dash else ""
        self.parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{COLORS.get(color, color)}" stroke-width="{width}"{style}/>'
        )

    def path(self, points: list[tuple[float, float]], color: str = "muted", width: float = 1.2,
             dash: bool = False, arrow: bool = True) -> None:  # fmt: skip
        """A polyline through ``points`` (at least two), with an arrow head at the end."""
        d = "M " + " L ".join(f"{x:.1f} {y:.1f}" for x, y in points)
        style = ' stroke-dasharray="4 3"' if dash else ""
        marker = ' marker-end="url(#arrow)"' if arrow else ""
        self.parts.append(
            f'<path d="{d}" fill="none" stroke="{COLORS.get(color, color)}" '
            f'stroke-width="{width}"{style}{marker}/>'
        )

    def __str__(self) -> str:
        defs = (
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
            f'fill="{COLORS["muted"]}"/></marker></defs>'
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" '
            f'height="{self.height:.0f}" viewBox="0 0 {self.width:.0f} {self.height:.0f}" '
            f'font-family="{FONT}">{defs}<rect width="100%" height="100%" fill="#ffffff"/>'
            + "".join(self.parts)
            + "</svg>"
        )


def text_width(content: str, size: float = SMALL) -> float:
    """Rough width of monospace text (0.62 em per character)."""
    return len(content) * size * 0.62
