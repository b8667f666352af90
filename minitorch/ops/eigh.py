"""Eigenvalues and eigenvectors of symmetric matrices: ``linalg.eigh``, ``linalg.eigvalsh``.

A real symmetric ``A`` is ``V diag(L) V^T`` with ``V`` orthogonal and ``L`` real. Only the
lower triangle is read (``uplo='U'``: the upper), mirrored into the other, as LAPACK does.

No new kernel: the SVD kernel gives it. Shifted by ``c = ||A||_1 + 1`` (at least the
largest ``|L_i|``), ``A + c I`` is positive definite, and the SVD of a positive-definite
matrix *is* its eigendecomposition (``U = V``, ``S = L + c``). So ``L = S - c``, read
backwards to ascend as PyTorch's. The shift costs absolute accuracy ``eps * c`` on the
smallest eigenvalues. The signs of the eigenvectors are arbitrary (LAPACK's differ from
the SVD's); compare ``V diag(L) V^T``, not ``V``.

The gradient, with ``F[i, j] = 1 / (L_j - L_i)`` off the diagonal (distinct eigenvalues)::

    K     = V^T G_V
    dL/dA = V (diag(G_L) + F * (K - K^T) / 2) V^T

(``V^T dV`` is skew-symmetric, since ``V^T V = I``: only the skew part of ``K`` matters.)

(``eigvalsh``: ``V diag(G_L) V^T``, defined everywhere). As PyTorch's, it goes to every
entry of ``A``, not folded onto the triangle that was read (the mirroring is a constant).
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.creation import eye
from minitorch.ops import return_types
from minitorch.ops.solve import check_square_float
from minitorch.ops.svd import linalg_svd

eigh_result = return_types._return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])


class LinalgEigh(Function):
    """``L, V = eigh(A)`` through the shifted SVD; the gradient is this file's formula."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor) -> tuple:
        ctx.set_materialize_grads(False)
        n = a._shape[-1]
        shift = (a.abs().sum(-2).amax(-1) + 1).unsqueeze(-1)  # [*, 1]
        identity = eye(n, dtype=a.dtype, device=a.device)
        u, s, _ = linalg_svd(a + shift.unsqueeze(-1) * identity, full_matrices=False)
        values = (s - shift).flip(-1)
        vectors = u.flip(-1).contiguous()
        ctx.save_for_backward(values, vectors)
        return values, vectors

    @staticmethod
    def backward(ctx: FunctionCtx, grad_values: Tensor | None, grad_vectors: Tensor | None) -> tuple:
        values, vectors = ctx.saved_tensors
        n = values._shape[-1]
        identity = eye(n, dtype=values.dtype, device=values.device)
        inner = 0 if grad_values is None else grad_values.unsqueeze(-1) * identity
        if grad_vectors is not None:
            gaps = values.unsqueeze(-2) - values.unsqueeze(-1) + identity  # L_j - L_i, 1 on the diagonal
            skew = vectors.mT @ grad_vectors
            inner = inner + (skew - skew.mT) / 2 / gaps * (1 - identity)
        return (vectors @ inner @ vectors.mT,)


def _symmetric(name: str, A: Tensor, UPLO: str) -> Tensor:  # noqa: N803
    check_square_float(name, A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    mirrored = A.tril() + A.tril(-1).mT if UPLO == "L" else A.triu() + A.triu(1).mT
    return A + (mirrored - A).detach()  # the mirrored values; the gradient to every entry, as PyTorch


def eigh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Any:  # noqa: N803 (PyTorch's names)
    """``(eigenvalues, eigenvectors)`` of symmetric ``A``, eigenvalues ascending."""
    symmetric = _symmetric("linalg.eigh", A, UPLO)
    if not A._shape[-1]:
        return eigh_result(A.new_zeros(A._shape[:-1]), A.new_zeros(A._shape))
    return eigh_result(*LinalgEigh.apply(symmetric))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Tensor:  # noqa: N803
    """The eigenvalues of symmetric ``A``, ascending: ``eigh(A).eigenvalues``."""
    return eigh(A, UPLO).eigenvalues


__all__ = ["eigh", "eigvalsh"]
