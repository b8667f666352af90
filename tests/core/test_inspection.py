"""Inspection (issue 2, item 3) against PyTorch: shape, size, dim/ndim, numel, dtype,
device, stride, storage_offset, is_contiguous, contiguous, clone, item, tolist, len,
iteration, Python conversions, repr, and 0-d tensors."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from helpers import PREFIX, assert_close, assert_layout, pair, to_numpy

import minitorch as mt


def make_pair(kind: str, device: str = "cpu"):
    """A (minitorch, torch) pair of tensors with a given memory layout."""
    m = mt.arange(60.0, device=device).view(3, 4, 5)
    t = torch.arange(60.0).view(3, 4, 5)
    if kind == "contiguous":
        return m, t
    if kind == "permuted":
        return m.permute(2, 0, 1), t.permute(2, 0, 1)
    if kind == "sliced":
        return m[1:, ::2, 1:4], t[1:, ::2, 1:4]
    if kind == "expanded":
        return m[:, :1].expand(3, 6, 5), t[:, :1].expand(3, 6, 5)
    if kind == "0-d":
        return m[1, 2, 3], t[1, 2, 3]
    if kind == "empty":
        return m[:, 2:2], t[:, 2:2]
    raise ValueError(kind)


KINDS = ["contiguous", "permuted", "sliced", "expanded", "0-d", "empty"]


@pytest.mark.parametrize("kind", KINDS)
def test_layout_facts_match_torch(kind, device):
    m, t = make_pair(kind, device)
    assert m.shape == t.shape
    assert tuple(m.size()) == tuple(t.size())
    assert m.dim() == t.dim() and m.ndim == t.ndim
    assert m.numel() == t.numel()
    assert_layout(m, t)
    for d in range(-t.dim(), t.dim()):
        assert m.size(d) == t.size(d)
        assert m.stride(d) == t.stride(d)
    assert m.device.type == device
    assert str(m.dtype) == f"{PREFIX}float32"
    assert_close(m, t)


def test_shape_is_a_tuple_like_torch_size():
    m = mt.zeros(2, 3)
    assert isinstance(m.shape, tuple)
    assert m.shape == (2, 3)
    assert m.shape[0] == 2 and m.shape[-1] == 3
    assert len(m.shape) == 2
    assert m.size() == (2, 3)
    assert m.numel() == 6
    assert m.shape == torch.zeros(2, 3).shape


@pytest.mark.parametrize("call", ["size", "stride"])
def test_size_and_stride_with_bad_dim_raise_index_error(call):
    with pytest.raises(IndexError):
        getattr(torch.zeros(2, 3), call)(2)
    with pytest.raises(IndexError, match="range"):
        getattr(mt.zeros(2, 3), call)(2)
    with pytest.raises(IndexError, match="range"):
        getattr(mt.zeros(2, 3), call)(-3)


@pytest.mark.parametrize("kind", KINDS)
def test_contiguous_returns_contiguous_copy_or_self(kind, device):
    m, t = make_pair(kind, device)
    mc, tc = m.contiguous(), t.contiguous()
    assert_close(mc, tc)
    assert_layout(mc, tc)
    if t.is_contiguous():
        assert mc is m, "contiguous() of a contiguous tensor returns the tensor itself"
    else:
        # a copy: writing into it leaves the original alone
        mc.add_(100)
        assert_close(m, t)


@pytest.mark.parametrize("kind", KINDS)
def test_clone_is_an_independent_copy(kind, device):
    m, t = make_pair(kind, device)
    mc = m.clone()
    assert_close(mc, t.clone())
    assert mc.dtype is m.dtype
    if m.numel():
        mc.add_(1)
        assert_close(m, t)


@pytest.mark.parametrize(
    "data", [2.5, 3, True, [7.0], [[4]], [False]], ids=repr
)
def test_item_returns_python_number(data, device):
    m, t = mt.tensor(data, device=device), torch.tensor(data)
    assert_close(m.item(), t.item())


def test_item_of_many_elements_raises():
    with pytest.raises(RuntimeError):
        torch.zeros(2).item()
    with pytest.raises(RuntimeError, match="element"):
        mt.zeros(2).item()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float64"])
def test_tolist_matches_torch(kind, dtype):
    m, t = make_pair(kind)
    m, t = m.to(getattr(mt, dtype)), t.to(getattr(torch, dtype))
    assert_close(m.tolist(), t.tolist())


def test_len_and_iteration(device):
    m, t = make_pair("permuted", device)
    assert len(m) == len(t) == 5
    rows = list(m)
    assert len(rows) == 5
    for mr, tr in zip(rows, t):
        assert_close(mr, tr)
    assert [x.item() for x in mt.tensor([1, 2, 3])] == [1, 2, 3]


def test_len_and_iteration_of_0d_raise_type_error():
    m = mt.tensor(3.0)
    with pytest.raises(TypeError, match="0-d"):
        len(m)
    with pytest.raises(TypeError, match="0-d"):
        iter(m)


def test_python_conversions():
    assert float(mt.tensor([2.5])) == 2.5 and isinstance(float(mt.tensor(2)), float)
    assert int(mt.tensor(3.7)) == 3 and isinstance(int(mt.tensor(3.7)), int)
    assert bool(mt.tensor([1])) is True and bool(mt.tensor(0.0)) is False
    assert [10, 20, 30][mt.tensor(1)] == 20  # __index__ of an integer tensor
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(mt.zeros(2))
    with pytest.raises((ValueError, RuntimeError)):
        float(mt.zeros(2))


def test_0d_tensors():
    m, t = pair(3.0)
    assert m.shape == () and m.dim() == 0 and m.numel() == 1
    assert m.stride() == () and m.storage_offset() == 0 and m.is_contiguous()
    assert_close(m.item(), 3.0)
    assert_close(m.tolist(), t.tolist())
    assert_close(m + 1, t + 1)
    assert_close(m * mt.ones(2, 2), t * torch.ones(2, 2))
    assert_close(m.sum(), t.sum())
    assert_close(m.view(1, 1), t.view(1, 1))
    assert_close(m.unsqueeze(0), t.unsqueeze(0))
    assert_close(m[None], t[None])
    assert_close(m[...], t[...])
    assert_close(mt.tensor([1.0, 2.0])[0], torch.tensor([1.0, 2.0])[0])


REPRS = [
    ([1.0, 2.0, 3.0], {}),
    ([-1.0, 2.0], {}),
    ([0.1234, 10.5], {}),
    ([1e-5, 1.0], {}),
    ([[1, 2], [3, 4]], {}),
    ([1.5], {"dtype": "float64"}),
    ([1], {"dtype": "int32"}),
    ([], {}),
    ([[], []], {}),
    ([True, False], {}),
    (2.5, {}),
    (3, {}),
    ([float("nan"), float("inf"), 1.0], {}),
]


@pytest.mark.parametrize(("data", "kw"), REPRS, ids=repr)
def test_repr_looks_like_torch(data, kw):
    expected = repr(torch.tensor(data, **{k: getattr(torch, v) for k, v in kw.items()}))
    actual = repr(mt.tensor(data, **{k: getattr(mt, v) for k, v in kw.items()}))
    assert actual == expected


def test_repr_of_matrix_and_autograd_fields_looks_like_torch():
    assert repr(mt.arange(12.0).view(3, 4)) == repr(torch.arange(12.0).view(3, 4))
    m = mt.tensor([1.0, 2.0], requires_grad=True)
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    assert repr(m) == repr(t)
    assert repr(t.sum()) == "tensor(3., grad_fn=<SumBackward0>)"
    assert re.fullmatch(r"tensor\(3\., grad_fn=<Sum\w*Backward\w*>\)", repr(m.sum())), repr(
        m.sum()
    )


def test_dtype_and_device_objects():
    m = mt.zeros(2, dtype=mt.float64)
    assert m.dtype == mt.float64 and m.dtype != mt.float32
    assert str(m.dtype) == "torch.float64"
    assert m.device == mt.device("cpu")
    assert str(m.device) == "cpu" and m.device.type == "cpu"
    assert m.is_floating_point() and not mt.zeros(2, dtype=mt.int64).is_floating_point()
    assert m.element_size() == 8


def test_values_survive_round_trip_through_numpy(device):
    rng = np.random.default_rng(0)
    array = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(to_numpy(mt.tensor(array, device=device)), array)
