"""``minitorch.linalg``: PyTorch's ``torch.linalg`` namespace.

The decompositions are ops with kernels (``minitorch/ops/solve.py`` for ``solve``,
``inv`` and ``det`` through the LU factorisation, ``minitorch/ops/svd.py`` for the SVD),
``cross`` is ``minitorch/ops/cross.py``'s, ``cholesky`` ``minitorch/ops/cholesky.py``'s,
``solve_triangular`` ``minitorch/ops/triangular.py``'s, and ``lu``, ``lu_factor``,
``lu_factor_ex``, ``lu_solve`` show the LU kernel's factors (``minitorch/ops/lu.py``);
``ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve`` are Bunch and Kaufman's ``A = L D L^T``
(``minitorch/ops/ldl.py``); ``qr`` is ``minitorch/ops/qr.py``'s, ``eigh`` and ``eigvalsh``
``minitorch/ops/eigh.py``'s.
Formulas over those: ``slogdet``, ``inv_ex``, ``solve_ex``, ``tensorinv``, ``tensorsolve``
(``minitorch/ops/lu_composites.py``);
``pinv``, ``matrix_rank``, ``lstsq`` (``minitorch/ops/pseudoinverse.py``); ``multi_dot``,
``vecdot``, ``vander``, ``diagonal`` (``minitorch/ops/linalg_products.py``);
``matrix_exp`` (``minitorch/ops/matrix_exp.py``); and the norms here, over those and the
reductions, with ``cond``, the norm of ``A`` times that of ``A^-1``. Their gradients
come from the ops they are made of:

| norm                  | of a vector ``x``          | of a matrix ``A``                       |
| --------------------- | -------------------------- | --------------------------------------- |
| ``2`` (vectors' default) / ``"fro"`` (matrices') | ``sqrt(sum x^2)`` | ``sqrt(sum A^2)``      |
| ``1`` / ``-1``        | ``sum abs(x)``             | largest / smallest column sum of ``abs(A)`` |
| ``inf`` / ``-inf``    | ``max`` / ``min abs(x)``   | largest / smallest row sum of ``abs(A)`` |
| ``2`` / ``-2``        |                            | largest / smallest singular value       |
| ``"nuc"``             |                            | sum of the singular values              |
| ``0``                 | number of nonzeros         |                                         |
| other ``p``           | ``(sum abs(x)^p)^(1/p)``   |                                         |
"""

from __future__ import annotations

import math
from typing import Any

from minitorch._tensor import Tensor
from minitorch.ops import ldl
from minitorch.ops.choice import where
from minitorch.ops.cholesky import cholesky, cholesky_ex
from minitorch.ops.common import require_tensor
from minitorch.ops.cross import linalg_cross as cross
from minitorch.ops.eigh import eigh, eigvalsh
from minitorch.ops.householder import householder_product
from minitorch.ops.linalg_products import diagonal, multi_dot, vander, vecdot
from minitorch.ops.lu import linalg_lu as lu
from minitorch.ops.lu import linalg_lu_solve as lu_solve
from minitorch.ops.lu import lu_factor, lu_factor_ex
from minitorch.ops.lu_composites import first_zero_pivot, inv_ex, solve_ex, tensorinv, tensorsolve
from minitorch.ops.lu_composites import linalg_slogdet as slogdet
from minitorch.ops.matrix_exp import matrix_exp
from minitorch.ops.out import functional_form
from minitorch.ops.pseudoinverse import lstsq, matrix_rank, pinv
from minitorch.ops.qr import linalg_qr as qr
from minitorch.ops.reduce import norm as p_norm
from minitorch.ops.solve import (
    LinAlgError,
    LinalgInvEx,
    check_square_float,
    det,
    inv,
    refuse_low_precision,
    solve,
)
from minitorch.ops.svd import linalg_svd as svd
from minitorch.ops.svd import svdvals
from minitorch.ops.triangular import solve_triangular

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh",
    "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve",
    "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp",
    "matrix_norm", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
    "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm",
]

# ``out=`` as PyTorch's (a pair, or the triple of ``ldl_factor_ex``), through ``ops/out.py``
ldl_factor = functional_form("ldl_factor", ldl.ldl_factor)
ldl_factor_ex = functional_form("ldl_factor_ex", ldl.ldl_factor_ex)
ldl_solve = functional_form("ldl_solve", ldl.ldl_solve)

MATRIX_ORDERS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _require_float(name: str, x: Tensor, dtype: Any) -> Tensor:
    """``x`` (floating point, else PyTorch's error), cast to ``dtype`` when given."""
    require_tensor(name, x)
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{x.dtype.type_name} (convert it with .float())"
        )
    return x if dtype is None else x.to(dtype)


def vector_norm(x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:  # fmt: skip
    """The ``ord``-norm of ``x`` over ``dim`` (every element by default), treating the
    elements as one vector whatever the shape. See the table above."""
    x = _require_float("linalg.vector_norm", x, dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    if dim is None:
        dims = tuple(range(x.ndim))
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if ord == -math.inf:
        return x.abs().amin(dims, keepdim)
    if ord == 0:
        return (x != 0).sum(dims, keepdim).to(x.dtype)
    return p_norm(x, ord, dims, keepdim)


def _matrix_dims(name: str, a: Tensor, dim: Any) -> tuple[int, int]:
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if len(dim) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {list(dim)}")
    rows, cols = (d % a.ndim for d in dim)
    if rows == cols:
        raise RuntimeError(f"{name}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return rows, cols


def matrix_norm(A: Tensor, ord: Any = "fro", dim: tuple[int, int] = (-2, -1),  # noqa: N803
                keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # fmt: skip
    """The ``ord``-norm of the matrices spanning ``dim`` (the last two by default; the
    other dimensions are a batch). See the table above."""
    A = _require_float("linalg.matrix_norm", A, dtype)  # noqa: N806
    if ord not in MATRIX_ORDERS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    rows, cols = _matrix_dims("linalg.matrix_norm", A, dim)
    if ord == "fro":
        return p_norm(A, 2, (rows, cols), keepdim)
    if ord in (1, -1, math.inf, -math.inf):  # 1: sum down each column; inf: along each row
        summed, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = A.abs().sum(summed, keepdim=True)
        result = sums.amax(across, keepdim=True) if ord > 0 else sums.amin(across, keepdim=True)
    else:  # singular values: move the two dims last, then put them back as size 1
        refuse_low_precision("linalg.matrix_norm", A, "linalg_svd_cpu")
        rest = [d for d in range(A.ndim) if d not in (rows, cols)]
        values = svdvals(A.permute(rest + [rows, cols]))
        if ord == "nuc":
            picked = values.sum(-1)
        else:
            picked = values.amax(-1) if ord == 2 else values.amin(-1)
        for d in sorted((rows, cols)):
            picked = picked.unsqueeze(d)
        result = picked
    return result if keepdim else result.squeeze((rows, cols))


def cond(A: Tensor, p: Any = None, *, out: Any = None) -> Tensor:  # noqa: N803
    """The condition number ``||A||_p ||A^-1||_p``: how much ``solve`` may magnify a
    relative error in ``B``. For ``p`` = ``None``/``2``: ``S_max / S_min`` (``-2``: its
    inverse) from the singular values, any shape; the other orders (``'fro'``, ``'nuc'``,
    ``1``, ``-1``, ``inf``, ``-inf``) need square matrices, and give ``inf`` for a
    singular one."""
    require_tensor("linalg.cond", A, "A")
    if p in (None, 2, -2):
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
        if 0 in A._shape[-2:]:
            return A.new_zeros(A._shape[:-2])
        values = svdvals(A)
        largest, smallest = values[..., 0], values[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    if p not in MATRIX_ORDERS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.ndim < 2 or A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
            + (f"{A._shape[-2]} by {A._shape[-1]} matrices" if A.ndim >= 2 else f"{A.ndim}-D")
        )
    check_square_float("linalg.cond", A)
    if A._shape[-1] == 0:
        return A.new_zeros(A._shape[:-2])
    singular = first_zero_pivot(A) != 0
    inverse = LinalgInvEx.apply(A, False)
    inverse = where(singular.unsqueeze(-1).unsqueeze(-1), 0.0, inverse)
    product = matrix_norm(A, p) * matrix_norm(inverse, p)
    return where(singular, math.inf, product)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: N803
         dtype: Any = None) -> Tensor:  # fmt: skip
    """A vector norm over one ``dim``, a matrix norm over two. Without ``dim``: with
    ``ord`` given, ``A`` must be 1-D (vector) or 2-D (matrix); without ``ord``, the
    2-norm of all elements (which is also the Frobenius norm of a matrix)."""
    require_tensor("linalg.norm", A)
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A.ndim == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    raise RuntimeError(
        "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
        f"Got {A.ndim}D."
    )
