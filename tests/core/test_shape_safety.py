"""Shapes a kernel cannot walk safely are refused before any kernel runs (issue 18, items
1 and 2): views that reach outside their storage, and element counts or byte extents
that overflow int64 (the kernels' loops would wrap around and never end).

The oracles: brute-force enumeration of the positions a layout reaches, and PyTorch on
the ``meta`` device (it checks sizes exactly like a real allocation, without allocating).
Every test runs on both CPU backends (``tests/core/conftest.py``).
"""

from __future__ import annotations

import contextlib
import itertools
import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitorch as mt
from minitorch import dispatch, layout
from minitorch._tensor import Tensor

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HUGE = [0, 1, 3, 2**31, 2**40, 2**60, 2**61, 2**62, 2**63 - 1]


def reached_positions(shape: tuple, strides: tuple, offset: int) -> list[int]:
    """Every storage position the layout reads, by walking all its indices."""
    return [offset + sum(i * s for i, s in zip(index, strides))
            for index in itertools.product(*(range(n) for n in shape))]  # fmt: skip


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(-6, 6)), max_size=4),
    st.integers(-10, 30),
    st.integers(0, 30),
)
def test_check_in_bounds_agrees_with_walking_every_index(dims, offset, storage_size):
    shape, strides = tuple(n for n, _ in dims), tuple(s for _, s in dims)
    positions = reached_positions(shape, strides, offset)
    inside = all(0 <= p < storage_size for p in positions)
    if inside:
        assert layout.check_in_bounds(shape, strides, offset, storage_size) is None
    else:
        with pytest.raises(RuntimeError, match="Out of bounds"):
            layout.check_in_bounds(shape, strides, offset, storage_size)


@pytest.mark.parametrize("shape", [s for n in (1, 2, 3) for s in itertools.product(HUGE, repeat=n)][::7])
def test_checked_numel_refuses_what_pytorch_refuses(shape):
    """``torch.empty(shape, device="meta")`` fails exactly when the count or the float32
    byte extent overflows int64."""
    try:
        expected = torch.empty(shape, device="meta").numel()
    except RuntimeError:
        with pytest.raises(RuntimeError, match="overflow"):
            layout.checked_numel(shape, itemsize=4)
        return
    assert layout.checked_numel(shape, itemsize=4) == expected


def test_internal_views_are_checked_against_the_storage():
    x = mt.arange(6.0)
    assert x._view((2, 3), (1, 2), 0).tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    assert x._view((3,), (-2,), 5).tolist() == [5.0, 3.0, 1.0]  # flip's kind of view
    assert x._view((0, 5), (100, 100), 100).shape == (0, 5)  # reads nothing: allowed
    for shape, strides, offset in [((3,), (3,), 0), ((7,), (1,), 0), ((2,), (1,), 5),
                                   ((2,), (-1,), 0), ((1,), (1,), -1)]:  # fmt: skip
        with pytest.raises(RuntimeError, match="Out of bounds"):
            x._view(shape, strides, offset)


def test_view_of_an_offset_tensor_is_checked_against_the_whole_storage():
    tail = mt.arange(10.0)[8:]  # offset 8 in a storage of 10
    assert tail._view((2,), (1,), 8).tolist() == [8.0, 9.0]
    with pytest.raises(RuntimeError, match="storage has only 10 elements"):
        tail._view((3,), (1,), 8)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.arange(6.0).as_strided((2**62, 2), (0, 1)),  # the hang of issue 18.2
        lambda lib: lib.ones(1, 1).expand(2**62, 4),  # the other hang
        lambda lib: lib.ones(1).expand(2**31, 2**31, 2**31),
        lambda lib: lib.arange(6.0).as_strided((2, 2), (2**62, 1)),
        lambda lib: lib.ones(0).reshape(2**62, 2**62, 0),
        lambda lib: lib.ones(0).view(2**32, 2**32, 0),
        lambda lib: lib.zeros(2**62, 4),
        lambda lib: lib.zeros(2**31, 2**31),
        lambda lib: lib.empty(2**62),
        lambda lib: lib.rand(2**62, 4),
        lambda lib: lib.full((2**62, 4), 1.0),
        lambda lib: lib.zeros(0, 2**62, 4),
        lambda lib: lib.ones(2).new_zeros(2**62, 4),
        lambda lib: lib.arange(2**62),
        lambda lib: lib.linspace(0, 1, 2**62),
        lambda lib: lib.eye(2**31),
        lambda lib: lib.randperm(2**62),
    ],
)
def test_overflowing_shapes_raise_runtime_error_like_pytorch(make):
    with pytest.raises(RuntimeError):
        make(torch)
    with pytest.raises(RuntimeError, match="overflow|Out of bounds"):
        make(mt)


@pytest.mark.parametrize("make", [lambda lib: lib.ones(2**50), lambda lib: lib.rand(2**25, 2**25),
                                  lambda lib: lib.ones(1).expand(2**50).contiguous()])  # fmt: skip
def test_more_memory_than_any_machine_has_is_a_runtime_error_like_pytorch(make):
    """8 PiB passes the int64 checks but no allocator can give it (it is beyond the 128 TiB
    address space, so even an overcommitting kernel refuses at once): NumPy's
    MemoryError becomes PyTorch's RuntimeError."""
    with pytest.raises(RuntimeError):
        make(torch)
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        make(mt)


def test_a_size_beyond_int64_is_a_type_error_like_pytorch():
    with pytest.raises(TypeError):
        torch.zeros(2**63)
    with pytest.raises(TypeError, match="Overflow"):
        mt.zeros(2**63)


def test_large_but_countable_views_still_work():
    """Refusing overflow must not refuse what PyTorch allows: a stride-0 view of 2**62
    elements is fine as long as nobody walks it."""
    big = mt.ones(1).expand(2**62)
    assert big.shape == torch.ones(1).expand(2**62).shape and big.stride() == (0,)
    assert mt.arange(6.0).as_strided((2**40, 2), (0, 1))[2**39].tolist() == [0.0, 1.0]


def test_fresh_tensors_check_their_element_count_and_bytes():
    """``_empty``/``_full`` make contiguous layouts that fit their storage by
    construction; what they check is that the storage can be counted in int64."""
    t = Tensor._full((2, 3), 1.5, mt.float32, mt.device("cpu"))
    assert t.tolist() == [[1.5] * 3] * 2
    with pytest.raises(RuntimeError, match="overflow"):
        Tensor._empty((2**62, 4), mt.float32, mt.device("cpu"))
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        Tensor._full((2**61,), 0, mt.float64, mt.device("cpu"))


FILL_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", FILL_DTYPES)
def test_a_filled_tensor_holds_what_pytorch_fills_in_every_dtype(dtype):
    """``_full`` fills CPU float32/float64 storage in place and makes everything else
    through a host array: both give PyTorch's ``full`` for every value it takes, and so
    does a fill inside a trace (which keeps it as a constant)."""
    values = [0, 1, -1, 2.5, -3.7, True, float("inf"), float("-inf"), float("nan"), 1e30, 2**40]
    mt_dtype, torch_dtype = getattr(mt, dtype), getattr(torch, dtype)
    for value in values:
        try:
            expected = torch.full((2, 3), value, dtype=torch_dtype)
        except RuntimeError:  # (a value PyTorch refuses for this dtype)
            continue
        if not mt_dtype.is_floating_point and (isinstance(value, float) and not math.isfinite(value)
                                               or dtype == "uint8" and value < 0):  # fmt: skip
            continue  # (PyTorch's cast of inf or NaN to an integer is undefined; -1 wraps)
        for traced in (False, True):
            with dispatch.trace() if traced else contextlib.nullcontext():
                t = Tensor._full((2, 3), value, mt_dtype, mt.device("cpu"))
            values_as_float = t.float().tolist() if dtype == "bfloat16" else t.tolist()
            got = torch.tensor(values_as_float, dtype=torch.float32 if dtype == "bfloat16" else torch_dtype)
            got = got.to(torch_dtype)
            same = torch.equal(got, expected) or (got.isnan().all() and expected.isnan().all())
            assert same, (value, traced, got, expected)
