"""sort, argsort, msort, topk and unique against PyTorch (the oracle), on every CPU
backend: values and indices exactly (ties in stable order, NaN placement), on transposed,
sliced, expanded, empty and 0-d inputs; gradients against torch's and by gradcheck."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.helpers import assert_close, pair

NAN = float("nan")


def _with_ties_and_nans(shape, rng, dtype="float32"):
    """Small integers (many ties) with some NaNs and a negative zero."""
    data = rng.integers(-3, 4, size=shape).astype(np.float64)
    if dtype in ("float32", "float64") and data.size:
        flat = data.reshape(-1)
        flat[rng.random(flat.size) < 0.15] = NAN
        flat[0] = -0.0
    if dtype == "bool":
        return data > 0
    return data.astype({"float32": np.float32, "float64": np.float64, "int64": np.int64,
                        "int32": np.int32}[dtype])  # fmt: skip


LAYOUTS = {
    "contiguous": lambda lib, x: x,
    "transposed": lambda lib, x: x.transpose(0, 1),
    "sliced": lambda lib, x: x[::2, 1:],
    "expanded": lambda lib, x: x[:1].expand(3, x.shape[1]),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_matches_torch_exactly(layout, dtype, descending):
    rng = np.random.default_rng(0)
    m, t = pair(_with_ties_and_nans((5, 7), rng, dtype), dtype)
    m, t = LAYOUTS[layout](mt, m), LAYOUTS[layout](torch, t)
    for dim in (0, 1, -1):
        got = mt.sort(m, dim=dim, descending=descending, stable=True)
        want = torch.sort(t, dim=dim, descending=descending, stable=True)
        assert_close(got.values, want.values, msg=f"dim {dim}")
        assert_close(got.indices, want.indices, msg=f"dim {dim}")
        assert_close(m.argsort(dim, descending, stable=True),
                     t.argsort(dim=dim, descending=descending, stable=True))  # fmt: skip


def test_sort_result_is_a_named_tuple_printed_as_torch():
    m, t = pair([[3.0, 1.0, NAN], [0.0, -0.0, 2.0]])
    got, want = m.sort(descending=True, stable=True), t.sort(descending=True, stable=True)
    values, indices = got
    assert values is got.values and indices is got.indices and isinstance(got, tuple)
    assert repr(got) == repr(want)
    assert repr(mt.topk(m, 2)) == repr(torch.topk(t, 2))


def test_sort_edge_shapes():
    for shape in [(0,), (3, 0), (0, 4), (1,), ()]:
        m, t = pair(np.arange(int(np.prod(shape))).reshape(shape).astype(np.float32)[...] * -1.5)
        for dim in ([-1, 0] if shape else [0, -1]):
            assert_close(m.sort(dim), t.sort(dim), msg=str(shape))
            if shape:
                assert_close(mt.msort(m), torch.msort(t))
    x = mt.ones(2, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.sort(2)
    with pytest.raises(TypeError, match="Tensor"):
        mt.sort([1, 2])


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_torch(largest):
    rng = np.random.default_rng(1)
    data = rng.permutation(24).reshape(4, 6).astype(np.float64)  # distinct: order is defined
    data[1, 2] = NAN
    m, t = pair(data, "float64")
    for dim in (0, 1, -1):
        for k in (0, 1, 3, m.shape[dim]):
            got, want = m.topk(k, dim, largest), t.topk(k, dim, largest)
            assert_close(got.values, want.values, msg=f"k={k} dim={dim}")
            assert_close(got.indices, want.indices, msg=f"k={k} dim={dim}")
    assert_close(mt.topk(m.mT, 2), torch.topk(t.mT, 2))
    for k in (7, -1):
        with pytest.raises(RuntimeError, match="selected index k out of range"):
            mt.topk(m, k)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        torch.topk(t, 7)


def test_sort_and_topk_gradients_match_torch():
    rng = np.random.default_rng(2)
    data = rng.standard_normal((4, 5))
    weights = rng.standard_normal((4, 5))
    for forward in (lambda lib, x: lib.sort(x, 0, descending=True).values,
                    lambda lib, x: lib.sort(x.mT, -1).values.mT,
                    lambda lib, x: lib.topk(x, 3).values):  # fmt: skip
        m, t = pair(data, "float64", requires_grad=True)
        out_m, out_t = forward(mt, m), forward(torch, t)
        w = weights[tuple(slice(0, s) for s in out_t.shape)]
        (out_m * mt.tensor(w)).sum().backward()
        (out_t * torch.tensor(w)).sum().backward()
        assert_close(m.grad, t.grad)
        assert out_m.grad_fn is not None
    x = mt.tensor(data, requires_grad=True)
    assert mt.autograd.gradcheck(lambda v: v.sort(1).values * v.topk(2, 0).values.sum(), (x,))
    indices = mt.sort(x).indices
    assert not indices.requires_grad


def test_unique_matches_torch():
    rng = np.random.default_rng(3)
    for data in [rng.integers(0, 5, size=(3, 4)), np.array([2.0, NAN, 1.0, NAN, 2.0]),
                 np.array([], dtype=np.int64), np.array(7)]:  # fmt: skip
        m, t = pair(data)
        for layout in ("contiguous", "transposed"):
            if layout == "transposed":
                if m.ndim < 2:
                    continue
                m, t = m.mT, t.mT
            assert_close(mt.unique(m), torch.unique(t))
            for inverse in (False, True):
                for counts in (False, True):
                    got = mt.unique(m, sorted=True, return_inverse=inverse, return_counts=counts)
                    want = torch.unique(t, sorted=True, return_inverse=inverse, return_counts=counts)
                    assert_close(got, want, msg=f"inverse={inverse} counts={counts} {data}")
            assert_close(m.unique(sorted=False), t.unique(sorted=False))


@pytest.mark.parametrize("shape,dim", [((5, 3), 0), ((5, 3), 1), ((2, 6, 2), 1), ((4,), 0), ((3, 2), -1),
                                       ((0, 3), 0), ((3, 0), 1)])  # fmt: skip
def test_unique_slices_match_torch(shape, dim):
    data = np.random.default_rng(4).integers(0, 2, size=shape)
    m, t = pair(data)
    for layout in (lambda x: x, lambda x: x.flip(0)):
        got = mt.unique(layout(m), dim=dim, return_inverse=True, return_counts=True)
        want = torch.unique(layout(t), dim=dim, return_inverse=True, return_counts=True)
        assert_close(got, want)
        assert_close(mt.unique(layout(m), dim=dim), torch.unique(layout(t), dim=dim))


def test_unique_slices_errors_match_torch():
    for call in (lambda lib: lib.unique(lib.tensor(3), dim=0),
                 lambda lib: lib.unique(lib.ones(3, 0), dim=0)):  # fmt: skip
        with pytest.raises((IndexError, RuntimeError)) as expected:
            call(torch)
        with pytest.raises(type(expected.value)) as got:
            call(mt)
        assert str(got.value) == str(expected.value)
