"""LU factorisation, LU solve and the SVD on the CPU.

``lu_factor`` and ``lu_solve`` are the reference loops (``reference_linalg.py``)
compiled by Numba over NumPy views of the storage. The SVD calls NumPy's
``np.linalg.svd`` (LAPACK's ``gesdd``, batched over the leading dimension): an iterative
eigen-solver is where a tuned library earns its keep, and the reference's Jacobi method
is the readable specification it must agree with (up to the signs of singular vectors,
which are not unique).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from minitorch.backends import Strided
from minitorch.backends.numba.sort_kernel import strided_array


@njit(cache=True)
def _lu_factor_loops(a, pivots):  # pragma: no cover (compiled)
    """Agrees with ``reference_linalg.lu_factor`` (``a`` is ``[B, n, n]``, in place)."""
    batch, n, _ = a.shape
    for z in range(batch):
        for k in range(n):
            p = k
            for i in range(k + 1, n):
                if abs(a[z, i, k]) > abs(a[z, p, k]):
                    p = i
            pivots[z, k] = p
            for j in range(n):
                a[z, k, j], a[z, p, j] = a[z, p, j], a[z, k, j]
            if a[z, k, k] == 0:
                continue
            for i in range(k + 1, n):
                factor = a[z, i, k] / a[z, k, k]
                a[z, i, k] = factor
                for j in range(k + 1, n):
                    a[z, i, j] -= factor * a[z, k, j]


@njit(cache=True, error_model="numpy")
def _lu_solve_loops(x, lu, pivots):  # pragma: no cover (compiled)
    """Agrees with ``reference_linalg.lu_solve`` (``x`` is ``[B, n, k]``, in place). Whole
    rows at a time (``row i -= L[i, j] * row j``): the inner loop walks a row of ``x``,
    contiguous in memory, for all ``k`` right-hand sides at once."""
    batch, n, columns = x.shape
    for z in range(batch):
        for k in range(n):
            p = pivots[z, k]
            for c in range(columns):
                x[z, k, c], x[z, p, c] = x[z, p, c], x[z, k, c]
        for i in range(n):
            for j in range(i):
                factor = lu[z, i, j]
                for c in range(columns):
                    x[z, i, c] -= factor * x[z, j, c]
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n):
                factor = lu[z, i, j]
                for c in range(columns):
                    x[z, i, c] -= factor * x[z, j, c]
            for c in range(columns):
                x[z, i, c] = x[z, i, c] / lu[z, i, i]


def lu_factor(lu: Strided, pivots: Strided) -> None:
    """``P A = L U`` in place, with partial pivoting (see ``reference_linalg.lu_factor``)."""
    _lu_factor_loops(strided_array(lu), strided_array(pivots))


def lu_solve(x: Strided, lu: Strided, pivots: Strided) -> None:
    """``A X = B`` in place from ``A``'s LU factors (see ``reference_linalg.lu_solve``)."""
    _lu_solve_loops(strided_array(x), strided_array(lu), strided_array(pivots))


def svd(u: Strided, s: Strided, vh: Strided, a: Strided) -> None:
    """``A = U diag(S) Vh`` for every matrix of ``a`` (see ``reference_linalg.svd``);
    ``u`` of shape ``[B, m, m]`` asks for full matrices."""
    m = a.shape[1]
    full = u.shape[2] == m and vh.shape[1] == a.shape[2]
    left, values, right = np.linalg.svd(strided_array(a), full_matrices=full)
    strided_array(u)[...] = left
    strided_array(s)[...] = values
    strided_array(vh)[...] = right
