"""The symmetric indefinite factorisation ``A = L D L^T``: ``linalg.ldl_factor``,
``linalg.ldl_factor_ex`` and ``linalg.ldl_solve``, as LAPACK's ``sytrf`` and ``sytrs``
compute them (Bunch and Kaufman's pivoting, the lower triangle).

**Why pivots.** A symmetric matrix that is not positive definite has no Cholesky
factor, and elimination without pivoting breaks on a zero diagonal entry
(``[[0, 1], [1, 0]]``) or loses everything to a tiny one. Row swaps alone (LU) would
spoil the symmetry; a symmetric swap (rows *and* columns ``k`` and ``p``) keeps it but can
only bring a diagonal entry to the pivot position, and every diagonal entry may be zero.
Bunch and Kaufman's answer: take either a 1x1 pivot ``a_kk`` or a 2x2 block
``[[a_kk, a_pk], [a_pk, a_pp]]``, whichever keeps the growth of the entries bounded.

**The choice**, at step ``k``, in the symmetric matrix ``S`` still to be factored (rows
and columns ``k`` on), with ``alpha = (1 + sqrt(17)) / 8 ~ 0.64``::

    colmax = max_{i > k} |s_ik|   (at row imax)    rowmax = max_{j != imax} |s_imax,j|
    |s_kk| >= alpha colmax                    1x1 pivot s_kk, no swap
    |s_kk| colmax >= alpha colmax^2 / rowmax  1x1 pivot s_kk, no swap
    |s_imax,imax| >= alpha rowmax             swap k <-> imax, 1x1 pivot
    otherwise                                 swap k+1 <-> imax, 2x2 pivot on k, k+1

``alpha`` is the constant that makes the worst growth of a 1x1 step and that of a 2x2
step (which eliminates two columns) equal: ``(1 + 1/alpha)^2 = 1 + 2/(1 - alpha)``, so the
entries grow at most ``2.56``-fold per eliminated column. Ties go to the first largest
entry (BLAS's ``i?amax``), which is what makes the pivots LAPACK's own. A column that is all zero
(``s_kk`` too), or whose ``s_kk`` is NaN, is skipped: ``D`` gets that entry as is, and
``info`` the first such 1-based ``k`` (the factorisation goes on, ``D`` is singular).

**The update.** A 1x1 pivot ``d`` with the column below it ``x``: ``l = x / d`` and
``S[k+1:, k+1:] -= x x^T / d``. A 2x2 pivot ``E`` with the two columns ``X`` below it:
``L2 = X E^-1`` and ``S[k+2:, k+2:] -= X E^-1 X^T``, ``E^-1`` written out from its three
entries (``sytf2``'s scaled form, which avoids overflow).

**LAPACK's storage** (``uplo='L'``, all PyTorch uses): one matrix ``LD``, with ``D``'s
1x1 entries and the lower halves of its 2x2 blocks on (and just below) the diagonal, the
multipliers ``L`` below them (its unit diagonal implied), zeros above. ``pivots`` are
1-based: ``p_k > 0``, a 1x1 block after swapping ``k`` and ``p_k``; ``p_k = p_(k+1) < 0``,
a 2x2 block at ``k, k+1`` after swapping ``k + 1`` and ``-p_k``. The swaps touch only the
rows not yet eliminated, so ``L`` is the product form ``P_1 L_1 P_2 L_2 ...``, not a
permuted triangular matrix, and the solve has to replay them in order.

**The solve** ``A X = B`` (``sytrs``), over the blocks: forward, for each block, swap the
rows of ``B`` as recorded, subtract its multipliers times its rows from the rows below,
and divide by the block (``D``'s 1x1 entry, or the 2x2 ``E`` by Cramer's rule); then
backward, from the last block, subtract ``L^T``'s part from the block's rows and undo
its swap.

The loops run on host NumPy arrays in the input's dtype, one matrix of a batch at a
time: every step's choice depends on that matrix's values. ``hermitian`` is accepted
(for real matrices symmetric is Hermitian). Neither op has a derivative, as in PyTorch:
the outputs carry a node whose backward raises PyTorch's error.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.creation import _finish
from minitorch.dtypes import bool_, int32
from minitorch.layout import broadcast_shapes, numel
from minitorch.ops import return_types
from minitorch.ops.common import require_tensor
from minitorch.ops.solve import check_square_float

ldl_factor_result = return_types._return_type("linalg_ldl_factor", ["LD", "pivots"])
ldl_factor_ex_result = return_types._return_type("linalg_ldl_factor_ex", ["LD", "pivots", "info"])

ALPHA = (1 + math.sqrt(17)) / 8  # Bunch and Kaufman's constant: equal growth for 1x1 and 2x2 steps


def _first_largest(values: np.ndarray) -> int:
    """The index of the first entry of largest magnitude (BLAS's ``i?amax``: a tie goes to
    the first; a NaN is never larger, unless it comes first)."""
    magnitudes = np.abs(values)
    best = 0
    for i in range(1, len(magnitudes)):
        if magnitudes[i] > magnitudes[best]:
            best = i
    return best


def _swap(s: np.ndarray, i: int, j: int) -> None:
    """Swap rows and columns ``i`` and ``j`` of the symmetric ``s``: it stays symmetric."""
    s[[i, j], :] = s[[j, i], :]
    s[:, [i, j]] = s[:, [j, i]]


def _pivot_choice(s: np.ndarray, k: int, alpha: Any) -> tuple[int, int] | None:
    """``(p, size)``: the row to swap in and the block size at step ``k`` (this file's
    table), or ``None`` when the column is all zero or ``s_kk`` is NaN."""
    n = s.shape[0]
    absakk = abs(s[k, k])
    imax = k + 1 + _first_largest(s[k + 1 :, k]) if k + 1 < n else k
    colmax = abs(s[imax, k]) if k + 1 < n else 0
    if (absakk == 0 and colmax == 0) or np.isnan(absakk):
        return None
    if absakk >= alpha * colmax:
        return k, 1
    row = np.concatenate([s[imax, k:imax], s[imax + 1 :, imax]])  # row imax, its diagonal left out
    rowmax = abs(row[_first_largest(row)])
    if absakk >= alpha * colmax * (colmax / rowmax):
        return k, 1
    if abs(s[imax, imax]) >= alpha * rowmax:
        return imax, 1
    return imax, 2


def factor_one(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(LD, pivots, info)`` of one square matrix, from its lower triangle (``sytf2``)."""
    n = a.shape[0]
    s = np.tril(a) + np.tril(a, -1).T  # the symmetric matrix of the lower triangle
    ld = np.zeros_like(a)
    pivots = np.zeros(n, dtype=np.int32)
    info = 0
    alpha = a.dtype.type(ALPHA)
    k = 0
    while k < n:
        choice = _pivot_choice(s, k, alpha)
        if choice is None:  # nothing to pivot on: D gets the entry as is
            info = info or k + 1
            ld[k:, k] = s[k:, k]
            pivots[k] = k + 1
            k += 1
            continue
        p, size = choice
        if p != k + size - 1:
            _swap(s, k + size - 1, p)
        if size == 1:
            ld[k, k] = s[k, k]
            inverse = 1 / s[k, k]
            x = s[k + 1 :, k].copy()
            s[k + 1 :, k + 1 :] -= np.outer(x, inverse * x)
            ld[k + 1 :, k] = inverse * x
            pivots[k] = p + 1
        else:
            ld[k, k], ld[k + 1, k], ld[k + 1, k + 1] = s[k, k], s[k + 1, k], s[k + 1, k + 1]
            off = s[k + 1, k]  # E = off * [[d22, 1], [1, d11]]
            d11, d22 = s[k + 1, k + 1] / off, s[k, k] / off
            scale = (1 / (d11 * d22 - 1)) / off  # E^-1 = scale * [[d11, -1], [-1, d22]]
            x0, x1 = s[k + 2 :, k].copy(), s[k + 2 :, k + 1].copy()
            l0, l1 = scale * (d11 * x0 - x1), scale * (d22 * x1 - x0)  # the rows of X E^-1
            s[k + 2 :, k + 2 :] -= np.outer(x0, l0)
            s[k + 2 :, k + 2 :] -= np.outer(x1, l1)
            ld[k + 2 :, k], ld[k + 2 :, k + 1] = l0, l1
            pivots[k] = pivots[k + 1] = -(p + 1)
        k += size
    return ld, pivots, info


def solve_one(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``X`` with ``A X = B`` from ``A``'s ``LD`` and ``pivots`` (``sytrs``, lower)."""
    n = ld.shape[0]
    x = b.copy()
    k = 0
    while k < n:  # L D Y = B: swap, eliminate below, divide by the block
        if pivots[k] > 0:
            p = pivots[k] - 1
            x[[k, p]] = x[[p, k]]
            x[k + 1 :] -= np.outer(ld[k + 1 :, k], x[k])
            x[k] *= 1 / ld[k, k]
            k += 1
        else:
            p = -pivots[k] - 1
            x[[k + 1, p]] = x[[p, k + 1]]
            x[k + 2 :] -= np.outer(ld[k + 2 :, k], x[k])
            x[k + 2 :] -= np.outer(ld[k + 2 :, k + 1], x[k + 1])
            off = ld[k + 1, k]  # E = off * [[a11, 1], [1, a22]]: Cramer's rule, scaled by off
            a11, a22 = ld[k, k] / off, ld[k + 1, k + 1] / off
            denominator = a11 * a22 - 1
            b1, b2 = x[k] / off, x[k + 1] / off
            x[k], x[k + 1] = (a22 * b1 - b2) / denominator, (a11 * b2 - b1) / denominator
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y, from the last block: subtract, then undo the swap
        first = k if pivots[k] > 0 else k - 1
        for j in range(first, k + 1):
            x[j] -= ld[k + 1 :, j] @ x[k + 1 :]
        p = abs(int(pivots[k])) - 1
        x[[k, p]] = x[[p, k]]
        k = first - 1
    return x


def _host(t: Tensor) -> np.ndarray:
    return t.detach().cpu().contiguous().numpy()


class LinalgLdlFactorEx(Function):
    """``LD, pivots, info`` of each matrix of the batch; no derivative (as PyTorch)."""

    @staticmethod
    def forward(ctx: FunctionCtx, A: Tensor) -> tuple:  # noqa: N803
        batch, n = A._shape[:-2], A._shape[-1]
        matrices = _host(A).reshape((numel(batch), n, n))
        with np.errstate(all="ignore"):  # IEEE arithmetic: an inf or NaN input gives PyTorch's
            factors = [factor_one(a) for a in matrices]
        ld = np.stack([f[0] for f in factors]) if factors else matrices.copy()
        pivots = np.array([f[1] for f in factors], dtype=np.int32).reshape((numel(batch), n))
        info = np.array([f[2] for f in factors], dtype=np.int32)
        made = (_finish(ld.reshape(batch + (n, n)), A.dtype, A.device, False),
                _finish(pivots.reshape(batch + (n,)), int32, A.device, False),
                _finish(info.reshape(batch), int32, A.device, False))  # fmt: skip
        ctx.mark_non_differentiable(made[1], made[2])
        return made

    @staticmethod
    def backward(ctx: FunctionCtx, grad_ld: Any, grad_pivots: Any, grad_info: Any) -> tuple:
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


class LinalgLdlSolve(Function):
    """``X`` from ``LD``, ``pivots`` and ``B``, batches broadcast; no derivative (as PyTorch)."""

    @staticmethod
    def forward(ctx: FunctionCtx, LD: Tensor, pivots: Tensor, B: Tensor) -> Tensor:  # noqa: N803
        n, k = B._shape[-2:]
        batch = broadcast_shapes(LD._shape[:-2], B._shape[:-2])
        count = numel(batch)
        lds = _host(LD.expand(batch + (n, n))).reshape((count, n, n))
        swaps = _host(pivots.expand(batch + (n,))).astype(np.int64).reshape((count, n))
        bs = _host(B.expand(batch + (n, k))).reshape((count, n, k))
        with np.errstate(all="ignore"):  # IEEE arithmetic, as LAPACK's
            x = np.stack([solve_one(*each) for each in zip(lds, swaps, bs)]) if len(bs) else bs.copy()
        return _finish(x.reshape(batch + (n, k)), B.dtype, B.device, False)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Any) -> tuple:
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


def _raise_for(name: str, info: Tensor) -> None:
    """PyTorch's error for a singular ``D`` (its generic message: ``info`` is the 1-based
    position of the first zero, or NaN, of ``D``)."""
    bad = info.reshape(-1)
    if bad.numel() and (bad != 0).any().item():
        code = int(bad[(bad != 0).nonzero()[0, 0]].item())
        raise RuntimeError(f"{name}: Unknown error code: {code}. (D[{code - 1}, {code - 1}] is zero or NaN: "
                           "the matrix is singular)")  # fmt: skip


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> Any:  # noqa: N803
    """``(LD, pivots, info)``: ``A = L D L^T`` packed as LAPACK's ``sytrf`` (this file's
    docstring), its 1-based ``pivots``, and per matrix 0 or the position of the first zero
    of ``D`` (``check_errors``: raise for it). Only the lower triangle of ``A`` is read."""
    require_tensor("linalg.ldl_factor_ex", A, "A")
    check_square_float("torch.linalg.ldl_factor_ex", A, "ldl_factor_kernel_cpu")
    result = ldl_factor_ex_result(*LinalgLdlFactorEx.apply(A))
    if check_errors:
        _raise_for("torch.linalg.ldl_factor_ex", result.info)
    return result


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> Any:  # noqa: N803
    """``(LD, pivots)`` of ``ldl_factor_ex``; a singular ``D`` raises, as PyTorch."""
    require_tensor("linalg.ldl_factor", A, "A")
    ld, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_for("torch.linalg.ldl_factor", info)
    return ldl_factor_result(ld, pivots)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:  # noqa: N803
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``LD`` and ``pivots`` (any integer
    dtype); batch dimensions broadcast. PyTorch's checks, in PyTorch's order."""
    name = "torch.linalg.ldl_solve"
    require_tensor("linalg.ldl_solve", LD, "LD")
    require_tensor("linalg.ldl_solve", pivots, "pivots", 2)
    require_tensor("linalg.ldl_solve", B, "B", 3)
    check_square_float(name, LD, "ldl_solve_kernel_cpu")
    if B.dtype is not LD.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type "
                           f"{B.dtype.type_name} and A of type {LD.dtype.type_name} instead.")  # fmt: skip
    if B.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(B.ndim, 1)}, "
                         f"{max(B.ndim, 1) - 1}], but got -2)")  # fmt: skip
    n = LD._shape[-1]
    if B._shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b "
                           f"matrix is {B._shape[-2]} by {B._shape[-1]}")  # fmt: skip
    if pivots._shape != LD._shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots._shape)} instead")  # fmt: skip
    if pivots.dtype.is_floating_point or pivots.dtype is bool_:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {pivots.dtype.type_name}")
    magnitudes = _host(pivots).astype(np.int64)
    if magnitudes.size and np.abs(magnitudes).min() < 1:
        raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass "
                           "the result of ldl_factor?")  # fmt: skip
    if magnitudes.size and np.abs(magnitudes).max() > n:
        raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you "
                           "properly pass the result of ldl_factor?")  # fmt: skip
    return LinalgLdlSolve.apply(LD, pivots, B)


__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]
