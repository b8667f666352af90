"""Data types and PyTorch's type-promotion rules.

A ``dtype`` says how to read each storage cell: ``float32`` (the default), ``float64``,
``int64``, ``int32`` or ``bool``. Each one wraps the NumPy dtype used for CPU storage.

When an operation mixes dtypes, the result dtype follows PyTorch:

1. Order the *categories*: bool < integer < floating point.
2. Tensors with dimensions decide first; a 0-d tensor or a Python number only wins
   when it is of a *higher category* (``int_tensor * 2.5`` is float, but
   ``float32_tensor * 2.5`` stays float32: a Python scalar does not upcast).
3. A Python float counts as the default dtype, a Python int as int64.

    >>> result_type(float32, 2.5) is float32       # scalar does not upcast
    >>> result_type(int64, 2.5) is float32         # but it can change category
"""

from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 (PyTorch's name)
    """A tensor element type, such as ``minitorch.float32``."""

    def __init__(self, name: str, numpy_dtype: type, category: int, rank: int) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.category = category  # 0 bool, 1 integer, 2 floating point
        self.rank = rank  # position in the promotion order
        self.itemsize = self.numpy.itemsize

    @property
    def is_floating_point(self) -> bool:
        return self.category == 2

    @property
    def is_signed(self) -> bool:
        return self.category != 0

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


bool_ = dtype("bool", np.bool_, 0, 0)
int32 = dtype("int32", np.int32, 1, 1)
int64 = dtype("int64", np.int64, 1, 2)
float32 = dtype("float32", np.float32, 2, 3)
float64 = dtype("float64", np.float64, 2, 4)

ALL_DTYPES = (bool_, int32, int64, float32, float64)
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"float": float32, "double": float64, "long": int64, "int": int32})

_default_dtype = float32


def get_default_dtype() -> dtype:
    """The dtype of new floating-point tensors (float32 unless changed)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Change the default floating-point dtype (float32 or float64), like PyTorch."""
    global _default_dtype
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_dtype = d


def as_dtype(value: object) -> dtype:
    """Turn a minitorch dtype, NumPy dtype, Python type or name into a minitorch dtype."""
    if isinstance(value, dtype):
        return value
    if value is float:
        return _default_dtype
    if value is int:
        return int64
    if value is bool:
        return bool_
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        found = _BY_NUMPY.get(np.dtype(value))  # type: ignore[call-overload]
    except TypeError:
        found = None
    if found is None:
        names = ", ".join(d.name for d in ALL_DTYPES)
        raise TypeError(f"unsupported dtype {value!r}: minitorch supports {names}")
    return found


def from_numpy_dtype(numpy_dtype: np.dtype) -> dtype:
    """The minitorch dtype of a NumPy array (other NumPy dtypes are an error)."""
    found = _BY_NUMPY.get(np.dtype(numpy_dtype))
    if found is None:
        names = ", ".join(d.name for d in ALL_DTYPES)
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(numpy_dtype).name}. "
            f"The only supported types are: {names}"
        )
    return found


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without losing their category."""
    return a if a.rank >= b.rank else b


def scalar_dtype(value: bool | int | float) -> dtype:
    """The dtype a Python number stands for: bool, int64 or the default float."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return _default_dtype
    raise TypeError(f"expected a number, but got {type(value).__name__}")


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """PyTorch's rule for letting a lower-priority group (0-d tensors, scalars) matter:
    only when it brings a higher category."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher.category == 0 or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands: object) -> dtype:
    """The dtype of an elementwise result from tensors and Python numbers (rules above).

    Each operand is a Tensor (anything with ``dtype`` and ``ndim``) or a Python number.
    """
    dimensioned = zero_dim = scalars = None
    for operand in operands:
        if hasattr(operand, "dtype") and hasattr(operand, "ndim"):
            d = operand.dtype
            if operand.ndim > 0:
                dimensioned = d if dimensioned is None else promote_types(dimensioned, d)
            else:
                zero_dim = d if zero_dim is None else promote_types(zero_dim, d)
        else:
            d = scalar_dtype(operand)  # type: ignore[arg-type]
            scalars = d if scalars is None else promote_types(scalars, d)
    result = _combine(dimensioned, _combine(zero_dim, scalars))
    assert result is not None, "result_type needs at least one operand"
    return result
