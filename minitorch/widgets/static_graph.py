"""The graph viewer's static mode: ``minitorch.widgets.graph(step, autograd=loss)``.

``step = minitorch.compile(train_step)`` writes its computation down once, as a
``Graph`` of buffers and kernel calls (``minitorch/compiler/graph.py``). This widget
draws that graph as a *dataflow* graph, beside the autograd graph of the same code:

* a **kernel node** per recorded call (``zip:add``, ``matmul``; ``fused`` for a kernel
  a pass generated: click it for its source);
* a **buffer node** for each storage that lives outside the call: inputs, variables
  (parameters, optimizer state), constants, state (``p.grad``), and the returned value.
  A buffer that a kernel writes gets a new node below that kernel (its new value), so
  ``model.0.weight`` appears at the top, read by the forward, and again at the bottom,
  written by the optimizer step;
* a **temp** (an intermediate result, the graph's own memory) is an edge: from the
  kernel that wrote it to the kernels that read it.

The kernels are drawn in the order they ran, cut into *bands* of one phase: forward,
backward, and optimizer (the fused step, or the kernels after a backward that update a
variable). Each kernel sits one row below the latest node it reads from (rows are
given to ``layered_layout``, so a band never mixes with the next one).

The autograd graph on the right (``autograd=``: what an eager call returned, e.g. the
first, warm-up call of the compiled function) is the dynamic graph
``graph_extract.extract`` walks for the ordinary viewer: one graph is recorded by
autograd, op by op, the other by dispatch, kernel by kernel.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import traitlets

from minitorch._tensor import Tensor
from minitorch.compiler.compiled import CompiledFunction
from minitorch.compiler.graph import Buffer, Graph, Node
from minitorch.widgets.frontend import MinitorchWidget, bundle, styles
from minitorch.widgets.graph_extract import extract
from minitorch.widgets.graph_layout import Layout, layered_layout
from minitorch.widgets.svg import COLORS, Drawing, text_width

GUTTER = 96  # room at the left of the captured graph for the bands' names
BAND_COLORS = {"forward": "#eef4ff", "backward": "#fff4e8", "optimizer": "#ecf7ef"}
KIND_MEANING = {
    "input": "an argument of the function: each call brings a new one",
    "variable": "existed before the capture (a parameter, optimizer state): updated in place",
    "constant": "made from host data during the capture: the same values on every replay",
    "state": "made by the graph and still referenced after it returned (p.grad)",
    "output": "what the function returns (copied out of the graph's buffer)",
}


def phase_of(node: Node, after_backward: bool, buffers: list[Buffer]) -> str:
    """``forward``, ``backward`` or ``optimizer``: the fused optimizer step, or a forward
    kernel that runs after a backward and writes a variable (a per-parameter update)."""
    if node.primitive == "optimizer_step":
        return "optimizer"
    writes_variable = any(buffers[o.buffer].kind == "variable" for o in node.writes)
    if node.phase == "forward" and after_backward and writes_variable:
        return "optimizer"
    return node.phase


def box_size(label: str, sub: str) -> tuple[float, float]:
    return max(text_width(label, 12), text_width(sub, 11)) + 20, 36.0


class DataflowGraph:
    """The captured ``graph`` as drawable nodes, edges and phase bands (see the module
    docstring). ``rows`` holds every node's row for ``layered_layout``."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.rows: dict[str, int] = {}
        self.bands: list[dict] = []  # {"phase", "nodes": [ids], "top": first row}, in order
        self.holder: dict[int, str] = {}  # buffer -> the node holding its current value
        self.edge_pairs: set[tuple[str, str]] = set()
        self.read_in: dict[int, int] = {}  # unwritten buffer -> the band of its node
        # The returned value sits below the kernel that wrote it, in that kernel's band:
        # the next band starts below it.
        self.returned = {spec.operand.buffer for spec in _flat(graph.outputs)}
        self.return_row = -1
        buffers = graph.buffers
        after_backward = False
        for node in graph.nodes:
            phase = phase_of(node, after_backward, buffers)
            after_backward |= node.phase == "backward"
            if not self.bands or self.bands[-1]["phase"] != phase:
                top = max([*self.rows.values(), self.return_row], default=-1) + 1
                self.bands.append({"phase": phase, "nodes": [], "top": top})
            self._add_kernel(node, phase)
        for spec in _flat(graph.outputs):
            self._add_output(spec.operand)
        self._place_unread_buffers()

    # ----- nodes ----------------------------------------------------------------------

    def _add_kernel(self, node: Node, phase: str) -> None:
        what = node.primitive if node.kernel == node.primitive else f"{node.primitive}:{node.kernel}"
        out = node.writes[0] if node.writes else None
        shape = str(tuple(out.shape)) if out else ""
        kind = {"fused": "fused", "check": "check"}.get(node.primitive, "kernel")
        self.nodes.append({
            "id": node.name, "kind": kind, "label": f"{node.name} {what}", "sub": f"{node.op} {shape}",
            "phase": phase, "op": node.op, "primitive": node.primitive, "kernel": node.kernel,
            "device": node.device_type, "line": node.describe(self.graph.buffers).strip(),
            "writes": [str(o) for o in node.writes], "reads": [str(o) for o in node.reads],
            "source": node.source,
        })  # fmt: skip
        # A kernel sits below what it reads, and below its band's top row if it reads
        # a buffer node (which takes the row above it: _place_unread_buffers).
        sources = [(self._value_of(o.buffer, phase), o) for o in node.reads]
        band_top = self.bands[-1]["top"]
        lowest = band_top + 1 if any(s not in self.rows for s, _ in sources) else band_top
        row = max([self.rows[s] + 1 for s, _ in sources if s in self.rows] + [lowest])
        self.rows[node.name] = row
        self.bands[-1]["nodes"].append(node.name)
        for source, operand in sources:
            self._edge(source, node.name, operand)
        for operand in node.writes:
            buffer = self.graph.buffers[operand.buffer]
            if buffer.index in self.returned:
                self.return_row = max(self.return_row, row + 1)
            if self.holder.get(buffer.index) == f"b{buffer.index}@{node.name}":
                continue  # listed twice (the fused step passes a parameter for a state its rule lacks)
            if buffer.kind == "temp":
                self.holder[buffer.index] = node.name
                self.read_in.pop(buffer.index, None)
            else:  # a new value of a buffer that outlives the call: a node of its own
                version = f"b{buffer.index}@{node.name}"
                self.nodes.append(self._buffer_dict(buffer, version, phase))
                self.rows[version] = row + 1
                self.bands[-1]["nodes"].append(version)
                self._edge(node.name, version, operand)
                self.holder[buffer.index] = version
                self.read_in.pop(buffer.index, None)

    def _value_of(self, index: int, phase: str) -> str:
        """The node holding buffer ``index``'s current value. A buffer that no kernel
        wrote yet gets a node in each band that reads it (a parameter is read by the
        forward, the backward and the optimizer): no edge runs across a whole band."""
        holder, band = self.holder.get(index), len(self.bands) - 1
        if holder is None or self.read_in.get(index, band) != band:
            node_id = f"b{index}" if holder is None else f"b{index}.{band}"
            self.nodes.append(self._buffer_dict(self.graph.buffers[index], node_id, phase))
            self.bands[-1]["nodes"].append(node_id)
            self.holder[index], self.read_in[index] = node_id, band
        return self.holder[index]

    def _buffer_dict(self, buffer: Buffer, node_id: str, phase: str) -> dict:
        return {
            "id": node_id, "kind": buffer.kind, "label": buffer.name or f"b{buffer.index}",
            "sub": f"{buffer.kind} {buffer.dtype.name}[{buffer.count}]", "phase": phase,
            "buffer": buffer.index, "bytes": buffer.nbytes, "device": buffer.device_type,
            "meaning": KIND_MEANING.get(buffer.kind, ""),
            "values": _short_values(buffer.values) if buffer.values is not None else None,
        }  # fmt: skip

    def _add_output(self, operand: Any) -> None:
        node_id = f"return{sum(n['kind'] == 'output' for n in self.nodes)}"
        source = self._value_of(operand.buffer, self.bands[-1]["phase"] if self.bands else "forward")
        band = next((b for b in self.bands if source in b["nodes"]), None)
        phase = band["phase"] if band else ""
        self.nodes.append({"id": node_id, "kind": "output", "label": "return", "sub": f"{operand}",
                           "phase": phase, "meaning": KIND_MEANING["output"]})  # fmt: skip
        self.rows[node_id] = self.rows.get(source, 0) + 1
        if band is not None:
            band["nodes"].append(node_id)
        self._edge(source, node_id, operand)

    def _place_unread_buffers(self) -> None:
        """A buffer node sits one row above the first kernel that reads it."""
        readers: dict[str, list[int]] = {}
        for edge in self.edges:
            readers.setdefault(edge["source"], []).append(self.rows.get(edge["target"], 1))
        for node in self.nodes:
            if node["id"] not in self.rows:
                self.rows[node["id"]] = min(readers.get(node["id"], [1])) - 1

    def _edge(self, source: str, target: str, operand: Any) -> None:
        if (source, target) in self.edge_pairs:
            return  # the same value read twice by one kernel (b13 * b13): one edge
        self.edge_pairs.add((source, target))
        buffer = self.graph.buffers[operand.buffer]
        self.edges.append({"source": source, "target": target, "kind": "data", "buffer": buffer.index,
                           "title": f"{operand} {buffer.kind} {buffer.dtype.name}"})  # fmt: skip

    # ----- layout ---------------------------------------------------------------------

    def layout(self) -> Layout:
        """``layered_layout`` with our rows, moved right by ``GUTTER`` for the band names."""
        sizes = {n["id"]: box_size(n["label"], n["sub"]) for n in self.nodes}
        layout = layered_layout(sizes, [(e["source"], e["target"]) for e in self.edges], rows=self.rows)
        layout.boxes = {k: (x + GUTTER, y, w, h) for k, (x, y, w, h) in layout.boxes.items()}
        layout.routes = [[(x + GUTTER, y) for x, y in route] for route in layout.routes]
        layout.width += GUTTER
        return layout

    def band_boxes(self, layout: Layout) -> list[dict]:
        """Each band's rectangle: the full width, from its highest to its lowest node;
        ``members`` are its nodes' ids (the front end collapses a band into one row)."""
        result = []
        for band in self.bands:
            tops = [layout.boxes[n][1] for n in band["nodes"]]
            bottoms = [layout.boxes[n][1] + layout.boxes[n][3] for n in band["nodes"]]
            result.append({"phase": band["phase"], "nodes": len(band["nodes"]), "members": band["nodes"],
                           "y": min(tops) - 8, "height": max(bottoms) - min(tops) + 16})  # fmt: skip
        return result


def _flat(outputs: Any) -> list:
    if isinstance(outputs, (list, tuple)):
        return [spec for item in outputs for spec in _flat(item)]
    if isinstance(outputs, dict):
        return [spec for item in outputs.values() for spec in _flat(item)]
    return [] if outputs is None or not hasattr(outputs, "operand") else [outputs]


def _short_values(values: Any) -> str:
    flat = values.reshape(-1)
    text = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in flat[:8].tolist())
    return f"[{text}{', ...' if flat.size > 8 else ''}]"


def autograd_json(outputs: list[Tensor], names: dict[int, str]) -> dict:
    """The autograd graph behind ``outputs``, laid out like the ordinary viewer's."""
    extracted = extract(outputs, names)
    nodes = []
    for node in extracted.nodes:
        if "tensor" in node:
            sub = f"{node['tensor']['dtype']} {tuple(node['tensor']['shape'])}"
        else:
            sub = str(tuple((node.get("outputs") or [{}])[0].get("shape", ())))
        nodes.append({**node, "sub": sub})
    sizes = {n["id"]: box_size(n["label"], n["sub"]) for n in nodes}
    layout = layered_layout(sizes, [(e["source"], e["target"]) for e in extracted.edges])
    return {"nodes": nodes, "edges": extracted.edges, "layout": layout.to_json()}


class StaticGraphWidget(MinitorchWidget):
    """A captured graph beside the autograd graph of the same code (module docstring)."""

    _esm = bundle("static_graph.js")
    _css = styles("common.css", "graph.css", "static_graph.css")

    captured = traitlets.Dict().tag(sync=True)  # nodes, edges, layout, bands, stats
    autograd = traitlets.Dict().tag(sync=True)  # the same for the autograd graph (or empty)
    selected = traitlets.Unicode("").tag(sync=True)  # "captured:n3" or "autograd:n0"

    def __init__(self, graph: Graph, autograd: list[Tensor] | None = None,
                 names: dict[int, str] | None = None) -> None:  # fmt: skip
        super().__init__()
        self.extracted = DataflowGraph(graph)
        layout = self.extracted.layout()
        kinds = ("input", "variable", "constant", "temp", "state")
        self.captured = {
            "nodes": self.extracted.nodes, "edges": self.extracted.edges, "layout": layout.to_json(),
            "bands": self.extracted.band_boxes(layout), "passes": graph.passes,
            "stats": {"kernels": len(graph.nodes), "nodes": len(self.extracted.nodes),
                      "buffers": {k: len(graph.buffers_of(k)) for k in kinds}},
        }  # fmt: skip
        if autograd:
            owners = [(b.owner and b.owner(), b.name) for b in graph.buffers]  # the parameters
            leaf_names = {id(tensor): name for tensor, name in owners if tensor is not None}
            self.autograd = autograd_json(autograd, {**leaf_names, **(names or {})})

    def to_text(self) -> str:
        text = str(self.extracted.graph)
        if self.autograd:
            text += f"\nautograd graph of the eager call: {len(self.autograd['nodes'])} nodes"
        return text

    def to_svg(self) -> str:
        """Both graphs side by side: the captured one with its bands, then the autograd one."""
        captured, margin = self.captured["layout"], 12
        right = self.autograd.get("layout", {"width": 0, "height": 0})
        gap = 40 if self.autograd else 0
        drawing = Drawing(captured["width"] + right["width"] + gap + 2 * margin,
                          max(captured["height"], right["height"] + 24) + 2 * margin)  # fmt: skip
        for band in self.captured["bands"]:
            drawing.rect(margin, band["y"] + margin, captured["width"], band["height"],
                         fill=BAND_COLORS.get(band["phase"], "#f7f8fa"), stroke="none", radius=6)  # fmt: skip
            label_y = band["y"] + margin + 18
            drawing.text(margin + 8, label_y, band["phase"], size=12, anchor="start", bold=True)
        _draw(drawing, self.captured, margin, margin)
        if self.autograd:
            left = margin + captured["width"] + gap
            drawing.text(left, margin + 12, "autograd graph (eager)", size=12, anchor="start", bold=True)
            _draw(drawing, self.autograd, left, margin + 24)
        return str(drawing)


FILLS = {"kernel": "op", "check": "op", "fused": "module", "input": "leaf", "variable": "param",
         "constant": "saved", "state": "output", "output": "output", "op": "op", "view": "op",
         "leaf": "leaf", "param": "param", "saved": "saved"}  # fmt: skip


def _draw(drawing: Drawing, graph: dict, left: float, top: float) -> None:
    layout = graph["layout"]
    for route in layout["routes"]:
        drawing.path([(x + left, y + top) for x, y in route])
    for node in graph["nodes"]:
        x, y, w, h = layout["boxes"][node["id"]]
        x, y = x + left, y + top
        drawing.rect(x, y, w, h, fill=FILLS.get(node["kind"], "op"), stroke=COLORS["line"], radius=6)
        drawing.text(x + w / 2, y + 15, node["label"], size=12)
        drawing.text(x + w / 2, y + 30, node["sub"], size=11, color="muted")


def static_graph(fn: CompiledFunction | Graph, autograd: Tensor | Iterable[Tensor] | None = None,
                 params: dict[int, str] | None = None) -> StaticGraphWidget:  # fmt: skip
    """The widget for ``widgets.graph(step, autograd=loss)`` (``graph.py`` calls it)."""
    graph = fn.graph if isinstance(fn, CompiledFunction) else fn
    if graph is None:
        raise ValueError(
            f"{fn.name} has no captured graph yet: a compiled function runs eagerly on its "
            "first call and captures on its second. Call it twice, then draw it."
        )
    outputs = [autograd] if isinstance(autograd, Tensor) else list(autograd or [])
    if not all(isinstance(t, Tensor) for t in outputs):
        raise TypeError("graph(): autograd= expects a tensor or a list of tensors")
    if any(t.grad_fn is None for t in outputs):
        raise ValueError(
            "graph(): autograd= needs a tensor with a grad_fn, from an eager call (the "
            "first call of a compiled function runs eagerly; later calls return copies)"
        )
    return StaticGraphWidget(graph, outputs, params)
