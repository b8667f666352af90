"""Printing: ``repr``/``str`` of a tensor equal PyTorch's strings character for character.

Hundreds of seeded random tensors (0-d to 4-d, magnitudes 1e-8 to 1e12, whole-number
floats, ints, bools, nan/inf/-0, with and without grad, summarised ones), views
(transposed, sliced, expanded), and every option of ``set_printoptions``. A dtype prints
as PyTorch's does (``dtype=torch.float64``), so whole strings compare equal.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch


def assert_prints_like_torch(values: np.ndarray, requires_grad: bool = False, op=None) -> None:
    expected = torch.tensor(values, requires_grad=requires_grad)
    actual = minitorch.tensor(values, requires_grad=requires_grad)
    if op is not None:
        expected, actual = op(expected), op(actual)
    assert repr(actual) == repr(expected), values
    assert str(actual) == repr(actual)


def random_values(rng: np.random.Generator) -> np.ndarray:
    """A tensor's values of a random rank, size, kind and magnitude."""
    rank = int(rng.integers(0, 5))
    shape = tuple(int(s) for s in rng.integers(0, 6 if rank < 3 else 4, size=rank))
    if rng.random() < 0.1:  # long enough to wrap lines or be summarised
        shape = tuple(int(s) for s in rng.integers(1, 40, size=max(rank, 1)))
    kind = int(rng.integers(0, 5))
    magnitude = 10.0 ** rng.uniform(-8, 12)
    if kind == 0:
        return rng.integers(-1000, 1000, size=shape)
    if kind == 1:
        return rng.random(shape) < 0.5
    if kind == 2:  # whole numbers stored as floats: "int mode"
        values = np.round(rng.standard_normal(shape) * magnitude).astype(np.float32)
    else:  # spread over six more decades, so some need scientific notation
        spread = 10.0 ** rng.uniform(-3, 3, size=shape)
        values = (rng.standard_normal(shape) * magnitude * spread).astype(
            np.float32 if kind == 3 else np.float64
        )
    if values.size and rng.random() < 0.2:
        special = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0])
        values.reshape(-1)[rng.integers(0, values.size)] = special
    return values


@pytest.mark.parametrize("seed", range(8))
def test_random_tensors_print_like_torch(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        values = random_values(rng)
        grad = values.dtype.kind == "f" and bool(rng.random() < 0.5)
        op = (lambda t: t * 2) if grad and rng.random() < 0.5 else None
        assert_prints_like_torch(values, grad, op)


@pytest.mark.parametrize(
    "values",
    [
        np.float32(3.5),
        np.float32(-0.0),
        np.float32(np.nan),
        np.int64(-7),
        np.bool_(True),
        np.array([], dtype=np.float32),
        np.zeros((0, 3), dtype=np.float32),
        np.zeros((2, 0, 4), dtype=np.int64),
        np.array([], dtype=np.bool_),
        np.array([0.0, -0.0, 1.0], dtype=np.float32),
        np.array([0.0, 1e-9], dtype=np.float32),
        np.array([1e8, 1.0], dtype=np.float32),
        np.array([1e9, 1.0], dtype=np.float32),
        np.array([np.nan, np.inf, -np.inf], dtype=np.float32),
        np.array([np.nan, 1.5, -np.inf], dtype=np.float32),
        np.array([np.nan, 2.0, -np.inf], dtype=np.float32),
        np.array([1e-5, 1.0], dtype=np.float64),
        np.array([123456.789, 0.5], dtype=np.float64),
        np.arange(2000, dtype=np.int64),
        np.arange(1001, dtype=np.float32) / 7,
        np.arange(24 * 50, dtype=np.float32).reshape(2, 3, 4, 50),
        np.linspace(-1e6, 1e6, 3000).reshape(30, 100),
        np.ones((7, 200), dtype=np.bool_),
    ],
    ids=repr,
)
def test_edge_cases_print_like_torch(values):
    assert_prints_like_torch(np.asarray(values))


@pytest.mark.parametrize(
    "view",
    [
        lambda t: t.t(),
        lambda t: t[1:, ::2],
        lambda t: t[:, 0],
        lambda t: t[2],
        lambda t: t[:1].expand(4, 6),
        lambda t: t.unsqueeze(0).expand(3, 5, 6),
    ],
)
def test_views_print_like_torch(view):
    values = np.random.default_rng(1).standard_normal((5, 6)).astype(np.float32) * 1e3
    assert repr(view(minitorch.tensor(values))) == repr(view(torch.tensor(values)))


def test_requires_grad_and_grad_fn_suffixes_wrap_like_torch():
    values = np.random.default_rng(2).standard_normal((3, 7)).astype(np.float64)
    for op in (None, lambda t: t * 2, lambda t: t.sum(), lambda t: t[0, :6]):
        assert_prints_like_torch(values, True, op)


OPTIONS = [
    {"precision": 2},
    {"precision": 8},
    {"precision": 0},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 1, "threshold": 10},
    {"linewidth": 40},
    {"linewidth": 200},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
]


@pytest.fixture
def restore_printoptions():
    yield
    minitorch.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_set_printoptions_like_torch(options, restore_printoptions):
    minitorch.set_printoptions(**options)
    torch.set_printoptions(**options)
    rng = np.random.default_rng(3)
    cases = [random_values(rng) for _ in range(40)]
    cases += [np.arange(2000, dtype=np.float32) / 3, np.arange(60).reshape(3, 4, 5)]
    cases += [np.array([1e-6, 1.0, 3e5]), np.float32(2.5)]
    for values in cases:
        assert_prints_like_torch(np.asarray(values), requires_grad=np.asarray(values).dtype.kind == "f")


def test_options_persist_until_reset(restore_printoptions):
    minitorch.set_printoptions(precision=2)
    assert repr(minitorch.tensor([1.23456])) == "tensor([1.23])"
    minitorch.set_printoptions(threshold=5)  # precision stays 2, like PyTorch
    assert repr(minitorch.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    minitorch.set_printoptions(profile="default")
    assert repr(minitorch.tensor([1.23456])) == "tensor([1.2346])"


def test_set_printoptions_rejects_an_unknown_profile():
    with pytest.raises(ValueError, match="'default', 'short', 'full'"):
        minitorch.set_printoptions(profile="tiny")


@pytest.mark.parametrize("spec", ["", ".3f", ">10", "e", ".2%", "+"])
@pytest.mark.parametrize("value", [3.14159, -2.5e-7, 7, True])
def test_format_of_a_0d_tensor_is_its_number_like_torch(value, spec):
    expected = format(torch.tensor(value), spec)
    assert format(minitorch.tensor(value), spec) == expected


def test_format_of_a_larger_tensor_takes_no_spec_like_torch():
    assert f"{minitorch.tensor([1.0, 2.0])}" == f"{torch.tensor([1.0, 2.0])}"
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{minitorch.tensor([1.0, 2.0]):.2f}"
