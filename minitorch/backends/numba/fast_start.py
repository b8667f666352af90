"""Numba's one-time start, without the time it spends checking for scipy's BLAS.

The first kernel a process loads (even from the disk cache) makes Numba set up its CPU
target: it imports its whole NumPy support, and ``numba.np.arraymath`` checks once
whether ``scipy.linalg.cython_blas`` imports (for its ``np.dot``-based ``np.convolve``).
Importing ``scipy.linalg`` is slow, a large part of a whole warm start
(``docs/backend-guide.md`` has the time). Our kernels use no BLAS (``matmul_kernel.py``
is our own), so we set the target up with that one import made to fail: Numba then
answers "no BLAS" for ``np.convolve``/``np.correlate`` only (a plain loop, same values),
while ``np.dot`` in a user's own ``@njit`` code still imports scipy when it compiles.
If scipy's BLAS is already imported, nothing is hidden (it costs nothing then).

The start also types one array: Numba's ``typeof`` imports ``numpy.ma`` the first time it
meets an array, a pause that would otherwise land in the first kernel call and show up
in a dispatch trace as that kernel's own time (a first ReLU looked slow).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import typeof
from numba.core.registry import cpu_target

SCIPY_BLAS = "scipy.linalg.cython_blas"


def start_numba_target() -> None:
    """Set up Numba's CPU target now, skipping its check for scipy's BLAS, and its typing
    of array arguments."""
    hide = SCIPY_BLAS not in sys.modules
    if hide:
        sys.modules[SCIPY_BLAS] = None  # "import scipy.linalg.cython_blas" raises ImportError
    try:
        cpu_target.target_context.refresh()
        typeof(np.empty(1))
    finally:
        if hide:
            del sys.modules[SCIPY_BLAS]
