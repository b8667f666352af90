"""Helpers shared by the core and autograd tests: build the same tensor in minitorch and
in PyTorch (the oracle), and compare results (values, dtype, shape, views).

Convention: ``mt`` is minitorch, ``torch`` is PyTorch on the CPU. A minitorch tensor and
its PyTorch twin are built from one NumPy array, so both libraries see identical data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

import minitorch as mt

DTYPE_NAMES = ("float32", "float64", "int64", "int32", "bool")
FLOAT_NAMES = ("float32", "float64")
INT_NAMES = ("int64", "int32")
NUMPY_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "int64": np.int64,
    "int32": np.int32,
    "bool": np.bool_,
}

# dtypes print as PyTorch's do ("torch.float32"), so that tutorial programs print the same.
PREFIX = "torch."

# Tolerances by dtype name: (rtol, atol). Integers and bools must be exact.
TOLERANCES = {"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7)}


def dtype_of(lib: Any, name: str) -> Any:
    """``minitorch.float32`` or ``torch.float32`` from the name ``"float32"``."""
    return getattr(lib, name)


def dtype_name(dtype: Any) -> str:
    """``"float32"`` from ``torch.float32`` or ``minitorch.float32`` (via ``str``)."""
    return str(dtype).rsplit(".", 1)[-1]


def random_array(
    shape: Sequence[int],
    dtype: str,
    rng: np.random.Generator,
    low: float = -2.0,
    high: float = 2.0,
    nonzero: bool = False,
) -> np.ndarray:
    """Random NumPy data of ``dtype``: uniform floats in ``[low, high)``, integers in
    ``[low, high]``, or random bools. ``nonzero`` keeps values away from zero (divisors)."""
    shape = tuple(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INT_NAMES:
        values = rng.integers(int(np.floor(low)), int(np.floor(high)) + 1, size=shape)
        if nonzero:
            values = np.where(values == 0, 1, values)
        return values.astype(NUMPY_DTYPES[dtype])
    values = rng.uniform(low, high, size=shape)
    if nonzero:
        values = np.where(np.abs(values) < 0.5, np.copysign(0.5, values) + values, values)
    return values.astype(NUMPY_DTYPES[dtype])


def pair(
    data: Any,
    dtype: str | None = None,
    device: str = "cpu",
    requires_grad: bool = False,
) -> tuple[Any, Any]:
    """The same tensor in minitorch and in torch, built from NumPy data (copied)."""
    array = np.array(data)
    if dtype is None:
        dtype = {"f": "float32", "i": "int64", "b": "bool"}[array.dtype.kind]
    array = array.astype(NUMPY_DTYPES[dtype])
    m = mt.tensor(array.copy(), dtype=dtype_of(mt, dtype), device=device)
    t = torch.tensor(array.copy(), dtype=dtype_of(torch, dtype))
    if requires_grad:
        m.requires_grad_(True)
        t.requires_grad_(True)
    return m, t


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy copy of a minitorch (or torch) tensor's values."""
    if isinstance(x, torch.Tensor):
        if x._is_zerotensor():  # autograd's symbolic zeros
            return np.zeros(tuple(x.shape), dtype=NUMPY_DTYPES[dtype_name(x.dtype)])
        return x.detach().cpu().numpy().copy()
    if getattr(x, "requires_grad", False):
        x = x.detach()
    if str(getattr(x, "device", "cpu")) != "cpu":
        x = x.cpu()
    return np.array(x.numpy(), copy=True)


def is_mt_tensor(x: Any) -> bool:
    return isinstance(x, mt.Tensor)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    check_dtype: bool = True,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """Assert a minitorch result equals PyTorch's: type, shape, dtype and values.

    ``expected`` may be a torch tensor, a (named) tuple or list of them, or a Python
    number/bool/list (compared with ``==`` and the same Python type).
    """
    where = f" [{msg}]" if msg else ""
    if isinstance(expected, torch.Tensor):
        assert is_mt_tensor(actual), (
            f"expected a minitorch.Tensor, got {type(actual).__name__}: {actual!r}{where}"
        )
        assert tuple(actual.shape) == tuple(expected.shape), (
            f"shape: got {tuple(actual.shape)}, expected {tuple(expected.shape)}{where}"
        )
        name = dtype_name(expected.dtype)
        if check_dtype:
            assert str(actual.dtype) == f"{PREFIX}{name}", (
                f"dtype: got {actual.dtype}, expected {PREFIX}{name}{where}"
            )
        got = to_numpy(actual)
        want = to_numpy(expected)
        assert got.shape == want.shape, f"numpy() shape {got.shape} != {want.shape}{where}"
        if name in TOLERANCES or got.dtype.kind == "f":
            default_rtol, default_atol = TOLERANCES.get(name, TOLERANCES["float32"])
            np.testing.assert_allclose(
                got.astype(np.float64),
                want.astype(np.float64),
                rtol=default_rtol if rtol is None else rtol,
                atol=default_atol if atol is None else atol,
                equal_nan=equal_nan,
                err_msg=f"values differ{where}",
            )
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"values differ{where}")
        return
    if isinstance(expected, (tuple, list)) and any(
        isinstance(e, torch.Tensor) for e in expected
    ):
        assert isinstance(actual, (tuple, list)), (
            f"expected a sequence of {len(expected)} tensors, got {type(actual).__name__}{where}"
        )
        assert len(actual) == len(expected), (
            f"expected {len(expected)} results, got {len(actual)}{where}"
        )
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(
                a, e, rtol=rtol, atol=atol, check_dtype=check_dtype, msg=f"{msg} result {i}"
            )
        return
    # Python values (item(), tolist()): same type and value.
    assert type(actual) is type(expected), (
        f"type: got {type(actual).__name__} ({actual!r}), expected "
        f"{type(expected).__name__} ({expected!r}){where}"
    )
    if isinstance(expected, float):
        assert np.isclose(actual, expected, rtol=1e-6, atol=1e-6, equal_nan=True), (
            f"{actual!r} != {expected!r}{where}"
        )
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), f"{actual!r} != {expected!r}{where}"
        for a, e in zip(actual, expected):
            assert_close(a, e, msg=msg)
    else:
        assert actual == expected, f"{actual!r} != {expected!r}{where}"


def assert_layout(actual: Any, expected: torch.Tensor, msg: str = "") -> None:
    """Shape, ``stride()``, ``storage_offset()`` and ``is_contiguous()`` equal torch's."""
    where = f" [{msg}]" if msg else ""
    assert tuple(actual.shape) == tuple(expected.shape), (
        f"shape: got {tuple(actual.shape)}, expected {tuple(expected.shape)}{where}"
    )
    assert tuple(actual.stride()) == tuple(expected.stride()), (
        f"stride(): got {tuple(actual.stride())}, expected {tuple(expected.stride())}{where}"
    )
    assert actual.storage_offset() == expected.storage_offset(), (
        f"storage_offset(): got {actual.storage_offset()}, expected "
        f"{expected.storage_offset()}{where}"
    )
    assert actual.is_contiguous() == expected.is_contiguous(), (
        f"is_contiguous(): got {actual.is_contiguous()}, expected "
        f"{expected.is_contiguous()}{where}"
    )


def assert_same_view(
    actual: Any,
    expected: torch.Tensor,
    actual_base: Any,
    expected_base: torch.Tensor,
    msg: str = "",
) -> None:
    """``actual`` is a view of ``actual_base`` exactly as ``expected`` is of
    ``expected_base``: same values, shape, strides, storage offset, and shared memory.

    Memory sharing is checked through values, in both directions: writing into the base
    must show up in the view, and (when the view has no repeated elements, i.e. is not
    an expanded view) writing into the view must show up in the base. Both bases are
    modified identically, so callers may keep comparing them afterwards.
    """
    where = f" [{msg}]" if msg else ""
    assert_close(actual, expected, msg=f"{msg} values")
    assert_layout(actual, expected, msg)
    if expected.numel() == 0:
        return
    # 1. write into the base: the view must see it.
    with torch.no_grad():
        expected_base.add_(1)
    with mt.no_grad():
        actual_base.add_(1)
    assert_close(actual, expected, msg=f"{msg} after writing into the base (memory shared?)")
    # 2. write into the view: the base must see it (not for views that repeat elements,
    #    where torch refuses in-place writes).
    if not has_internal_overlap(tuple(expected.shape), tuple(expected.stride())):
        with torch.no_grad():
            expected.mul_(3)
        with mt.no_grad():
            actual.mul_(3)
        assert_close(
            actual_base, expected_base, msg=f"{msg} after writing into the view{where}"
        )


def has_internal_overlap(shape: tuple, strides: tuple) -> bool:
    """True when two different indices of the layout reach the same storage cell."""
    positions = np.zeros((), dtype=np.int64)
    for size, stride in zip(shape, strides):
        positions = positions[..., None] + np.arange(size) * stride
    flat = positions.reshape(-1)
    return len(np.unique(flat)) != len(flat)


def flatten_outputs(result: Any) -> list:
    """A list of the tensors in an op's result (a tensor, or a tuple/list of them)."""
    if isinstance(result, (tuple, list)):
        out = []
        for r in result:
            out.extend(flatten_outputs(r))
        return out
    return [result]


def is_float_tensor(x: Any) -> bool:
    return hasattr(x, "dtype") and dtype_name(x.dtype) in FLOAT_NAMES
