"""In-place ops (issue 2, item 5): ``add_ sub_ mul_ div_ zero_ fill_ copy_ clamp_`` and
the augmented operators, on contiguous tensors and through views (the base changes),
with broadcasting and PyTorch's dtype rules for in-place results."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt


def base_pair(shape=(4, 5), dtype="float32", device="cpu"):
    data = (np.arange(int(np.prod(shape))).reshape(shape) - 7) / 4
    m = mt.tensor(data, dtype=getattr(mt, dtype), device=device)
    t = torch.tensor(data, dtype=getattr(torch, dtype))
    return m, t


VIEWS = {
    "whole": lambda x: x,
    "row": lambda x: x[1],
    "column": lambda x: x[:, 2],
    "transposed": lambda x: x.t(),
    "stepped": lambda x: x[::2, 1::2],
    "negative-index block": lambda x: x[-3:-1, -2:],
    "unsqueezed": lambda x: x.unsqueeze(0)[:, 1:3],
    "view": lambda x: x.view(2, 10)[1],
}


def other(lib, shape, device="cpu"):
    data = np.linspace(-1, 2, int(np.prod(shape))).reshape(shape)
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(data, dtype=lib.float32, **kwargs)


OPS = {
    "add_(scalar)": lambda lib, v, d: v.add_(1.5),
    "add_(tensor)": lambda lib, v, d: v.add_(other(lib, tuple(v.shape), d)),
    "add_(broadcast row)": lambda lib, v, d: v.add_(other(lib, tuple(v.shape)[-1:], d)),
    "add_(alpha)": lambda lib, v, d: v.add_(other(lib, tuple(v.shape), d), alpha=2),
    "sub_(scalar)": lambda lib, v, d: v.sub_(0.25),
    "sub_(tensor)": lambda lib, v, d: v.sub_(other(lib, tuple(v.shape), d)),
    "mul_(scalar)": lambda lib, v, d: v.mul_(-3),
    "mul_(0-d tensor)": lambda lib, v, d: v.mul_(other(lib, (), d)),
    "div_(scalar)": lambda lib, v, d: v.div_(4),
    "div_(tensor)": lambda lib, v, d: v.div_(other(lib, tuple(v.shape), d) + 3),
    "zero_()": lambda lib, v, d: v.zero_(),
    "fill_(scalar)": lambda lib, v, d: v.fill_(2.5),
    "fill_(0-d tensor)": lambda lib, v, d: v.fill_(other(lib, (), d)),
    "copy_(tensor)": lambda lib, v, d: v.copy_(other(lib, tuple(v.shape), d)),
    "copy_(broadcast)": lambda lib, v, d: v.copy_(other(lib, (1,), d)),
    "copy_(float64 source)": lambda lib, v, d: v.copy_(other(lib, tuple(v.shape), d).double()),
    "clamp_(min, max)": lambda lib, v, d: v.clamp_(-0.5, 0.75),
    "clamp_(min=)": lambda lib, v, d: v.clamp_(min=0.0),
    "clamp_(max=)": lambda lib, v, d: v.clamp_(max=0.1),
    "+= scalar": lambda lib, v, d: v.__iadd__(2),
    "-= tensor": lambda lib, v, d: v.__isub__(other(lib, tuple(v.shape), d)),
    "*= tensor": lambda lib, v, d: v.__imul__(other(lib, tuple(v.shape), d)),
    "/= scalar": lambda lib, v, d: v.__itruediv__(8),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("op", list(OPS))
def test_in_place_op_writes_through_views(op, view, device):
    m_base, t_base = base_pair(device=device)
    m_view, t_view = VIEWS[view](m_base), VIEWS[view](t_base)
    t_result = OPS[op](torch, t_view, "cpu")
    m_result = OPS[op](mt, m_view, device)
    assert m_result is m_view, f"{op} must return the tensor itself"
    del t_result
    assert_close(m_view, t_view)
    assert_close(m_base, t_base, msg="the base must see the in-place write")


def test_augmented_assignment_keeps_identity_and_writes_through():
    m_base, t_base = base_pair()
    m_view = m_base[1:3]
    same = m_view
    m_view += 1
    m_view *= mt.tensor([2.0, 1.0, 0.5, 1.0, 3.0])
    m_view -= 0.5
    m_view /= 2
    t_view = t_base[1:3]
    t_view += 1
    t_view *= torch.tensor([2.0, 1.0, 0.5, 1.0, 3.0])
    t_view -= 0.5
    t_view /= 2
    assert m_view is same
    assert_close(m_base, t_base)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_in_place_on_integer_tensors(dtype):
    m, t = base_pair(dtype=dtype)
    for lib_x in (m, t):
        lib_x.add_(3)
        lib_x.mul_(2)
        lib_x.sub_(1)
        lib_x.clamp_(-4, 6)
        lib_x[0].fill_(9)
    assert_close(m, t)


def test_in_place_keeps_dtype_when_result_type_is_wider_but_same_category():
    m, t = base_pair(dtype="float32")
    m.add_(mt.ones(4, 5, dtype=mt.float64))
    t.add_(torch.ones(4, 5, dtype=torch.float64))
    assert_close(m, t)  # still float32
    mi, ti = base_pair(dtype="int32")
    mi.add_(mt.ones(5, dtype=mt.int64))
    ti.add_(torch.ones(5, dtype=torch.int64))
    assert_close(mi, ti)  # still int32


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: x.add_(1.5),
        lambda lib, x: x.mul_(lib.ones(5)),
        lambda lib, x: x.div_(2),
        lambda lib, x: x.__iadd__(0.5),
    ],
    ids=["int.add_(float)", "int.mul_(float tensor)", "int.div_(int)", "int += float"],
)
def test_in_place_result_that_cannot_be_cast_back_raises(call):
    _, t = base_pair(dtype="int64")
    with pytest.raises(RuntimeError):
        call(torch, t)
    m, _ = base_pair(dtype="int64")
    before = m.tolist()
    with pytest.raises(RuntimeError, match="(?i)cast|result type|dtype"):
        call(mt, m)
    assert m.tolist() == before, "a refused in-place op must not change the tensor"


def test_in_place_broadcast_must_not_change_shape():
    _, t = base_pair((3, 1))
    with pytest.raises(RuntimeError):
        t.add_(torch.ones(3, 4))
    m, _ = base_pair((3, 1))
    with pytest.raises(RuntimeError, match="(?i)shape|size|broadcast"):
        m.add_(mt.ones(3, 4))


def test_in_place_on_expanded_tensor_raises():
    with pytest.raises(RuntimeError):
        torch.zeros(3, 1).expand(3, 4).add_(1)
    with pytest.raises(RuntimeError, match="(?i)memory location|overlap|expanded"):
        mt.zeros(3, 1).expand(3, 4).add_(1)


@pytest.mark.parametrize(
    "call",
    [
        lambda x, src: x[1:].add_(src(x[:-1])),
        lambda x, src: x[:-1].copy_(src(x[1:])),
        lambda x, src: x.t().mul_(src(x)),
    ],
    ids=["x[1:] += x[:-1]", "x[:-1].copy_(x[1:])", "x.t() *= x"],
)
def test_in_place_with_overlapping_source_raises_or_reads_the_old_values(call):
    """torch refuses partial overlap between source and destination. minitorch may
    raise too, or compute the result as if the source had been cloned first -- never a
    silently different number (a kernel reading cells it has already overwritten)."""
    t = torch.arange(16.0).view(4, 4)
    with pytest.raises(RuntimeError):
        call(t, lambda v: v)
    call(t, lambda v: v.clone())  # the only sensible meaning
    m = mt.arange(16.0).view(4, 4)
    try:
        call(m, lambda v: v)
    except RuntimeError:
        return
    assert_close(m, t)


def test_copy_between_devices_and_dtypes(device):
    m = mt.zeros(2, 3, dtype=mt.int64, device=device)
    t = torch.zeros(2, 3, dtype=torch.int64)
    m.copy_(mt.tensor([[1.7, -2.2, 3.0], [0.4, 5.9, -0.6]]))
    t.copy_(torch.tensor([[1.7, -2.2, 3.0], [0.4, 5.9, -0.6]]))
    assert_close(m, t)
