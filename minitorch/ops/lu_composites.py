"""What the LU factorisation gives besides ``solve``, ``inv`` and ``det``:
``linalg.slogdet`` / ``torch.slogdet``, ``logdet``, ``linalg.inv_ex``, ``linalg.solve_ex``,
``linalg.tensorinv``, ``linalg.tensorsolve`` (and ``linalg.cond``'s test for a singular
matrix).

``P A = L U`` (``minitorch/ops/solve.py``) puts the determinant on ``U``'s diagonal:
``det(A) = (-1)^swaps * prod(diag(U))``. A product of ``n`` numbers overflows (or
underflows to 0) long before its logarithm does, so ``slogdet`` keeps the two apart::

    sign      = (-1)^swaps * prod(sign(U_ii))       (0 for a singular A)
    logabsdet = sum(log |U_ii|)                     (-inf for a singular A)

and ``det = sign * exp(logabsdet)``. Its gradient is Jacobi's formula divided by
``det``: ``d log|det A| = tr(A^-1 dA)``, so ``dL/dA = g A^-T``; ``sign`` is piecewise
constant, with no gradient. ``logdet = log(sign) + logabsdet`` is NaN for a negative
determinant, as a real logarithm must be.

The ``_ex`` variants do not raise for a singular matrix: they return ``info``, per
matrix 0 or the (1-based) index of the first zero pivot of ``U``, as LAPACK does, and
the IEEE infinities and NaNs of dividing by it. The ``tensor*`` functions reshape a
tensor into a matrix, solve, and reshape back.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import int32
from minitorch.layout import numel
from minitorch.ops import return_types
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor
from minitorch.ops.solve import (
    LinalgInvEx,
    check_square_float,
    diagonal_of,
    inv,
    lu_factors,
    solve,
    solve_checked,
)

linalg_slogdet_result = return_types._return_type("linalg_slogdet", ["sign", "logabsdet"])
slogdet_result = return_types._return_type("slogdet", ["sign", "logabsdet"])
inv_ex_result = return_types._return_type("linalg_inv_ex", ["inverse", "info"])
solve_ex_result = return_types._return_type("linalg_solve_ex", ["result", "info"])


class LinalgSlogdet(Function):
    """``sign, logabsdet`` from ``U``'s diagonal (this file's docstring). With ``g`` the
    gradient of ``logabsdet``: ``dL/dA = g A^-T`` (``sign`` has none)."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor) -> tuple:
        batch, n = a._shape[:-2], a._shape[-1]
        lu, pivots = lu_factors(a, batch)
        diagonal = diagonal_of(lu)
        swaps = (pivots != _positions(n, a)).sum(-1)
        sign = (diagonal.sign().prod(-1) * (1 - 2 * (swaps % 2)).to(a.dtype)).reshape(batch)
        logabsdet = diagonal.abs().log().sum(-1).reshape(batch)
        ctx.mark_non_differentiable(sign)
        ctx.save_for_backward(a)
        return sign, logabsdet

    @staticmethod
    def backward(ctx: FunctionCtx, grad_sign: Tensor, grad_logabsdet: Tensor) -> tuple:
        (a,) = ctx.saved_tensors
        inverse = LinalgInvEx.apply(a, False)  # singular: inf and NaN, as PyTorch's
        return (grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * inverse.mT,)


def _positions(n: int, like: Tensor) -> Tensor:
    from minitorch.creation import arange

    return arange(n, device=like.device)


def first_zero_pivot(a: Tensor) -> Tensor:
    """LAPACK's ``info`` for each matrix of ``a`` (int32, ``a``'s batch shape): 0, or
    the 1-based index of the first zero on ``U``'s diagonal."""
    batch, n = a._shape[:-2], a._shape[-1]
    if n == 0 or not numel(batch):
        return a.new_zeros(batch, dtype=int32)
    lu, _ = lu_factors(a.detach(), batch)
    zero = diagonal_of(lu) == 0  # [B, n]
    position = where(zero, _positions(n, a) + 1, n + 1).amin(-1)  # n + 1: no zero pivot
    return where(position > n, 0, position).to(int32).reshape(batch)


def linalg_slogdet(A: Tensor) -> Any:  # noqa: N803 (PyTorch's names)
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``, for each square
    matrix; a singular one gives ``(0, -inf)``. The logarithm stays finite where
    ``det`` itself would overflow (a 500 x 500 matrix of 10s)."""
    check_square_float("linalg.slogdet", A)
    return linalg_slogdet_result(*LinalgSlogdet.apply(A))


def slogdet(input: Tensor) -> Any:  # noqa: A002
    """``torch.slogdet``: ``linalg.slogdet`` under its older name."""
    check_square_float("linalg.slogdet", input)
    return slogdet_result(*LinalgSlogdet.apply(input))


def logdet(input: Tensor) -> Tensor:  # noqa: A002
    """``log(det(input))``: ``log(sign) + logabsdet``, so NaN for a negative determinant
    and ``-inf`` for a singular matrix."""
    check_square_float("linalg.slogdet", input)
    sign, logabsdet = LinalgSlogdet.apply(input)
    return sign.log() + logabsdet


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:  # noqa: N803
    """``(inverse, info)``: ``linalg.inv`` that reports a singular matrix in ``info``
    (see this file's docstring) instead of raising, unless ``check_errors``."""
    check_square_float("linalg.inv_ex", A)
    info = first_zero_pivot(A)
    if check_errors:
        return inv_ex_result(inv(A), info)
    return inv_ex_result(LinalgInvEx.apply(A, False), info)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False,  # noqa: N803
             out: Any = None) -> Any:  # fmt: skip
    """``(result, info)``: ``linalg.solve`` that reports a singular ``A`` in ``info``
    (``A``'s batch shape) instead of raising, unless ``check_errors``."""
    check_square_float("linalg.solve_ex", A)
    info = first_zero_pivot(A)
    return solve_ex_result(solve_checked(A, B, left, check_errors), info)


def tensorinv(A: Tensor, ind: int = 2, *, out: Any = None) -> Tensor:  # noqa: N803
    """The inverse of ``A`` read as a linear map from its last dimensions to its first
    ``ind``: ``tensordot(tensorinv(A, ind), A, ind)`` is the identity of shape
    ``A.shape[ind:] * 2``. ``A`` becomes the square matrix ``[prod(shape[:ind]),
    prod(shape[ind:])]``, is inverted, and comes back as ``shape[ind:] + shape[:ind]``."""
    require_tensor("linalg.tensorinv", A, "A")
    if not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A._shape[:ind], A._shape[ind:]
    if numel(rows) != numel(cols):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {numel(cols)} != {numel(rows)}"
        )
    return inv(A.reshape(numel(rows), numel(cols))).reshape(cols + rows)


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None, *, out: Any = None) -> Tensor:  # noqa: N803
    """``X`` with ``tensordot(A, X, X.ndim) = B``: ``A``'s first ``B.ndim`` dimensions
    match ``B``, the rest are ``X``'s shape. ``dims`` first moves those dimensions of
    ``A`` to the end. Then one ``solve`` of the matrix ``[B.numel(), X.numel()]``."""
    require_tensor("linalg.tensorsolve", A, "A")
    require_tensor("linalg.tensorsolve", B, "B", 2)
    if dims is not None:
        dims = [d % A.ndim for d in ((dims,) if isinstance(dims, int) else dims)]
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))  # noqa: N806
    x_shape = A._shape[B.ndim:]
    if numel(x_shape) != B.numel() or A.numel() != B.numel() ** 2:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {numel(x_shape)} != {numel(A._shape[:B.ndim])}"
        )
    return solve(A.reshape(B.numel(), numel(x_shape)), B.reshape(B.numel())).reshape(x_shape)


METHODS = {"slogdet": slogdet, "logdet": logdet}


__all__ = [
    "first_zero_pivot", "inv_ex", "linalg_slogdet", "logdet", "slogdet", "solve_ex", "tensorinv",
    "tensorsolve",
]  # fmt: skip
