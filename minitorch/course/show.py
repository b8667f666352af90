"""Pictures for the notebooks: a widget when ``minitorch.widgets`` has one, else text.

The notebooks call ``show_layout(t)``, ``show_trace(calls)`` and ``show_graph(t)``. In
JupyterLab or Colab with the widgets installed these return the live widget (it is the
cell's result, so Jupyter draws it); anywhere else, or headless, they print a text picture
of the same information, so every notebook also reads well as plain text.
"""

from __future__ import annotations

from typing import Any

import minitorch
from minitorch.layout import index_to_position, numel, ordinal_to_index


def _widget(name: str, *args: Any, **kwargs: Any) -> Any:
    """``minitorch.widgets.<name>(*args, **kwargs)``, or ``None`` when it cannot be shown."""
    try:
        import importlib

        widgets = importlib.import_module("minitorch.widgets")
        factory = getattr(widgets, name)
        return factory(*args, **kwargs)
    except Exception:  # noqa: BLE001 (widgets not installed or not landed: use text)
        return None


def layout_text(t: minitorch.Tensor, name: str = "t", limit: int = 12) -> str:
    """The storage cells, and where the first few elements of ``t`` are read from."""
    storage = t._storage
    shape, strides, offset = tuple(t.shape), tuple(t.stride()), t.storage_offset()
    cells = [str(v) for v in minitorch.tensor(storage).tolist()][:32]
    lines = [
        f"{name}: shape {shape}, strides {strides}, offset {offset}, contiguous: {t.is_contiguous()}",
        f"storage ({len(storage)} cells): [{', '.join(cells)}{', ...' if len(storage) > 32 else ''}]",
    ]
    index = [0] * len(shape)
    for ordinal in range(min(numel(shape), limit)):
        ordinal_to_index(ordinal, shape, index)
        position = index_to_position(index, strides, offset)
        terms = " + ".join(f"{i}*{s}" for i, s in zip(index, strides)) or "0"
        lines.append(f"  {name}{tuple(index)} -> {offset} + {terms} = position {position}"
                     f" -> {storage[position]}")  # fmt: skip
    if numel(shape) > limit:
        lines.append(f"  ... ({numel(shape) - limit} more elements)")
    return "\n".join(lines)


def show_layout(t: minitorch.Tensor, name: str = "t") -> Any:
    """The stride visualizer for ``t``, titled ``name`` (or its text picture)."""
    widget = _widget("strides", t, names=[name])
    if widget is not None:
        return widget
    print(layout_text(t, name))
    return None


def trace_text(calls: list) -> str:
    """One line per dispatched kernel call."""
    lines = [f"{'op':<16} {'phase':<9} {'primitive':<10} {'kernel':<9} {'backend':<10} "
             f"{'dtype':<8} {'path':<11} shapes (out, inputs...)"]  # fmt: skip
    for c in calls:
        shapes = " ".join(str(list(s)) for s in c.shapes)
        lines.append(f"{c.op:<16} {c.phase:<9} {c.primitive:<10} {c.kernel:<9} {c.backend:<10} "
                     f"{c.dtype:<8} {c.path:<11} {shapes}")  # fmt: skip
    return "\n".join(lines)


def show_trace(calls: list) -> Any:
    """The dispatch viewer for a ``minitorch.dispatch.trace()`` record (or a table)."""
    widget = _widget("dispatch_trace", calls)
    if widget is not None:
        return widget
    print(trace_text(calls))
    return None


def graph_text(t: minitorch.Tensor) -> str:
    """The backward graph under ``t.grad_fn``, as an indented tree (shared nodes once)."""
    lines: list[str] = []
    seen: set[int] = set()

    def walk(node: Any, depth: int) -> None:
        if node is None:
            return
        label = node.name()
        if hasattr(node, "variable"):
            label += f"  (leaf of shape {list(node.variable.shape)})"
        if id(node) in seen:
            lines.append("    " * depth + label + "  (already shown)")
            return
        seen.add(id(node))
        lines.append("    " * depth + label)
        for child, _ in node.next_functions:
            walk(child, depth + 1)

    walk(t.grad_fn, 0)
    return "\n".join(lines) if lines else "(no graph: this tensor does not require grad)"


def show_graph(t: minitorch.Tensor) -> Any:
    """The autograd graph viewer for ``t`` (or its text tree)."""
    widget = _widget("graph", t)
    if widget is not None:
        return widget
    print(graph_text(t))
    return None
