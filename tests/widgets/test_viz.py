"""``minitorch.viz.draw_graph``: micrograd's example expression as a Graphviz digraph (its
nodes, edges, values and gradients against PyTorch), a captured training step in phase
clusters, and the graph viewer widget where Graphviz is missing."""

from __future__ import annotations

import re
import shutil

import pytest
import torch

import minitorch
from minitorch import nn, viz

needs_graphviz = pytest.mark.skipif(not viz.graphviz_available(),
                                    reason="needs the graphviz package and the dot program")  # fmt: skip
NODE = re.compile(r'^\s*(\w+) \[label=("(?:[^"\\]|\\.)*"|\w+)', re.M)
EDGE = re.compile(r"^\s*(\w+) -> (\w+)", re.M)


def parsed(dot) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """``{node id: label}`` and the ``(source, target)`` edges of a digraph's source."""
    labels = {node: label.strip('"') for node, label in NODE.findall(dot.source)}
    return labels, EDGE.findall(dot.source)


def micrograd_example(lib):
    """micrograd's lecture example, L = (a * b + c) * f, with the backward done."""
    a, b, c, f = (lib.tensor(v, requires_grad=True) for v in (2.0, -3.0, 10.0, -2.0))
    L = (a * b + c) * f
    L.backward()
    return L, {"a": a, "b": b, "c": c, "f": f}


@needs_graphviz
def test_micrograd_example_has_its_known_nodes_edges_values_and_gradients():
    L, leaves = micrograd_example(minitorch)
    expected_L, expected = micrograd_example(torch)  # the oracle for values and gradients
    dot = viz.draw_graph(L, params={**leaves, "L": L})
    labels, edges = parsed(dot)
    assert "rankdir=LR" in dot.source
    assert sorted(labels.values(), key=str) == sorted(
        [*(f"{{ {n} | float32 () | data {expected[n].item():g} | grad {expected[n].grad.item():g} }}"
           for n in "abcf"),
         f"{{ L | float32 () | data {expected_L.item():g} }}", "Mul", "Add", "Mul"], key=str)  # fmt: skip
    # Edges as the data flowed: a, b -> Mul -> Add (with c) -> Mul (with f) -> L.
    name = {node: label.split(" ")[1] if label.startswith("{") else label for node, label in labels.items()}
    first_mul = next(t for s, t in edges if name[s] == "a")
    add = next(t for s, t in edges if s == first_mul)
    last_mul = next(t for s, t in edges if s == add)
    assert (name[first_mul], name[add], name[last_mul]) == ("Mul", "Add", "Mul")
    flows = [("a", "Mul"), ("b", "Mul"), ("Mul", "Add"), ("c", "Add"),
             ("Add", "Mul"), ("f", "Mul"), ("Mul", "L")]  # fmt: skip
    assert sorted((name[s], name[t]) for s, t in edges) == sorted(flows)
    assert "<svg" in dot._repr_image_svg_xml()  # what Jupyter shows inline


@needs_graphviz
def test_shapes_views_and_large_tensors():
    x = minitorch.randn(3, 2, requires_grad=True)
    y = (x @ minitorch.ones(2, 8)).view(24).sum()
    labels, edges = parsed(viz.draw_graph(y, params={"x": x}))
    assert "{ x | float32 (3, 2) | data" not in labels.values()  # 6 elements: no values shown
    assert "{ x | float32 (3, 2) }" in labels.values()
    assert "Mm\n(3, 8)" in labels.values() and "View\n(24,)" in labels.values()
    assert "style=dashed" in viz.draw_graph(y).source  # a view's node
    assert len(edges) == 4  # x -> Mm -> View -> Sum -> output


@needs_graphviz
def test_a_captured_training_step_draws_its_kernels_in_phase_clusters():
    minitorch.manual_seed(0)
    model = nn.Linear(2, 1)
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1)

    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    compiled = minitorch.compile(step)
    x, y = minitorch.randn(4, 2), minitorch.randn(4, 1)
    compiled(x, y)
    compiled(x, y)
    dot = viz.draw_graph(compiled)
    labels, edges = parsed(dot)
    assert [n.name for n in compiled.graph.nodes] == [k for k in labels if re.fullmatch(r"n\d+", k)]
    assert re.findall(r"label=(\w+) style=filled", dot.source) == ["forward", "backward", "optimizer"]
    assert "rankdir=TB" in dot.source
    assert any(label.startswith("model.weight\n") for label in labels.values())  # the parameters by name
    assert all(s in labels and t in labels for s, t in edges)
    assert viz.draw_graph(compiled.graph).source == dot.source


def test_without_graphviz_it_is_the_graph_viewer_widget(monkeypatch):
    pytest.importorskip("anywidget")
    from minitorch.widgets.graph import GraphWidget

    monkeypatch.setattr(shutil, "which", lambda _name: None)  # no dot program on PATH
    assert not viz.graphviz_available()
    L, leaves = micrograd_example(minitorch)
    widget = viz.draw_graph(L, params=leaves)
    assert isinstance(widget, GraphWidget)
    assert {node["label"] for node in widget.graph["nodes"]} >= {"a", "b", "c", "f"}
    monkeypatch.setitem(__import__("sys").modules, "graphviz", None)  # the package missing too
    assert not viz.graphviz_available()


def test_bad_input_is_refused_as_pytorch_would():
    for bad in (None, "x", 3, []):
        with pytest.raises(TypeError):
            viz.draw_graph(bad)
    with pytest.raises(ValueError, match="rankdir"):
        viz.draw_graph(minitorch.ones(2), rankdir="sideways")
    with pytest.raises(ValueError, match="no captured graph yet"):
        viz.draw_graph(minitorch.compile(lambda x: x * 2))
