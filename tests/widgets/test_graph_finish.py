"""The graph viewer's finish (issue 16, items 1 and 2), on the Python side.

* The viewer's backward runs on its own copy of the graph (``graph_replay.py``): the
  gradients it shows equal PyTorch's, and it never changes a ``.grad`` of the notebook,
  whether the notebook's own ``backward()`` runs before it or after it; it still works
  after ``opt.step()`` changed the parameters in place, and says why when the graph was
  freed before it was drawn.
* Two edges between the same two nodes are routed apart and labelled with their inputs.
* The collapse checkboxes name their modules; no text is drawn under 11 px.

The browser side of the same points is ``tests/browser/test_graph_viewer_finish.py``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import pytest
import torch

import minitorch
from minitorch import nn
from minitorch.autograd import Function
from minitorch.resources import resource_dir
from minitorch.widgets import graph, watch
from minitorch.widgets.graph_layout import PARALLEL_GAP, layered_layout


def mlp_and_torch_twin():
    """A small MLP, its loss, and PyTorch's gradients of the same loss (the oracle)."""
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x = minitorch.randn(5, 3)
    with watch(model):
        loss = model(x).pow(2).mean()
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    with torch.no_grad():
        for (_, ours), theirs in zip(model.named_parameters(), twin.parameters()):
            theirs.copy_(torch.tensor(ours.tolist()))
    twin(torch.tensor(x.tolist())).pow(2).mean().backward()
    expected = {name: theirs.grad for (name, _), theirs in zip(model.named_parameters(), twin.parameters())}
    return model, loss, expected


def shown_grads(widget) -> dict[str, list]:
    """The gradient the viewer shows at each parameter node."""
    return {n["label"]: n["grad"]["values"] for n in widget.graph["nodes"] if n["kind"] == "param"}


def assert_matches(values, expected: torch.Tensor) -> None:
    torch.testing.assert_close(torch.tensor(values), expected, rtol=1e-5, atol=1e-6)


def test_viewer_backward_first_leaves_grad_alone_and_shows_torchs_gradients() -> None:
    model, loss, expected = mlp_and_torch_twin()
    widget = graph(loss, params=model)
    widget.backward()
    assert all(p.grad is None for p in model.parameters())
    for name, values in shown_grads(widget).items():
        assert_matches(values, expected[name])
    assert widget.graph["replay"] == {"problem": "", "ran": True}
    assert all(n["grad_from"] == "viewer" for n in widget.graph["nodes"] if n["kind"] == "param")
    loss.backward()  # the notebook's own, after the viewer's: one gradient, not two
    for name, p in model.named_parameters():
        assert_matches(p.grad.tolist(), expected[name])


def test_viewer_backward_after_the_notebooks_backward() -> None:
    model, loss, expected = mlp_and_torch_twin()
    widget = graph(loss, params=model)
    loss.backward()  # frees the saved tensors of the user's graph
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    before = {name: p.grad.tolist() for name, p in model.named_parameters()}
    widget._on_front_end_message(widget, {"type": "backward"}, None)  # the button
    assert widget.error == ""
    assert {name: p.grad.tolist() for name, p in model.named_parameters()} == before
    for name, values in shown_grads(widget).items():
        assert_matches(values, expected[name])
    # the saved tensors the notebook's backward freed are still shown, from the copy
    tanh = next(n for n in widget.graph["nodes"] if n["label"] == "TanhBackward0")
    assert tanh["saved"] and tanh["saved"][0]["shape"] == [5, 4]


def test_pressing_backward_twice_shows_the_same_gradients_and_steps() -> None:
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    widget = graph((y * y).sum(), params={"x": x})
    widget.backward()
    first = (shown_grads(widget), [s["label"] for s in widget.steps])
    widget.backward()
    assert (shown_grads(widget), [s["label"] for s in widget.steps]) == first
    expected = torch.tensor([1.0, 2.0, 3.0]).mul(2).exp().mul(2)  # d/dx sum(exp(x)^2)
    assert_matches(first[0]["x"], expected)
    assert first[1] == ["SumBackward0", "MulBackward0", "ExpBackward0", "AccumulateGrad"]
    mul = widget.steps[1]
    assert [(e["slot"], e["contribution"], e["of"]) for e in mul["edges"]] == [(0, 1, 2), (1, 2, 2)]
    assert x.grad is None


def test_the_copy_keeps_the_values_saved_when_the_graph_was_drawn() -> None:
    model, loss, expected = mlp_and_torch_twin()
    widget = graph(loss, params=model)
    loss.backward()
    minitorch.optim.SGD(model.parameters(), lr=0.5).step()  # changes every parameter in place
    widget.backward()  # (the user's graph would now raise: a saved tensor was modified)
    for name, values in shown_grads(widget).items():
        assert_matches(values, expected[name])  # the gradient at the weights it drew


def test_a_graph_freed_before_it_was_drawn_says_what_happened() -> None:
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x.exp() * x).sum()
    loss.backward()
    widget = graph(loss, params={"x": x})
    assert "already ran through this graph before the viewer drew it" in widget.graph["replay"]["problem"]
    widget._on_front_end_message(widget, {"type": "backward"}, None)
    assert "Draw the graph before calling backward()" in widget.error
    assert widget.steps == [] and x.grad.tolist() == pytest.approx([(1 + v) * torch.e**v for v in (1.0, 2.0)])
    with watch():  # the notebook's own backward, recorded: its steps are still shown
        loss = (x.exp() * x).sum()
        loss.backward()
    widget = graph(loss, params={"x": x})
    assert widget.graph["replay"]["problem"] and [s["label"] for s in widget.steps][-1] == "AccumulateGrad"


def in_place(lib, x):
    y = x * 2
    y.mul_(3)
    y[0].add_(1)  # through a view: the graph is rebased on the base's new history
    return (y * y).sum()


def views(lib, x):
    return (x.t()[1:] * x.t()[:2]).exp().sum() + x.expand(3, 2, 3).relu().sum()


def reductions(lib, x):
    return x.softmax(-1).max(dim=1).values.sum() + lib.nn.functional.cross_entropy(x, lib.tensor([0, 2]))


@pytest.mark.parametrize("program", [in_place, views, reductions])
def test_the_copy_replays_in_place_ops_views_and_reductions(program) -> None:
    rows = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]
    x = minitorch.tensor(rows, requires_grad=True)
    widget = graph(program(minitorch, x), params={"x": x})
    widget.backward()
    assert x.grad is None
    theirs = torch.tensor(rows, requires_grad=True)
    program(torch, theirs).backward()
    assert_matches(shown_grads(widget)["x"], theirs.grad)


def test_hooks_and_retained_grads_of_the_notebook_are_not_run() -> None:
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(g))
    y = x * 3
    y.retain_grad()
    widget = graph(y.pow(2).sum(), params={"x": x})
    widget.backward()
    assert calls == [] and y.grad is None and x.grad is None
    assert_matches(shown_grads(widget)["x"], torch.tensor([18.0, 36.0]))


class TwoOutputs(Function):
    """A user's Function with two outputs (one node, output_nr 0 and 1)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2, a * a

    @staticmethod
    def backward(ctx, g0, g1):
        (a,) = ctx.saved_tensors
        return g0 * 2 + g1 * 2 * a


def test_outputs_of_a_node_with_two_outputs() -> None:
    a = minitorch.tensor([1.0, -2.0], requires_grad=True)
    doubled, squared = TwoOutputs.apply(a)
    widget = graph([doubled, squared], params={"a": a})
    widget.backward()  # ones into both outputs: 2 + 2a
    assert_matches(shown_grads(widget)["a"], torch.tensor([4.0, -2.0]))
    widget.update([squared], force=True)  # new outputs: a new copy of the graph
    assert widget.graph["replay"]["ran"] is False
    widget.backward()
    assert_matches(shown_grads(widget)["a"], torch.tensor([2.0, -4.0]))
    assert a.grad is None


def test_parallel_edges_are_apart_and_labelled_with_their_inputs() -> None:
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    widget = graph(minitorch.stack([y, y, y]).sum(), params={"x": x})  # three edges exp -> stack
    edges, routes = widget.graph["edges"], widget.graph["layout"]["routes"]
    parallel = [(e, r) for e, r in zip(edges, routes) if e.get("label")]
    assert [e["label"] for e, _ in parallel] == ["input 0", "input 1", "input 2"]
    assert [e["side"] for e, _ in parallel] == ["left", "right", "right"]
    middles = [r[len(r) // 2][0] for _, r in parallel]
    assert [b - a for a, b in zip(middles, middles[1:])] == pytest.approx([PARALLEL_GAP, PARALLEL_GAP])
    ends = {tuple(r[-1]) for _, r in parallel}
    assert len(ends) == 3  # three arrow heads, not one
    assert all(len(e.get("label", "")) == 0 for e in edges if e not in [p for p, _ in parallel])
    svg = widget.to_svg()
    assert all(f">input {k}</text>" in svg for k in range(3))
    # the layout alone: a single edge is left straight, a pair is bent apart
    boxes = {"a": (60, 30), "b": (60, 30), "c": (60, 30)}
    layout = layered_layout(boxes, [("a", "b"), ("a", "b"), ("b", "c")])
    assert len(layout.routes[0]) == len(layout.routes[1]) == 3 and len(layout.routes[2]) == 2
    assert layout.routes[1][1][0] - layout.routes[0][1][0] == pytest.approx(PARALLEL_GAP)


class Named(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer1 = nn.Linear(3, 4)
        self.layer2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.layer2(self.layer1(x).relu())


def test_collapse_checkboxes_read_module_names() -> None:
    model = Named()
    with watch(model):
        loss = model(minitorch.randn(2, 3)).sum()
    widget = graph(loss, params=model)
    assert widget.graph["modules"] == ["layer1", "layer2"]  # the checkboxes' values
    assert widget.graph["module_labels"] == {"layer1": "layer1 (Linear)", "layer2": "layer2 (Linear)"}
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with watch(seq):
        loss = seq(minitorch.randn(2, 3)).sum()
    labels = graph(loss, params=seq).graph["module_labels"]
    assert labels == {"0": "0 (Linear)", "1": "1 (ReLU)", "2": "2 (Linear)"}
    h, names = minitorch.randn(2, 4), {}
    for i in range(12):  # modules named by the parameters' names, counted as a person counts
        names[f"layer{i}.weight"] = minitorch.randn(4, 4, requires_grad=True)
        h = h @ names[f"layer{i}.weight"]
    assert graph(h.sum(), params=names).graph["modules"] == [f"layer{i}" for i in range(12)]


def test_no_text_under_11_px_and_steps_slow_enough_to_follow() -> None:
    model, loss, _ = mlp_and_torch_twin()
    widget = graph(loss, params=model)
    svg = ElementTree.fromstring(widget.to_svg())
    sizes = [float(t.get("font-size")) for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert sizes and min(sizes) >= 11
    folder = resource_dir("widgets")
    scale = dict(re.findall(r"--mt-text-([\w-]+):\s*(\d+)px", (folder / "theme.css").read_text()))
    css = (folder / "graph.css").read_text()
    sizes = re.findall(r"font-size:\s*(?:var\(--mt-text-([\w-]+)\)|(\d+)px)", css)
    assert sizes and all(int(scale[name] if name else px) >= 11 for name, px in sizes)
    assert widget.step_ms >= 600
