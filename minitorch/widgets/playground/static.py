"""The Playground without a browser: a text summary and a small SVG picture.

Where no widget front end runs (a terminal, ``nbconvert`` to HTML, slides) the
Playground still shows something useful, as every minitorch widget does
(``MinitorchWidget.to_text`` / ``to_svg``):

* ``summary_text``: the settings line, the network's layer sizes, the epoch, losses and
  accuracy;
* ``boundary_svg``: the 100x100 decision boundary (a PNG image inside the SVG, written
  by ``png`` below in a dozen lines) with the training points on top;
* ``playground_svg``: the picture a saved notebook shows, laid out like the page: the
  epoch counter in the top band, then the output column (losses, the loss chart with
  the test loss dark and the training loss grey) beside the decision boundary.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import numpy as np

ORANGE = np.array([245, 147, 34])
MIDDLE = np.array([232, 234, 235])
BLUE = np.array([8, 119, 189])
PALETTE = [ORANGE, BLUE, np.array([57, 168, 69]), np.array([142, 68, 173])]


def png(rgb: np.ndarray) -> bytes:
    """An ``[height, width, 3]`` uint8 array as PNG file bytes: a signature, then
    chunks (length, type, data, CRC): the header, the zlib-compressed rows (each
    starting with filter byte 0), the end."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    height, width, _ = rgb.shape
    rows = b"".join(b"\x00" + rgb[row].astype(np.uint8).tobytes() for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9))
            + chunk(b"IEND", b""))  # fmt: skip


def _colours(values: np.ndarray) -> np.ndarray:
    """Values in [-1, 1] as RGB, orange .. grey .. blue (``[..., 3]`` uint8)."""
    values = np.clip(values, -1, 1)[..., None]
    end = np.where(values < 0, ORANGE, BLUE)
    return (MIDDLE + (end - MIDDLE) * np.abs(values)).round().astype(np.uint8)


def _colour(value: float) -> str:
    """A value in [-1, 1] as orange .. grey .. blue, like the page draws it."""
    value = float(np.clip(value, -1, 1))
    end = ORANGE if value < 0 else BLUE
    rgb = (MIDDLE + (end - MIDDLE) * abs(value)).round().astype(int)
    return f"rgb({rgb[0]},{rgb[1]},{rgb[2]})"


def summary_text(trainer: Any, message: str | None = None) -> str:
    """The trainer in a few lines; ``message`` (default: the trainer's) ends them."""
    from minitorch.widgets.playground.config import to_string

    lines = [f"minitorch Playground: {to_string(trainer.config) or 'default settings'}"]
    if trainer.model is not None and trainer.built is not None:
        lines.append(f"network {' -> '.join(str(size) for size in trainer.sizes)} "
                     f"({trainer.built.activation}), backend {trainer.built.backend}")  # fmt: skip
        current = trainer.current
        text = (f"epoch {trainer.epoch}: train loss {current.train_loss:.3f}, "
                f"test loss {current.test_loss:.3f}")  # fmt: skip
        if current.test_accuracy is not None:
            text += f", test accuracy {current.test_accuracy:.1%}"
        lines.append(text)
    message = trainer.message if message is None else message
    if message:
        lines.append(f"message: {message}")
    return "\n".join(lines)


def boundary_svg(keys: list[str], planes: bytes, points: dict[str, Any], size: int = 200) -> str:
    """The boundary plane of a frame, with the training points, as an SVG string."""
    cells = grid = 100
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
             f'viewBox="0 0 {cells} {cells}">']  # fmt: skip
    if "boundary" in keys and len(planes) >= (keys.index("boundary") + 1) * grid * grid:
        offset = keys.index("boundary") * grid * grid
        values = np.frombuffer(planes, dtype=np.uint8, count=grid * grid, offset=offset)
        image = base64.b64encode(png(_colours(values.reshape(grid, grid) / 127.5 - 1))).decode()
        parts.append(
            f'<image width="{cells}" height="{cells}" opacity="0.6" href="data:image/png;base64,{image}"/>'
        )
    classes = points.get("num_classes", 2)
    for x1, x2, label, is_train in points.get("rows", []):
        if not is_train:
            continue
        x, y = (x1 + 6) / 12 * cells, (6 - x2) / 12 * cells
        if classes == 0:
            fill = _colour(label)
        else:
            rgb = PALETTE[(int(label > 0) if classes == 2 else int(label)) % len(PALETTE)]
            fill = f"rgb({rgb[0]},{rgb[1]},{rgb[2]})"
        parts.append(
            f'<circle cx="{x:.2f}" cy="{y:.2f}" r="0.9" fill="{fill}" stroke="white" stroke-width="0.25"/>'
        )
    parts.append("</svg>")
    return "".join(parts)


def playground_svg(trainer: Any, boundary: str) -> str:
    """The Playground as a static picture (``boundary``: ``boundary_svg``'s output)."""
    from minitorch.widgets.playground.config import to_string
    from minitorch.widgets.playground.history import TEST_COLOUR, TRAIN_COLOUR
    from minitorch.widgets.svg import BODY, SMALL, TYPE_SCALE, Drawing

    drawing = Drawing(560, 300)
    drawing.rect(0, 0, 560, 64, fill="#f1f3f4", stroke="none")
    drawing.text(16, 22, "EPOCH", size=SMALL, color="muted", anchor="start")
    drawing.text(16, 50, f"{trainer.epoch:07,d}", size=TYPE_SCALE["number"], anchor="start")
    drawing.text(150, 22, "SETTINGS", size=SMALL, color="muted", anchor="start")
    drawing.text(150, 42, to_string(trainer.config) or "default settings", size=BODY, anchor="start")
    drawing.text(16, 90, "OUTPUT", size=SMALL, color="muted", anchor="start")
    history = list(trainer.history)
    if history:
        last = history[-1]
        rows = [("Test loss", f"{last.test_loss:.3f}"), ("Training loss", f"{last.train_loss:.3f}")]
        if last.test_accuracy is not None:
            rows.append(("Test accuracy", f"{last.test_accuracy:.1%}"))
        for k, (name, value) in enumerate(rows):
            drawing.text(16, 112 + 18 * k, name, size=BODY, anchor="start")
            drawing.text(150, 112 + 18 * k, value, size=BODY, anchor="start")
        left, top, width, height = 40, 180, 240, 90  # the loss chart: loss up, epoch across
        highest = max(max(e.test_loss, e.train_loss) for e in history) or 1.0
        drawing.line(left, top, left, top + height, color="muted")
        drawing.line(left, top + height, left + width, top + height, color="muted")
        drawing.text(left - 4, top + 8, f"{highest:.2g}", size=SMALL, color="muted", anchor="end")
        drawing.text(left - 4, top + height, "0", size=SMALL, color="muted", anchor="end")
        drawing.text(left + width, top + height + 14, f"epoch {history[-1].epoch}", size=SMALL,
                     color="muted", anchor="end")  # fmt: skip
        first = history[0].epoch
        span = max(history[-1].epoch - first, 1)
        for field, colour in (("train_loss", TRAIN_COLOUR), ("test_loss", TEST_COLOUR)):
            points = [(left + width * (e.epoch - first) / span,
                       top + height * (1 - getattr(e, field) / highest)) for e in history]  # fmt: skip
            if len(points) == 1:
                points.append(points[0])
            drawing.path(points, color=colour, width=1.5, arrow=False)
    nested = boundary.replace('<svg xmlns="http://www.w3.org/2000/svg"', '<svg x="330" y="84"', 1)
    drawing.parts.append(nested)  # an <svg> inside the picture, placed at (330, 84)
    drawing.text(330, 298, "orange -1 .. blue +1", size=SMALL, color="muted", anchor="start")
    return str(drawing)
