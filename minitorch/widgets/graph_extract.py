"""From a tensor's ``grad_fn`` to a drawable graph: nodes, edges and what to show.

The backward graph is a chain of ``Node`` objects: ``output.grad_fn`` and, through each
node's ``next_functions``, the nodes of its inputs, down to the ``AccumulateGrad``
nodes of the leaves. ``extract`` walks it once (breadth-first, so the ids ``n0, n1...``
are stable when the same code runs again, which keeps the layout still during live
updates) and turns it into JSON-ready dicts:

* ``output`` - a tensor you passed in (green);
* ``op`` and ``view`` - a ``BackwardNode``: the op's backward (``MulBackward0``);
  ``view`` marks ops whose forward returned a view of its input (same storage);
* ``param`` and ``leaf`` - an ``AccumulateGrad`` and its leaf tensor, named when you
  passed ``params``;
* ``saved`` - a tensor an op kept for its backward (``ctx.save_for_backward``), shown
  when ``show_saved`` is on.

Edges point the way data flowed in the forward pass (input -> op); gradients flow
back along them. A data edge carries its ``slot``: which input of the op it is (the
position in ``next_functions``), so ``y * y`` gives two edges, slots 0 and 1.
``collapse`` then merges the nodes of chosen ``nn.Module``s.

With a ``Replay`` (``graph_replay.py``: the viewer's own copy of the graph), a leaf
shows the gradient of the viewer's last backward instead of its ``.grad``, and an op
whose saved tensors a backward has freed since shows the copy's.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import BackwardNode
from minitorch.autograd.node import AccumulateGrad, Node
from minitorch.widgets.graph_replay import Replay
from minitorch.widgets.tensor_info import describe
from minitorch.widgets.watch import facts_of

# Functions whose forward returns a view of their input (minitorch/ops/shape.py).
VIEW_FUNCTIONS = {"View", "Permute", "Expand", "RegionView", "AsStrided"}


@dataclass
class Graph:
    nodes: list[dict] = field(default_factory=list)
    edges: list[dict] = field(default_factory=list)
    ids: dict = field(default_factory=dict)  # autograd Node -> node id
    tensors: dict = field(default_factory=dict)  # node id -> the tensor drawn there
    fan_in: dict = field(default_factory=dict)  # node id -> number of gradient edges into it

    def node(self, node_id: str) -> dict:
        return next(n for n in self.nodes if n["id"] == node_id)


def record_json(record: object) -> dict:
    """A DispatchRecord as JSON (time in microseconds)."""
    return {
        "op": record.op, "phase": record.phase, "primitive": record.primitive,
        "kernel": record.kernel, "backend": record.backend, "device": record.device,
        "dtype": record.dtype, "shapes": [list(s) for s in record.shapes],
        "strides": [list(s) for s in record.strides], "path": record.path,
        "us": round(record.kernel_seconds * 1e6, 2),  # on a CUDA stream: when it ran there
    }  # fmt: skip


def parameter_names(params: Any) -> dict[int, str]:
    """``{id(tensor): name}`` from a dict, ``(name, tensor)`` pairs or an nn.Module."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = params.named_parameters()
    items = params.items() if isinstance(params, dict) else params
    names = {}
    for name, t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"params: {name!r} is a {type(t).__name__}, not a tensor")
        names[id(t)] = str(name)
    return names


def extract(outputs: Sequence[Tensor], names: dict[int, str] | None = None,
            show_saved: bool = False, replay: Replay | None = None) -> Graph:  # fmt: skip
    """The graph behind ``outputs``. ``names`` maps ``id(tensor)`` to a display name
    (for parameters); ``show_saved`` adds the tensors saved for backward; ``replay``
    is the viewer's copy of this graph (gradients of its backward, kept saved tensors)."""
    names = names or {}
    graph = Graph()
    leaf_ids: dict[int, str] = {}  # id(leaf tensor) -> node id
    queue: deque[Node] = deque()

    for k, t in enumerate(outputs):
        out_id = f"out{k}"
        graph.nodes.append({"id": out_id, "kind": "output", "label": names.get(id(t), "output"),
                            "tensor": describe(t), "module": ""})  # fmt: skip
        graph.tensors[out_id] = t
        root = t.grad_fn
        if root is None and t.requires_grad:  # a leaf passed as output: draw it alone
            continue
        if root is not None:
            if root not in graph.ids:
                graph.ids[root] = f"n{len(graph.ids)}"
                queue.append(root)
            graph.edges.append({"source": graph.ids[root], "target": out_id, "kind": "data"})

    while queue:  # breadth-first from the outputs
        node = queue.popleft()
        node_id = graph.ids[node]
        graph.nodes.append(_node_dict(node, node_id, names, leaf_ids, graph, replay))
        for slot, (next_node, _) in enumerate(node.next_functions):
            if next_node is None:
                continue
            if next_node not in graph.ids:
                graph.ids[next_node] = f"n{len(graph.ids)}"
                queue.append(next_node)
            source = graph.ids[next_node]
            graph.edges.append({"source": source, "target": node_id, "kind": "data", "slot": slot})
            graph.fan_in[source] = graph.fan_in.get(source, 0) + 1

    for node, node_id in list(graph.ids.items()):
        saved = _saved_tensors(node)
        if not saved and replay is not None and replay.copy_of(node) is not None:
            saved = _saved_tensors(replay.copy_of(node))  # freed by a backward since drawn
        graph.node(node_id)["saved"] = [_saved_summary(t, is_output) for t, is_output in saved]
        if show_saved:
            _add_saved_nodes(graph, node_id, saved, leaf_ids)
    return graph


def _node_dict(node: Node, node_id: str, names: dict, leaf_ids: dict, graph: Graph,
               replay: Replay | None) -> dict:  # fmt: skip
    facts = facts_of(node)
    if isinstance(node, AccumulateGrad):
        leaf = node.variable
        leaf_ids[id(leaf)] = node_id
        graph.tensors[node_id] = leaf
        name = names.get(id(leaf))
        replayed = replay is not None and replay.ran
        return {
            "id": node_id, "kind": "param" if name else "leaf", "label": name or "leaf",
            "op": "AccumulateGrad", "seq": node.sequence_nr,
            "module": name.rpartition(".")[0] if name else "",
            "tensor": describe(leaf),
            "grad": describe(replay.grad_of(node) if replayed else leaf.grad),
            "grad_from": "viewer" if replayed else "tensor",  # the viewer's backward, or .grad
        }  # fmt: skip
    function_name = getattr(getattr(node, "function", None), "__name__", "")
    outputs = getattr(node, "output_meta", [])
    return {
        "id": node_id,
        "kind": "view" if function_name in VIEW_FUNCTIONS else "op",
        "label": node.name(),
        "op": function_name or node.name(),
        "seq": node.sequence_nr,
        "module": facts.module if facts else "",
        "module_type": facts.module_type if facts else "",
        "outputs": [{"shape": list(shape), "dtype": dtype.name if dtype is not None else None}
                    for shape, dtype, _device in outputs],
        "inputs": [{"shape": list(meta[0]), "dtype": meta[1].name}  # (a number operand: None)
                   for meta in getattr(node, "input_meta", []) if meta is not None],
        "forward": [record_json(r) for r in facts.forward_records] if facts else [],
        "watched": facts is not None,
    }  # fmt: skip


def _saved_tensors(node: Node) -> list[tuple[Tensor, bool]]:
    """The tensors ``node``'s backward will use (empty once freed by a backward)."""
    if not isinstance(node, BackwardNode) or node.ctx._saved is None:
        return []
    return [(s.tensor, s.is_output) for s in node.ctx._saved if s is not None]


def _saved_summary(t: Tensor, is_output: bool) -> dict:
    info = describe(t, max_values=16)
    info["is_output"] = is_output
    return info


def _add_saved_nodes(graph: Graph, node_id: str, saved: list, leaf_ids: dict) -> None:
    for i, (t, is_output) in enumerate(saved):
        if id(t) in leaf_ids:  # a leaf saved as it is: mark its edge instead of a new node
            graph.edges.append({"source": leaf_ids[id(t)], "target": node_id, "kind": "saved"})
            continue
        saved_id = f"{node_id}s{i}"
        label = "saved: its output" if is_output else "saved input"
        graph.nodes.append({"id": saved_id, "kind": "saved", "label": label, "of": node_id,
                            "tensor": describe(t, max_values=16),
                            "module": graph.node(node_id).get("module", "")})  # fmt: skip
        graph.tensors[saved_id] = t
        graph.edges.append({"source": saved_id, "target": node_id, "kind": "saved"})


def module_paths(graph: Graph) -> list[str]:
    """Every module path that owns a node, with its parents (``a.b`` gives ``a``, ``a.b``),
    in the order a person counts: ``layer2`` before ``layer10``."""
    found = set()
    for node in graph.nodes:
        path = node.get("module", "")
        while path:
            found.add(path)
            path = path.rpartition(".")[0]
    return sorted(found, key=lambda p: [(0, int(part), "") if part.isdigit() else (1, 0, part)
                                        for part in re.split(r"(\d+)", p)])  # fmt: skip


def collapse(graph: Graph, paths: Sequence[str]) -> Graph:
    """Merge the nodes of each module in ``paths`` (and of its submodules) into one node.
    An outer module wins over an inner one listed too. Returns a new Graph."""
    paths = sorted(set(paths), key=len)

    def group_of(module: str) -> str | None:
        for path in paths:
            if module == path or module.startswith(path + "."):
                return path
        return None

    result = Graph(ids=graph.ids, tensors=graph.tensors, fan_in=graph.fan_in)
    members: dict[str, list[dict]] = {}
    rename: dict[str, str] = {}
    for node in graph.nodes:
        group = group_of(node.get("module", ""))
        if group is None or node["kind"] == "output":
            result.nodes.append(node)
            continue
        rename[node["id"]] = f"mod:{group}"
        members.setdefault(group, []).append(node)
    for group, inside in members.items():
        kinds = {n.get("module_type") for n in inside if n.get("module") == group} - {None, ""}
        result.nodes.append({
            "id": f"mod:{group}", "kind": "module", "label": group,
            "module": group, "module_type": next(iter(kinds), ""),
            "members": [n["id"] for n in inside],
            "member_labels": [n["label"] for n in inside],
        })  # fmt: skip
    seen = set()
    for edge in graph.edges:
        source = rename.get(edge["source"], edge["source"])
        target = rename.get(edge["target"], edge["target"])
        key = (source, target, edge["kind"])
        if source == target or key in seen:
            continue
        seen.add(key)
        result.edges.append({**edge, "source": source, "target": target})
    return result
