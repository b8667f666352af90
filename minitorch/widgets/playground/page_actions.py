"""The buttons of the Playground's page, as Python calls.

A button (play, step, edit a weight, add a point...) arrives from the page as a message
``{"action": name, ...}`` with its arguments beside the name. ``ACTIONS`` maps each name
to the public method of ``Playground`` that does the same from code, so a click and
``pg.step(1)`` are one call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ACTIONS: dict[str, Callable[[Any, dict], Any]] = {
    "play": lambda pg, m: pg.play(),
    "pause": lambda pg, m: pg.pause(),
    "step": lambda pg, m: pg.step(1),
    "reset": lambda pg, m: pg.reset(),
    "regenerate": lambda pg, m: pg.regenerate(),
    "set_weight": lambda pg, m: pg.set_weight(m["layer"], m["neuron"], m["source"], m["value"]),
    "set_bias": lambda pg, m: pg.set_bias(m["layer"], m["neuron"], m["value"]),
    "add_point": lambda pg, m: pg.add_point(m["x1"], m["x2"], m["label"]),
    "export": lambda pg, m: pg.export_code(),
    "restore": lambda pg, m: pg.restore(m["index"]),
    "load_string": lambda pg, m: pg._load_string(m["text"]),
}
