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

import math

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

    @property
    def type_name(self) -> str:
        """PyTorch's C++ name of the type, as its error messages spell it ("Float", "Long")."""
        return _TYPE_NAMES[self.name]

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
_TYPE_NAMES = {"bool": "Bool", "int32": "Int", "int64": "Long", "float32": "Float", "float64": "Double"}
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
    if value is float:  # a Python float is a C double, in PyTorch too (not the default dtype)
        return float64
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


# PyTorch names the C type in its overflow messages: ``full((1,), 2**40, dtype=int32)``
# says "value cannot be converted to type int without overflow".
_C_NAMES = {"bool": "bool", "int32": "int", "int64": "int64_t", "float32": "float", "float64": "double"}


def check_scalar_fits(value: bool | int | float, d: dtype) -> None:
    """Raise PyTorch's RuntimeError when a Python number cannot be stored as ``d``
    (``full``, ``fill_``): integers must hold the value rounded toward zero (so never
    NaN or inf), float32 must hold any finite value. Anything fits in bool."""
    if d.category == 1:
        info = np.iinfo(d.numpy)
        fits = (not isinstance(value, float) or math.isfinite(value)) and (
            info.min <= math.trunc(value) <= info.max)  # fmt: skip
    elif d.name == "float32" and isinstance(value, float) and math.isfinite(value):
        fits = abs(value) <= float(np.finfo(np.float32).max)
    else:
        fits = True
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {_C_NAMES[d.name]} without overflow")


def check_array_fits(values: np.ndarray, d: dtype) -> None:
    """Raise PyTorch's RuntimeError when Python numbers read into ``values`` (floats or
    int64) do not fit the integer dtype ``d`` (``tensor([3e9], dtype=int32)``): each
    value rounded toward zero must lie in the type's range, and NaN or inf never does."""
    if d.category != 1 or values.dtype.kind not in "fi":
        return
    info = np.iinfo(d.numpy)
    with np.errstate(invalid="ignore"):
        if values.dtype.kind == "f":  # info.max + 1 = 2**(bits-1) is exact in float64
            fits = np.isfinite(values) & (np.trunc(values) >= info.min) & (values < -float(info.min))
        else:
            fits = (values >= info.min) & (values <= info.max)
    if not fits.all():
        raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")
