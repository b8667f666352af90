"""The same colour for the same tensor in every widget of a page.

A student who sees ``w`` drawn in teal in the stride visualizer should find it in teal
in the graph viewer and in the memory widget too. So the colour of a tensor is not
chosen by each widget: ``tensor_color(t)`` hands out the colours of ``TENSOR_COLORS``
in turn, one per *storage* (a view shares its base's cells, so it shares its colour),
and remembers the choice while the storage lives::

    first time a storage is seen:   colour = TENSOR_COLORS[next_index % len(TENSOR_COLORS)]
                                    next_index += 1
    every later time:               the same colour

The storage is held weakly (``weakref.ref`` with a callback that forgets it), so
colouring a tensor never keeps its memory alive: the memory widget must see a freed
block as freed. Widgets draw this colour as an outline or a strip beside a tensor's
name, never as the fill that means input, parameter, gradient or output
(``widgets/theme.css``).
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

# Eight colours that differ from each other and from the theme's meaning colours
# (blue input, green parameter, orange gradient, purple output), in an order where
# neighbours (tensors made one after another) are far apart in hue.
TENSOR_COLORS = ("#c2185b", "#0097a7", "#8d6e00", "#5e35b1", "#d84315", "#455a64", "#f9a825", "#6d4c41")

_color_of: dict[int, tuple[weakref.ref, str]] = {}  # id(storage) -> (a weak reference to it, colour)
_next_index = itertools.count()


def storage_of(t: Any) -> Any:
    """The object that owns ``t``'s cells (its storage), shared by all its views."""
    return getattr(t, "_storage", t)


def tensor_color(t: Any) -> str:
    """The colour of tensor ``t`` (or of a storage) on this page: the same for every view
    of one storage, in every widget, for as long as the storage lives."""
    storage = storage_of(t)
    key = id(storage)
    known = _color_of.get(key)
    if known is not None and known[0]() is storage:
        return known[1]
    color = TENSOR_COLORS[next(_next_index) % len(TENSOR_COLORS)]
    _color_of[key] = (weakref.ref(storage, lambda _ref, key=key: _forget(key, _ref)), color)
    return color


def _forget(key: int, ref: weakref.ref) -> None:
    """A storage was freed: its id may be reused by a new one, which gets a new colour."""
    if key in _color_of and _color_of[key][0] is ref:
        del _color_of[key]
