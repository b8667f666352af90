"""The emulator's device memory: host memory marked as a GPU's, with guard bytes.

A CUDA kernel receives pointers to device memory; in the emulator that memory is an
ordinary NumPy array of the subclass ``DeviceArray``, so a kernel argument that is device
memory (passed as a pointer) can be told apart from a NumPy structured array (a struct
passed by value, as CuPy does). It comes from the emulator's caching allocator
(``minitorch/backends/allocator.py``), the same design PyTorch uses on a real GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.backends.allocator import emulator_allocator


class DeviceArray(np.ndarray):
    """Emulated GPU memory: a flat NumPy array in host memory, marked as device memory.

    As a kernel argument it is passed as a pointer, like a ``cupy.ndarray``. Behind its
    last element sit at least 64 *guard bytes* (also covering the padding that atomics on
    bool storage may touch): after every launch the emulator checks that they are
    unchanged, so a kernel writing past the end of an array is reported, not silent.
    """


GUARD_BYTES = 64
GUARD_VALUE = 0xA5
UINT8 = np.dtype(np.uint8)


def empty(count: int, numpy_dtype: Any) -> DeviceArray:
    """Uninitialised emulated device memory for ``count`` elements, from the emulator's
    caching allocator (``minitorch/backends/allocator.py``), guard bytes included."""
    dtype = np.dtype(numpy_dtype)
    nbytes = count * dtype.itemsize
    buffer = emulator_allocator.allocate(-(-nbytes // 8) * 8 + GUARD_BYTES, UINT8)
    buffer[nbytes:] = GUARD_VALUE
    return buffer[:nbytes].view(dtype).view(DeviceArray)


def _guard(array: DeviceArray) -> np.ndarray | None:
    """The guard bytes behind ``array`` (None for arrays not made by ``empty``)."""
    buffer = array
    while isinstance(buffer.base, np.ndarray):
        buffer = buffer.base
    if buffer.dtype != np.uint8 or buffer.ndim != 1 or array.nbytes + GUARD_BYTES > buffer.nbytes:
        return None
    start = array.ctypes.data - buffer.ctypes.data + array.nbytes
    if not 0 <= buffer.nbytes - start - GUARD_BYTES < 8:  # a view ending before the end
        return None
    return buffer[start:]


def from_numpy(array: np.ndarray) -> DeviceArray:
    """Copy a 1-D host array to (emulated) device memory."""
    array = np.asarray(array)
    storage = empty(array.size, array.dtype)
    storage[...] = array.reshape(-1)
    return storage


def to_numpy(storage: DeviceArray) -> np.ndarray:
    """Copy device memory back to an ordinary host array."""
    return np.array(storage, copy=True, subok=False)
