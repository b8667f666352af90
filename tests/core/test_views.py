"""Views, copies and ``__setitem__`` (issue 2, item 4) against PyTorch.

The op table (``tests/op_table.py``) already checks every view op's strides, offset and
shared memory sample by sample. Here: random *chains* of views (a view of a view of a
view...), copies that must not share memory, and ``__setitem__`` with every kind of
index, also through views.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from helpers import assert_close, assert_layout, assert_same_view, to_numpy

import minitorch as mt


def base_pair(shape=(3, 4, 5), dtype="float32", device="cpu"):
    count = int(np.prod(shape))
    m = mt.arange(count, device=device).to(getattr(mt, dtype)).view(*shape)
    t = torch.arange(count).to(getattr(torch, dtype)).view(*shape)
    return m, t


# ----- random chains of views ---------------------------------------------------------


def random_view_step(rng: random.Random, t: torch.Tensor):
    """A random view op valid for ``t``, as a function applicable to both libraries."""
    ndim = t.dim()
    choices = ["unsqueeze", "none_index", "ellipsis"]
    if ndim >= 1:
        choices += ["slice", "select", "narrow", "flip_dims", "split", "unbind", "view_flat"]
    if ndim >= 2:
        choices += ["permute", "transpose", "t", "mT", "flatten"]
    if 1 in t.shape:
        choices += ["squeeze", "expand"]
    kind = rng.choice(choices)
    d = rng.randrange(ndim) if ndim else 0
    size = t.shape[d] if ndim else 1
    if kind == "unsqueeze":
        k = rng.randint(-ndim - 1, ndim)
        return f"unsqueeze({k})", lambda x: x.unsqueeze(k)
    if kind == "none_index":
        return "x[:, None]" if ndim else "x[None]", (
            (lambda x: x[:, None]) if ndim else (lambda x: x[None])
        )
    if kind == "ellipsis":
        return "x[..., None]", lambda x: x[..., None]
    if kind == "slice":
        start, stop, step = rng.randint(-3, 3), rng.choice([None, rng.randint(-2, 5)]), rng.randint(
            1, 3
        )
        index = (slice(None),) * d + (slice(start, stop, step),)
        return f"x[{index}]", lambda x: x[index]
    if kind == "select" and size > 0:
        i = rng.randint(-size, size - 1)
        index = (slice(None),) * d + (i,)
        return f"x[{index}]", lambda x: x[index]
    if kind == "narrow" and size > 0:
        start = rng.randint(0, size - 1)
        length = rng.randint(0, size - start)
        return f"narrow({d}, {start}, {length})", lambda x: x.narrow(d, start, length)
    if kind == "split" and size > 0:
        chunk = rng.randint(1, size)
        piece = rng.randrange(-(-size // chunk))
        return f"split({chunk}, {d})[{piece}]", lambda x: x.split(chunk, d)[piece]
    if kind == "unbind" and size > 0:
        piece = rng.randrange(size)
        return f"unbind({d})[{piece}]", lambda x: x.unbind(d)[piece]
    if kind == "view_flat" and t.is_contiguous():
        return "view(-1)", lambda x: x.view(-1)
    if kind == "permute":
        perm = list(range(ndim))
        rng.shuffle(perm)
        return f"permute{tuple(perm)}", lambda x: x.permute(*perm)
    if kind == "transpose":
        a, b = rng.randrange(ndim), rng.randrange(-ndim, 0)
        return f"transpose({a}, {b})", lambda x: x.transpose(a, b)
    if kind == "t" and ndim == 2:
        return "t()", lambda x: x.t()
    if kind == "mT":
        return "mT", lambda x: x.mT
    if kind == "flatten":
        start = rng.randrange(ndim)
        end = rng.randint(start, ndim - 1)
        return f"flatten({start}, {end})", lambda x: x.flatten(start, end)
    if kind == "squeeze":
        k = list(t.shape).index(1)
        return f"squeeze({k})", lambda x: x.squeeze(k)
    if kind == "expand":
        sizes = [rng.randint(1, 3) if s == 1 else -1 for s in t.shape]
        return f"expand{tuple(sizes)}", lambda x: x.expand(*sizes)
    return "unsqueeze(0)", lambda x: x.unsqueeze(0)


@pytest.mark.parametrize("seed", range(30))
def test_random_view_chains_match_torch(seed, device):
    rng = random.Random(seed)
    m_base, t_base = base_pair((2, 3, 4) if seed % 2 else (4, 1, 5), device=device)
    m, t = m_base, t_base
    steps = []
    for _ in range(rng.randint(2, 6)):
        name, step = random_view_step(rng, t)
        try:
            t_next = step(t)
        except (RuntimeError, IndexError):
            continue  # not a valid view in torch either: skip this step
        steps.append(name)
        m = step(m)
        assert_close(m, t_next, msg=" -> ".join(steps))
        assert_layout(m, t_next, msg=" -> ".join(steps))
        t = t_next
    assert_same_view(m, t, m_base, t_base, msg=" -> ".join(steps))


def test_view_of_view_writes_reach_the_base():
    m_base, t_base = base_pair((4, 6))
    m = m_base.t()[1::2].unsqueeze(0)[0, :, 1:3]
    t = t_base.t()[1::2].unsqueeze(0)[0, :, 1:3]
    assert_same_view(m, t, m_base, t_base)


def test_reshape_is_a_view_when_possible_else_a_copy():
    m_base, t_base = base_pair((4, 6))
    assert_same_view(m_base.reshape(2, 12), t_base.reshape(2, 12), m_base, t_base)
    assert_same_view(m_base[:, :3].reshape(12), t_base[:, :3].reshape(12), m_base, t_base)
    copy_m = m_base.t().reshape(24)
    copy_t = t_base.t().reshape(24)
    assert copy_m.is_contiguous()
    copy_m.fill_(-1)
    copy_t.fill_(-1)
    assert_close(m_base, t_base)


def test_split_chunk_unbind_pieces_are_views():
    m_base, t_base = base_pair((5, 4))
    for mp, tp in zip(m_base.split([2, 3]), t_base.split([2, 3])):
        assert_same_view(mp, tp, m_base, t_base)
    for mp, tp in zip(m_base.chunk(3, 1), t_base.chunk(3, 1)):
        assert_same_view(mp, tp, m_base, t_base)
    for mp, tp in zip(m_base.unbind(1), t_base.unbind(1)):
        assert_same_view(mp, tp, m_base, t_base)
    assert isinstance(m_base.split(2), tuple) and isinstance(m_base.unbind(), tuple)


def test_as_strided_views_with_offset():
    m_base, t_base = base_pair((12,))
    m = m_base.as_strided((3, 3), (3, 1), 2)
    t = t_base.as_strided((3, 3), (3, 1), 2)
    assert_same_view(m, t, m_base, t_base)
    m = m_base[2:].as_strided((2, 2), (1, 4))  # offset defaults to the input's
    t = t_base[2:].as_strided((2, 2), (1, 4))
    assert_same_view(m, t, m_base, t_base)
    m = m_base.as_strided((4, 3), (2, 1))  # overlapping windows (im2col)
    t = t_base.as_strided((4, 3), (2, 1))
    assert_same_view(m, t, m_base, t_base)


def test_expand_does_not_copy():
    m_base, t_base = base_pair((3, 1))
    m = m_base.expand(2, 3, 4)
    t = t_base.expand(2, 3, 4)
    assert_same_view(m, t, m_base, t_base)
    assert m.stride() == (0, 1, 0)


# ----- copies -------------------------------------------------------------------------

COPIES = {
    "a[[0, 2]]": lambda x, lib: x[[0, 2]],
    "a[int tensor]": lambda x, lib: x[lib.tensor([2, 0, 2])],
    "a[bool mask]": lambda x, lib: x[x > 5],
    "a[:, [1]]": lambda x, lib: x[:, [1]],
    "cat": lambda x, lib: lib.cat([x, x], 0),
    "stack": lambda x, lib: lib.stack([x, x]),
    "flip": lambda x, lib: x.flip(0),
    "clone": lambda x, lib: x.clone(),
    "reshape of non-contiguous": lambda x, lib: x.t().reshape(-1),
}


@pytest.mark.parametrize("name", list(COPIES))
def test_copies_do_not_share_memory(name, device):
    m_base, t_base = base_pair((3, 4), device=device)
    m = COPIES[name](m_base, mt)
    t = COPIES[name](t_base, torch)
    assert_close(m, t)
    assert m.is_contiguous()
    m.fill_(-7.0)
    t.fill_(-7.0)
    assert_close(m_base, t_base, msg="writing into a copy must not change the source")
    m_base.add_(1)
    t_base.add_(1)
    assert_close(m, t, msg="writing into the source must not change a copy")


def test_flip_of_views_and_several_dims():
    m_base, t_base = base_pair((2, 3, 4))
    assert_close(m_base.flip(0, 2), t_base.flip(0, 2))
    assert_close(m_base.permute(2, 0, 1).flip(-1), t_base.permute(2, 0, 1).flip(-1))
    assert_close(mt.flip(m_base[:, ::2], [1, 2]), torch.flip(t_base[:, ::2], [1, 2]))


# ----- __setitem__ ---------------------------------------------------------------------


def _value(lib, spec):
    """Build a value for ``x[index] = value``: a number or a tensor from a list."""
    if isinstance(spec, tuple) and spec[0] == "tensor":
        data, dtype = spec[1], spec[2]
        return lib.tensor(data, dtype=getattr(lib, dtype))
    return spec


SETITEM = [
    ("x[1] = 7.0", lambda x: (1,), 7.0),
    ("x[-1] = row", lambda x: (-1,), ("tensor", [1.0, 2.0, 3.0, 4.0, 5.0], "float32")),
    ("x[:, 2] = column", lambda x: (slice(None), 2), ("tensor", [9.0, 8.0, 7.0, 6.0], "float32")),
    ("x[1:3, ::2] = scalar", lambda x: (slice(1, 3), slice(None, None, 2)), -2.5),
    ("x[..., -1] = broadcast", lambda x: (Ellipsis, -1), ("tensor", [3.0], "float32")),
    ("x[None, 1] = 4", lambda x: (None, 1), 4),
    ("x[1, 2] = 3", lambda x: (1, 2), 3),
    ("x[:] = matrix", lambda x: (slice(None),), ("tensor", [[1.0] * 5] * 4, "float32")),
    ("x[...] = 2", lambda x: (Ellipsis,), 2),
    ("x[[0, 2]] = 1.5", lambda x: ([0, 2],), 1.5),
    ("x[int tensor] = rows", lambda x: (("idx", [3, 1]),), ("tensor", [[0.5] * 5] * 2, "float32")),
    ("x[mask] = 0", lambda x: (("mask",),), 0.0),
    ("x[mask] = values", lambda x: (("mask",),), ("tensor", "mask-count", "float32")),
    ("x[1] = int row into float", lambda x: (1,), ("tensor", [1, 2, 3, 4, 5], "int64")),
    ("x[2:, 1:3] = float64 block", lambda x: (slice(2, None), slice(1, 3)),
     ("tensor", [[0.25, 0.5], [0.75, 1.0]], "float64")),
    ("x[0, [1, 3]] = 6", lambda x: (0, [1, 3]), 6.0),
]


def _index(lib, base, spec):
    parts = []
    for p in spec:
        if isinstance(p, tuple) and p[0] == "idx":
            parts.append(lib.tensor(p[1]))
        elif isinstance(p, tuple) and p[0] == "mask":
            parts.append(base > 9)
        else:
            parts.append(p)
    return tuple(parts)


@pytest.mark.parametrize("layout", ["contiguous", "transposed-view"])
@pytest.mark.parametrize(("name", "index", "value"), SETITEM, ids=[s[0] for s in SETITEM])
def test_setitem_matches_torch(name, index, value, layout, device):
    m_base, t_base = base_pair((4, 5) if layout == "contiguous" else (5, 4), device=device)
    m, t = (m_base, t_base) if layout == "contiguous" else (m_base.t(), t_base.t())
    t_index = _index(torch, t, index(t))
    m_index = _index(mt, m, index(m))
    if value == ("tensor", "mask-count", "float32"):
        count = int((t > 9).sum())
        value = ("tensor", [float(-i) for i in range(count)], "float32")
    t_value = _value(torch, value)
    m_value = _value(mt, value)
    if hasattr(m_value, "to") and device != "cpu":
        m_value = m_value.to(device)
    t[t_index] = t_value
    m[m_index] = m_value
    assert_close(m, t, msg=name)
    assert_close(m_base, t_base, msg=f"{name}: write must reach the base through the view")


def test_setitem_into_int_tensor_truncates_floats_like_torch():
    m_base, t_base = base_pair((2, 3), dtype="int64")
    m_base[0] = 2.7
    t_base[0] = 2.7
    m_base[1, 1:] = mt.tensor([-1.9, 3.5])
    t_base[1, 1:] = torch.tensor([-1.9, 3.5])
    assert_close(m_base, t_base)


def test_setitem_through_expanded_source_and_overlapping_value():
    m_base, t_base = base_pair((3, 4))
    m_base[:, 1:] = m_base[:, :1].expand(3, 3)
    t_base[:, 1:] = t_base[:, :1].expand(3, 3)
    assert_close(m_base, t_base)
    m_base[1:] = m_base[:2].clone()
    t_base[1:] = t_base[:2].clone()
    assert_close(m_base, t_base)


def test_setitem_on_views_of_views():
    m_base, t_base = base_pair((3, 4, 5))
    m_view = m_base.permute(2, 0, 1)[1:4:2]
    t_view = t_base.permute(2, 0, 1)[1:4:2]
    m_view[:, 1] = 100.0
    t_view[:, 1] = 100.0
    m_view[0][..., 2] = mt.tensor([5.0, 6.0, 7.0])
    t_view[0][..., 2] = torch.tensor([5.0, 6.0, 7.0])
    assert_close(m_base, t_base)


def test_setitem_from_numpy_matches_torch():
    m_base, t_base = base_pair((2, 3))
    value = np.array([1.5, 2.5, 3.5], dtype=np.float32)
    m_base[1] = mt.from_numpy(value)
    t_base[1] = torch.from_numpy(value)
    assert_close(m_base, t_base)
    assert to_numpy(m_base)[1, 2] == 3.5
