"""Data types and PyTorch's type-promotion rules.

A ``dtype`` says how to read each storage cell. minitorch has PyTorch's ten real types:

    bool
    uint8  int8  int16  int32  int64            (integers; only uint8 is unsigned)
    float16  bfloat16  float32 (the default)  float64

Each one wraps the NumPy dtype of its CPU storage cells. NumPy has no ``bfloat16``, so a
bfloat16 tensor stores 16-bit words (``numpy.uint16``): the top half of a float32, read by
putting the 16 bits back on top (``bfloat16_to_float32``) and written by rounding a
float32 to its nearest top half (``float32_to_bfloat16``). The kernels compute both
16-bit floats in float32 and round once when they store, as PyTorch does on the CPU
(``minitorch/backends/half_precision.py``).

When an operation mixes dtypes, the result dtype follows PyTorch:

1. Two dtypes meet at ``promote_types``: the higher *category* wins (bool < integer <
   floating point); within a category the larger type wins, except that uint8 with a
   signed type needs a signed type that holds 0..255 (``uint8, int8 -> int16``) and
   float16 with bfloat16 needs float32 (neither holds the other's values).
2. Tensors with dimensions decide first; a 0-d tensor or a Python number only wins
   when it is of a *higher category* (``int_tensor * 2.5`` is float, but
   ``float16_tensor * 2.5`` stays float16: a Python scalar does not upcast).
3. A Python float counts as the default dtype, a Python int as int64.

    >>> result_type(float32, 2.5) is float32       # scalar does not upcast
    >>> result_type(int64, 2.5) is float32         # but it can change category
"""

from __future__ import annotations

import math

import numpy as np

BOOL, INTEGER, FLOATING = 0, 1, 2  # the categories, in promotion order


class dtype:  # noqa: N801 (PyTorch's name)
    """A tensor element type, such as ``minitorch.float32`` (it prints as ``torch.float32``).

    ``type_name`` is PyTorch's C++ name of the type as its messages spell it
    (``"Float"``, ``"Long"``: ``x.type()`` is ``"minitorch.FloatTensor"``), and ``c_name``
    the C type its overflow messages name (``"int64_t"``)."""

    def __init__(self, name: str, numpy_dtype: type, category: int, type_name: str, c_name: str) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)  # the storage cells
        self.category = category
        self.type_name = type_name
        self.c_name = c_name
        self.itemsize = self.numpy.itemsize
        self.is_floating_point = category == FLOATING  # (a field, not a property: every op asks)

    @property
    def is_signed(self) -> bool:
        return self.category != BOOL and self.name != "uint8"

    @property
    def host_numpy(self) -> np.dtype:
        """The NumPy dtype this type's *values* are read into on the host: its storage
        dtype, except bfloat16, whose values NumPy holds as float32."""
        return np.dtype(np.float32) if self is bfloat16 else self.numpy

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Numbers (any NumPy array) as storage cells of this type. A float64 reaches
        a 16-bit float through float32, rounding twice, as PyTorch's conversions do."""
        if self is not bfloat16 and getattr(values, "dtype", None) == self.numpy:
            return np.asarray(values)  # already cells of this type: nothing to convert
        return _cast(values, self)

    def decode(self, cells: np.ndarray) -> np.ndarray:
        """Storage cells of this type as NumPy numbers (the cells themselves, except for
        bfloat16, whose words become a new float32 array)."""
        return bfloat16_to_float32(cells) if self is bfloat16 else cells

    def __repr__(self) -> str:
        # PyTorch's spelling: programs written as ``import minitorch as torch`` print what
        # PyTorch prints, and ``torch.float32`` is also how that program names the dtype.
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


@np.errstate(over="ignore", invalid="ignore")  # too large: inf, as PyTorch casts (no warning)
def _cast(values: np.ndarray, to: dtype) -> np.ndarray:
    """``dtype.encode`` of numbers of another type."""
    if to is bfloat16:
        return float32_to_bfloat16(np.asarray(values, dtype=np.float32))
    if to is float16 and np.asarray(values).dtype == np.float64:
        values = np.asarray(values, dtype=np.float32)
    return np.asarray(values, dtype=to.numpy)


bool_ = dtype("bool", np.bool_, BOOL, "Bool", "bool")
uint8 = dtype("uint8", np.uint8, INTEGER, "Byte", "uint8_t")
int8 = dtype("int8", np.int8, INTEGER, "Char", "int8_t")
int16 = dtype("int16", np.int16, INTEGER, "Short", "int16_t")
int32 = dtype("int32", np.int32, INTEGER, "Int", "int")
int64 = dtype("int64", np.int64, INTEGER, "Long", "int64_t")
float16 = dtype("float16", np.float16, FLOATING, "Half", "c10::Half")
bfloat16 = dtype("bfloat16", np.uint16, FLOATING, "BFloat16", "c10::BFloat16")  # 16-bit words
float32 = dtype("float32", np.float32, FLOATING, "Float", "float")
float64 = dtype("float64", np.float64, FLOATING, "Double", "double")

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
# NumPy dtype -> minitorch dtype, for arrays from NumPy: uint16 arrays are numbers, not
# bfloat16 words, so bfloat16 has no NumPy dtype of its own here.
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES if d is not bfloat16}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
                 "short": int16})  # fmt: skip


def float32_to_bfloat16(values: np.ndarray) -> np.ndarray:
    """float32 values as bfloat16 words, rounded to nearest, ties to even (as PyTorch).

    A bfloat16 is the top 16 bits of a float32 (sign, 8 exponent bits, 7 of the 23
    fraction bits). Adding ``0x7FFF`` plus the lowest kept bit to the 32 bits before
    cutting off the low half rounds to nearest with ties to even; an overflow of the
    fraction carries into the exponent, so the largest values round up to infinity.
    NaN could round into infinity this way, so it becomes the quiet NaN ``0x7FC0``."""
    floats = np.asarray(values, dtype=np.float32, order="C")
    bits = floats.view(np.uint32)
    lowest_kept_bit = (bits >> 16) & 1
    words = ((bits + (0x7FFF + lowest_kept_bit)) >> 16).astype(np.uint16)
    return np.where(np.isnan(floats), np.uint16(0x7FC0), words)


def bfloat16_to_float32(words: np.ndarray) -> np.ndarray:
    """bfloat16 words as float32 values (exact): the 16 bits become the top half."""
    return (np.asarray(words, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


_default_dtype = float32


class finfo:  # noqa: N801 (PyTorch's name)
    """The limits of a floating-point dtype (the default one when none is given), as
    ``torch.finfo``: ``bits``; ``eps``, the gap from 1.0 to the next value; ``max`` and
    ``min``; ``tiny`` (also ``smallest_normal``), the smallest positive normal value;
    ``resolution``, 10 to the minus the decimal digits the type keeps.

    bfloat16 is float32 with 16 fraction bits cut off: float32's exponent range (so its
    ``tiny``), but only 8 significant bits (``eps = 2**-7``)."""

    def __init__(self, type: object = None) -> None:  # noqa: A002 (PyTorch's argument name)
        d = _default_dtype if type is None else as_dtype(type)
        if not d.is_floating_point:
            raise TypeError("minitorch.finfo() requires a floating point input type. Use "
                            "minitorch.iinfo to handle 'minitorch.finfo'")  # fmt: skip
        self.bits, self.dtype = 8 * d.itemsize, d.name
        if d is bfloat16:
            self.eps, self.tiny, self.max = 2.0**-7, 2.0**-126, (2 - 2.0**-7) * 2.0**127
        else:
            info = np.finfo(d.numpy)
            self.eps, self.tiny, self.max = float(info.eps), float(info.tiny), float(info.max)
        self.min, self.smallest_normal = -self.max, self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")  # fmt: skip


class iinfo:  # noqa: N801 (PyTorch's name)
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``min``, ``max``."""

    def __init__(self, type: object) -> None:  # noqa: A002 (PyTorch's argument name)
        d = as_dtype(type)
        if d.category == BOOL:
            raise TypeError("minitorch.bool is not supported by minitorch.iinfo")
        if d.category != INTEGER:
            raise TypeError("minitorch.iinfo() requires an integer input type. Use "
                            "minitorch.finfo to handle 'minitorch.iinfo'")  # fmt: skip
        info = np.iinfo(d.numpy)
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), d.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


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
    """The smallest dtype both ``a`` and ``b`` convert to without losing their category
    (PyTorch's table: ``promote_types(uint8, int8)`` is int16, ``(float16, bfloat16)``
    float32, ``(int64, float16)`` float16)."""
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.category == INTEGER and a.is_signed != b.is_signed:  # uint8 meets a signed type:
        signed = a if a.is_signed else b  # that type, at least int16 to hold 0..255
        return signed if signed.itemsize > 1 else int16
    if {a.name, b.name} == {"float16", "bfloat16"}:
        return float32
    return a if a.itemsize >= b.itemsize else b


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
    if higher.category == BOOL or lower.is_floating_point:
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


def wrap_integer(value: int, d: dtype) -> int:
    """``value`` as the cells of the integer dtype ``d`` hold it: its lowest ``8 *
    itemsize`` bits, read as two's complement when ``d`` is signed (``wrap_integer(2**31,
    int32)`` is ``-2**31``, ``wrap_integer(-1, uint8)`` is 255), as C and PyTorch wrap."""
    bits = 8 * d.itemsize
    low_bits = value % 2**bits
    return low_bits - 2**bits if d.is_signed and low_bits >= 2 ** (bits - 1) else low_bits


def _integer_range(d: dtype, of_floats: bool) -> tuple[int, int]:
    """The values an integer dtype accepts from Python numbers, as PyTorch checks them:
    its own range, except that uint8 takes the negative integers down to -255 too and
    wraps them around (``-1`` is 255), as the two's complement of a subtraction would."""
    info = np.iinfo(d.numpy)
    if d.is_signed or of_floats:
        return int(info.min), int(info.max)
    return -int(info.max), int(info.max)


def check_scalar_fits(value: bool | int | float, d: dtype) -> None:
    """Raise PyTorch's RuntimeError when a Python number cannot be stored as ``d``
    (``full``, ``fill_``): integers must hold the value rounded toward zero (so never
    NaN or inf), float32 must hold any finite value. Anything fits in bool, and the
    16-bit floats take anything too (too large is infinity)."""
    if d.category == INTEGER:
        is_float = isinstance(value, float)
        low, high = _integer_range(d, is_float)
        fits = (not is_float or math.isfinite(value)) and low <= math.trunc(value) <= high
    elif d is float32 and isinstance(value, float) and math.isfinite(value):
        fits = abs(value) <= float(np.finfo(np.float32).max)
    else:
        fits = True
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {d.c_name} without overflow")


def check_array_fits(values: np.ndarray, d: dtype) -> None:
    """Raise PyTorch's RuntimeError when Python numbers read into ``values`` (floats or
    int64) do not fit the integer dtype ``d`` (``tensor([3e9], dtype=int32)``): each
    value rounded toward zero must lie in the type's range, and NaN or inf never does."""
    if d.category != INTEGER or values.dtype.kind not in "fi":
        return
    with np.errstate(invalid="ignore"):
        if values.dtype.kind == "f":  # high + 1 is a power of two: exact in float64
            low, high = _integer_range(d, of_floats=True)
            fits = np.isfinite(values) & (np.trunc(values) >= low) & (values < float(high) + 1)
        else:
            low, high = _integer_range(d, of_floats=False)
            fits = (values >= low) & (values <= high)
    if not fits.all():
        raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")
