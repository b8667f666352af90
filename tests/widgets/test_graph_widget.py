"""The graph viewer's state: extraction, the backward steps (against the engine's own
order and its scheduling rule), un-broadcasting, accumulation, modules, live mode,
the layout's invariants and the static fallbacks."""

from __future__ import annotations

import heapq
import xml.etree.ElementTree as ElementTree

import pytest

import minitorch
from minitorch.autograd import engine
from minitorch.widgets import graph, watch
from minitorch.widgets.graph_layout import dot_available, dot_layout, layered_layout


def small_program():
    minitorch.manual_seed(0)
    x = minitorch.randn(2, 3, requires_grad=True)
    w = minitorch.randn(3, requires_grad=True)
    b = minitorch.randn(1, requires_grad=True)
    loss = ((x * w + b).tanh() * x).sum()  # x fans out; b (1,) and w (3,) broadcast
    return loss, {"x": x, "w": w, "b": b}


def labels(widget) -> dict[str, str]:
    return {n["id"]: n["label"] for n in widget.extracted.nodes}


def test_extraction_finds_ops_leaves_and_names() -> None:
    loss, params = small_program()
    widget = graph(loss, params=params)
    kinds = sorted((n["kind"], n["label"]) for n in widget.graph["nodes"])
    assert kinds == sorted([
        ("output", "output"), ("op", "SumBackward0"), ("op", "MulBackward0"), ("op", "TanhBackward0"),
        ("op", "AddBackward0"), ("op", "MulBackward0"), ("param", "x"), ("param", "w"), ("param", "b"),
    ])  # fmt: skip
    x_id = next(n["id"] for n in widget.graph["nodes"] if n["label"] == "x")
    assert widget.extracted.fan_in[x_id] == 2  # x is used twice
    assert widget.tensor(x_id) is params["x"]
    # every edge of next_functions is drawn once, plus the output edge
    edges = [(e["source"], e["target"]) for e in widget.graph["edges"] if e["kind"] == "data"]
    assert len(edges) == len(set(edges)) == 9


def test_steps_follow_the_engine_and_its_scheduling_rule() -> None:
    loss, params = small_program()
    widget = graph(loss, params=params)
    observed = []
    listener = lambda node, *_: observed.append(node)  # noqa: E731
    engine.step_listeners.append(listener)
    try:
        widget.backward()
    finally:
        engine.step_listeners.remove(listener)
    ids = widget.extracted.ids
    original = {copy: node for node, copy in widget.replay.copies.items()}  # it ran on its copy
    assert [s["node"] for s in widget.steps] == [ids[original[node]] for node in observed]
    # The rule, re-derived here: run the ready node with the highest sequence_nr first.
    nodes = {n["id"]: n for n in widget.extracted.nodes}
    waiting = dict(widget.extracted.fan_in)
    inputs = {}
    for e in widget.extracted.edges:
        if e["kind"] == "data" and not e["target"].startswith("out"):
            inputs.setdefault(e["target"], []).append(e["source"])
    root = next(e["source"] for e in widget.extracted.edges if e["target"] == "out0")
    ready, order = [(-nodes[root]["seq"], root)], []
    while ready:
        _, node_id = heapq.heappop(ready)
        order.append(node_id)
        for source in inputs.get(node_id, []):
            waiting[source] -= 1
            if waiting[source] == 0:
                heapq.heappush(ready, (-nodes[source]["seq"], source))
    assert [s["node"] for s in widget.steps] == order


def test_steps_show_unbroadcasting_and_accumulation() -> None:
    loss, params = small_program()
    widget = graph(loss, params=params)
    widget.backward()
    names = labels(widget)
    sends = {(names[s["node"]], names[e["target"]]): e for s in widget.steps for e in s["edges"]}
    to_b = sends[("AddBackward0", "b")]
    assert to_b["local"]["shape"] == [2, 3] and to_b["delivered"]["shape"] == [1]
    assert to_b["summed_dims"] == [0, 1]
    to_w = next(e for (src, dst), e in sends.items() if dst == "w")
    assert to_w["summed_dims"] == [0] and to_w["delivered"]["shape"] == [3]
    into_x = [e for s in widget.steps for e in s["edges"] if names[e["target"]] == "x"]
    assert [e["contribution"] for e in into_x] == [1, 2] and all(e["of"] == 2 for e in into_x)
    # what AccumulateGrad(x) received is the sum of both contributions, and is x.grad
    # of the notebook's own backward (which the viewer's backward left untouched)
    assert all(p.grad is None for p in params.values())
    loss.backward()
    x_step = next(s for s in widget.steps if names[s["node"]] == "x")
    assert x_step["incoming"][0]["values"] == params["x"].grad.tolist()
    for node in widget.graph["nodes"]:
        if node["kind"] == "param":
            assert node["grad"]["values"] == params[node["label"]].grad.tolist()
    # backward kernels are attributed to the step that ran them
    assert any(r["phase"] == "backward" for s in widget.steps for r in s["records"])


def test_watch_records_forward_kernels_and_modules() -> None:
    nn = pytest.importorskip("minitorch.nn")
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with watch(model):
        loss = model(minitorch.randn(5, 3)).pow(2).mean()
    widget = graph(loss, params=model)
    nodes = widget.graph["nodes"]
    assert widget.graph["modules"] == ["0", "1", "2"]
    relu = next(n for n in nodes if n["label"] == "ReluBackward0")
    assert relu["module"] == "1" and relu["module_type"] == "ReLU"
    assert [r["primitive"] for r in relu["forward"]] == ["map"]
    assert next(n for n in nodes if n["label"] == "0.weight")["module"] == "0"
    widget.collapsed = ["0"]
    collapsed = next(n for n in widget.graph["nodes"] if n["kind"] == "module")
    assert collapsed["label"] == "0" and collapsed["module_type"] == "Linear"
    assert all(n.get("module") != "0" for n in widget.graph["nodes"] if n["kind"] != "module")
    assert all(e["source"] != e["target"] for e in widget.graph["edges"])
    assert "forward" not in model[0].__dict__  # watch() cleaned up after itself


class HookedModule:
    """A stand-in with PyTorch's hook API (the path watch() prefers)."""

    def __init__(self) -> None:
        self.hooks: dict[str, list] = {"pre": [], "post": []}

    def named_modules(self):
        yield "", self

    def register_forward_pre_hook(self, hook):
        return self._register("pre", hook)

    def register_forward_hook(self, hook):
        return self._register("post", hook)

    def _register(self, kind, hook):
        self.hooks[kind].append(hook)
        handle = type("Handle", (), {"remove": lambda _self: self.hooks[kind].remove(hook)})
        return handle()

    def __call__(self, x):
        for hook in self.hooks["pre"]:
            hook(self, (x,))
        out = (x * 2).sum()
        for hook in self.hooks["post"]:
            hook(self, (x,), out)
        return out


def test_watch_uses_forward_hooks_when_a_module_has_them() -> None:
    module = HookedModule()
    x = minitorch.randn(3, requires_grad=True)
    with watch(module):
        out = module(x)
    widget = graph(out)
    assert {n.get("module_type") for n in widget.graph["nodes"] if n["kind"] == "op"} == {"HookedModule"}
    assert module.hooks == {"pre": [], "post": []}


def test_saved_tensors_toggle() -> None:
    loss, params = small_program()
    widget = graph(loss, params=params)
    before = len(widget.graph["nodes"])
    widget.show_saved = True
    saved_nodes = [n for n in widget.graph["nodes"] if n["kind"] == "saved"]
    saved_edges = [e for e in widget.graph["edges"] if e["kind"] == "saved"]
    assert saved_nodes and len(widget.graph["nodes"]) == before + len(saved_nodes)
    assert any(
        e["source"] == next(n["id"] for n in widget.graph["nodes"] if n["label"] == "x") for e in saved_edges
    )
    tanh = next(n for n in widget.graph["nodes"] if n["label"] == "TanhBackward0")
    assert tanh["saved"][0]["is_output"]  # tanh keeps its own result


def test_live_updates_are_throttled_and_keep_the_layout() -> None:
    now = [0.0]
    loss, params = small_program()
    widget = graph(loss, params=params)
    widget.clock, widget.interval = (lambda: now[0]), 0.5
    assert widget.update(loss) is True
    layout = widget._cached[1]
    now[0] = 0.2
    assert widget.update(loss) is False  # too soon
    now[0] = 0.8
    new_loss = ((params["x"] * params["w"] + params["b"]).tanh() * params["x"]).sum()
    assert widget.update(new_loss) is True
    assert widget._cached[1] is layout  # same structure: nodes stay where they were
    assert widget.updates == 2
    assert widget.update(force=True) is True


def test_layout_invariants_on_a_thousand_nodes() -> None:
    h = minitorch.randn(2, 4)
    for _ in range(200):
        h = (h @ minitorch.randn(4, 4, requires_grad=True) + minitorch.zeros(4, requires_grad=True)).tanh()
    widget = graph(h.sum())
    boxes = widget.graph["layout"]["boxes"]
    assert len(boxes) == len(widget.graph["nodes"]) >= 1000
    rows: dict[float, list] = {}
    for x, y, w, _ in boxes.values():
        rows.setdefault(y, []).append((x, w))
    for row in rows.values():
        row.sort()
        assert all(x1 + w1 <= x2 for (x1, w1), (x2, _) in zip(row, row[1:])), "boxes overlap"
    for edge, route in zip(widget.graph["edges"], widget.graph["layout"]["routes"]):
        source, target = boxes[edge["source"]], boxes[edge["target"]]
        assert source[1] + source[3] <= target[1], "edges point down"
        assert route[0][1] == source[1] + source[3] and route[-1][1] == target[1]
    assert widget.graph["layout"]["width"] < 2000  # the chain stays a column, it does not drift


def test_layout_breaks_cycles_from_collapsed_modules() -> None:
    layout = layered_layout(
        {"a": (50, 30), "b": (50, 30), "c": (50, 30)}, [("a", "b"), ("b", "c"), ("c", "a")]
    )
    assert set(layout.boxes) == {"a", "b", "c"} and len(layout.routes) == 3


@pytest.mark.skipif(not dot_available(), reason="Graphviz's dot is not installed")
def test_dot_layout_when_graphviz_is_installed() -> None:
    layout = dot_layout({"a": (50, 30), "b": (60, 30)}, [("a", "b")])
    assert layout.boxes["a"][1] < layout.boxes["b"][1]
    loss, params = small_program()
    assert graph(loss, params=params, layout="dot").graph["stats"]["engine"] == "dot"


def test_static_fallbacks_and_errors() -> None:
    loss, params = small_program()
    widget = graph(loss, params=params)
    text = widget.to_text()
    assert text.splitlines()[0].startswith("output")
    assert "(see above)" in text  # x appears twice
    svg = ElementTree.fromstring(widget.to_svg())
    assert len(svg.findall("{http://www.w3.org/2000/svg}rect")) == len(widget.graph["nodes"]) + 1
    data, _ = widget._repr_mimebundle_()
    assert data["text/plain"] == text and "<svg" in data["text/html"]
    op_id = next(n["id"] for n in widget.graph["nodes"] if n["kind"] == "op")
    widget._on_front_end_message(widget, {"type": "open", "node": op_id}, None)
    assert "holds no tensor" in widget.error
    x_id = next(n["id"] for n in widget.graph["nodes"] if n["label"] == "x")
    widget._on_front_end_message(widget, {"type": "open", "node": x_id}, None)
    assert widget.error == "" and widget.linked["state"]["views"][0]["shape"] == [2, 3]
    assert widget.open_strides(x_id).views[0].shape == (2, 3)
    with pytest.raises(TypeError):
        graph("not a tensor")
