"""Triangular systems: ``linalg.solve_triangular`` and the older ``torch.triangular_solve``.

``A X = B`` with ``A`` triangular is forward substitution (lower) or back substitution
(upper), one row of ``X`` at a time from the end of ``A`` that has a single entry. Here
the triangle is cut out (``tril``/``triu``; ``unitriangular``: its diagonal replaced by
ones) and handed to ``solve``: elimination on a triangular matrix has nothing to
eliminate, so it is those substitutions. Only the triangle is read, and since the cut is
an op, the gradient reaches only the triangle too, as in PyTorch::

    dL/dB = A^-T G,      dL/dA = triangle of (-dL/dB X^T)

A zero on the diagonal gives infinities and NaNs, not an error (PyTorch does not check).
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.creation import eye
from minitorch.ops import return_types
from minitorch.ops.common import require_tensor
from minitorch.ops.solve import check_square_float, solve_checked

triangular_solve_result = return_types._return_type("triangular_solve", ["solution", "cloned_coefficient"])


def _triangle(a: Tensor, upper: bool, unitriangular: bool) -> Tensor:
    if not unitriangular:
        return a.triu() if upper else a.tril()
    strict = a.triu(1) if upper else a.tril(-1)
    return strict + eye(a._shape[-1], dtype=a.dtype, device=a.device)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False, out: Any = None) -> Tensor:  # fmt: skip
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A`` (its
    ``upper`` or lower triangle; ``unitriangular``: ones taken on the diagonal). Batch
    dimensions broadcast."""
    check_square_float("linalg.solve_triangular", A)
    require_tensor("linalg.solve_triangular", B, "B", 2)
    if B.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    triangle = _triangle(A, upper, unitriangular)
    return solve_checked(triangle, B, left, False)


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,  # noqa: A002, N803
                     unitriangular: bool = False) -> Any:  # fmt: skip
    """``(solution, cloned_coefficient)``: ``X`` with ``A X = input`` (``transpose``:
    ``A^T X = input``), and a copy of ``A``. Note the order: ``b`` first, and ``upper``
    by default (``linalg.solve_triangular`` reverses both)."""
    check_square_float("triangular_solve", A)
    require_tensor("triangular_solve", input, "input")
    triangle = _triangle(A, upper, unitriangular)
    if transpose:
        triangle = triangle.mT
    solution = solve_checked(triangle, input, True, False)
    return triangular_solve_result(solution, A.clone())


METHODS = {"triangular_solve": triangular_solve}


__all__ = ["solve_triangular", "triangular_solve"]
