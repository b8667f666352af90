"""``draw_graph``: the autograd graph as a Graphviz picture, as in micrograd and torchviz.

micrograd's lecture draws the graph behind a value with Graphviz, left to right: a box
per value (its data and its gradient) and a small node per operation between them.
``torchviz.make_dot`` does the same for PyTorch. ``draw_graph`` draws minitorch's graph
that way::

    a = minitorch.tensor(2.0, requires_grad=True)    # ... b, c, f likewise
    L = (a * b + c) * f
    L.backward()
    minitorch.viz.draw_graph(L, params={"a": a, "b": b, "c": c, "f": f})

* a **tensor node** (a record box) for each leaf and each output: its name, its dtype
  and shape, its values when it has at most ``SMALL`` elements, and its ``.grad``;
* an **op node** (an ellipse) for each backward node, named by its forward op (``Mul``,
  with ``MulBackward0`` as the tooltip) and the shape it made; dashed for a view;
* an edge the way the data flowed in the forward pass (gradients flow back along it).

The graph is found once, by the same walk the graph viewer makes
(``minitorch/widgets/graph_extract.py``), so the two always agree.

A captured static graph (a ``minitorch.compile``d function, after its second call, or
its ``.graph``) is drawn from the graph viewer's dataflow form
(``minitorch/widgets/static_graph.py``): a box per kernel call, an ellipse per buffer
that outlives the call, one cluster per phase (forward, backward, optimizer), top to
bottom because a training step is long.

The result is a ``graphviz.Digraph``: Jupyter shows it inline (it renders itself as SVG
through Graphviz's ``dot``), ``.source`` is its text, ``.render()`` writes a file. It
needs the ``graphviz`` package (``pip install 'minitorch[viz]'``) and the ``dot``
program; without either, ``draw_graph`` gives the graph viewer widget instead, which
draws the same graph with no Graphviz at all.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from typing import Any

from minitorch._tensor import Tensor
from minitorch.compiler.compiled import CompiledFunction
from minitorch.compiler.graph import Graph as CapturedGraph
from minitorch.widgets.graph_extract import extract, parameter_names
from minitorch.widgets.tensor_info import describe, format_number

SMALL = 4  # a tensor with at most this many elements shows its values (and gradient)
PHASE_COLORS = {"forward": "#eef4ff", "backward": "#fff4e8", "optimizer": "#ecf7ef"}
FONT = {"fontname": "Helvetica", "fontsize": "11"}
TENSOR_COLORS = {"output": "#dff3e4", "param": "#e3ecfb", "leaf": "#e3ecfb"}


def graphviz_available() -> bool:
    """Whether the ``graphviz`` package imports and Graphviz's ``dot`` program is on PATH."""
    try:
        import graphviz  # noqa: F401 (optional: the viz extra)
    except ImportError:
        return False
    return shutil.which("dot") is not None


def draw_graph(root: Tensor | Iterable[Tensor] | CompiledFunction | CapturedGraph,
               params: Any = None, rankdir: str | None = None) -> Any:  # fmt: skip
    """The graph behind ``root`` as a ``graphviz.Digraph`` (see the module docstring).

    ``root`` is a tensor (or a list of them) with its autograd graph, or a compiled
    function or its captured ``Graph``. ``params`` names tensors as
    ``minitorch.widgets.graph`` does: a dict ``{name: tensor}``, ``(name, tensor)``
    pairs or an ``nn.Module``. ``rankdir`` is Graphviz's direction: ``"LR"`` (left to
    right, the default for autograd graphs) or ``"TB"`` (the default for captured ones).
    Without Graphviz, the graph viewer widget of ``minitorch.widgets.graph``."""
    captured = isinstance(root, (CompiledFunction, CapturedGraph))
    if captured:
        graph = root.graph if isinstance(root, CompiledFunction) else root
        if graph is None:
            raise ValueError(
                f"{root.name} has no captured graph yet: a compiled function runs eagerly on "
                "its first call and captures on its second. Call it twice, then draw it."
            )
        outputs: list[Tensor] = []
    else:
        outputs = [root] if isinstance(root, Tensor) else _tensors(root)
    if rankdir not in (None, "LR", "TB", "RL", "BT"):
        raise ValueError(f"draw_graph(): rankdir must be 'LR', 'TB', 'RL' or 'BT', not {rankdir!r}")
    names = parameter_names(params)
    if not graphviz_available():
        import minitorch.widgets  # the viewer draws the same graph without Graphviz

        return minitorch.widgets.graph(root if captured else outputs, params=params)
    if captured:
        return _captured_digraph(graph, rankdir or "TB")
    return _autograd_digraph(outputs, names, rankdir or "LR")


def _tensors(root: Any) -> list[Tensor]:
    """``root`` as a non-empty list of tensors, or PyTorch's kind of TypeError."""
    if isinstance(root, (str, bytes)) or not isinstance(root, Iterable):
        raise TypeError(
            "draw_graph(): expected a Tensor, a list of Tensors or a compiled function, "
            f"but got {type(root).__name__}"
        )
    tensors = list(root)
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError("draw_graph(): expected a Tensor or a non-empty list of Tensors")
    return tensors


def _autograd_digraph(outputs: list[Tensor], names: dict[int, str], rankdir: str) -> Any:
    import graphviz  # optional: the viz extra (checked by graphviz_available)

    found = extract(outputs, names)
    dot = graphviz.Digraph("autograd", graph_attr={"rankdir": rankdir, **FONT},
                           node_attr=FONT)  # fmt: skip
    for node in found.nodes:
        if node["kind"] in ("op", "view"):
            shape = (node.get("outputs") or [{}])[0].get("shape")
            label = node["op"] if not shape else f"{node['op']}\n{tuple(shape)}"
            dot.node(node["id"], label, shape="ellipse", tooltip=node["label"],
                     style="dashed" if node["kind"] == "view" else "solid")  # fmt: skip
        else:
            if node["kind"] == "output":  # its .grad, if it kept one (retain_grad)
                node = {**node, "grad": describe(found.tensors[node["id"]].grad)}
            dot.node(node["id"], tensor_label(node), shape="record", style="filled",
                     fillcolor=TENSOR_COLORS.get(node["kind"], "white"))  # fmt: skip
    for edge in found.edges:
        dot.edge(edge["source"], edge["target"])
    return dot


def tensor_label(node: dict) -> str:
    """A record label ``{ name | float32 () | data 2 | grad -6 }`` for a leaf or an output
    (``data`` and ``grad`` only for a tensor of at most ``SMALL`` elements)."""
    info = node["tensor"]
    fields = [node["label"], f"{info['dtype']} {tuple(info['shape'])}"]
    grad = node.get("grad")  # as the graph viewer describes it (None before a backward)
    if info["numel"] <= SMALL:
        fields.append(f"data {_values_text(info['values'])}")
        if grad is not None or node["kind"] != "output":  # an output keeps no .grad by default
            fields.append(f"grad {_values_text(grad['values']) if grad else 'None'}")
    return "{ " + " | ".join(_escape_record(text) for text in fields) + " }"


def _values_text(values: Any) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_values_text(v) for v in values) + "]"
    return format_number(values)


def _escape_record(text: str) -> str:
    """Characters that mean fields in a Graphviz record label, escaped."""
    for character in "\\{}|<>":
        text = text.replace(character, "\\" + character)
    return text


def _captured_digraph(graph: CapturedGraph, rankdir: str) -> Any:
    import graphviz  # optional: the viz extra (checked by graphviz_available)

    from minitorch.widgets.static_graph import DataflowGraph  # the viewer's dataflow form

    flow = DataflowGraph(graph)
    dot = graphviz.Digraph("captured", graph_attr={"rankdir": rankdir, **FONT},
                           node_attr=FONT)  # fmt: skip
    by_id = {node["id"]: node for node in flow.nodes}
    placed: set[str] = set()
    for number, band in enumerate(flow.bands):
        with dot.subgraph(name=f"cluster_{number}") as cluster:
            color = PHASE_COLORS.get(band["phase"], "#f7f8fa")
            cluster.attr(label=band["phase"], style="filled", color=color)
            for node_id in band["nodes"]:
                _captured_node(cluster, by_id[node_id])
                placed.add(node_id)
    for node in flow.nodes:
        if node["id"] not in placed:  # a returned value outside every band
            _captured_node(dot, node)
    for edge in flow.edges:
        dot.edge(edge["source"], edge["target"], tooltip=edge["title"])
    return dot


def _captured_node(dot: Any, node: dict) -> None:
    label = f"{node['label']}\n{node['sub']}"
    if node["kind"] in ("kernel", "fused", "check"):
        dot.node(node["id"], label, shape="box", style="rounded,filled", fillcolor="white",
                 tooltip=node.get("line", ""))  # fmt: skip
    else:
        dot.node(node["id"], label, shape="ellipse", style="filled", fillcolor="white",
                 tooltip=node.get("meaning", ""))  # fmt: skip


__all__ = ["draw_graph", "graphviz_available"]
