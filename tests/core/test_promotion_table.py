"""PyTorch's type-promotion table over all ten dtypes (issue 14, item 5).

``promote_types`` for every ordered pair, and ``result_type`` of an elementwise op for
the three tiers PyTorch ranks (tensors with dimensions, 0-d tensors, Python numbers):
tensor with tensor, tensor with a 0-d tensor, tensor with a Python scalar, and the
actual dtype of ``a + b`` for the same combinations. The oracle is torch.
"""

from __future__ import annotations

import itertools

import pytest
import torch

import minitorch as mt

NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
SCALARS = (True, 3, -2, 2.5)


def dtype_name(d) -> str:
    return str(d).split(".")[1]


def make(lib, name: str, zero_dim: bool):
    value = True if name == "bool" else 1
    data = value if zero_dim else [value, value]
    return lib.tensor(data, dtype=getattr(lib, name))


def test_every_dtype_is_exported_with_torchs_aliases():
    for name in NAMES:
        assert dtype_name(getattr(mt, name)) == name
        assert getattr(mt, name).itemsize == getattr(torch, name).itemsize
        assert getattr(mt, name).is_floating_point == getattr(torch, name).is_floating_point
        assert getattr(mt, name).is_signed == getattr(torch, name).is_signed, name
    assert mt.half is mt.float16 and mt.short is mt.int16
    assert not hasattr(torch, "byte") and not hasattr(mt, "byte")  # torch has only uint8


def test_finfo_and_iinfo_match_torch():
    for name in NAMES:
        if getattr(torch, name).is_floating_point:
            ours, theirs = mt.finfo(getattr(mt, name)), torch.finfo(getattr(torch, name))
            keys = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
            wrong_kind = mt.iinfo
        else:
            if name == "bool":
                with pytest.raises(TypeError, match="not supported by minitorch.iinfo"):
                    mt.iinfo(mt.bool)
                continue
            ours, theirs = mt.iinfo(getattr(mt, name)), torch.iinfo(getattr(torch, name))
            keys, wrong_kind = ("bits", "min", "max", "dtype"), mt.finfo
        assert {k: getattr(ours, k) for k in keys} == {k: getattr(theirs, k) for k in keys}
        assert repr(ours) == repr(theirs)
        with pytest.raises(TypeError, match="requires an? .* input type"):
            wrong_kind(getattr(mt, name))
    assert repr(mt.finfo()) == repr(torch.finfo())


@pytest.mark.parametrize("a, b", itertools.product(NAMES, NAMES))
def test_promote_types_matches_torch(a, b):
    expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert dtype_name(mt.promote_types(getattr(mt, a), getattr(mt, b))) == dtype_name(expected)


@pytest.mark.parametrize("a, b", itertools.product(NAMES, NAMES))
@pytest.mark.parametrize("tier", ["tensor", "zero_dim"])
def test_result_type_of_tensors_matches_torch(a, b, tier):
    """``a`` has dimensions; ``b`` has dimensions too or is 0-d (lower priority)."""
    x_t, y_t = make(torch, a, False), make(torch, b, tier == "zero_dim")
    x_m, y_m = make(mt, a, False), make(mt, b, tier == "zero_dim")
    expected = dtype_name(torch.result_type(x_t, y_t))
    assert dtype_name(mt.result_type(x_m, y_m)) == expected
    assert dtype_name(mt.result_type(y_m, x_m)) == expected  # order does not matter
    if a != "bool" or b != "bool":  # torch refuses bool - bool; add is the op here
        assert dtype_name((x_m + y_m).dtype) == dtype_name((x_t + y_t).dtype)


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("zero_dim", [False, True], ids=["tensor", "zero_dim"])
def test_result_type_with_a_python_scalar_matches_torch(a, scalar, zero_dim):
    if a == "uint8" and scalar == -2:  # torch's result_type refuses a negative int here
        scalar = 2
    x_t, x_m = make(torch, a, zero_dim), make(mt, a, zero_dim)
    expected = dtype_name(torch.result_type(x_t, scalar))
    assert dtype_name(mt.result_type(x_m, scalar)) == expected
    assert dtype_name((x_m * scalar).dtype) == dtype_name((x_t * scalar).dtype)
