"""``torch.*`` functions whose work is done elsewhere in minitorch: ``asarray``
(``as_tensor`` with NumPy's ``copy=`` rule), ``frombuffer`` (a tensor over the bytes of
a Python buffer), ``from_file`` (over a file's bytes, memory-mapped by NumPy),
``can_cast`` (PyTorch's casting rule) and ``detach`` (the method).

``can_cast(from_, to)`` is PyTorch's rule for writing a result into an existing tensor
(``out=``, in-place ops): a value may go to a dtype of the same or a higher *category*,
bool < integer < floating point, never down. So ``int64 -> uint8`` is allowed (both
integers; the value may wrap) and ``float32 -> int32`` is not.

``frombuffer`` and ``asarray`` of a NumPy array share memory with what they are given:
writing into the buffer changes the tensor, as in PyTorch. ``from_file(shared=True)``
maps the file itself, so writes into the tensor reach the file; with ``shared=False`` the
mapping is copy-on-write and the file is left alone.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.device import as_device
from minitorch.dtypes import as_dtype, get_default_dtype
from minitorch.ops.common import require_tensor


def can_cast(from_: Any, to: Any) -> bool:
    """Whether a value of dtype ``from_`` may be written into a tensor of dtype ``to``:
    the same or a higher category (bool < integer < floating point)."""
    return as_dtype(from_).category <= as_dtype(to).category


def detach(input: Tensor) -> Tensor:  # noqa: A002
    """``input.detach()``: the same data, cut from the autograd graph."""
    require_tensor("detach", input)
    return input.detach()


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``obj`` as a tensor, sharing its memory when it can (a tensor or a NumPy array of
    the dtype and device asked for) unless ``copy=True``; ``copy=False`` makes a needed
    copy an error instead."""
    if isinstance(obj, Tensor):
        wanted = obj.dtype if dtype is None else as_dtype(dtype)
        same = wanted is obj.dtype and (device is None or as_device(device) == obj.device)
        if same and not copy:
            made = obj
        elif copy is False:
            raise ValueError(f"can't alias tensor with dtype '{obj.dtype.type_name}' into dtype "
                             f"'{wanted.type_name}'.")  # fmt: skip
        else:
            made = obj.to(device=obj.device if device is None else device, dtype=wanted)
            made = made.clone() if made is obj else made
    elif isinstance(obj, np.ndarray) and not copy:
        made = creation.as_tensor(obj, dtype=dtype, device=device)
    else:
        made = creation.tensor(obj, dtype=dtype, device=device)
    return made.requires_grad_(True) if requires_grad else made


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A 1-D tensor over the bytes of ``buffer`` (``bytearray``, ``array``, ``mmap``...):
    ``count`` elements of ``dtype`` from byte ``offset`` (all that fit when ``-1``)."""
    dtype = as_dtype(dtype)
    size = memoryview(buffer).nbytes
    if size - offset <= 0:
        raise ValueError(f"both buffer length ({size}) and offset ({offset}) must be positive and "
                         f"offset must be less than buffer length")  # fmt: skip
    if count < 0:
        if (size - offset) % dtype.itemsize:
            raise ValueError(
                f"buffer length ({size - offset} bytes) after offset ({offset} bytes) must be a "
                f"multiple of element size ({dtype.itemsize})"
            )
        count = (size - offset) // dtype.itemsize
    elif count * dtype.itemsize > size - offset:
        raise ValueError(
            f"requested buffer length ({count} * {dtype.itemsize} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({size} bytes)"
        )
    array = np.frombuffer(buffer, dtype=dtype.numpy, count=count, offset=offset)
    made = creation.from_numpy(array)
    return made.requires_grad_(True) if requires_grad else made


def from_file(filename: str, shared: bool | None = None, size: int = 0, *, dtype: Any = None,
              device: Any = None, requires_grad: bool = False, **ignored: Any) -> Tensor:  # fmt: skip
    """A 1-D tensor of ``size`` elements of ``dtype`` over the bytes of the file
    ``filename``, memory-mapped: with ``shared=True`` writes go to the file (which is
    made or grown to fit), otherwise they stay in this process."""
    dtype = get_default_dtype() if dtype is None else as_dtype(dtype)
    needed = size * dtype.itemsize
    if not shared and not os.path.exists(filename):
        raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such file or "
                           "directory (2)")  # fmt: skip
    if shared and (not os.path.exists(filename) or os.path.getsize(filename) < needed):
        with open(filename, "ab") as file:
            file.truncate(needed)
    if os.path.getsize(filename) < needed:
        raise RuntimeError(f"file <{filename}> size <{os.path.getsize(filename)}> is smaller than the "
                           f"required mapping size <{needed}>")  # fmt: skip
    if size == 0:
        made = creation.empty(0, dtype=dtype)
    else:
        mode = "r+" if shared else "c"
        made = creation.from_numpy(np.memmap(filename, dtype=dtype.numpy, mode=mode, shape=(size,)))
    if device is not None:
        made = made.to(device)
    return made.requires_grad_(True) if requires_grad else made


__all__ = ["asarray", "can_cast", "detach", "from_file", "frombuffer"]
