"""The reference linear-algebra kernels: LU factorisation, LU solve and the SVD.

Part of the reference backend (``reference.py`` imports them). Each kernel loads one
matrix of the batch into Python lists, runs the textbook algorithm on Python floats,
and stores the result back, so the algorithm reads as it does in a linear-algebra book:

* ``lu_factor``: Gaussian elimination with partial pivoting, ``P A = L U`` (LAPACK's
  ``getrf``);
* ``lu_solve``: ``A X = B`` from those factors, by forward and back substitution
  (``getrs``);
* ``svd``: one-sided Jacobi rotations, ``A = U diag(S) V^T`` (Hestenes' method).
"""

from __future__ import annotations

import math

from minitorch.backends import Strided
from minitorch.layout import index_to_position

Matrix = list[list[float]]


def load(t: Strided, z: int) -> Matrix:
    """Matrix ``z`` of the batch ``t`` (shape ``[B, rows, cols]``) as lists of floats."""
    _, rows, cols = t.shape
    return [[float(t.storage[index_to_position((z, i, j), t.strides, t.offset)])
             for j in range(cols)] for i in range(rows)]  # fmt: skip


def store(t: Strided, z: int, matrix: Matrix) -> None:
    """Write ``matrix`` into matrix ``z`` of the batch ``t``."""
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            t.storage[index_to_position((z, i, j), t.strides, t.offset)] = value


def lu_factor(lu: Strided, pivots: Strided) -> None:
    """Factor each ``[n, n]`` matrix of ``lu`` in place: on entry ``A``, on exit ``L`` below
    the diagonal (its unit diagonal is not stored) and ``U`` on and above it, with
    ``P A = L U``. ``pivots[z, k]`` is the row swapped with row ``k`` at step ``k``::

        for k in range(n):
            p = the row i >= k with the largest |A[i][k]|       (partial pivoting)
            swap rows k and p;  pivots[k] = p
            for i > k:  L[i][k] = A[i][k] / A[k][k];  row i -= L[i][k] * row k

    A zero pivot (a singular matrix) skips the elimination step, as LAPACK does: ``U``
    then has a zero on its diagonal, which the ops layer reports.
    """
    batch, n, _ = lu.shape
    for z in range(batch):
        a = load(lu, z)
        for k in range(n):
            p = max(range(k, n), key=lambda i: abs(a[i][k]))
            a[k], a[p] = a[p], a[k]
            pivots.storage[index_to_position((z, k), pivots.strides, pivots.offset)] = p
            if a[k][k] == 0:
                continue
            for i in range(k + 1, n):
                a[i][k] = factor = a[i][k] / a[k][k]
                for j in range(k + 1, n):
                    a[i][j] -= factor * a[k][j]
        store(lu, z, a)


def lu_solve(x: Strided, lu: Strided, pivots: Strided) -> None:
    """Solve ``A X = B`` in place: ``x`` holds ``B`` (``[B, n, k]``) on entry and ``X`` on
    exit; ``lu`` and ``pivots`` are ``lu_factor``'s result for ``A`` (they may be
    broadcast views, batch stride 0). Since ``P A = L U``, on whole rows of ``B``::

        swap the rows of B as the pivots say                  B <- P B
        forward substitution  L Y = B:  for i, for j < i:     row i -= L[i][j] * row j
        back substitution     U X = Y:  for i from the last:  row i -= U[i][j] * row j
                                                             (j > i), then row i /= U[i][i]
    """
    batch, n, _ = x.shape
    for z in range(batch):
        b, factors = load(x, z), load(lu, z)
        for k in range(n):
            p = int(pivots.storage[index_to_position((z, k), pivots.strides, pivots.offset)])
            b[k], b[p] = b[p], b[k]
        for i in range(n):
            for j in range(i):
                b[i] = [bi - factors[i][j] * bj for bi, bj in zip(b[i], b[j])]
        for i in reversed(range(n)):
            for j in range(i + 1, n):
                b[i] = [bi - factors[i][j] * bj for bi, bj in zip(b[i], b[j])]
            b[i] = [_divide(bi, factors[i][i]) for bi in b[i]]
        store(x, z, b)


def _divide(x: float, y: float) -> float:
    """``x / y`` with IEEE's answers for ``y == 0`` (inf or NaN), as the compiled kernels give."""
    if y != 0:
        return x / y
    return math.nan if x == 0 or x != x else math.copysign(math.inf, x) * math.copysign(1.0, y)


def svd(u: Strided, s: Strided, vh: Strided, a: Strided) -> None:
    """``A = U diag(S) Vh`` for each ``[m, n]`` matrix of ``a``, singular values in
    descending order. ``s`` is ``[B, k]`` with ``k = min(m, n)``; ``u`` is ``[B, m, k]``
    (reduced) or ``[B, m, m]`` (full) and ``vh`` ``[B, k, n]`` or ``[B, n, n]``.

    One-sided Jacobi (for ``m >= n``; a wide matrix is done as its transpose): rotate
    pairs of columns of ``W = A`` until all are orthogonal, applying each rotation to
    ``V = I`` as well, so that ``A V = W`` always holds::

        repeat until no pair moved:
            for columns p < q of W:
                alpha = |w_p|^2, beta = |w_q|^2, gamma = w_p . w_q
                rotate (w_p, w_q) and (v_p, v_q) by the angle that makes gamma 0
        S[j] = |w_j|;  U[:, j] = w_j / S[j]

    Columns of ``U`` (or ``V``) that this does not determine (a zero singular value, or
    the extra columns of full matrices) are completed to an orthonormal basis.
    """
    batch, m, n = a.shape
    k = min(m, n)
    for z in range(batch):
        matrix = load(a, z)
        wide = m < n
        if wide:
            matrix = [list(column) for column in zip(*matrix)]
        rows, cols = len(matrix), len(matrix[0]) if matrix else 0
        left, values, right = _jacobi(matrix, rows, cols)  # matrix = left S right^T
        if wide:  # A^T = L S R^T, so A = R S L^T
            left, right = right, left
        u_columns, vh_rows = u.shape[2], vh.shape[1]
        left = _complete_basis(left, m, u_columns)
        right = _complete_basis(right, n, vh_rows)
        store(u, z, [[left[j][i] for j in range(u_columns)] for i in range(m)])
        store(vh, z, [right[j] for j in range(vh_rows)])
        for j in range(k):
            s.storage[index_to_position((z, j), s.strides, s.offset)] = values[j]


def _jacobi(w: Matrix, rows: int, cols: int) -> tuple[list, list, list]:
    """One-sided Jacobi on ``w`` (``rows >= cols``). Returns the columns of ``U`` (None
    where the singular value is zero to rounding), the singular values (descending) and
    the columns of ``V``, each list of columns in the same order."""
    columns = [[w[i][j] for i in range(rows)] for j in range(cols)]
    v = [[1.0 if i == j else 0.0 for i in range(cols)] for j in range(cols)]
    for _sweep in range(100):
        rotated = False
        for p in range(cols):
            for q in range(p + 1, cols):
                wp, wq = columns[p], columns[q]
                alpha, beta = _dot(wp, wp), _dot(wq, wq)
                gamma = _dot(wp, wq)
                if abs(gamma) <= 1e-15 * math.sqrt(alpha * beta) or gamma == 0:
                    continue
                rotated = True
                zeta = (beta - alpha) / (2 * gamma)
                t = math.copysign(1.0, zeta) / (abs(zeta) + math.sqrt(1 + zeta * zeta))
                c = 1 / math.sqrt(1 + t * t)
                sn = c * t
                for vectors in (columns, v):
                    x, y = vectors[p], vectors[q]
                    vectors[p] = [c * xi - sn * yi for xi, yi in zip(x, y)]
                    vectors[q] = [sn * xi + c * yi for xi, yi in zip(x, y)]
        if not rotated:
            break
    norms = [math.sqrt(_dot(column, column)) for column in columns]
    order = sorted(range(cols), key=lambda j: -norms[j])
    # A column that rounding alone left nonzero has no direction worth normalising.
    negligible = 1e-14 * rows * max(norms, default=0.0)
    u_columns = [[x / norms[j] for x in columns[j]] if norms[j] > negligible else None
                 for j in order]  # fmt: skip
    return u_columns, [norms[j] for j in order], [v[j] for j in order]


def _complete_basis(columns: list, size: int, count: int) -> list:
    """``count`` orthonormal vectors of length ``size``: the given ``columns`` first, then,
    in place of a missing one (None) and beyond them, unit vectors ``e_0, e_1, ...`` made
    orthogonal to the ones so far (Gram-Schmidt, twice for accuracy)."""
    basis = list(columns[:count]) + [None] * (count - len(columns[:count]))
    unit = 0
    for j in range(count):
        if basis[j] is not None:
            continue
        while True:
            vector = [1.0 if i == unit else 0.0 for i in range(size)]
            unit += 1
            for _twice in range(2):
                for other in basis:
                    if other is not None:
                        projection = _dot(vector, other)
                        vector = [x - projection * o for x, o in zip(vector, other)]
            length = math.sqrt(_dot(vector, vector))
            if length > 1e-6:
                break
        basis[j] = [x / length for x in vector]
    return basis


def _dot(x: list, y: list) -> float:
    return sum(xi * yi for xi, yi in zip(x, y))
