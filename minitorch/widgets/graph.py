"""The graph viewer: ``minitorch.widgets.graph(output, params=None)``.

It draws the backward graph behind ``output`` (extracted by ``graph_extract.py``, laid
out by ``graph_layout.py``: no Graphviz needed) and lets you

* click a node for its details: op, inputs, saved tensors, values and gradient, and the
  dispatch records of its forward (when run inside ``widgets.watch``) and backward;
* press *backward* and step through the engine's real order, one node at a time (or
  *play* them, one step every ``step_ms`` milliseconds, and pause): the gradient each
  node receives, what it sends along each edge, the sums that un-broadcast, and where
  contributions accumulate. The viewer runs this backward on its own copy of the graph,
  taken when it drew it (``graph_replay.py``): your tensors' ``.grad`` stay as they
  were, and it works after the notebook's own ``loss.backward()`` too;
* toggle saved tensors, collapse ``nn.Module``s, pan and zoom;
* open a tensor's layout in the stride visualizer (``open_strides``);
* refresh it during training with ``update(loss)`` (at most every ``interval`` seconds).

    >>> loss = (x @ w + b).relu().sum()
    >>> g = minitorch.widgets.graph(loss, params={"w": w, "b": b})     # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import traitlets

from minitorch._tensor import Tensor
from minitorch.compiler.compiled import CompiledFunction
from minitorch.compiler.graph import Graph as CapturedGraph
from minitorch.widgets.frontend import MinitorchWidget, bundle, styles
from minitorch.widgets.graph_extract import (
    Graph,
    collapse,
    extract,
    module_paths,
    parameter_names,
    record_json,
)
from minitorch.widgets.graph_layout import Layout, dot_available, dot_layout, layered_layout
from minitorch.widgets.graph_replay import Replay
from minitorch.widgets.static_graph import static_graph
from minitorch.widgets.stride_state import ViewChain
from minitorch.widgets.svg import BODY, COLORS, SMALL, Drawing, text_width
from minitorch.widgets.tensor_info import describe, describe_text
from minitorch.widgets.watch import Step, step_of

# Type sizes of a node's box, in px at zoom 1, from the widgets' type scale (graph.css
# uses the same): the viewer never zooms "fit" below 1, so no text is drawn under 11 px.
LABEL_PX, SUB_PX = BODY, SMALL


def node_sublabel(node: dict) -> str:
    """The second line of a node's box: a shape, or a module's size."""
    if node["kind"] == "module":
        return f"{node.get('module_type') or 'module'} · {len(node['members'])} nodes"
    if "tensor" in node:
        info = node["tensor"]
        return f"{info['dtype']} {tuple(info['shape'])}"
    outputs = node.get("outputs") or [{}]
    return str(tuple(outputs[0].get("shape", ())))


def node_size(node: dict) -> tuple[float, float]:
    width = max(text_width(node["label"], LABEL_PX), text_width(node_sublabel(node), SUB_PX)) + 20
    return max(width, 60.0), 38.0


def label_parallel_edges(edges: list[dict]) -> list[dict]:
    """Edges with ``label`` added where two or more data edges join the same two nodes
    (``y * y``): which input of the op each one is (``input 0``, ``input 1``: its slot
    in ``next_functions``). The layout bends them apart (``spread_parallel``)."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, e in enumerate(edges):
        groups[e["source"], e["target"]].append(k)
    labelled = list(edges)
    for members in groups.values():
        for position, k in enumerate(members if len(members) > 1 else []):
            side = "left" if position < (len(members) - 1) / 2 else "right"  # as spread_parallel bends it
            if "slot" in edges[k]:
                labelled[k] = {**edges[k], "label": f"input {edges[k]['slot']}", "side": side}
    return labelled


def module_labels(graph: Graph) -> dict[str, str]:
    """``{path: label}`` for the collapse checkboxes: the path and, when a node was made
    inside that module, its class (``0 (Linear)``, ``layer1 (Linear)``)."""
    types = {n["module"]: n["module_type"] for n in graph.nodes if n.get("module") and n.get("module_type")}
    return {path: f"{path} ({types[path]})" if path in types else path for path in module_paths(graph)}


def summed_dims(local: Tensor | None, delivered: Tensor | None) -> list[int]:
    """The dims of ``local`` that un-broadcasting (``sum_to``) summed away."""
    if local is None or delivered is None or tuple(local.shape) == tuple(delivered.shape):
        return []
    extra = local.ndim - delivered.ndim
    kept = [extra + d for d, size in enumerate(delivered.shape) if size == 1 and local.shape[extra + d] != 1]
    return list(range(extra)) + kept


def steps_json(graph: Graph, step_for: Callable[[Any], Step | None] = step_of) -> list[dict]:
    """The recorded backward steps of this graph's nodes, in the engine's order.
    ``step_for(node)`` finds a node's step: the viewer's replay, or ``watch``'s notes of
    the notebook's own backward."""
    found = [(step.order, node_id, node, step) for node, node_id in graph.ids.items()
             if (step := step_for(node)) is not None]  # fmt: skip
    received: dict[str, int] = defaultdict(int)
    steps = []
    for _, node_id, node, step in sorted(found, key=lambda entry: entry[0]):
        edges = []
        for slot, (next_node, _) in enumerate(node.next_functions):
            if next_node is None or next_node not in graph.ids:
                continue
            target = graph.ids[next_node]
            local = step.local[slot] if slot < len(step.local) else None
            delivered = step.delivered[slot] if slot < len(step.delivered) else None
            if delivered is not None:
                received[target] += 1
            edges.append({
                "target": target, "slot": slot,  # which input of this node it is
                "local": describe(local, 16), "delivered": describe(delivered, 16),
                "summed_dims": summed_dims(local, delivered),
                "contribution": received[target], "of": graph.fan_in.get(target, 1),
            })  # fmt: skip
        steps.append({"node": node_id, "label": node.name(), "seq": node.sequence_nr,
                      "incoming": [describe(g, 16) for g in step.incoming], "edges": edges,
                      "records": [record_json(r) for r in step.records]})  # fmt: skip
    return steps


class GraphWidget(MinitorchWidget):
    """The autograd graph of some outputs (see the module docstring)."""

    _esm = bundle("graph.js")
    _css = styles("common.css", "strides.css", "graph.css")

    graph = traitlets.Dict().tag(sync=True)  # nodes, edges, layout, modules, stats
    steps = traitlets.List().tag(sync=True)  # recorded backward steps (steps_json)
    step = traitlets.Int(-1).tag(sync=True)  # the step shown (-1: none)
    step_ms = traitlets.Int(900).tag(sync=True)  # time per step while playing the steps
    show_saved = traitlets.Bool(False).tag(sync=True)
    collapsed = traitlets.List().tag(sync=True)  # module paths drawn as one node
    selected = traitlets.Unicode("").tag(sync=True)  # id of the clicked node
    linked = traitlets.Dict().tag(sync=True)  # a tensor's stride view, opened from details
    updates = traitlets.Int(0).tag(sync=True)  # how many times live mode refreshed

    def __init__(self, outputs: list[Tensor], names: dict[int, str], layout: str = "layered",
                 interval: float = 0.5, clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        super().__init__()
        if layout not in ("layered", "dot"):
            raise ValueError(f"layout must be 'layered' or 'dot', not {layout!r}")
        if layout == "dot" and not dot_available():
            raise RuntimeError("layout='dot' needs Graphviz's dot program; use layout='layered'")
        self.outputs, self.names, self.layout_engine = outputs, names, layout
        self.interval, self.clock = interval, clock
        self._last_refresh = -float("inf")
        self._cached: tuple[Any, Layout] | None = None
        self.extracted = Graph()
        self.replay = Replay(outputs)  # the viewer's copy of the graph, for its backward
        self.refresh()
        self.observe(lambda _change: self.refresh(), names=["show_saved", "collapsed"])
        self.on_msg(self._on_front_end_message)

    # ----- Python API -------------------------------------------------------------------

    def refresh(self) -> None:
        """Extract the graph again (values, grads, steps) and send it to the browser.
        New outputs (``update(loss)``) get a new copy for the viewer's backward."""
        if not self.replay.is_of(self.outputs):
            self.replay = Replay(self.outputs)
        self.extracted = extract(self.outputs, self.names, self.show_saved, self.replay)
        shown = collapse(self.extracted, self.collapsed) if self.collapsed else self.extracted
        sizes = {n["id"]: node_size(n) for n in shown.nodes}
        edges = [(e["source"], e["target"]) for e in shown.edges]
        signature = (tuple(sorted(sizes.items())), tuple(edges))
        start = time.perf_counter()
        if self._cached is not None and self._cached[0] == signature:
            layout = self._cached[1]  # same structure as last time: keep every node still
        else:
            layout = dot_layout(sizes, edges) if self.layout_engine == "dot" else layered_layout(sizes, edges)
            self._cached = (signature, layout)
        layout_ms = (time.perf_counter() - start) * 1000
        steps = steps_json(self.extracted, self.replay.step_of if self.replay.ran else step_of)
        grads = {s["node"]: s["incoming"][0] for s in steps if s["incoming"]}
        group = {m: n["id"] for n in shown.nodes if n["kind"] == "module" for m in n["members"]}
        nodes = []
        for n in shown.nodes:
            extra = {"sub": node_sublabel(n)}
            if n["id"] in grads and n["kind"] in ("op", "view"):
                extra["grad"] = grads[n["id"]]
            nodes.append({**n, **extra})
        self.graph = {
            "nodes": nodes, "edges": label_parallel_edges(shown.edges), "layout": layout.to_json(),
            "group": group, "modules": module_paths(self.extracted),
            "module_labels": module_labels(self.extracted),
            "replay": {"problem": self.replay.problem, "ran": self.replay.ran},
            "stats": {"nodes": len(shown.nodes), "edges": len(shown.edges), "rows": layout.rows,
                      "layout_ms": round(layout_ms, 1), "engine": self.layout_engine},
        }  # fmt: skip
        self.steps = steps
        if self.step >= len(steps):
            self.step = -1

    def backward(self) -> None:
        """Run ``backward()`` from the outputs (gradient 1 everywhere) through the
        viewer's copy of the graph, recording every step of the engine, then show the
        steps and the gradients. The notebook's tensors are not touched: their ``.grad``
        stay as they were, and the notebook's own ``loss.backward()`` still works (and
        the viewer's works after it). Pressing it again shows the same gradients."""
        self.replay.run()
        self.step = -1
        self.refresh()

    def update(self, output: Tensor | None = None, force: bool = False) -> bool:
        """Live mode: show a new ``output`` (e.g. this iteration's loss) with fresh
        values and grads. Refreshes at most once every ``interval`` seconds unless
        ``force``; returns whether it refreshed. The layout stays when the graph has
        the same structure, so nodes do not jump around."""
        if output is not None:
            self.outputs = [output] if isinstance(output, Tensor) else list(output)
        now = self.clock()
        if not force and now - self._last_refresh < self.interval:
            return False
        self._last_refresh = now
        self.refresh()
        self.updates += 1
        return True

    def tensor(self, node_id: str | None = None) -> Tensor:
        """The tensor drawn at a node (a leaf, an output or a saved tensor)."""
        node_id = node_id or self.selected
        if node_id not in self.extracted.tensors:
            raise KeyError(f"node {node_id!r} holds no tensor (click a leaf, output or saved tensor)")
        return self.extracted.tensors[node_id]

    def open_strides(self, node_id: str | None = None) -> Any:
        """A stride visualizer for the tensor at ``node_id`` (default: the selected one)."""
        from minitorch.widgets.strides import strides

        return strides(self.tensor(node_id), names=[self._label(node_id or self.selected)])

    def _label(self, node_id: str) -> str:
        return next((n["label"] for n in self.extracted.nodes if n["id"] == node_id), node_id)

    # ----- messages from the browser ---------------------------------------------------

    def _on_front_end_message(self, _widget: Any, content: dict, _buffers: Any) -> None:
        kind = content.get("type")
        if kind == "backward":
            self._guarded(self.backward)
        elif kind == "open":
            self._guarded(self._open_linked, content.get("node", ""))

    def _open_linked(self, node_id: str) -> None:
        label = self._label(node_id)
        chain = ViewChain([self.tensor(node_id).detach()], [label])
        self.linked = {"node": node_id, "title": label, "state": chain.state()}

    # ----- static fallbacks ------------------------------------------------------------

    def to_text(self) -> str:
        nodes = {n["id"]: n for n in self.extracted.nodes}
        inputs = defaultdict(list)
        for e in self.extracted.edges:
            if e["kind"] == "data":
                inputs[e["target"]].append(e["source"])
        lines, shown = [], set()

        def visit(node_id: str, depth: int) -> None:
            if len(lines) >= 200:
                return
            n = nodes[node_id]
            text = f"{'  ' * depth}{n['label']}  {node_sublabel(n)}"
            if node_id in shown:
                lines.append(text + "  (see above)")
                return
            shown.add(node_id)
            if n.get("grad"):
                text += f"  grad {describe_text(n['grad'])}"
            lines.append(text)
            for source in inputs[node_id]:
                visit(source, depth + 1)

        roots = [n["id"] for n in self.extracted.nodes if n["kind"] == "output"]
        for root in roots:
            visit(root, 0)
        if len(lines) >= 200:
            lines.append(f"... ({len(nodes)} nodes in all)")
        return "\n".join(lines)

    def to_svg(self) -> str:
        layout = self.graph["layout"]
        margin = 12
        drawing = Drawing(layout["width"] + 2 * margin, layout["height"] + 2 * margin)
        for edge, route in zip(self.graph["edges"], layout["routes"]):
            points = [(x + margin, y + margin) for x, y in route]
            drawing.path(points, dash=edge["kind"] == "saved")
            if edge.get("label"):  # beside the middle of a bent parallel edge, outwards
                x, y = points[len(points) // 2]
                left = edge["side"] == "left"
                drawing.text(x - 5 if left else x + 5, y + 4, edge["label"], size=SUB_PX, color="muted",
                             anchor="end" if left else "start")  # fmt: skip
        fills = {"op": "op", "view": "op", "leaf": "leaf", "param": "param", "output": "output",
                 "saved": "saved", "module": "module"}  # fmt: skip
        for node in self.graph["nodes"]:
            x, y, w, h = layout["boxes"][node["id"]]
            x, y = x + margin, y + margin
            drawing.rect(x, y, w, h, fill=fills[node["kind"]], stroke=COLORS["line"], radius=6,
                         dash=node["kind"] == "view")  # fmt: skip
            if node["kind"] in ("leaf", "param", "output") and (node.get("tensor") or {}).get("color"):
                drawing.line(x + 5, y + 7, x + 5, y + h - 7, color=node["tensor"]["color"], width=4)
            drawing.text(x + w / 2, y + 15, node["label"], size=LABEL_PX, bold=node["kind"] != "op")
            drawing.text(x + w / 2, y + 31, node["sub"], size=SUB_PX, color="muted")
        return str(drawing)


def graph(output: Tensor | Iterable[Tensor] | CompiledFunction | CapturedGraph, params: Any = None,
          layout: str = "layered", autograd: Tensor | Iterable[Tensor] | None = None) -> Any:  # fmt: skip
    """The autograd graph behind ``output`` (a tensor or a list of them).

    ``params`` names the leaves: a dict ``{name: tensor}``, ``(name, tensor)`` pairs, or
    an ``nn.Module`` (its ``named_parameters()``; run the forward inside
    ``minitorch.widgets.watch(model)`` to also group nodes by module). ``layout`` is
    ``"layered"`` (ours, always available) or ``"dot"`` (Graphviz, when installed).

    Static mode: for a ``minitorch.compile``d function (or its ``.graph``), the captured
    graph of kernel calls, beside the autograd graph of ``autograd`` (what an eager call
    returned, e.g. the first call's loss): ``static_graph.py``.
    """
    if isinstance(output, (CompiledFunction, CapturedGraph)):
        return static_graph(output, autograd, parameter_names(params))
    outputs = [output] if isinstance(output, Tensor) else list(output)
    if not outputs or not all(isinstance(t, Tensor) for t in outputs):
        raise TypeError("graph() expects a tensor or a list of tensors")
    return GraphWidget(outputs, parameter_names(params), layout=layout)
