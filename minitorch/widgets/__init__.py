"""Live widgets that draw minitorch's data structures inside a notebook.

* ``strides(t, *views)`` and ``broadcast(a, b)``: storage, strides, views, aliasing;
* ``graph(output, params=None)``: the autograd graph, with step-through backward;
* ``dispatch_trace()``: every kernel call a block of code dispatched;
* ``watch(model=None)``: a block whose graph nodes remember their module and kernels;
* ``memory(device="cpu")``: the caching allocator's blocks, labelled with their tensors;
* ``rank_timeline(events)``: each rank's compute and communication on one clock;
* ``Playground``: TensorFlow Playground on a real minitorch MLP (``widgets/playground/``).

They are anywidgets (Python models here, plain ES modules in the top-level
``widgets/`` folder), so they run in JupyterLab, Colab and VS Code. Where no widget
front end exists (nbconvert, a terminal) each shows a static SVG picture or text.
Without anywidget installed, importing this package still works (the playground's
headless trainer needs no widgets); using a widget then says what to install.
"""

from __future__ import annotations

from typing import Any

try:
    from minitorch.widgets.dispatch_viewer import DispatchWidget, dispatch_trace
    from minitorch.widgets.graph import GraphWidget, graph
    from minitorch.widgets.memory import MemoryWidget, memory
    from minitorch.widgets.rank_timeline import RankTimelineWidget, rank_timeline
    from minitorch.widgets.strides import StrideWidget, broadcast, strides
    from minitorch.widgets.watch import watch
except ImportError as error:  # anywidget or ipywidgets is missing
    _missing = error

__all__ = [
    "DispatchWidget", "GraphWidget", "MemoryWidget", "Playground", "RankTimelineWidget", "StrideWidget",
    "broadcast", "dispatch_trace", "graph", "memory", "rank_timeline", "strides", "watch",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name == "Playground":  # imported on first use: it is a bigger package
        from minitorch.widgets.playground import Playground

        return Playground
    if name in __all__:
        raise ImportError(f"minitorch.widgets.{name} is unavailable: {_missing}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
