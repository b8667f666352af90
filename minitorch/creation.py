"""Making tensors: ``tensor``, ``zeros``, ``arange``, ``randn``, ``from_numpy``, ...

New tensors are built on the host with NumPy, then handed to the device's storage
(``dispatch.from_numpy``: on the CPU that is the array itself). The random factories
(``rand``, ``randn``, ...) live in ``minitorch/random_factories.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.device import as_device, get_default_device
from minitorch.dtypes import (
    INTEGER,
    as_dtype,
    bool_,
    check_array_fits,
    check_scalar_fits,
    from_numpy_dtype,
    get_default_dtype,
    int64,
)
from minitorch.dtypes import dtype as DType
from minitorch.layout import INT64_MAX, allocating, as_int, checked_numel, contiguous_strides


def _finish(array: np.ndarray, dtype: DType, device: Any, requires_grad: bool) -> Tensor:
    """Wrap a host array (any layout) as a new contiguous tensor on ``device``."""
    array = dtype.encode(array)  # (casts as PyTorch's: 1e300 -> inf in float32)
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    dev = as_device(device) if device is not None else get_default_device()
    storage = dispatch.from_numpy(array.reshape(-1), dev.type)
    t = Tensor._make(storage, array.shape, contiguous_strides(array.shape), 0, dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _read_nested(data: Any, depth: int = 0) -> tuple[tuple[int, ...], Any]:
    """``(shape, numbers)`` of nested lists, raising on ragged input: the numbers are the
    same lists with each tensor inside replaced by its values (``tolist``)."""
    if isinstance(data, Tensor):
        return tuple(data.shape), data.tolist()
    if not isinstance(data, (list, tuple)):
        return (), data
    if not data:
        return (0,), data
    if not any(isinstance(item, (list, tuple, Tensor)) for item in data):
        return (len(data),), data  # a list of numbers: one dimension
    read = [_read_nested(item, depth + 1) for item in data]
    first = read[0][0]
    for item_shape, _ in read[1:]:
        if len(item_shape) != len(first):
            raise TypeError(
                f"not a sequence: the items at dim {depth + 1} mix numbers and lists; "
                "nested lists must be rectangular (not ragged)"
            )
        if item_shape != first:
            raise ValueError(
                f"expected sequence of length {first[0] if first else 0} at dim "
                f"{depth + 1} (got {item_shape[0] if item_shape else 0}): nested lists must "
                "be rectangular (not ragged)"
            )
    return (len(data),) + first, [numbers for _, numbers in read]


def _infer_dtype(array: np.ndarray) -> DType:
    if array.dtype.kind == "b":
        return bool_
    if array.dtype.kind in "iu":
        return int64
    if array.dtype.kind == "f":
        return get_default_dtype()
    raise TypeError(f"can't make a tensor from values of type {array.dtype}")


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (a number, nested lists, a NumPy array or
    a tensor). The dtype is inferred unless given: bools -> bool, ints -> int64, any
    float -> the default float dtype (a NumPy array keeps its own dtype)."""
    if isinstance(data, Tensor):
        result = data.detach().to(dtype=as_dtype(dtype) if dtype else data.dtype,
                                  device=device or data.device).clone()  # fmt: skip
        return result.requires_grad_(requires_grad) if requires_grad else result
    if isinstance(data, (np.ndarray, np.generic)):
        array = np.array(data)  # a copy: tensor() never shares memory
        wide_unsigned = array.dtype.kind == "u" and array.dtype != np.uint8  # no uint16..64 here
        inferred = int64 if wide_unsigned else from_numpy_dtype(array.dtype)
    else:
        _, data = _read_nested(data)  # raises on ragged lists
        wanted = as_dtype(dtype) if dtype is not None else None
        array = _python_numbers(data, wanted)
        inferred = _infer_dtype(array) if array.size or array.dtype.kind != "f" else get_default_dtype()
        check_array_fits(array, wanted or inferred)  # Python numbers must fit; arrays are cast
    return _finish(array, as_dtype(dtype) if dtype is not None else inferred, device, requires_grad)


def _python_numbers(data: Any, dtype: DType | None) -> np.ndarray:
    """Python numbers (nested lists) as a NumPy array, refusing what PyTorch refuses.

    PyTorch reads a Python int as a C ``long long``: one beyond the int64 range fits only
    a float or bool tensor. NumPy would keep it as uint64, float64 or a Python object."""
    array = np.array(data)
    if array.dtype == object:
        kinds = {type(v).__name__ for v in array.reshape(-1) if not isinstance(v, (bool, int, float))}
        if kinds or not array.size:
            raise RuntimeError(f"Could not infer dtype of {', '.join(sorted(kinds)) or 'object'}")
    # An int beyond int64 makes NumPy's array float64 (or uint64): refused unless the tensor
    # is to hold floats or bools (the int is then checked exactly, not as the float it became).
    maybe_integer = dtype is None or dtype.category == INTEGER
    beyond_int64 = array.dtype.kind == "f" and maybe_integer and array.size and np.abs(array).max() >= 2.0**63
    if array.dtype == object or array.dtype.kind == "u" or beyond_int64:
        numbers = array.reshape(-1).tolist() if array.dtype == object else _flat(data)
        if any(type(v) is int and not -(2**63) <= v < 2**63 for v in numbers):
            all_ints = not any(isinstance(v, float) for v in numbers)
            integer_result = dtype.category == INTEGER if dtype is not None else all_ints
            if integer_result:
                raise ValueError("Overflow when unpacking long long: an integer beyond the int64 "
                                 "range fits only a float or bool tensor (pass dtype=minitorch.float64)")
            array = np.array(data, dtype=np.float64)
    return array


def _flat(data: Any) -> list:
    """The numbers of nested lists, in order."""
    if isinstance(data, (list, tuple)):
        return [v for item in data for v in _flat(item)]
    return [data]


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like ``tensor``, but returns ``data`` itself when it already fits."""
    if isinstance(data, Tensor) and (dtype is None or as_dtype(dtype) is data.dtype) and (
        device is None or as_device(device) == data.device
    ):
        return data
    if isinstance(data, np.ndarray) and dtype is None and device is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def _sizes(size: tuple) -> tuple[int, ...]:
    """The sizes of a tensor to create, checked before anything is allocated: ints, none
    negative, each an int64 and all together few enough elements to count in int64 (the
    host array is built from 8-byte numbers, so its bytes must fit too)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if all(type(s) is int and 0 <= s <= INT64_MAX for s in size):  # plain ints: nothing to convert
        checked_numel(size, itemsize=8)
        return tuple(size)
    for s in size:
        if isinstance(s, bool) or not hasattr(type(s), "__index__"):  # np.int64(3) is fine
            raise TypeError(f"size must be a sequence of ints, but got {s!r}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        if s > INT64_MAX:
            raise TypeError(f"Overflow when unpacking long long: size {s} is not an int64")
    sizes = tuple(as_int(s, "size") for s in size)
    checked_numel(sizes, itemsize=8)
    return sizes


def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from the value)."""
    dtype = _infer_dtype(np.array(fill_value)) if dtype is None else as_dtype(dtype)
    check_scalar_fits(fill_value, dtype)
    dev = as_device(device) if device is not None else get_default_device()
    t = Tensor._full(_sizes((size,)), fill_value, dtype, dev)
    return t.requires_grad_(True) if requires_grad else t


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(_sizes(size), 0, dtype, device, requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(_sizes(size), 1, dtype, device, requires_grad)


def _filled(sizes: tuple[int, ...], value: int, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    """``full`` of a 0 or a 1 (which every dtype holds: nothing to check) at checked ``sizes``."""
    dev = as_device(device) if device is not None else get_default_device()
    t = Tensor._full(sizes, value, get_default_dtype() if dtype is None else as_dtype(dtype), dev)
    return t.requires_grad_(True) if requires_grad else t


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Uninitialised values (here: zeros, so nothing random leaks into lessons)."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def arange(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``start, start + step, ...`` up to (not including) ``end``.

    As PyTorch on the CPU: integer results are computed in integers (a float64 holds
    every integer only up to 2**53), floating-point ones as ``start + i * step`` in
    float64 and then rounded to the dtype. The count is ``ceil((end - start) / step)``."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = int64 if is_int else get_default_dtype()
    dtype = as_dtype(dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not dtype.is_floating_point:  # bounds and step rounded toward zero first
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError(f"step must be nonzero: the step rounds to 0 as {dtype}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype.is_floating_point:
        count, kind = math.ceil((float(end) - float(start)) / float(step)), np.float64
    else:
        count, kind = -((start - end) // step), np.int64  # the exact ceiling of an integer quotient
    with allocating(_sizes((count,)), 8):
        values = start + np.arange(count, dtype=kind) * step
    return _finish(values, dtype, device, requires_grad)


def _exact_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b`` as ``product + error`` exactly, in float64 (Dekker: split each factor into
    two halves of 26 bits, whose four partial products are exact)."""
    def halves(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        big = x * 134217729.0  # 2**27 + 1
        high = big - (big - x)
        return high, x - high

    product = a * b
    a_high, a_low = halves(a)
    b_high, b_low = halves(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def _exact_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a + b`` as ``total + error`` exactly (Knuth's two-sum)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _multiply_add(a: Any, b: np.ndarray, c: Any, real: type) -> np.ndarray:
    """``a * b + c`` rounded ONCE to ``real``, as a fused multiply-add (FMA) instruction
    computes it. PyTorch's compiled linspace loop computes ``start + step * i``, which the
    C++ compiler turns into one FMA, so to match it to the last bit we must round once too.
    NumPy has no FMA: we compute the exact result as a float64 sum ``total + error``. For
    float64 we round that once; for float32 we first round ``total`` "to odd" (when inexact,
    the neighbour with an odd last bit), which makes the second rounding, to float32,
    give the same answer as rounding the exact value directly."""
    product, product_error = _exact_product(np.float64(a), b.astype(np.float64))
    total, sum_error = _exact_sum(product, np.float64(c))
    error = product_error + sum_error
    if real is np.float64:
        return total + error
    bits = total.view(np.int64)
    inexact_and_even = (error != 0) & (bits % 2 == 0)
    toward_exact = np.nextafter(total, np.where(error > 0, np.inf, -np.inf))
    return np.where(inexact_and_even, toward_exact, total).astype(real)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    PyTorch's recipe, in the dtype's own precision: ``step = (end - start) / (steps - 1)``;
    the first half counts up from ``start`` (``start + step * i``), the second half down
    from ``end`` (``end - step * (steps - 1 - i)``), so both ends are exact. Each value is
    one fused multiply-add, as in PyTorch's compiled loop (see ``_multiply_add``). Integer
    dtypes use a float64 step and round each value toward zero."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = as_dtype(dtype or get_default_dtype())
    check_scalar_fits(start, dtype)
    check_scalar_fits(end, dtype)
    if dtype.is_floating_point:
        real = dtype.host_numpy.type
        first, last = real(start), real(end)
    else:
        real, first, last = np.float64, np.float64(int(start)), np.float64(int(end))
    step = (last - first) / real(max(steps - 1, 1))
    with allocating(_sizes((steps,)), 8):
        i = np.arange(steps)
        if real in (np.float32, np.float64):
            up = _multiply_add(step, i, first, real)
            down = _multiply_add(-step, steps - 1 - i, last, real)
        else:  # float16: every operation rounds to float16, as PyTorch's Half arithmetic
            up = first + step * i.astype(real)
            down = last - step * (steps - 1 - i).astype(real)
    halfway = steps // 2 if steps > 1 else 1  # one step: just ``start``
    return _finish(np.where(i < halfway, up, down), dtype, device, requires_grad)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None,
        requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The identity matrix (``n x m``)."""
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    with allocating(_sizes((n, n if m is None else m)), 8):
        values = np.eye(n, m)
    return _finish(values, as_dtype(dtype or get_default_dtype()), device, requires_grad)


def _like(function: str, t: Tensor, dtype: Any, device: Any) -> dict:
    """The dtype and device a ``*_like`` or ``new_*`` function takes from ``t`` (checked
    first, so ``zeros_like(None)`` is PyTorch's TypeError and not an AttributeError)."""
    if not isinstance(t, Tensor):
        raise TypeError(
            f"{function}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__} "
            f"(convert it with minitorch.tensor(...))"
        )
    return {"dtype": dtype or t.dtype, "device": device or t.device}


def zeros_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    like = _like("zeros_like", t, dtype, device)
    return zeros(tuple(t.shape), requires_grad=requires_grad, **like)


def ones_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    like = _like("ones_like", t, dtype, device)
    return ones(tuple(t.shape), requires_grad=requires_grad, **like)


def empty_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    like = _like("empty_like", t, dtype, device)
    return zeros(tuple(t.shape), requires_grad=requires_grad, **like)


def full_like(t: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:  # fmt: skip
    like = _like("full_like", t, dtype, device)
    return full(tuple(t.shape), fill_value, requires_grad=requires_grad, **like)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor that *shares memory* with a NumPy array: changing one changes the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = from_numpy_dtype(array.dtype)
    item = array.itemsize
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array with array.copy().)"
        )
    if any(s % item for s in array.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size")
    strides = tuple(s // item for s in array.strides)
    span = 1 + sum((n - 1) * s for n, s in zip(array.shape, strides)) if array.size else 0
    storage = np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(item,))
    return Tensor._make(storage, array.shape, strides, 0, dtype, as_device("cpu"))


def from_dlpack(obj: Any) -> Tensor:
    """Zero-copy import of any DLPack producer on the CPU (a NumPy array, a tensor...)."""
    return from_numpy(np.from_dlpack(obj))


# ----- new_* methods: same dtype and device as an existing tensor --------------------


def new_zeros(t: Tensor, *size: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:  # fmt: skip
    return zeros(_sizes(size), requires_grad=requires_grad, **_like("new_zeros", t, dtype, device))


def new_ones(t: Tensor, *size: Any, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:  # fmt: skip
    return ones(_sizes(size), requires_grad=requires_grad, **_like("new_ones", t, dtype, device))


def new_full(t: Tensor, size: Sequence[int], fill_value: Any, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    return full(size, fill_value, requires_grad=requires_grad, **_like("new_full", t, dtype, device))


def new_empty(t: Tensor, *size: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:  # fmt: skip
    return new_zeros(t, *size, dtype=dtype, device=device, requires_grad=requires_grad)


def new_tensor(t: Tensor, data: Any, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:  # fmt: skip
    return tensor(data, requires_grad=requires_grad, **_like("new_tensor", t, dtype, device))
