"""Property tests of ``minitorch.layout`` (pure functions on tuples) against PyTorch.

Hypothesis builds random *views* in PyTorch: an ``arange`` storage, reshaped, then a
random chain of permute / transpose / slice-with-step / select / expand / unsqueeze.
Because the storage holds its own positions (``storage[p] == p``), reading a view
element tells which storage position it maps to. Each layout function must agree with
what PyTorch does on the same (shape, strides, offset).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from minitorch import layout

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def layout_of(t: torch.Tensor) -> tuple:
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


sizes = st.integers(min_value=0, max_value=4) | st.integers(min_value=1, max_value=4)
shapes = st.lists(sizes, min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def views(draw, min_dims: int = 0, allow_empty: bool = True) -> torch.Tensor:
    """A random PyTorch view of an ``arange`` storage (its values are positions)."""
    shape = draw(shapes if allow_empty else nonempty_shapes)
    t = torch.arange(max(math.prod(shape), 1))[: math.prod(shape)].reshape(shape)
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["permute", "slice", "select", "expand", "unsqueeze"]))
        if kind == "permute" and t.dim() > 1:
            t = t.permute(draw(st.permutations(range(t.dim()))))
        elif kind == "slice" and t.dim() > 0:
            dim = draw(st.integers(0, t.dim() - 1))
            start = draw(st.integers(0, max(t.shape[dim] - 1, 0)))
            step = draw(st.integers(1, 3))
            index = [slice(None)] * t.dim()
            index[dim] = slice(start, None, step)
            t = t[tuple(index)]
        elif kind == "select" and t.dim() > 0 and t.dim() > min_dims:
            dim = draw(st.integers(0, t.dim() - 1))
            if t.shape[dim] > 0:
                t = t.select(dim, draw(st.integers(0, t.shape[dim] - 1)))
        elif kind == "expand" and 1 in t.shape:
            dim = list(t.shape).index(1)
            sizes_ = list(t.shape)
            sizes_[dim] = draw(st.integers(1, 3))
            t = t.expand(sizes_)
        elif kind == "unsqueeze" and t.dim() < 5:
            t = t.unsqueeze(draw(st.integers(0, t.dim())))
    assume(t.dim() >= min_dims)
    if not allow_empty:
        assume(t.numel() > 0)
    return t


# ----- basic facts ----------------------------------------------------------------------


@SETTINGS
@given(shapes)
def test_contiguous_strides_match_torch(shape):
    assert layout.contiguous_strides(shape) == tuple(torch.empty(shape).stride())


@SETTINGS
@given(shapes)
def test_numel_matches_torch(shape):
    assert layout.numel(shape) == torch.empty(shape).numel()


@SETTINGS
@given(views())
def test_is_contiguous_matches_torch(view):
    shape, strides, _ = layout_of(view)
    assert layout.is_contiguous(shape, strides) == view.is_contiguous()


@SETTINGS
@given(views(allow_empty=False), st.data())
def test_index_to_position_matches_torch(view, data):
    shape, strides, offset = layout_of(view)
    index = tuple(data.draw(st.integers(0, size - 1)) for size in shape)
    expected = view[index].item() if index else view.item()
    assert layout.index_to_position(index, strides, offset) == expected
    assert layout.index_to_position(list(index), list(strides), offset) == expected


@SETTINGS
@given(views(allow_empty=False), st.data())
def test_ordinal_to_index_is_row_major(view, data):
    shape = tuple(view.shape)
    ordinal = data.draw(st.integers(0, view.numel() - 1))
    out_index = [-1] * len(shape)
    result = layout.ordinal_to_index(ordinal, shape, out_index)
    assert result is None, "ordinal_to_index writes into out_index and returns None"
    expected = [int(i) for i in np.unravel_index(ordinal, shape)] if shape else []
    assert out_index == expected
    # ordinal -> index -> position reads the ordinal-th element of the view in order.
    _, strides, offset = layout_of(view)
    position = layout.index_to_position(out_index, strides, offset)
    assert position == view.reshape(-1)[ordinal].item()


@SETTINGS
@given(views())
def test_storage_span_covers_exactly_the_touched_positions(view):
    shape, strides, offset = layout_of(view)
    low, high = layout.storage_span(shape, strides, offset)
    if view.numel() == 0:
        assert high < low
    else:
        assert (low, high) == (view.min().item(), view.max().item())


# ----- broadcasting -------------------------------------------------------------------


@st.composite
def broadcastable_shapes(draw) -> list[tuple]:
    target = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    result = []
    for _ in range(draw(st.integers(1, 3))):
        drop = draw(st.integers(0, len(target)))
        shape = list(target[drop:])
        for d in range(len(shape)):
            choice = draw(st.integers(0, 9))
            if choice < 3:
                shape[d] = 1
            elif choice == 9:  # sometimes incompatible
                shape[d] = draw(st.integers(0, 4))
        result.append(tuple(shape))
    return result


@SETTINGS
@given(broadcastable_shapes())
def test_broadcast_shapes_matches_torch(shape_list):
    try:
        expected = tuple(torch.broadcast_shapes(*shape_list))
    except RuntimeError:
        with pytest.raises(RuntimeError, match="size"):
            layout.broadcast_shapes(*shape_list)
        return
    assert layout.broadcast_shapes(*shape_list) == expected


def test_broadcast_shapes_error_names_sizes_and_dim():
    with pytest.raises(RuntimeError) as info:
        layout.broadcast_shapes((2, 3), (4,))
    assert "3" in str(info.value) and "4" in str(info.value)


# ----- view rules ---------------------------------------------------------------------


def factorizations(draw, count: int) -> tuple:
    """A random shape with ``count`` elements (with 1s sprinkled in)."""
    if count == 0:
        sizes_ = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
        if 0 not in sizes_:
            sizes_[draw(st.integers(0, len(sizes_) - 1))] = 0
        return tuple(sizes_)
    factors = []
    n = count
    p = 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    factors = draw(st.permutations(factors)) if factors else []
    shape = []
    i = 0
    while i < len(factors):
        take = draw(st.integers(1, len(factors) - i))
        shape.append(math.prod(factors[i : i + take]))
        i += take
    for _ in range(draw(st.integers(0, 2))):
        shape.insert(draw(st.integers(0, len(shape))), 1)
    return tuple(shape)


@SETTINGS
@given(views(), st.data())
def test_view_strides_matches_torch_view(view, data):
    shape, strides, _ = layout_of(view)
    new_shape = factorizations(data.draw, view.numel())
    try:
        expected = tuple(view.view(new_shape).stride())
    except RuntimeError:
        expected = None
    result = layout.view_strides(shape, strides, new_shape)
    if expected is None or result is None:
        assert result == expected, f"view {shape}/{strides} -> {new_shape}"
    else:
        assert tuple(result) == expected, f"view {shape}/{strides} -> {new_shape}"


@SETTINGS
@given(views(), st.data())
def test_permute_matches_torch(view, data):
    shape, strides, offset = layout_of(view)
    dims = tuple(data.draw(st.permutations(range(view.dim()))))
    if dims and data.draw(st.booleans()):
        dims = tuple(d - view.dim() for d in dims)  # negative dims
    assert layout.permute(shape, strides, offset, dims) == layout_of(view.permute(dims))


@SETTINGS
@given(views())
def test_permute_rejects_duplicates_and_wrong_length(view):
    shape, strides, offset = layout_of(view)
    if view.dim() >= 2:
        with pytest.raises(RuntimeError):
            layout.permute(shape, strides, offset, (0,) * view.dim())
    with pytest.raises(RuntimeError):
        layout.permute(shape, strides, offset, tuple(range(view.dim() + 1)))


@SETTINGS
@given(views(), st.data())
def test_expand_matches_torch(view, data):
    shape, strides, offset = layout_of(view)
    new = [data.draw(st.integers(0, 3)) for _ in range(data.draw(st.integers(0, 2)))]
    for size in shape:
        choice = data.draw(st.integers(0, 5))
        if choice == 0:
            new.append(-1)
        elif choice == 1:
            new.append(data.draw(st.integers(0, 4)))  # may be invalid
        elif size == 1:
            new.append(data.draw(st.integers(1, 4)))
        else:
            new.append(size)
    try:
        expected = layout_of(view.expand(new))
    except RuntimeError:
        with pytest.raises(RuntimeError):
            layout.expand(shape, strides, offset, tuple(new))
        return
    assert layout.expand(shape, strides, offset, tuple(new)) == expected


@SETTINGS
@given(views(), st.data())
def test_squeeze_matches_torch(view, data):
    shape, strides, offset = layout_of(view)
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, max(view.dim() - 1, 0))))))
    dims = tuple(d for d in dims if d < view.dim())
    assert layout.squeeze(shape, strides, offset, dims) == layout_of(view.squeeze(dims))
    all_dims = tuple(range(view.dim()))
    assert layout.squeeze(shape, strides, offset, all_dims) == layout_of(view.squeeze())


@SETTINGS
@given(views(), st.data())
def test_unsqueeze_matches_torch(view, data):
    shape, strides, offset = layout_of(view)
    dim = data.draw(st.integers(0, view.dim()))
    assert layout.unsqueeze(shape, strides, offset, dim) == layout_of(view.unsqueeze(dim))


@SETTINGS
@given(views(min_dims=1), st.data())
def test_slice_dim_matches_torch(view, data):
    shape, strides, offset = layout_of(view)
    dim = data.draw(st.integers(0, view.dim() - 1))
    start = data.draw(st.integers(-6, 6))
    stop = data.draw(st.integers(-6, 6))
    step = data.draw(st.integers(1, 3))
    index = [slice(None)] * view.dim()
    index[dim] = slice(start, stop, step)
    expected = view[tuple(index)]
    got = layout.slice_dim(shape, strides, offset, dim, start, stop, step)
    assert got == layout_of(expected), f"slice {start}:{stop}:{step} of dim {dim}"


def test_slice_dim_rejects_nonpositive_step():
    with pytest.raises(ValueError, match="step"):
        layout.slice_dim((5,), (1,), 0, 0, 0, 5, 0)
    with pytest.raises(ValueError, match="step"):
        layout.slice_dim((5,), (1,), 0, 0, 0, 5, -1)


@SETTINGS
@given(views(min_dims=1), st.data())
def test_select_matches_torch(view, data):
    shape, strides, offset = layout_of(view)
    dim = data.draw(st.integers(0, view.dim() - 1))
    index = data.draw(st.integers(-5, 5))
    try:
        expected = layout_of(view.select(dim, index))
    except IndexError:
        with pytest.raises(IndexError, match="out of"):
            layout.select(shape, strides, offset, dim, index)
        return
    assert layout.select(shape, strides, offset, dim, index) == expected


@SETTINGS
@given(
    st.lists(st.integers(0, 4), min_size=0, max_size=3),
    st.data(),
    st.integers(0, 6),
    st.integers(0, 30),
)
def test_check_as_strided_matches_torch(size, data, offset, storage_size):
    stride = [data.draw(st.integers(0, 6)) for _ in size]
    try:
        torch.empty(storage_size).as_strided(size, stride, offset)
        fits = True
    except RuntimeError:
        fits = False
    if fits:
        assert layout.check_as_strided(tuple(size), tuple(stride), offset, storage_size) is None
    else:
        with pytest.raises(RuntimeError):
            layout.check_as_strided(tuple(size), tuple(stride), offset, storage_size)


def test_check_as_strided_rejects_mismatched_lengths_and_negative_values():
    with pytest.raises(RuntimeError):
        layout.check_as_strided((2, 2), (1,), 0, 10)
    with pytest.raises(RuntimeError):
        layout.check_as_strided((2,), (-1,), 1, 10)
    with pytest.raises(RuntimeError):
        layout.check_as_strided((2,), (1,), -1, 10)
    with pytest.raises(RuntimeError, match="out of bounds|storage"):
        layout.check_as_strided((3,), (2,), 0, 4)


@SETTINGS
@given(st.integers(0, 4), st.integers(-7, 7))
def test_normalize_dim_matches_torch(ndim, dim):
    t = torch.empty((1,) * ndim)
    try:
        expected = t.sum(dim).dim()  # just whether torch accepts dim
        del expected
        ok = True
    except IndexError:
        ok = False
    if ok:
        result = layout.normalize_dim(dim, ndim)
        assert result == dim % max(ndim, 1)
        assert 0 <= result < max(ndim, 1)
    else:
        with pytest.raises(IndexError, match="range"):
            layout.normalize_dim(dim, ndim)


@SETTINGS
@given(st.integers(0, 24), st.data())
def test_infer_shape_matches_torch(count, data):
    shape = list(factorizations(data.draw, count)) if data.draw(st.booleans()) else [
        data.draw(st.integers(0, 6)) for _ in range(data.draw(st.integers(0, 3)))
    ]
    if shape and data.draw(st.booleans()):
        shape[data.draw(st.integers(0, len(shape) - 1))] = -1
    try:
        expected = tuple(torch.empty(count).view(shape).shape)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            layout.infer_shape(tuple(shape), count)
        return
    assert layout.infer_shape(tuple(shape), count) == expected


# --------------------------------------------------------------------------------------
# Dimension merging: the merged layout addresses the same positions in the same order
# --------------------------------------------------------------------------------------


def _positions(shape, strides, offset=0):
    """Every storage position a layout reads, in row-major order."""
    index = [0] * len(shape)
    found = []
    for ordinal in range(layout.numel(shape)):
        layout.ordinal_to_index(ordinal, shape, index)
        found.append(layout.index_to_position(index, strides, offset))
    return found


@st.composite
def shapes_with_strides(draw, operands: tuple[int, int] = (1, 3)):
    """A shape of up to 5 dims and, for each operand, strides that are either contiguous,
    broadcast (some 0), permuted-contiguous or random."""
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=5)))
    all_strides = []
    for _ in range(draw(st.integers(*operands))):
        kind = draw(st.sampled_from(["contiguous", "broadcast", "permuted", "random"]))
        strides = list(layout.contiguous_strides(shape))
        if kind == "broadcast":
            strides = [0 if draw(st.booleans()) else s for s in strides]
        elif kind == "permuted":
            order = draw(st.permutations(range(len(shape))))
            permuted = layout.contiguous_strides(tuple(shape[d] for d in order))
            strides = [permuted[order.index(d)] for d in range(len(shape))]
        elif kind == "random":
            strides = [draw(st.integers(0, 30)) for _ in shape]
        all_strides.append(tuple(strides))
    return shape, all_strides


@given(shapes_with_strides())
@settings(max_examples=300, deadline=None)
def test_merge_dims_addresses_the_same_positions(case):
    # An elementwise loop may visit the elements in any order, but every element must
    # still pair the same position of each operand: compare the pairs, in any order.
    shape, all_strides = case
    new_shape, new_strides = layout.merge_dims(shape, *all_strides)
    assert len(new_shape) >= 1 and layout.numel(new_shape) == layout.numel(shape)
    assert len(new_shape) <= max(1, len(shape))
    before = sorted(zip(*(_positions(shape, strides) for strides in all_strides)))
    after = sorted(zip(*(_positions(new_shape, merged) for merged in new_strides)))
    assert after == before


@given(shapes_with_strides(operands=(2, 2)), st.data())
@settings(max_examples=300, deadline=None)
def test_merge_kept_dims_addresses_the_same_output_starts(case, data):
    shape, (out_strides, a_strides) = case
    assume(len(shape) >= 1)
    dim = data.draw(st.integers(0, len(shape) - 1))
    kept_shape = shape[:dim] + shape[dim + 1 :]
    kept_out = out_strides[:dim] + out_strides[dim + 1 :]
    kept_a = a_strides[:dim] + a_strides[dim + 1 :]
    new_shape, (new_out, new_a) = layout.merge_kept_dims(shape, dim, out_strides, a_strides)
    before = sorted(zip(_positions(kept_shape, kept_out), _positions(kept_shape, kept_a)))
    assert sorted(zip(_positions(new_shape, new_out), _positions(new_shape, new_a))) == before


def test_merge_dims_examples():
    assert layout.merge_dims((2, 3, 4), (12, 4, 1)) == ((24,), [(1,)])
    assert layout.merge_dims((2, 3, 4), (12, 4, 1), (0, 4, 1)) == ((2, 12), [(12, 1), (0, 1)])
    assert layout.merge_dims((4, 5), (1, 4)) == ((20,), [(1,)])  # transposed: one run
    assert layout.merge_dims((4, 5), (5, 1), (1, 4)) == ((4, 5), [(5, 1), (1, 4)])  # mixed: kept
    assert layout.merge_dims((1, 5, 1), (5, 1, 1)) == ((5,), [(1,)])
    # One element (0-d, or every size 1): one contiguous run of one, whatever its strides.
    assert layout.merge_dims((), (), ()) == ((1,), [(1,), (1,)])
    assert layout.merge_dims((1, 1), (0, 0), (7, 3)) == ((1,), [(1,), (1,)])
