"""The Cholesky factorisation ``A = L L^T`` of a symmetric positive-definite matrix
(``L`` lower triangular, positive diagonal): ``linalg.cholesky``, ``linalg.cholesky_ex``,
``torch.cholesky``, ``cholesky_solve``, ``cholesky_inverse``.

Column by column, reading only ``A``'s lower triangle (LAPACK's unblocked ``potf2``)::

    for j in 0..n-1:
        d       = A[j, j] - sum_k<j L[j, k]^2       (must be > 0: else A is not positive-definite)
        L[j, j] = sqrt(d)
        L[i, j] = (A[i, j] - sum_k<j L[i, k] L[j, k]) / L[j, j]      for i > j

Each step runs on the whole batch at once as ops (a batch of matrices, one column a
step), so every backend runs it; a matrix that fails stops there, as LAPACK's does:
``info`` is the order ``j + 1`` of the leading minor that is not positive-definite, that
``d`` is left on the diagonal, and the columns after it keep ``A``'s values.

The gradient (Murray 2016), with ``G = dL/dL`` and ``Phi(X)`` the lower triangle of
``X`` with its diagonal halved: ``S = L^-T Phi(L^T G) L^-1``, and ``dL/dA = (S + S^T) / 2``
(symmetric, as PyTorch's: ``A`` is taken to be symmetric).

``cholesky_solve(B, L)`` solves ``L L^T X = B`` as two triangular systems, and
``cholesky_inverse(L)`` is ``cholesky_solve(I, L)``; both are formulas over ``solve``,
whose gradients they inherit.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.creation import eye
from minitorch.dtypes import bool_, int32
from minitorch.ops import return_types
from minitorch.ops.choice import where
from minitorch.ops.solve import LinAlgError, check_square_float, solve

cholesky_ex_result = return_types._return_type("linalg_cholesky_ex", ["L", "info"])


def factor(a: Tensor) -> tuple[Tensor, Tensor]:
    """``(L, info)`` of ``a`` by this file's loop, as ops, no graph."""
    batch, n = a._shape[:-2], a._shape[-1]
    with no_grad():
        lower = a.detach().tril().clone()
        active = lower.new_ones(batch, dtype=bool_)
        info = lower.new_zeros(batch, dtype=int32)
        for j in range(n):
            row = lower[..., j, :j]
            d = lower[..., j, j] - (row * row).sum(-1)
            bad = active & ~(d > 0)  # (NaN is not > 0 either)
            info = where(bad, j + 1, info)
            good = active & ~bad
            diagonal = where(good, where(good, d, 1.0).sqrt(), where(bad, d, lower[..., j, j]))
            lower[..., j, j] = diagonal
            active = good
            if j + 1 < n:
                column = lower[..., j + 1 :, j]
                dots = (lower[..., j + 1 :, :j] * row.unsqueeze(-2)).sum(-1)
                below = (column - dots) / where(good, diagonal, 1.0).unsqueeze(-1)
                lower[..., j + 1 :, j] = where(good.unsqueeze(-1), below, column)
    return lower, info


class LinalgCholeskyEx(Function):
    """``L = cholesky(A)``; the gradient is this file's formula."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor) -> tuple:
        lower, info = factor(a)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(lower)
        return lower, info

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor, grad_info: Any) -> tuple:
        (lower,) = ctx.saved_tensors
        phi = (lower.mT @ grad).tril()
        phi = phi - phi.diagonal(0, -2, -1).diag_embed() / 2
        left = solve(lower.mT, phi)  # L^-T Phi
        s = solve(lower.mT, left.mT).mT  # ... L^-1
        return ((s + s.mT) / 2,)


def _raise_for(info: Tensor, name: str) -> None:
    failed = info.reshape(-1).nonzero()
    if failed.numel():
        matrix = int(failed[0, 0].item())
        order = int(info.reshape(-1)[matrix].item())
        prefix = f"(Batch element {matrix}): " if info.ndim else ""
        raise LinAlgError(
            f"{name}: {prefix}The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {order} is not positive-definite)."
        )


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None) -> Any:  # noqa: N803
    """``(L, info)`` with ``A = L L^T`` (``upper``: ``U = L^T``, ``A = U^T U``); ``info``
    per matrix is 0 or the order of its first leading minor that is not positive-definite
    (then ``L`` holds LAPACK's partial result). ``check_errors`` raises instead."""
    check_square_float("linalg.cholesky", A)
    lower, info = LinalgCholeskyEx.apply(A)
    if check_errors:
        _raise_for(info, "linalg.cholesky_ex")
    return cholesky_ex_result(lower.mT if upper else lower, info)


def cholesky(A: Tensor, *, upper: bool = False, out: Any = None) -> Tensor:  # noqa: N803
    """``L`` with ``A = L L^T`` (``upper``: ``L^T``), for symmetric positive-definite
    ``A``; else ``LinAlgError`` naming the leading minor, as PyTorch."""
    check_square_float("linalg.cholesky", A)
    lower, info = LinalgCholeskyEx.apply(A)
    _raise_for(info, "linalg.cholesky")
    return lower.mT if upper else lower


def torch_cholesky(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """``torch.cholesky``: ``linalg.cholesky`` with ``upper`` positional."""
    return cholesky(input, upper=upper)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:  # noqa: N803
    """``X`` with ``A X = B`` for ``A = L L^T`` (``upper``: ``A = U^T U``, ``L`` holding
    ``U``): ``L Y = B``, then ``L^T X = Y``. Only ``L``'s triangle is read; the gradient,
    as PyTorch's, is that of ``(L L^T)^-1 B`` with respect to every entry of ``L`` (the
    other triangle is subtracted as a constant: its value goes, its gradient stays)."""
    check_square_float("cholesky_solve", L)
    lower = (L - L.tril(-1).detach()).mT if upper else L - L.triu(1).detach()
    return solve(lower.mT, solve(lower, B))


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:  # noqa: N803
    """``A^-1`` for ``A = L L^T`` (``upper``: ``U^T U``): ``cholesky_solve(I, L)``."""
    check_square_float("cholesky_inverse", L)
    identity = eye(L._shape[-1], dtype=L.dtype, device=L.device)
    return cholesky_solve(identity.expand(L._shape), L, upper)


METHODS = {"cholesky": torch_cholesky, "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse}


__all__ = ["cholesky", "cholesky_ex", "cholesky_inverse", "cholesky_solve", "torch_cholesky"]
