"""Storage of the CPU backends: a flat NumPy array, used as it is.

Every CPU backend (``reference``, ``numba_simple``, ``numba``) re-exports these three
functions, the storage part of the backend contract (``minitorch/backends/__init__.py``).
"""

from __future__ import annotations

import numpy as np

# ``empty(count, numpy_dtype)``: a new flat storage of ``count`` cells (values undefined
# until written). It is NumPy's ``np.empty`` itself rather than a function that calls it:
# every op allocates its output here, and a wrapper would add a Python call to each.
empty = np.empty


def from_numpy(array: np.ndarray) -> np.ndarray:
    """CPU storage *is* a NumPy array: nothing to copy."""
    return array


def to_numpy(storage: np.ndarray) -> np.ndarray:
    """CPU storage *is* a NumPy array: nothing to copy."""
    return storage
