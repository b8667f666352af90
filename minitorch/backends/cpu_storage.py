"""Storage of the CPU backends: a flat NumPy array over memory from the caching allocator.

Every CPU backend (``reference``, ``numba_simple``, ``numba``) re-exports these three
functions, the storage part of the backend contract (``minitorch/backends/__init__.py``).
A storage is an ordinary NumPy array (what Numba kernels take), whose bytes lie in a
segment of ``cpu_allocator`` (``minitorch/backends/allocator.py``) and go back to it the
moment the array dies.
"""

from __future__ import annotations

import numpy as np

from minitorch.backends.allocator import cpu_allocator

# ``empty(count, numpy_dtype)``: a new flat storage of ``count`` cells (values undefined
# until written). It is the allocator's method itself rather than a function that calls
# it: every op allocates its output here, and a wrapper would add a Python call to each.
empty = cpu_allocator.allocate


def from_numpy(array: np.ndarray) -> np.ndarray:
    """A new storage holding a copy of the 1-D host ``array``, as a GPU backend copies
    it to the device. (``minitorch.from_numpy``, which shares the array's memory as
    PyTorch's does, never comes here.)"""
    storage = cpu_allocator.allocate(array.size, array.dtype)
    storage[...] = array
    return storage


def to_numpy(storage: np.ndarray) -> np.ndarray:
    """CPU storage *is* a NumPy array: nothing to copy."""
    return storage
