"""PyTorch's legacy constructors: ``Tensor(...)``, ``FloatTensor(...)``, ``LongTensor(...)``, ``t.new(...)``.

Old code still calls them; new code calls ``tensor``, ``zeros`` and ``t.new_zeros``
(``minitorch/creation.py``), on which these are built.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch._tensor import Size, Tensor
from minitorch.creation import tensor, zeros
from minitorch.device import CPU
from minitorch.dtypes import (
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from minitorch.dtypes import dtype as DType


def legacy_tensor(dtype: DType | None, args: tuple, device: Any = None) -> Tensor:
    """What ``Tensor(*args)`` (``dtype`` None: the default dtype) or ``FloatTensor(*args)``
    makes, as PyTorch still reads these old calls:

    * ``()``: an empty 1-D tensor;
    * ints, or one ``Size``: a tensor of that shape (uninitialised in PyTorch; zeros here);
    * one tensor: that tensor's storage, shared (``FloatTensor`` wants it float32 already);
    * one list, tuple or NumPy array: its values, copied and converted to the dtype.

    Without ``device=`` it is made on the CPU: like PyTorch's, these old constructors
    ignore ``set_default_device`` (``torch.Tensor([1, 2])`` is a ``torch.FloatTensor``)."""
    device = CPU if device is None else device
    if not args:
        return zeros(0, dtype=dtype or get_default_dtype(), device=device)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if dtype is not None and first.dtype is not dtype:
            raise TypeError(f"expected {dtype} (got {first.dtype})")
        return first._alias()
    if isinstance(first, Size) or all(hasattr(type(a), "__index__") and not isinstance(a, (bool, np.ndarray))
                                       for a in args):  # fmt: skip
        return zeros(*args, dtype=dtype or get_default_dtype(), device=device)
    if len(args) == 1 and isinstance(first, (list, tuple, np.ndarray)):
        return tensor(first, dtype=dtype or get_default_dtype(), device=device)
    raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")


def new(t: Tensor, *args: Any, device: Any = None) -> Tensor:
    """``t.new(...)``: the legacy constructor with ``t``'s dtype and device
    (``t.new(2, 3)``, ``t.new([1, 2])``); new code calls ``t.new_zeros`` or ``t.new_tensor``."""
    return legacy_tensor(t.dtype, args, device or t.device)


class LegacyTensorType(type):
    """The type of ``FloatTensor``, ``LongTensor``...: PyTorch's old names for a tensor
    of one dtype. Calling one makes a tensor (``legacy_tensor``), and
    ``isinstance(t, FloatTensor)`` asks whether ``t`` is a float32 tensor on the CPU."""

    dtype: DType

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:  # type: ignore[override]
        return legacy_tensor(cls.dtype, args, device)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _legacy_type(dtype: DType) -> LegacyTensorType:
    return LegacyTensorType(f"{dtype.type_name}Tensor", (), {"dtype": dtype})


FloatTensor = _legacy_type(float32)
DoubleTensor = _legacy_type(float64)
HalfTensor = _legacy_type(float16)
BFloat16Tensor = _legacy_type(bfloat16)
LongTensor = _legacy_type(int64)
IntTensor = _legacy_type(int32)
ShortTensor = _legacy_type(int16)
CharTensor = _legacy_type(int8)
ByteTensor = _legacy_type(uint8)
BoolTensor = _legacy_type(bool_)
LEGACY_TYPES = (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor,
                ShortTensor, CharTensor, ByteTensor, BoolTensor)  # fmt: skip
