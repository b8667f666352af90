"""NumPy integers wherever PyTorch takes a Python int (issue 14): dims, sizes, indices,
``arange``, ``narrow``, ``split``, ``topk``'s k... (``layout.as_int`` is the one place
that turns an integer-like value into an int)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt

i, j = np.int64, np.int32


def x(lib):
    return lib.arange(24.0).reshape(2, 3, 4)


CALLS = {
    "sum(dim=)": lambda lib: x(lib).sum(dim=i(0)),
    "sum(dims tuple)": lambda lib: x(lib).sum(dim=(i(0), j(1))),
    "mean(dim, keepdim)": lambda lib: x(lib).mean(i(1), keepdim=True),
    "max(dim)": lambda lib: x(lib).max(i(2)).values,
    "argmax(dim)": lambda lib: x(lib).argmax(i(1)),
    "softmax(dim)": lambda lib: x(lib).softmax(i(-1)),
    "std(dim)": lambda lib: x(lib).std(i(1)),
    "cumsum(dim)": lambda lib: x(lib).cumsum(i(1)),
    "zeros(n)": lambda lib: lib.zeros(i(3)),
    "zeros(tuple)": lambda lib: lib.zeros((i(2), j(3))),
    "zeros(0-d array)": lambda lib: lib.zeros(np.array(3)),
    "ones(*sizes)": lambda lib: lib.ones(i(2), j(2)),
    "full": lambda lib: lib.full((i(2),), 1.0),
    "arange(n)": lambda lib: lib.arange(i(5)),
    "arange(start, end, step)": lambda lib: lib.arange(i(1), j(7), i(2)),
    "linspace(steps)": lambda lib: lib.linspace(0, 1, i(5)),
    "eye": lambda lib: lib.eye(i(3)),
    "new_zeros": lambda lib: x(lib).new_zeros(i(2), i(3)),
    "view": lambda lib: x(lib).view(i(2), -1),
    "reshape": lambda lib: x(lib).reshape((i(6), i(4))),
    "permute": lambda lib: x(lib).permute(i(2), i(0), i(1)),
    "transpose": lambda lib: x(lib).transpose(i(0), j(2)),
    "unsqueeze": lambda lib: x(lib).unsqueeze(i(0)),
    "squeeze(dim)": lambda lib: x(lib)[:1].squeeze(i(0)),
    "narrow": lambda lib: x(lib).narrow(i(1), i(1), i(2)),
    "select": lambda lib: x(lib).select(i(0), i(1)),
    "split(sizes list)": lambda lib: x(lib).split([i(1), i(3)], dim=i(2))[1],
    "chunk": lambda lib: x(lib).chunk(i(2), i(2))[0],
    "flatten": lambda lib: x(lib).flatten(i(1)),
    "expand": lambda lib: x(lib)[:, :1].expand(i(2), i(5), i(4)),
    "unflatten": lambda lib: x(lib).unflatten(i(2), (i(2), i(2))),
    "t[int]": lambda lib: x(lib)[i(1)],
    "t[int, int, -int]": lambda lib: x(lib)[i(1), j(2), i(-1)],
    "t[slice]": lambda lib: x(lib)[i(0) : i(1), :: i(2)],
    "t[list]": lambda lib: x(lib)[[i(0), i(1)]],
    "cat(dim)": lambda lib: lib.cat([x(lib), x(lib)], i(1)),
    "stack(dim)": lambda lib: lib.stack([x(lib), x(lib)], dim=i(0)),
    "flip": lambda lib: x(lib).flip(i(0)),
    "gather(dim)": lambda lib: x(lib).gather(i(2), lib.zeros(2, 3, 1, dtype=lib.long)),
    "index_select(dim)": lambda lib: x(lib).index_select(i(0), lib.tensor([1])),
    "topk(k)": lambda lib: x(lib).topk(i(2)).values,
    "tensor([np ints])": lambda lib: lib.tensor([i(1), i(2)]),
    "times np int": lambda lib: x(lib) * i(2),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_numpy_ints_like_torch(name):
    assert_close(CALLS[name](mt), CALLS[name](torch))


def test_size_of_dim():
    assert mt.zeros(2, 3).size(i(1)) == torch.zeros(2, 3).size(i(1)) == 3


def test_setitem_with_numpy_index():
    results = []
    for lib in (mt, torch):
        t = x(lib).clone()
        t[i(0), i(1)] = 5.0
        results.append(t)
    assert_close(*results)


@pytest.mark.parametrize("bad", [1.0, True, np.float64(1.0), "1"])
def test_non_integers_are_refused_as_dims(bad):
    for lib in (mt, torch):
        with pytest.raises(TypeError):
            x(lib).sum(dim=bad)
