"""Dtypes and PyTorch's type promotion (issue 2, item 6).

For every binary op and every pair of dtypes (float32, float64, int64, int32, bool),
with tensors, 0-d tensors and Python scalars on either side, the result dtype and values
must equal PyTorch's -- and where PyTorch refuses a combination, minitorch must raise
the same exception type. Plus ``.to(dtype)`` conversions and ``set_default_dtype``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from helpers import DTYPE_NAMES, PREFIX, assert_close, dtype_of

import minitorch as mt

VALUES = {"a": [1, 2, 3], "b": [2, 1, 3]}
BOOL_VALUES = {"a": [True, False, True], "b": [True, True, True]}  # b: no zero divisors
SCALARS = {"int": 2, "float": 2.5, "bool": True}

BINARY = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
    "==": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
}
TENSOR_ONLY = {
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b),
    "where": lambda lib, a, b: lib.where(lib.tensor([True, False, True]).to(a.device), a, b),
    "logical_and": lambda lib, a, b: lib.logical_and(a, b),
}


def make(lib, dtype: str, which: str, zero_dim: bool, device: str = "cpu"):
    data = (BOOL_VALUES if dtype == "bool" else VALUES)[which]
    if zero_dim:
        data = data[0]
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(data, dtype=dtype_of(lib, dtype), **kwargs)


def compare_call(torch_call, mt_call) -> str | None:
    """None when minitorch matches torch (same result, or same exception type)."""
    try:
        expected = torch_call()
    except (RuntimeError, TypeError, ValueError) as error:
        # torch's NotImplementedError ("not implemented for 'Bool'") is a RuntimeError
        kind = RuntimeError if isinstance(error, RuntimeError) else type(error)
        try:
            got = mt_call()
        except kind:
            return None
        except Exception as other:  # noqa: BLE001
            return f"torch raises {type(error).__name__}, minitorch {type(other).__name__}: {other}"
        return f"torch raises {type(error).__name__} ({error}); minitorch returned {got!r}"
    try:
        actual = mt_call()
        assert_close(actual, expected)
    except Exception as error:  # noqa: BLE001
        lines = str(error).strip().splitlines()
        return f"{type(error).__name__}: {' | '.join(line.strip() for line in lines[:3])}"
    return None


KINDS = ["tensor,tensor", "tensor,0-d", "0-d,tensor", "0-d,0-d"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_promotion_between_tensors(op, kind, device):
    a_zero, b_zero = (part == "0-d" for part in kind.split(","))
    failures = []
    for da, db in itertools.product(DTYPE_NAMES, DTYPE_NAMES):
        problem = compare_call(
            lambda da=da, db=db: BINARY[op](make(torch, da, "a", a_zero), make(torch, db, "b", b_zero)),
            lambda da=da, db=db: BINARY[op](
                make(mt, da, "a", a_zero, device), make(mt, db, "b", b_zero, device)
            ),
        )
        if problem:
            failures.append(f"{da} {op} {db}: {problem}")
    assert not failures, f"{len(failures)} dtype pairs differ from torch:\n" + "\n".join(failures)


@pytest.mark.parametrize("side", ["tensor op scalar", "scalar op tensor"])
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_promotion_with_python_scalars(op, side, device):
    failures = []
    for dtype, zero_dim in itertools.product(DTYPE_NAMES, (False, True)):
        for scalar_kind, scalar in SCALARS.items():

            def call(lib, dtype=dtype, zero_dim=zero_dim, scalar=scalar):
                kwargs = (device,) if lib is mt else ()
                tensor = make(lib, dtype, "b", zero_dim, *kwargs)
                if side == "tensor op scalar":
                    return BINARY[op](tensor, scalar)
                return BINARY[op](scalar, tensor)

            problem = compare_call(lambda call=call: call(torch), lambda call=call: call(mt))
            if problem:
                shape = "0-d " if zero_dim else ""
                failures.append(f"{shape}{dtype} tensor, {scalar_kind} scalar: {problem}")
    assert not failures, f"{len(failures)} cases differ from torch:\n" + "\n".join(failures)


@pytest.mark.parametrize("op", list(TENSOR_ONLY))
def test_promotion_of_tensor_functions(op, device):
    failures = []
    for da, db in itertools.product(DTYPE_NAMES, DTYPE_NAMES):
        for b_zero in (False, True):
            problem = compare_call(
                lambda da=da, db=db, z=b_zero: TENSOR_ONLY[op](
                    torch, make(torch, da, "a", False), make(torch, db, "b", z)
                ),
                lambda da=da, db=db, z=b_zero: TENSOR_ONLY[op](
                    mt, make(mt, da, "a", False, device), make(mt, db, "b", z, device)
                ),
            )
            if problem:
                failures.append(f"{op}({da}, {'0-d ' if b_zero else ''}{db}): {problem}")
    assert not failures, "\n".join(failures)


def test_where_with_python_scalars():
    for dtype in DTYPE_NAMES:
        for scalar in SCALARS.values():
            cond_m, cond_t = mt.tensor([True, False]), torch.tensor([True, False])
            m = make(mt, dtype, "a", False)[:2]
            t = make(torch, dtype, "a", False)[:2]
            assert_close(mt.where(cond_m, m, scalar), torch.where(cond_t, t, scalar))
            assert_close(mt.where(cond_m, scalar, m), torch.where(cond_t, scalar, t))


# ----- documented promotion facts (readable examples) -----------------------------------


def test_python_scalar_does_not_upcast():
    assert (mt.ones(2) * 2.5).dtype is mt.float32
    assert (mt.ones(2, dtype=mt.int32) + 2).dtype is mt.int32
    assert (mt.ones(2, dtype=mt.int32) + 2.5).dtype is mt.float32
    assert (mt.ones(2, dtype=mt.bool) + 2).dtype is mt.int64
    assert (mt.ones(2) + mt.tensor(1.0, dtype=mt.float64)).dtype is mt.float32


def test_integer_true_division_gives_default_float():
    assert (mt.tensor([1, 2]) / mt.tensor([2, 2])).dtype is mt.float32
    assert_close(mt.tensor([1, 2]) / 2, torch.tensor([1, 2]) / 2)


def test_comparisons_give_bool():
    for dtype in ("float32", "int64", "float64", "int32"):
        t = mt.tensor([1, 2], dtype=getattr(mt, dtype))
        assert (t < 2).dtype is mt.bool and (t == t).dtype is mt.bool


# ----- conversions -----------------------------------------------------------------------

CONVERT_DATA = {
    "float32": [-1.7, 0.0, 2.5, 3.0, -0.2],
    "float64": [-1.7, 0.0, 2.5, 3.0, -0.2],
    "int64": [-2, 0, 3, 1, 7],
    "int32": [-2, 0, 3, 1, 7],
    "bool": [True, False, True, True, False],
}


@pytest.mark.parametrize(("source", "target"), list(itertools.product(DTYPE_NAMES, DTYPE_NAMES)))
def test_to_dtype_conversions(source, target, device):
    m = mt.tensor(CONVERT_DATA[source], dtype=dtype_of(mt, source), device=device)
    t = torch.tensor(CONVERT_DATA[source], dtype=dtype_of(torch, source))
    assert_close(m.to(dtype_of(mt, target)), t.to(dtype_of(torch, target)))
    assert_close(m[::2].to(dtype=dtype_of(mt, target)), t[::2].to(dtype=dtype_of(torch, target)))
    method = {"float32": "float", "float64": "double", "int64": "long", "int32": "int",
              "bool": "bool"}[target]
    assert_close(getattr(m, method)(), getattr(t, method)())


def test_to_same_dtype_returns_self():
    m = mt.ones(3)
    assert m.to(mt.float32) is m
    assert m.float() is m
    assert m.to(mt.float64) is not m


def test_dtype_attributes():
    for name in DTYPE_NAMES:
        d = getattr(mt, name)
        assert str(d) == f"{PREFIX}{name}"
        assert d.is_floating_point == getattr(torch, name).is_floating_point
    assert mt.float is mt.float32 and mt.double is mt.float64
    assert mt.long is mt.int64 and mt.int is mt.int32


# ----- set_default_dtype ------------------------------------------------------------------


@pytest.fixture
def default_float64():
    previous = mt.get_default_dtype()
    mt.set_default_dtype(mt.float64)
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        mt.set_default_dtype(previous)
        torch.set_default_dtype(torch.float32)


def test_set_default_dtype_changes_new_float_tensors(default_float64):
    assert mt.get_default_dtype() is mt.float64
    cases = [
        (lambda lib: lib.tensor([1.0, 2.0])),
        (lambda lib: lib.zeros(2)),
        (lambda lib: lib.ones(2, 2)),
        (lambda lib: lib.arange(0.0, 2.0, 0.5)),
        (lambda lib: lib.linspace(0, 1, 3)),
        (lambda lib: lib.full((2,), 1.5)),
        (lambda lib: lib.tensor([1, 2]) / 2),
        (lambda lib: lib.tensor([1, 2]) * 0.5),
        (lambda lib: lib.tensor([1, 2]).float() * 1.5),
        (lambda lib: lib.tensor([1, 2], dtype=lib.int32) + 1.5),
        (lambda lib: lib.eye(2)),
    ]
    for i, case in enumerate(cases):
        assert_close(case(mt), case(torch), msg=f"case {i}")
    assert mt.rand(2).dtype is mt.float64 and mt.randn(2).dtype is mt.float64


def test_set_default_dtype_rejects_non_float_types():
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)
    with pytest.raises(TypeError):
        mt.set_default_dtype(mt.int64)
    assert mt.get_default_dtype() is mt.float32


def test_unsupported_numpy_dtype_is_a_clear_type_error():
    with pytest.raises(TypeError, match="complex|supported|convert"):
        mt.from_numpy(np.zeros(3, dtype=np.complex64))
    with pytest.raises(TypeError):
        mt.tensor(np.array(["a", "b"]))
