"""cauchy_, geometric_ and log_normal_ give PyTorch's CPU numbers bit for bit after the same
seed (float32 and float64, below and from 16 elements, contiguous and transposed, the
generator left where PyTorch leaves it), and refuse bad input as PyTorch does."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

DRAWS = [("cauchy_", (0.5, 2.0)), ("cauchy_", ()), ("geometric_", (0.2,)), ("geometric_", (0.9,)),
         ("log_normal_", (0.5, 0.25)), ("log_normal_", ())]  # fmt: skip
LAYOUTS = {
    "five": lambda lib, dtype: lib.empty(5, dtype=dtype),
    "forty": lambda lib, dtype: lib.empty(40, dtype=dtype),
    "transposed": lambda lib, dtype: lib.empty(7, 9, dtype=dtype).t(),
    "every other column": lambda lib, dtype: lib.empty(6, 8, dtype=dtype)[:, ::2],
}


def fill_both(make, method, args, seed, dtype="float32", generator=False):
    """The tensor each library fills, after ``manual_seed(seed)`` on both."""
    torch.manual_seed(seed)
    minitorch.manual_seed(seed)
    expected = make(torch, getattr(torch, dtype))
    actual = make(minitorch, getattr(minitorch, dtype))
    getattr(expected, method)(*args)
    getattr(actual, method)(*args)
    return actual, expected


@pytest.mark.parametrize("method,args", DRAWS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bit_for_bit_with_torch(method, args, dtype):
    for seed in (0, 1, 2147483647):
        for name, make in LAYOUTS.items():
            actual, expected = fill_both(make, method, args, seed, dtype)
            assert np.array_equal(actual.numpy(), expected.numpy()), (method, args, seed, name)
            # the generator is where PyTorch left it (including the cached normal)
            assert np.array_equal(minitorch.randn(3).numpy(), torch.randn(3).numpy()), (method, seed, name)


def test_geometric_fills_integer_tensors_and_takes_a_generator():
    actual, expected = fill_both(lambda lib, dtype: lib.empty(4, 6, dtype=dtype).t(), "geometric_", (0.3,), 7,
                                 "int64")  # fmt: skip
    assert actual.dtype == minitorch.int64
    assert np.array_equal(actual.numpy(), expected.numpy())
    g, tg = minitorch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    assert np.array_equal(minitorch.empty(9).cauchy_(generator=g).numpy(),
                          torch.empty(9).cauchy_(generator=tg).numpy())  # fmt: skip


@pytest.mark.parametrize(
    "method,dtype,args,error",
    [
        ("cauchy_", "float32", (0.0, 0.0), RuntimeError),
        ("cauchy_", "float32", (0.0, -1.0), RuntimeError),
        ("cauchy_", "int64", (), RuntimeError),
        ("geometric_", "float32", (0.0,), RuntimeError),
        ("geometric_", "float32", (1.0,), RuntimeError),
        ("geometric_", "bool", (0.5,), NotImplementedError),
        ("geometric_", "float32", (), TypeError),
        ("log_normal_", "float32", (0.0, 0.0), RuntimeError),
        ("log_normal_", "int64", (), NotImplementedError),
        ("log_normal_", "float32", ("1",), TypeError),
    ],
)
def test_bad_input_raises_torchs_exception(method, dtype, args, error):
    with pytest.raises(error):
        getattr(torch.empty(3, dtype=getattr(torch, dtype)), method)(*args)
    t = minitorch.zeros(3, dtype=getattr(minitorch, dtype))
    with pytest.raises(error):
        getattr(t, method)(*args)
    assert not t.numpy().any()  # refused before anything was written
