"""The LU factorisation itself, as PyTorch shows it: ``linalg.lu_factor``,
``linalg.lu_factor_ex``, ``linalg.lu``, ``lu_unpack``, ``linalg.lu_solve`` and the older
``torch.lu`` / ``torch.lu_solve``.

The ``lu_factor`` kernel (``minitorch/ops/solve.py``) leaves ``P^T A = L U`` packed in one
matrix (``L`` below the diagonal, its ones implied; ``U`` on and above) and the row
swaps: at step ``k``, rows ``k`` and ``pivots[k]`` were exchanged. PyTorch shows the swaps
as LAPACK does, 1-based int32. ``lu_unpack`` turns them into the permutation matrix ``P``
by replaying the swaps on ``0..n-1``, so that ``A = P L U``.

The gradient of the packed ``LU`` (square ``A``): with ``G`` the gradient of ``LU``,
``G_L`` its strict lower triangle and ``G_U`` its upper one, from ``dA = P (dL U + L dU)``,
in which ``L^-1 dL`` is strictly lower and ``dU U^-1`` upper::

    M     = tril(L^T G_L, -1) + triu(G_U U^T)
    dL/dA = P L^-T M U^-T                   (two triangular solves)

A rectangular ``A`` (the kernel factors square ones) is padded with zero rows or columns
to a square (they are never chosen as pivots and change nothing else), and its factors
cut out again. Its gradient has one more term: wide, ``U = [U1 | U2]`` with
``U2 = L^-1 P^T A2`` (``M`` gains ``-tril(G_U2 U2^T, -1)``, and ``dL/dA2 = P L^-T G_U2``);
tall, ``L = [L1; L2]`` with ``L2 = (P^T A)_2 U^-1`` (``M`` gains ``-triu(L2^T G_L2)``, and
the lower rows get ``G_L2 U^-T``).
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.creation import eye, tensor
from minitorch.dtypes import int32, int64
from minitorch.ops import return_types
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat
from minitorch.ops.solve import LinAlgError, check_square_float, diagonal_of, lu_factors
from minitorch.ops.triangular import solve_triangular

lu_factor_result = return_types._return_type("linalg_lu_factor", ["LU", "pivots"])
lu_factor_ex_result = return_types._return_type("linalg_lu_factor_ex", ["LU", "pivots", "info"])
lu_result = return_types._return_type("linalg_lu", ["P", "L", "U"])
lu_unpack_result = return_types._return_type("lu_unpack", ["P", "L", "U"])


class LinalgLuFactorEx(Function):
    """``LU, pivots, info`` of square matrices; the gradient is this file's formula."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor) -> tuple:
        batch, (m, n) = a._shape[:-2], a._shape[-2:]
        k, size = min(m, n), max(m, n)
        square = a
        if m != n:  # zero rows or columns: never chosen as pivots, never change the rest
            square = a.new_zeros(batch + (size, size))
            square[..., :m, :n] = a
        lu, swaps = lu_factors(square, batch)
        zero = diagonal_of(lu)[:, :k] == 0
        first = (zero.to(int64).cumsum(-1) == 0).sum(-1)  # pivots before the first zero
        info = ((first + 1) * zero.any(-1).to(int64)).to(int32)
        lu = lu.reshape(batch + (size, size))[..., :m, :n].contiguous()
        pivots = (swaps[:, :k] + 1).to(int32).reshape(batch + (k,))
        ctx.mark_non_differentiable(pivots, info)
        ctx.save_for_backward(lu, pivots)
        return lu, pivots, info.reshape(batch)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor, grad_pivots: Any, grad_info: Any) -> tuple:
        lu, pivots = ctx.saved_tensors
        m, n = lu._shape[-2:]
        p, lower, upper = _unpack(lu, pivots)
        if m <= n:  # wide: U = [U1 | U2], and U2 = L^-1 P^T A2 depends on L too
            lower_square, upper_square = lower, upper[..., :m]
            g_l, g_u = grad[..., :m].tril(-1), grad[..., :m].triu()
            g_rest = grad[..., m:]
            m_inner = (lower.mT @ g_l - g_rest @ upper[..., m:].mT).tril(-1) + (g_u @ upper_square.mT).triu()
        else:  # tall: L = [L1; L2], and L2 = B2 U^-1 depends on U too
            lower_square, upper_square = lower[..., :n, :], upper
            g_l, g_u = grad[..., :n, :].tril(-1), grad[..., :n, :].triu()
            g_rest = grad[..., n:, :]
            below = lower[..., n:, :]
            m_inner = (lower_square.mT @ g_l).tril(-1) + (g_u @ upper.mT - below.mT @ g_rest).triu()
        y = solve_triangular(lower_square.mT, m_inner, upper=True, unitriangular=True)  # L^-T M
        z = solve_triangular(upper_square, y.mT, upper=True).mT  # ... U^-T
        if m < n:  # dL/dA2 = P L^-T G_U2
            z = cat([z, solve_triangular(lower_square.mT, g_rest, upper=True, unitriangular=True)], -1)
        elif m > n:  # dL/dB2 = G_L2 U^-T
            z = cat([z, solve_triangular(upper_square, g_rest.mT, upper=True).mT], -2)
        return (p @ z,)


def _permutation(pivots: Tensor, like: Tensor) -> Tensor:
    """``P`` (``[*, m, m]``) from LAPACK's 1-based swaps: replay them on the rows of the
    identity, ``P^T = I[rows]``."""
    m = like._shape[-2]
    flat = pivots.reshape(-1, pivots._shape[-1]).tolist() if pivots.numel() else []
    orders = []
    for swaps in flat:
        rows = list(range(m))
        for k, target in enumerate(swaps):
            rows[k], rows[target - 1] = rows[target - 1], rows[k]
        orders.append(rows)
    batch = pivots._shape[:-1]
    if not orders:
        return like.new_zeros(batch + (m, m))
    identity = eye(m, dtype=like.dtype, device=like.device)
    order = tensor(orders, dtype=int64, device=like.device).reshape(batch + (m,))
    return identity[order].mT


def _unpack(lu: Tensor, pivots: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    m, n = lu._shape[-2:]
    k = min(m, n)
    lower = lu[..., :, :k].tril(-1) + eye(m, k, dtype=lu.dtype, device=lu.device)
    upper = lu[..., :k, :].triu()
    return _permutation(pivots, lu), lower, upper


def _check(name: str, A: Tensor) -> None:  # noqa: N803
    """``check_square_float``'s errors, but rectangular matrices are welcome."""
    require_tensor(name, A, "A")
    if A.ndim >= 2 and A._shape[-1] != A._shape[-2]:
        check_square_float(name, A[..., :0, :0])
    else:
        check_square_float(name, A)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out: Any = None) -> Any:  # noqa: N803
    """``(LU, pivots, info)``: the packed factors, LAPACK's 1-based swaps, and per matrix
    0 or the 1-based index of the first zero on ``U``'s diagonal (``check_errors``: raise
    for it). ``pivot=False`` is a CUDA-only option in PyTorch; here it is refused."""
    _check("linalg.lu_factor_ex", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, pivots, info = LinalgLuFactorEx.apply(A)
    if check_errors and (info != 0).any().item():
        raise LinAlgError("linalg.lu_factor_ex: The factorization could not be completed (U is singular)")
    return lu_factor_ex_result(lu, pivots, info)


def lu_factor(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:  # noqa: N803
    """``(LU, pivots)``; a singular matrix raises, as PyTorch (``lu_factor_ex`` reports it)."""
    _check("linalg.lu_factor", A)
    lu, pivots, info = lu_factor_ex(A, pivot=pivot)
    bad = info.reshape(-1)
    if bad.numel() and (bad != 0).any().item():
        index = int(bad[(bad != 0).nonzero()[0, 0]].item())
        raise LinAlgError(
            f"torch.linalg.lu_factor: U[{index},{index}] is zero and using it on lu_solve would result "
            "in a division by zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )
    return lu_factor_result(lu, pivots)


def linalg_lu(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:  # noqa: N803
    """``(P, L, U)`` with ``A = P L U``: ``lu_unpack(*lu_factor_ex(A)[:2])``."""
    _check("linalg.lu", A)
    lu_data, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return lu_result(*_unpack(lu_data, pivots))


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True, *, out: Any = None) -> Any:  # fmt: skip
    """``(P, L, U)`` from packed factors: ``L`` the strict lower triangle plus ones, ``U``
    the upper triangle, ``P`` the swaps replayed. A part not asked for comes back empty."""
    require_tensor("lu_unpack", LU_data, "LU_data")
    require_tensor("lu_unpack", LU_pivots, "LU_pivots", 2)
    p, lower, upper = _unpack(LU_data, LU_pivots)
    empty = LU_data.new_zeros((0,))
    return lu_unpack_result(p if unpack_pivots else empty, lower if unpack_data else empty,
                            upper if unpack_data else empty)  # fmt: skip


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,  # noqa: N803
             out: Any = None) -> Tensor:  # fmt: skip
    """``X`` with ``A X = B`` from ``A``'s factors (``adjoint``: ``A^T X = B``; ``left=False``:
    ``X A = B``): ``P^T B``, then the two triangular solves."""
    if not left:  # X A = B is A^T X^T = B^T
        return linalg_lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    p, lower, upper = _unpack(LU, pivots)
    if adjoint:  # A^T = U^T L^T P^T
        y = solve_triangular(upper.mT, B, upper=False)
        return p @ solve_triangular(lower.mT, y, upper=True, unitriangular=True)
    y = solve_triangular(lower, p.mT @ B, upper=False, unitriangular=True)
    return solve_triangular(upper, y, upper=True)


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:  # noqa: N803
    """``torch.lu``: ``(LU, pivots)``, with ``infos`` too when ``get_infos``."""
    lu_data, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (lu_data, pivots, info) if get_infos else (lu_data, pivots)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:  # noqa: N803
    """``torch.lu_solve``: ``linalg.lu_solve`` with ``b`` first."""
    return linalg_lu_solve(LU_data, LU_pivots, b)


METHODS = {"lu": lu, "lu_solve": lu_solve}


__all__ = ["linalg_lu", "linalg_lu_solve", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "lu_unpack"]
