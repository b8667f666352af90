"""The stride visualizer's state logic, checked against PyTorch (strides, offsets, which
views share storage, what ``.view(-1)`` accepts) and against ``minitorch.layout``."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch
from minitorch.widgets import broadcast, strides
from minitorch.widgets.broadcasting import broadcast_columns
from minitorch.widgets.stride_state import ViewChain, positions_of
from minitorch.widgets.view_controls import parse_index, parse_ints


def twin(shape: tuple[int, ...]) -> tuple[minitorch.Tensor, torch.Tensor]:
    count = 1
    for size in shape:
        count *= size
    return minitorch.arange(float(count)).view(*shape), torch.arange(float(count)).view(*shape)


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
    strides_=st.lists(st.integers(0, 5), min_size=3, max_size=3),
    offset=st.integers(0, 3),
)
def test_positions_match_torch_as_strided(shape, strides_, offset) -> None:
    """torch.arange(n).as_strided(...) holds each element's storage position: the oracle."""
    strides_ = strides_[: len(shape)]
    span = offset + sum((size - 1) * stride for size, stride in zip(shape, strides_) if size > 0) + 1
    expected = torch.arange(span).as_strided(shape, strides_, offset).reshape(-1).tolist()
    if 0 in shape:
        expected = []
    assert positions_of(tuple(shape), tuple(strides_), offset) == expected


# op, argument text, the same op on a torch tensor
OPS = [
    ("permute", "1, 0", lambda t: t.permute(1, 0)),
    ("transpose", "0, 1", lambda t: t.transpose(0, 1)),
    ("index", "[:, 1::2]", lambda t: t[:, 1::2]),
    ("index", "[1]", lambda t: t[1]),
    ("index", "[None, :, 2]", lambda t: t[None, :, 2]),
    ("expand", "2, 3, 4", lambda t: t.expand(2, 3, 4)),
    ("unsqueeze", "1", lambda t: t.unsqueeze(1)),
    ("view", "2, 6", lambda t: t.view(2, 6)),
    ("reshape", "-1", lambda t: t.reshape(-1)),
    ("contiguous", "", lambda t: t.contiguous()),
    ("flip", "0", lambda t: t.flip(0)),
    ("as_strided", "2, 2; 1, 4; 1", lambda t: t.as_strided((2, 2), (1, 4), 1)),
]


@pytest.mark.parametrize("start", ["plain", "transposed"])
@pytest.mark.parametrize(("op", "args", "torch_op"), OPS, ids=[f"{o}({a})" for o, a, _ in OPS])
def test_view_ops_match_torch(start, op, args, torch_op) -> None:
    mt_base, torch_base = twin((3, 4))
    if start == "transposed":
        mt_base, torch_base = mt_base.t().contiguous().t(), torch_base.t().contiguous().t()
        if op == "view":
            pytest.skip("a transposed tensor cannot be viewed as (2, 6): covered by the error test")
    chain = ViewChain([mt_base], ["t"])
    index = chain.apply(0, op, args)
    expected = torch_op(torch_base)
    view = chain.views[index].tensor
    assert tuple(view.shape) == tuple(expected.shape)
    assert view.stride() == expected.stride()
    assert view.storage_offset() == expected.storage_offset()
    shares = expected.untyped_storage().data_ptr() == torch_base.untyped_storage().data_ptr()
    assert chain.copied(index) == (not shares)
    assert chain.positions(index) == positions_of(view._shape, view._strides, view._offset)
    try:
        expected.view(-1)
        viewable = True
    except RuntimeError:
        viewable = False
    assert chain.viewable(index) == viewable
    assert view.tolist() == expected.tolist()


def test_aliasing_sets_of_an_expanded_view() -> None:
    column = minitorch.arange(3.0).view(3, 1)
    chain = ViewChain([column], ["c"])
    wide = chain.apply(0, "expand", "3, 4")
    # Cell 1 holds c[1, 0]; the expanded view reads it at all four [1, j].
    assert chain.readers(0, 1) == [(0, (1, 0))] + [(wide, (1, j)) for j in range(4)]
    state = chain.state()
    assert state["views"][wide]["strides"] == [1, 0]
    assert state["views"][wide]["positions"] == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]


def test_write_through_one_view_reaches_the_others_but_not_a_copy() -> None:
    t, _ = twin((3, 4))
    chain = ViewChain([t], ["t"])
    transposed = chain.apply(0, "permute", "1, 0")
    copy = chain.apply(transposed, "contiguous")
    assert chain.copied(copy) and not chain.copied(transposed)
    chain.write(transposed, (2, 1), "-7")  # t.t()[2, 1] is t[1, 2]
    assert t[1, 2].item() == -7.0
    assert chain.views[0].tensor[1, 2].item() == -7.0
    assert chain.views[copy].tensor[2, 1].item() == 6.0  # the copy kept the old value
    state = chain.state()
    assert len(state["storages"]) == 2
    assert state["storages"][0]["values"][6] == -7.0


def test_edit_validates_with_check_as_strided() -> None:
    t, _ = twin((3, 4))
    chain = ViewChain([t], ["t"])
    with pytest.raises(RuntimeError, match="positions 0 to 35, but the storage has only 12"):
        chain.edit(0, "3, 4", "4, 9", "0")
    with pytest.raises(RuntimeError, match="Negative strides"):
        chain.edit(0, "3, 4", "4, -1", "0")
    with pytest.raises(RuntimeError, match="mismatch in length"):
        chain.edit(0, "3, 4", "4", "0")
    with pytest.raises(ValueError, match="whole numbers"):
        chain.edit(0, "3, x", "4, 1", "0")
    chain.edit(0, "2, 2", "1, 4", "1")
    assert chain.positions(0) == [1, 5, 2, 6]
    assert chain.label(0) == "t = storage.as_strided((2, 2), (1, 4), 1)"


def test_edit_rebuilds_derived_views_and_drops_those_that_no_longer_apply() -> None:
    t, _ = twin((3, 4))
    chain = ViewChain([t], ["t"])
    chain.apply(0, "view", "12")
    chain.apply(0, "permute", "1, 0")
    chain.edit(0, "4, 3", "1, 4", "0")  # now a transposed layout: view(12) is impossible
    assert [v.name for v in chain.views] == ["t", "v2"]
    assert "removed v1" in chain.note
    assert chain.views[1].tensor.stride() == (4, 1)  # permute of the new layout


def test_bad_inputs_have_clear_messages() -> None:
    t, _ = twin((3, 4))
    chain = ViewChain([t], ["t"])
    with pytest.raises(ValueError, match="unknown view op"):
        chain.apply(0, "explode", "")
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        chain.apply(chain.apply(0, "permute", "1, 0"), "view", "12")
    with pytest.raises(ValueError, match="too large to draw"):
        chain.apply(0, "expand", "100, 3, 4")
    with pytest.raises(ValueError, match="step must be greater than zero"):
        chain.apply(0, "index", "[::-1]")
    with pytest.raises(ValueError, match="could not read the index item"):
        parse_index("[:, a]")
    with pytest.raises(ValueError, match="not a float32 value"):
        chain.write(0, (0, 0), "abc")
    with pytest.raises(ValueError, match="only derived views can be removed"):
        chain.remove(0)
    assert parse_ints("(2, 3)") == parse_ints("[2 3]") == (2, 3)
    assert parse_index("[:, 1:3, None, ...]") == (slice(None), slice(1, 3), None, Ellipsis)


def test_widget_turns_bad_input_into_an_error_state() -> None:
    t, _ = twin((3, 4))
    widget = strides(t, t.t(), names=["t", "t.t()"])
    widget._on_front_end_message(widget, {"type": "edit", "view": 0, "shape": "3, 4",
                                          "strides": "4, 9", "offset": "0"}, None)  # fmt: skip
    assert "the storage has only 12" in widget.error
    widget._on_front_end_message(widget, {"type": "apply", "view": 1, "op": "view", "args": "12"}, None)
    assert "view size is not compatible" in widget.error
    widget._on_front_end_message(widget, {"type": "select", "view": 1, "index": [0, 1]}, None)
    assert widget.error == ""
    assert widget.selected == {"view": 1, "index": [0, 1], "position": 4, "storage": 0}
    widget._on_front_end_message(widget, {"type": "select", "view": 1, "index": [9, 9]}, None)
    assert "outside" in widget.error
    widget._on_front_end_message(widget, {"type": "write", "view": 1, "index": [0, 1], "value": "9"}, None)
    assert t[1, 0].item() == 9.0
    assert widget.state["storages"][0]["values"][4] == 9.0


def test_widget_never_records_autograd_history() -> None:
    leaf = minitorch.randn(2, 3, requires_grad=True)
    widget = strides(leaf)
    view = widget.apply("permute", "1, 0")
    assert view.grad_fn is None and leaf.grad_fn is None and leaf.grad is None


@pytest.mark.parametrize(
    ("a", "b"), [((3, 1), (4,)), ((2, 1, 3), (4, 1)), ((5,), (5,)), ((0, 1), (3,)), ((), (2, 2))]
)
def test_broadcast_columns_match_torch(a, b) -> None:
    info = broadcast_columns(a, b)
    expected = torch.broadcast_shapes(a, b)
    assert info["result"] == list(expected) and info["error"] == ""
    assert [c["result"] for c in info["columns"]] == list(expected)
    a_strides = torch.zeros(a).expand(expected).stride()
    for column, stride in zip(info["columns"], a_strides):
        size = 1 if column["a"] is None else column["a"]
        assert column["a_stretched"] == (stride == 0 and size != column["result"])


def test_broadcast_failure_names_the_dimension() -> None:
    info = broadcast_columns((3, 2), (4,))
    assert info["result"] is None
    assert (
        "size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 1"
        in info["error"]
    )
    assert [c["ok"] for c in info["columns"]] == [True, False]
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes((3, 2), (4,))


def test_broadcast_widget_draws_stride_zero_views_and_the_result() -> None:
    widget = broadcast(minitorch.arange(3.0).view(3, 1), minitorch.arange(4.0))
    views = widget.state["views"]
    assert [v["strides"] for v in views[2:4]] == [[1, 0], [0, 1]]
    assert views[4]["label"] == "a + b" and views[4]["shape"] == [3, 4]
    assert widget.active == 4
    assert "broadcast (3, 1) with (4,) -> (3, 4)" in widget.to_text()
