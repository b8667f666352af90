"""Loading the Numba backend does not import scipy's BLAS (half a second), and a user's own
``@njit`` code that needs BLAS (``np.dot``) still works afterwards."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("numba")
pytest.importorskip("scipy")

PROGRAM = """
import sys
import numpy as np
import minitorch
print((minitorch.ones(3) + 1).sum().item(), "scipy.linalg" in sys.modules)
from numba import njit

@njit
def dot(a, b):
    return np.dot(a, b)

print(dot(np.arange(3.0), np.arange(3.0)), "scipy.linalg" in sys.modules)
"""


def test_first_op_skips_scipy_blas_and_user_dot_still_works():
    result = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True,
                            timeout=600)  # fmt: skip
    first, second = result.stdout.split("\n")[:2]
    assert first == "6.0 False"  # the first op ran without importing scipy.linalg
    assert second == "5.0 True"  # np.dot compiled: numba imported scipy's BLAS when needed
