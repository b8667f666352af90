"""The names a student meets in the first hour (issue 31), checked against PyTorch:
counting (``bincount``, ``histc``, ``histogram``, ``searchsorted``), the storage lesson
(``untyped_storage``, ``storage``, ``data_ptr``, ``nbytes``, ``itemsize``), the in-place
functions of the namespace (``torch.sin_``), ``nelement``, bad input, and two eager
values: float ``%`` of an exact multiple, and ``sign`` of uint8."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt


def both(values, dtype="float32"):
    return mt.tensor(values, dtype=getattr(mt, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_remainder_of_exact_multiples_has_torchs_zero_sign(dtype, device):
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.normal(0, 1e14, 50), rng.integers(-20, 20, 50) * 0.75, [0.0, -0.0, 1.26e14]])
    for b in (-0.75, 0.75, -3.0, 2.5, 1e-3, -7.0):
        m, t = both(a.tolist(), dtype)
        got, expected = (m.to(device) % b).cpu(), t % b
        assert_close(got, expected)
        assert np.array_equal(np.signbit(got.numpy()), np.signbit(expected.numpy())), b
        got2 = mt.remainder(m.to(device), mt.tensor(b, dtype=m.dtype, device=device)).cpu()
        assert np.array_equal(np.signbit(got2.numpy()), np.signbit(expected.numpy())), b


def test_sign_of_uint8_is_one_above_127(device):
    values = list(range(0, 256, 5))
    got = mt.tensor(values, dtype=mt.uint8, device=device).sign().cpu()
    assert got.tolist() == torch.tensor(values, dtype=torch.uint8).sign().tolist()


def test_round_sends_ties_to_even(device):
    values = [0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 1.005, 1234.5]
    m, t = both(values, "float64")
    assert mt.round(m.to(device)).cpu().tolist() == torch.round(t).tolist()
    for decimals in (1, 2, -1, -2):
        assert_close(mt.round(m.to(device), decimals=decimals).cpu(), torch.round(t, decimals=decimals))


def test_bincount_histc_histogram_searchsorted_match_torch():
    m, t = both([0, 3, 3, 1, 7], "int64")
    assert_close(mt.bincount(m), torch.bincount(t))
    assert_close(mt.bincount(m, minlength=10), torch.bincount(t, minlength=10))
    w = [0.5, 1.0, 2.0, 0.25, 4.0]
    assert_close(mt.bincount(m, weights=mt.tensor(w)), torch.bincount(t, weights=torch.tensor(w)))
    data = np.random.default_rng(1).normal(size=200).tolist() + [3.0, -3.0]
    m, t = both(data)
    for args in ((), (10,), (7, -1.0, 1.0), (5, 2.0, 2.0)):
        assert_close(mt.histc(m, *args), torch.histc(t, *args))
    for kwargs in ({}, {"range": (-1.0, 2.0)}, {"density": True}):
        got, expected = mt.histogram(m, 8, **kwargs), torch.histogram(t, 8, **kwargs)
        assert_close(got.hist, expected.hist)
        assert_close(got.bin_edges, expected.bin_edges)
    edges = [-2.0, -0.5, 0.0, 1.0, 2.5]
    got = mt.histogram(m, mt.tensor(edges), weight=m.abs())
    expected = torch.histogram(t, torch.tensor(edges), weight=t.abs())
    assert_close(got.hist, expected.hist)
    seq, values = both([[1, 3, 5, 7], [2, 4, 4, 8]], "int64"), both([[3, 6, 0], [4, 9, 2]], "int64")
    for kwargs in ({}, {"right": True}, {"side": "right"}, {"out_int32": True}):
        expected = torch.searchsorted(seq[1], values[1], **kwargs)
        assert_close(mt.searchsorted(seq[0], values[0], **kwargs), expected)
    assert_close(mt.searchsorted(seq[0][0], values[0]), torch.searchsorted(seq[1][0], values[1]))


def test_storage_names_match_torch():
    m, t = both([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    for name in ("untyped_storage", "storage"):
        for view in (lambda x: x, lambda x: x[1:], lambda x: x.view(2, 3).t()):
            ms, ts = getattr(view(m), name)(), getattr(view(t), name)()
            assert (ms.nbytes(), ms.size(), len(ms)) == (ts.nbytes(), ts.size(), len(ts))
            assert ms.data_ptr() == getattr(m, name)().data_ptr()  # one storage
    assert m.storage().tolist() == t.storage().tolist() and m.storage().dtype is mt.float32
    assert m[2:].data_ptr() - m.data_ptr() == t[2:].data_ptr() - t.data_ptr() == 8
    assert m.data_ptr() == m.untyped_storage().data_ptr()
    for view in (lambda x: x, lambda x: x[::2], lambda x: x.expand(3, 6), lambda x: x.double()):
        assert (view(m).nbytes, view(m).itemsize) == (view(t).nbytes, view(t).itemsize)
    assert m.nelement() == t.nelement() == 6


def test_inplace_functions_of_the_namespace():
    names = [n for n in dir(torch) if n.endswith("_") and not n.startswith("_") and hasattr(mt.Tensor, n)]
    missing = [n for n in names if not hasattr(mt, n)]
    assert not missing, missing
    m, t = both([0.5, -1.0, 2.0])
    for name in ("sin_", "relu_", "log2_", "round_", "tan_", "clamp_"):
        args = (0.0,) if name == "clamp_" else ()
        a, b = m.clone(), t.clone()
        assert getattr(mt, name)(a, *args) is a
        getattr(torch, name)(b, *args)
        assert_close(a, b)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda lib: lib.ones(2, 3).repeat(2), RuntimeError),
        (lambda lib: lib.ones(2).repeat(-1), RuntimeError),
        (lambda lib: lib.outer(lib.ones(2, 2), lib.ones(2)), RuntimeError),
        (lambda lib: lib.movedim(lib.ones(2, 3), (0, 0), (0, 1)), RuntimeError),
        (lambda lib: lib.movedim(lib.ones(2, 3), (0, 1), (0,)), RuntimeError),
        (lambda lib: lib.roll(lib.ones(2, 3), (1, 2), 0), RuntimeError),
        (lambda lib: lib.diff(lib.tensor(1.0)), RuntimeError),
        (lambda lib: lib.bincount(lib.tensor([1, -1])), RuntimeError),
        (lambda lib: lib.bincount(lib.ones(2)), NotImplementedError),
        (lambda lib: lib.histc(lib.ones(2), 2, 3, 1), RuntimeError),
        (lambda lib: lib.histc(lib.tensor([1, 2]), 2), NotImplementedError),
        (lambda lib: lib.round(lib.tensor([1, 2]), decimals=1), NotImplementedError),
        (lambda lib: lib.median(lib.ones(2, 0), 1), IndexError),
        (lambda lib: lib.ones(3, 4).view_as(lib.ones(5)), RuntimeError),
    ],
)
def test_bad_input_raises_torchs_exception_type(call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error):
        call(mt)
