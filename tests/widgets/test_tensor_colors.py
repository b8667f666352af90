"""The same tensor has the same colour in every widget of a page (issue 16, item 7):
the stride visualizer, the graph viewer and the memory widget ask ``colors.py``."""

from __future__ import annotations

import gc

import minitorch
from minitorch.widgets import graph, memory, strides
from minitorch.widgets.colors import TENSOR_COLORS, _color_of, tensor_color
from minitorch.widgets.svg import MEANING


def memory_colors(widget, t) -> set[str]:
    """The colours the memory widget shows for the tensors holding ``t``'s block."""
    address = t._storage.__array_interface__["data"][0]
    return {holder["color"] for segment in widget.state["segments"] for block in segment["blocks"]
            if block["allocated"] and block["address"] <= address < block["address"] + block["size"]
            for holder in block["holders"]}  # fmt: skip


def test_two_widgets_showing_one_tensor_report_one_colour() -> None:
    weight = minitorch.randn(16, 16, requires_grad=True)
    other = minitorch.randn(16, 16, requires_grad=True)
    loss = (weight * other).sum()
    viewer = graph(loss, params={"weight": weight, "other": other})
    stride_view = strides(weight, wT=weight.t())
    nodes = {node["label"]: node for node in viewer.graph["nodes"]}
    mem = memory()
    try:
        held = memory_colors(mem, weight)  # the weight, its view wT, autograd's saved reference
    finally:
        mem.stop()
    colour = stride_view.state["storages"][0]["color"]
    assert colour == nodes["weight"]["tensor"]["color"] == tensor_color(weight)
    assert held == {colour}
    assert nodes["other"]["tensor"]["color"] != colour  # another tensor, another colour


def test_views_share_their_storage_colour_and_a_freed_storage_is_forgotten() -> None:
    base = minitorch.arange(12.0).view(3, 4)
    assert tensor_color(base.t()) == tensor_color(base[1:]) == tensor_color(base)
    assert tensor_color(base.contiguous() * 1) != tensor_color(base)  # a copy: new cells
    known = len(_color_of)
    del base
    gc.collect()
    assert len(_color_of) < known  # held weakly: colouring keeps no memory alive


def test_tensor_colours_are_not_the_meaning_colours() -> None:
    meanings = {colour for pair in MEANING.values() for colour in pair}
    assert len(set(TENSOR_COLORS)) == len(TENSOR_COLORS) and not meanings & set(TENSOR_COLORS)
