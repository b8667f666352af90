"""The stride visualizer titles views by what the student wrote, and marks stride 0.

Names come from keywords (``strides(t, tT=t.t())``), from ``names=``, or from the calling
line's source (``strides(t, t.t(), t[1:])`` -> "t", "t.t()", "t[1:]"); ``v1``... only when
the source cannot be read. Layouts are checked against PyTorch's.
"""

from __future__ import annotations

import pytest
import torch

import minitorch
from minitorch.course.show import show_layout
from minitorch.widgets import broadcast, call_source, strides
from minitorch.widgets.stride_state import ViewChain, as_operand


def titles(widget) -> list[str]:
    return [view["label"] for view in widget.state["views"]]


def grid() -> minitorch.Tensor:
    return minitorch.arange(12.0).view(3, 4)


def test_views_are_titled_by_the_expressions_written_in_the_call() -> None:
    t = grid()
    widget = strides(t, t.t(), t[1:])
    assert titles(widget) == ["t", "t.t()", "t[1:]"]
    assert [v["strides"] for v in widget.state["views"]] == [[4, 1], [1, 4], [4, 1]]
    assert widget.state["views"][2]["offset"] == 4  # t[1:] starts one row in, as in torch
    assert torch.arange(12.0).view(3, 4)[1:].storage_offset() == 4


def test_keyword_arguments_name_their_views() -> None:
    t = grid()
    widget = strides(t, tT=t.t(), every_other=t[:, ::2])
    assert titles(widget) == ["t", "tT", "every_other"]
    assert widget.state["views"][2]["strides"] == list(torch.arange(12.0).view(3, 4)[:, ::2].stride())


def test_names_given_win_and_the_rest_are_read_from_the_call() -> None:
    t = grid()
    assert titles(strides(t, t.t(), names=["base", "flipped"])) == ["base", "flipped"]
    assert titles(strides(t, t.t(), names=["base"])) == ["base", "t.t()"]


def test_a_call_over_several_lines_and_two_calls_on_one_line() -> None:
    t = grid()
    widget = strides(
        t,
        t.t()
        .contiguous(),
    )  # fmt: skip
    assert titles(widget) == ["t", "t.t().contiguous()"]
    first, second = strides(t), strides(t.t())  # each call reads its own arguments
    assert titles(first) == ["t"] and titles(second) == ["t.t()"]


def test_without_source_the_views_are_numbered() -> None:
    t = grid()
    scope = {"strides": strides, "t": t}
    exec("widget = strides(t, t.t(), t[1:])", scope)  # a string has no source lines to read
    assert titles(scope["widget"]) == ["t", "v1", "v2"]
    views = [t, t.t()]
    assert titles(strides(*views)) == ["t", "v1"]  # *args: which text is which view is unknown


def test_a_long_expression_is_not_a_title() -> None:
    widget = strides(minitorch.arange(12.0).view(3, 4).t().contiguous().view(2, 6).t().contiguous())
    assert titles(widget) == ["t"]


def test_the_line_is_read_alone_when_python_gives_no_columns(monkeypatch) -> None:
    """Python 3.10 has no column positions: the one call of the function on the line."""
    monkeypatch.setattr(call_source, "_call_in_frame", lambda frame: None)
    t = grid()
    assert titles(strides(t, t[0])) == ["t", "t[0]"]
    first, second = strides(t), strides(t.t())  # two calls on one line: no way to tell
    assert titles(first) == ["t"] and titles(second) == ["t"]


def test_show_layout_titles_the_view_with_the_name_given() -> None:
    x = grid()
    widget = show_layout(x, "x")
    assert titles(widget) == ["x"]
    assert "x: shape (3, 4)" in widget.to_text()


def test_bad_calls_say_what_to_do() -> None:
    with pytest.raises(TypeError, match="needs a tensor"):
        strides()
    with pytest.raises(ValueError, match="2 names for 1 tensors"):
        strides(grid(), names=["a", "b"])
    with pytest.raises(TypeError, match="expected minitorch tensors"):
        strides(grid(), other=[1, 2])
    with pytest.raises(ValueError, match="two names"):
        broadcast(grid(), grid(), names=["only one"])


def test_broadcast_is_headed_by_the_names_of_its_operands() -> None:
    x = minitorch.arange(3.0).view(3, 1)
    bias = minitorch.arange(4.0)
    widget = broadcast(x, bias)
    assert widget.broadcast["names"] == ["x", "bias"]
    assert titles(widget) == ["x", "bias", "x.expand(3, 4)", "bias.expand(3, 4)", "x + bias"]
    text = widget.to_text()
    assert text.splitlines()[0] == "broadcasting x + bias" and "stride visualizer" not in text
    assert "dim 1: x 1, bias 4 -> 4  (x stretched: stride 0)" in text
    assert (torch.arange(3.0).view(3, 1) + torch.arange(4.0)).tolist() == widget.views[4].tolist()
    svg = widget.to_svg()
    assert "broadcasting x + bias" in svg and "stride visualizer" not in svg


def test_broadcast_of_long_expressions_says_a_and_b() -> None:
    widget = broadcast(minitorch.arange(3.0).view(3, 1), minitorch.arange(4.0))
    assert widget.broadcast["names"] == ["a", "b"]
    assert widget.to_text().splitlines()[0] == "broadcasting a + b"
    named = broadcast(minitorch.ones(2, 1), minitorch.ones(3), names=["rows", "cols"])
    assert titles(named)[-1] == "rows + cols"


def test_a_view_derived_from_a_sum_reads_as_code() -> None:
    """The control once read "new view of a + b = a + b.permute(": now (a + b).permute(...)."""
    a, b = minitorch.ones(3, 1), minitorch.ones(4)
    widget = broadcast(a, b)
    assert widget.state["views"][4]["operand"] == "(a + b)"
    assert widget.state["next_name"] == "v5"
    widget.apply("permute", "1, 0")
    assert titles(widget)[-1] == "v5 = (a + b).permute(1, 0)"
    expected = (torch.ones(3, 1) + torch.ones(4)).permute(1, 0)
    assert widget.state["views"][-1]["strides"] == list(expected.stride())
    assert as_operand("x") == "x" and as_operand("t.t()") == "t.t()" and as_operand("t[1:]") == "t[1:]"
    assert as_operand("x * 2") == "(x * 2)" and as_operand("-x") == "(-x)"


@pytest.mark.parametrize(
    ("shape", "expand_to"),
    [((3, 1), (3, 4)), ((1, 4), (3, 4)), ((4,), (2, 3, 4)), ((2, 1, 1), (2, 3, 5)), ((3, 1), (3, 1))],
)
def test_stride_zero_dimensions_are_marked_as_repeated_reads(shape, expand_to) -> None:
    count = 1
    for n in shape:
        count *= n
    expected = torch.arange(float(count)).view(*shape).expand(*expand_to)
    view = minitorch.arange(float(count)).view(*shape).expand(*expand_to)
    state = ViewChain([view], ["e"]).state()["views"][0]
    assert state["strides"] == list(expected.stride())
    assert state["repeated_dims"] == [d for d, (n, s) in enumerate(zip(expected.shape, expected.stride()))
                                      if s == 0 and n > 1]  # fmt: skip
    positions = torch.arange(count).as_strided(expected.shape, expected.stride()).reshape(-1)
    assert state["most_reads"] == int(torch.bincount(positions).max())


def test_the_pictures_mark_stride_zero() -> None:
    column = minitorch.arange(3.0).view(3, 1)
    widget = strides(column, wide=column.expand(3, 4))
    text = widget.to_text()
    assert "wide: shape (3, 4) strides (1, 0)" in text
    assert "stride 0 in dim 1: repeats, each cell read 4 times" in text
    assert "repeats" not in text.splitlines()[1]  # the column itself reads each cell once
    svg = widget.to_svg()
    assert "stride 0: repeats" in svg and "×4" in svg
    overlapping = minitorch.arange(6.0).as_strided((3, 3), (1, 1))  # windows that overlap
    assert "overlapping: a cell read 3 times" in strides(overlapping).to_text()
