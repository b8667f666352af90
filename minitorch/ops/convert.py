"""Conversions: ``.to(dtype)``, ``.to(device)``, ``.float()``, ``.cpu()``, ``.cuda()``, ...

A conversion that changes nothing returns the tensor itself (as in PyTorch); otherwise it
makes a copy. Moving between devices goes through host memory: the values are read
back to NumPy and written into the other device's storage. The gradient is converted
back to the input's dtype and device.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minitorch import dispatch, dtypes
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.device import as_device
from minitorch.device import device as Device
from minitorch.dtypes import (
    ALL_DTYPES,
    as_dtype,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from minitorch.dtypes import dtype as DType
from minitorch.layout import contiguous_strides
from minitorch.memory_format import check_memory_format, preserve_format, suggested_format
from minitorch.ops.common import cast, require_tensor
from minitorch.ops.shape import clone, in_memory_format


class ToCopy(Function):
    """A copy with another dtype and/or device;  gradient: converted back."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dtype: DType, device: Device,
                non_blocking: builtins.bool = False) -> Tensor:  # fmt: skip
        ctx.dtype, ctx.device = x.dtype, x.device
        if device == x.device:
            return cast(x, dtype)
        host = dtype.encode(np.ascontiguousarray(x._host_array())).reshape(-1)
        # non_blocking: a copy to a CUDA device is queued on the current stream
        queued = non_blocking and device.type == "cuda"
        storage = dispatch.from_numpy(host, device.type, non_blocking=queued)
        return Tensor._make(storage, x._shape, contiguous_strides(x._shape), 0, dtype, device)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return grad.to(ctx.dtype, ctx.device), None, None, None


def to(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other_tensor)`` or
    keywords ``dtype=``/``device=``. ``non_blocking=True`` queues a copy to a CUDA device
    on the current stream and returns at once, so, as in PyTorch, the source must not be
    changed until that stream has made the copy (a copy to the host always waits)."""
    dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    memory_format = check_memory_format(kwargs.pop("memory_format", preserve_format), "to")
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    flags = [arg for arg in args if isinstance(arg, builtins.bool)]  # PyTorch's positional
    args = [arg for arg in args if not isinstance(arg, builtins.bool)]  # non_blocking, copy
    if len(flags) > 2:
        raise TypeError("to() received an invalid combination of arguments (more than non_blocking, copy)")
    non_blocking, copy = (*flags, non_blocking, copy)[:2] if flags else (non_blocking, copy)
    for arg in args:
        if isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (str, Device)):
            device = arg
        elif arg is not None:
            dtype = arg
    dtype = as_dtype(dtype) if dtype is not None else x.dtype
    device = as_device(device) if device is not None else x.device
    if dtype is x.dtype and device == x.device and copy:
        return clone(x, memory_format=memory_format)
    if dtype is x.dtype and device == x.device:
        # PyTorch returns the tensor itself unless the format asked for differs from the
        # one its strides suggest (so a transposed matrix stays as it is)
        if memory_format in (preserve_format, suggested_format(x._shape, x._strides)):
            return x
        return in_memory_format(x, memory_format, "to")
    return in_memory_format(ToCopy.apply(x, dtype, device, builtins.bool(non_blocking)), memory_format, "to")


def cpu(x: Tensor) -> Tensor:
    return to(x, device="cpu")


def cuda(x: Tensor, device: Any = None, non_blocking: builtins.bool = False) -> Tensor:
    return to(x, device="cuda" if device is None else device, non_blocking=non_blocking)


def float(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:  # noqa: A001 (PyTorch's name)
    return to(x, float32, memory_format=memory_format)


def double(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    return to(x, float64, memory_format=memory_format)


def long(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    return to(x, int64, memory_format=memory_format)


def int(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:  # noqa: A001
    return to(x, int32, memory_format=memory_format)


def bool(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:  # noqa: A001
    return to(x, bool_, memory_format=memory_format)


def half(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    return to(x, float16, memory_format=memory_format)


def bfloat16(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    return to(x, dtypes.bfloat16, memory_format=memory_format)


def short(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    return to(x, int16, memory_format=memory_format)


def char(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:  # C's char: a signed byte
    return to(x, int8, memory_format=memory_format)


def byte(x: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    return to(x, uint8, memory_format=memory_format)


def type_as(x: Tensor, other: Tensor) -> Tensor:
    require_tensor("type_as", other, "other")
    return to(x, other.dtype)


# "torch.FloatTensor" -> (float32, "cpu"), "torch.cuda.FloatTensor" -> (float32, "cuda"), ...
_TYPE_STRINGS = {f"{library}{on_cuda}.{d.type_name}Tensor": (d, "cuda" if on_cuda else "cpu")
                 for d in ALL_DTYPES for library in ("torch", "minitorch")
                 for on_cuda in ("", ".cuda")}  # fmt: skip


def type(x: Tensor, dtype: Any = None) -> Any:  # noqa: A001 (PyTorch's name)
    """``x.type()`` names the tensor type as PyTorch does (``"torch.FloatTensor"``, so
    that programs print the same); ``x.type(dtype)`` is ``x.to(dtype)``, where the dtype
    may also be such a name (``"torch.cuda.FloatTensor"`` moves it too) or a legacy
    type (``x.type(minitorch.LongTensor)``)."""
    if dtype is None:
        on_cuda = ".cuda" if x.device.type == "cuda" else ""
        return f"torch{on_cuda}.{x.dtype.type_name}Tensor"
    if dtype in (builtins.float, builtins.int, builtins.bool):  # PyTorch refuses these here
        raise ValueError(f"invalid type: '{dtype.__name__}'")
    if isinstance(dtype, str):
        if dtype not in _TYPE_STRINGS:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype, device = _TYPE_STRINGS[dtype]
        return to(x, dtype, device=device)
    return to(x, getattr(dtype, "dtype", dtype))  # FloatTensor.dtype is float32
