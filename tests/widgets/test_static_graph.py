"""The graph viewer's static mode: a captured training step drawn as a dataflow graph
(kernel nodes, buffer nodes, phase bands) beside the autograd graph of its eager call."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ElementTree

import pytest

import minitorch
from minitorch import nn
from minitorch.compiler.graph import Node, Operand
from minitorch.widgets import graph
from minitorch.widgets.static_graph import StaticGraphWidget


def training_step(optimizer: str = "sgd"):
    """A 2-8-1 MLP's compiled step, called twice (warm-up, capture); returns the compiled
    function, the warm-up call's loss (eager: it has a grad_fn) and the model."""
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = (minitorch.optim.SGD(model.parameters(), lr=0.03) if optimizer == "sgd"
           else minitorch.optim.Adam(model.parameters(), lr=0.01))  # fmt: skip
    x, y = minitorch.randn(16, 2), minitorch.randn(16, 1)

    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    compiled = minitorch.compile(step, passes=["dead_code"])  # every kernel as recorded
    eager_loss = compiled(x, y)
    compiled(x, y)
    return compiled, eager_loss, model


def by_id(widget) -> dict[str, dict]:
    return {n["id"]: n for n in widget.captured["nodes"]}


def test_every_kernel_call_and_outliving_buffer_is_a_node() -> None:
    compiled, loss, _ = training_step()
    widget = graph(compiled, autograd=loss)
    assert isinstance(widget, StaticGraphWidget)
    captured = compiled.graph
    nodes = widget.captured["nodes"]
    kernels = [n for n in nodes if n["kind"] in ("kernel", "fused", "check")]
    assert [n["id"] for n in kernels] == [node.name for node in captured.nodes]
    assert widget.captured["stats"]["kernels"] == len(captured.nodes)
    # Each input, variable and constant is read from a node of its own, one in each band
    # that reads it before any kernel wrote it; temps are edges.
    buffer_nodes = [n for n in nodes if "buffer" in n]
    band_of = {n: i for i, band in enumerate(widget.extracted.bands) for n in band["nodes"]}
    reads = [(n["buffer"], band_of[n["id"]]) for n in buffer_nodes if "@" not in n["id"]]
    expected, written_so_far = set(), set()
    for node in captured.nodes:
        expected |= {(o.buffer, band_of[node.name]) for o in node.reads if o.buffer not in written_so_far}
        written_so_far |= {o.buffer for o in node.writes}
    assert sorted(reads) == sorted(expected)
    kinds = {captured.buffers[b].kind for b, _ in reads}
    assert kinds <= {"input", "variable", "constant"} and "temp" not in {n["kind"] for n in nodes}
    assert {b.index for b in captured.buffers_of("input")} <= {b for b, _ in reads}
    weight = [band_of[n["id"]] for n in buffer_nodes if n["label"] == "model.2.weight"]
    assert weight == [0, 1, 2, 2]  # read by forward, backward, the step; written by the step
    # A written variable or state gets a node below the kernel that wrote it: 4 parameters
    # updated by the step, 4 gradients copied into p.grad by the backward.
    written = [n for n in buffer_nodes if "@" in n["id"]]
    assert sorted(n["label"] for n in written if n["kind"] == "variable") == sorted(
        ["model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"])  # fmt: skip
    assert sorted(n["label"] for n in written if n["kind"] == "state") == sorted(
        ["model.0.weight.grad", "model.0.bias.grad", "model.2.weight.grad", "model.2.bias.grad"])  # fmt: skip
    assert len(buffer_nodes) == len(reads) + len(written)
    assert [n["label"] for n in nodes if n["kind"] == "output"] == ["return"]
    assert len({n["id"] for n in nodes}) == len(nodes)


def test_edges_follow_the_data_and_point_down() -> None:
    compiled, loss, _ = training_step()
    widget = graph(compiled, autograd=loss)
    nodes, rows = by_id(widget), widget.extracted.rows
    names = {node.name: node for node in compiled.graph.nodes}
    for edge in widget.captured["edges"]:
        assert rows[edge["source"]] < rows[edge["target"]], edge
        if edge["target"] in names:  # a kernel reads the buffer the edge carries
            assert edge["buffer"] in {o.buffer for o in names[edge["target"]].reads}
    # The first matmul reads x and model.0.weight straight from their buffer nodes.
    first = compiled.graph.nodes[0]
    sources = {nodes[e["source"]]["label"] for e in widget.captured["edges"] if e["target"] == first.name}
    assert sources == {"x", "model.0.weight"}
    # The optimizer step reads each p.grad from the node the backward's copy wrote.
    step_node = next(n for n in compiled.graph.nodes if n.primitive == "optimizer_step")
    read = {nodes[e["source"]]["label"] for e in widget.captured["edges"] if e["target"] == step_node.name}
    assert {"model.0.weight.grad", "model.2.bias.grad", "model.0.weight"} <= read


def test_phases_are_bands_in_the_order_they_ran() -> None:
    compiled, loss, _ = training_step()
    widget = graph(compiled, autograd=loss)
    bands = widget.captured["bands"]
    assert [b["phase"] for b in bands] == ["forward", "backward", "optimizer"]
    assert all(a["y"] + a["height"] <= b["y"] for a, b in zip(bands, bands[1:]))  # no overlap
    phases = {n["id"]: n["phase"] for n in widget.captured["nodes"]}
    for node in compiled.graph.nodes:
        expected = "optimizer" if node.primitive == "optimizer_step" else node.phase
        assert phases[node.name] == expected
    boxes = widget.captured["layout"]["boxes"]
    for band, members in zip(bands, widget.extracted.bands):
        assert band["members"] == members["nodes"]  # what the front end collapses into one row
        for node_id in members["nodes"]:
            y, height = boxes[node_id][1], boxes[node_id][3]
            assert band["y"] <= y and y + height <= band["y"] + band["height"]
    in_bands = [node_id for band in bands for node_id in band["members"]]
    assert sorted(in_bands) == sorted(boxes)  # each node in exactly one band


def test_adam_state_is_named_and_updated_by_the_step() -> None:
    compiled, loss, _ = training_step("adam")
    widget = graph(compiled, autograd=loss)
    labels = [n["label"] for n in widget.captured["nodes"] if n["phase"] == "optimizer"]
    assert "opt.state[model.0.weight].exp_avg" in labels
    assert "opt.state[model.2.bias].exp_avg_sq" in labels


def test_autograd_graph_of_the_eager_call_sits_beside() -> None:
    compiled, loss, model = training_step()
    widget = graph(compiled, autograd=loss)
    labels = sorted(n["label"] for n in widget.autograd["nodes"])
    eager = copy.deepcopy(model)
    x, y = minitorch.randn(16, 2), minitorch.randn(16, 1)
    names = {f"model.{name}": p for name, p in eager.named_parameters()}
    reference = graph(nn.functional.mse_loss(eager(x), y), params=names)
    assert labels == sorted(n["label"] for n in reference.graph["nodes"])
    assert "model.0.weight" in labels and "AddmmBackward0" in labels  # parameters named
    # Without autograd=, only the captured graph.
    alone = graph(compiled)
    assert alone.autograd == {} and alone.captured["nodes"] == widget.captured["nodes"]


def test_a_fused_node_carries_its_source() -> None:
    compiled, loss, _ = training_step()
    captured = compiled.graph
    sub, square = captured.nodes[5], captured.nodes[6]  # (prediction - y), then its square
    assert (sub.kernel, square.kernel) == ("sub", "mul")
    source = "def fused(out, a, b):\n    for i in range(len(out)):\n        out[i] = (a[i] - b[i]) ** 2\n"
    fused = Node("fused", (square.writes[0], *sub.reads), "cpu", op="Sub+Mul", phase="forward",
                 source=source)  # fmt: skip
    captured.nodes[5:7] = [fused]
    captured.renumber()
    widget = graph(captured)
    node = by_id(widget)["n5"]
    assert node["kind"] == "fused" and node["source"] == source
    assert node["label"] == "n5 fused" and node["sub"].startswith("Sub+Mul")
    assert captured.source("n5") == source
    assert len(widget.captured["nodes"]) == len(graph(compiled).captured["nodes"])


def test_bad_arguments_say_what_to_do() -> None:
    compiled = minitorch.compile(lambda x: (x * 2).sum())
    with pytest.raises(ValueError, match="Call it twice"):
        graph(compiled)
    step, loss, _ = training_step()
    with pytest.raises(ValueError, match="grad_fn"):
        graph(step, autograd=step(minitorch.randn(16, 2), minitorch.randn(16, 1)))
    with pytest.raises(TypeError, match="autograd="):
        graph(step, autograd=[loss, 3])


def test_static_pictures_have_both_graphs_and_readable_text() -> None:
    compiled, loss, _ = training_step()
    widget = graph(compiled, autograd=loss)
    svg = widget.to_svg()
    root = ElementTree.fromstring(svg)
    texts = [t for t in root.iter("{http://www.w3.org/2000/svg}text")]
    contents = [t.text for t in texts]
    for expected in ("forward", "backward", "optimizer", "model.0.weight", "n0 matmul",
                     "autograd graph (eager)", "AddmmBackward0"):  # fmt: skip
        assert expected in contents
    assert min(float(t.get("font-size")) for t in texts) >= 11
    assert widget.to_text().startswith(str(compiled.graph).splitlines()[0])
    assert "autograd graph of the eager call" in widget.to_text()
    html = widget._repr_mimebundle_()[0]["text/html"]
    assert "<svg" in html and "model.0.weight" in html


def test_operands_are_shown_as_the_graph_prints_them() -> None:
    compiled, loss, _ = training_step()
    widget = graph(compiled)
    node = compiled.graph.nodes[0]
    shown = by_id(widget)[node.name]
    assert shown["writes"] == [str(o) for o in node.writes]
    assert shown["reads"] == [str(o) for o in node.reads]
    assert shown["line"] == node.describe(compiled.graph.buffers).strip()
    assert isinstance(node.reads[0], Operand)
