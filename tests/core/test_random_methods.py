"""``bernoulli_``, ``exponential_`` and ``random_`` against torch: the same numbers, bit for
bit, from the same seed, for every dtype, on contiguous, transposed and sliced tensors
(PyTorch fills a tensor in its memory order), and the errors torch raises."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

SEEDS = range(12)
DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"]

LAYOUTS = {  # name -> a tensor of that layout, from a library and a dtype name
    "contiguous": lambda lib, dtype: lib.zeros(4, 9, dtype=getattr(lib, dtype)),
    "transposed": lambda lib, dtype: lib.zeros(5, 7, dtype=getattr(lib, dtype)).t(),
    "sliced": lambda lib, dtype: lib.zeros(6, 8, dtype=getattr(lib, dtype)).t()[::2, 1:],
    "0-d": lambda lib, dtype: lib.zeros((), dtype=getattr(lib, dtype)),
    "17 elements": lambda lib, dtype: lib.zeros(17, dtype=getattr(lib, dtype)),
}


def _same_draws(layout: str, dtype: str, method: str, *args, **kwargs) -> None:
    for seed in SEEDS:
        theirs = LAYOUTS[layout](torch, dtype)
        getattr(theirs, method)(*args, generator=torch.Generator().manual_seed(seed), **kwargs)
        ours = LAYOUTS[layout](minitorch, dtype)
        result = getattr(ours, method)(*args, generator=minitorch.Generator().manual_seed(seed), **kwargs)
        assert result is ours
        assert ours.dtype.name == dtype
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=f"seed {seed}")


RANDOM_FORMS = [(), (5,), (3, 100), (-(2**40), 2**40), (2**35,), (-(2**63), None), (-7, None), (100, None)]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_random_matches_torch(dtype: str, layout: str) -> None:
    for args in RANDOM_FORMS:
        wide = dtype in ("int64", "float64", "float32")
        numbers = [a for a in args if a is not None]
        if any(abs(a) > 2**31 for a in numbers) and not wide:
            continue  # out of the dtype's range: test_bad_arguments
        if (dtype in ("uint8", "bool") and -7 in numbers) or (dtype in ("int8", "bool") and 100 in numbers):
            continue
        if dtype == "bool" and args in ((5,), (3, 100)):
            args = (2,) if args == (5,) else (0, 2)
        if dtype in ("int8",) and args == (3, 100):
            args = (3, 99)
        _same_draws(layout, dtype, "random_", *args)


def test_random_keywords_and_the_global_generator() -> None:
    _same_draws("contiguous", "int64", "random_", **{"from": -3, "to": 9})
    _same_draws("contiguous", "float32", "random_", to=6)
    torch.manual_seed(5)
    minitorch.manual_seed(5)
    assert minitorch.zeros(7).random_(10).tolist() == torch.zeros(7).random_(10).tolist()


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_bernoulli_with_a_probability_matches_torch(dtype: str, layout: str) -> None:
    for p in (0.5, 0.13, 0.0, 1.0):
        _same_draws(layout, dtype, "bernoulli_", p)


@pytest.mark.parametrize("p_dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_bernoulli_with_a_tensor_of_probabilities_matches_torch(layout: str, p_dtype: str) -> None:
    shape = tuple(LAYOUTS[layout](torch, "float32").shape)
    probabilities = np.random.default_rng(0).random((1, shape[1])).astype(p_dtype)  # broadcast down
    for dtype in ("float32", "float64", "int64"):
        for seed in SEEDS:
            theirs = LAYOUTS[layout](torch, dtype)
            theirs.bernoulli_(torch.tensor(probabilities), generator=torch.Generator().manual_seed(seed))
            ours = LAYOUTS[layout](minitorch, dtype)
            generator = minitorch.Generator().manual_seed(seed)
            ours.bernoulli_(minitorch.tensor(probabilities), generator=generator)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exponential_matches_torch_bit_for_bit(dtype: str, layout: str) -> None:
    for rate in (1.0, 0.3, 2.5, 17):
        _same_draws(layout, dtype, "exponential_", rate)


ERRORS = [
    ("bernoulli_", (1.5,), "float32", RuntimeError),
    ("bernoulli_", (None,), "float32", TypeError),
    ("bernoulli_", ("a",), "float32", TypeError),
    ("exponential_", (-1.0,), "float32", RuntimeError),
    ("exponential_", (None,), "float32", TypeError),
    ("exponential_", (), "int64", RuntimeError),
    ("random_", (5, 3), "float32", RuntimeError),
    ("random_", (None,), "float32", TypeError),
    ("random_", ("a",), "float32", TypeError),
    ("random_", (1.5,), "float32", TypeError),
    ("random_", (300,), "uint8", RuntimeError),
    ("random_", (-(2**40), 5), "int16", RuntimeError),
    ("random_", (0, 2**40), "int32", RuntimeError),
]


@pytest.mark.parametrize(("method", "args", "dtype", "error"), ERRORS, ids=str)
def test_bad_arguments_raise_what_torch_raises(method: str, args: tuple, dtype: str, error: type) -> None:
    with pytest.raises(error):
        getattr(torch.zeros(3, dtype=getattr(torch, dtype)), method)(*args)
    with pytest.raises(error) as ours:
        getattr(minitorch.zeros(3, dtype=getattr(minitorch, dtype)), method)(*args)
    if error is RuntimeError:
        with pytest.raises(error) as theirs:
            getattr(torch.zeros(3, dtype=getattr(torch, dtype)), method)(*args)
        assert str(ours.value).split(",")[0] == str(theirs.value).split(",")[0]
    with pytest.raises(TypeError):
        getattr(minitorch.zeros(3), method)(generator=3)
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(minitorch.zeros(3, requires_grad=True), method)()


@pytest.mark.parametrize("span", [2**28 - 1, 2**28, 2**30 + 5, 2**31, 2**33])
def test_a_range_of_2_28_or_more_takes_64_bit_draws(span: int) -> None:
    """PyTorch 2.13 switches to 64-bit draws at a range of 2**28 (not 2**32), for every
    dtype: randint and random_ both."""
    for seed in SEEDS:
        theirs = torch.randint(-5, span - 5, (9,), generator=torch.Generator().manual_seed(seed))
        ours = minitorch.randint(-5, span - 5, (9,), generator=minitorch.Generator().manual_seed(seed))
        assert ours.tolist() == theirs.tolist()
        if span <= 2**31:
            theirs = torch.zeros(9, dtype=torch.int32)
            theirs.random_(-1, span - 1, generator=torch.Generator().manual_seed(seed))
            ours = minitorch.zeros(9, dtype=minitorch.int32)
            ours.random_(-1, span - 1, generator=minitorch.Generator().manual_seed(seed))
            assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_and_normal_fill_in_memory_order_as_torch(dtype: str, layout: str) -> None:
    """(Before: a transposed or sliced tensor got its draws in logical order, so its
    numbers differed from PyTorch's.)"""
    _same_draws(layout, dtype, "uniform_", -2.0, 3.0)
    _same_draws(layout, dtype, "normal_", 0.5, 2.0)
