"""Randomized low-rank SVD and PCA (``torch.svd_lowrank``, ``torch.pca_lowrank``):
Halko, Martinsson and Tropp's range finder ("Finding structure with randomness", 2009,
algorithms 4.4 and 5.1), for a tall ``A`` (``m x n``, ``m >= n``; a wide one is
transposed first and ``U``, ``V`` swapped at the end).

1. **A basis of A's range.** Multiply ``A`` by a random ``n x q`` Gaussian matrix ``R``:
   ``A R`` mixes ``A``'s columns, and with probability near 1 its span holds the ``q``
   dominant directions. ``Q = qr(A R).Q`` is an orthonormal basis of it.
2. **Power iterations** (``niter`` of them) sharpen that basis when the singular values
   decay slowly: ``Q <- qr(A^T Q).Q``, then ``Q <- qr(A Q).Q`` (re-orthonormalising
   each time keeps rounding errors from washing out the small directions).
3. **The small SVD.** ``B = Q^T A`` is only ``q x n``; ``B = U_B S V^T`` by the exact SVD,
   and ``A ~ Q B = (Q U_B) S V^T``.

``M`` (optional) is subtracted from ``A`` without forming ``A - M``; ``pca_lowrank`` with
``center=True`` subtracts the column means instead. ``R`` is drawn with ``randn`` from
the global generator, PyTorch's stream, so after the same seed the results are PyTorch's.
Every step is a differentiable op, so autograd gives the gradient.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor
from minitorch.ops.qr import linalg_qr
from minitorch.ops.svd import linalg_svd
from minitorch.random_factories import randn


def _range_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:  # noqa: N803
    """Steps 1 and 2: an ``m x q`` orthonormal basis of (``A - M``)'s dominant range."""
    dtype = A.dtype if A.dtype.is_floating_point else None
    R = randn(A._shape[-1], q, dtype=dtype, device=A.device)  # noqa: N806

    def times(X: Tensor, transposed: bool = False) -> Tensor:  # noqa: N803
        left = A.mT if transposed else A
        product = left @ X
        return product if M is None else product - (M.mT if transposed else M) @ X

    Q = linalg_qr(times(R)).Q  # noqa: N806
    for _ in range(niter):
        Q = linalg_qr(times(Q, transposed=True)).Q  # noqa: N806
        Q = linalg_qr(times(Q)).Q  # noqa: N806
    return Q


def _svd_tall_or_wide(A: Tensor, q: int, niter: int, M: Tensor | None) -> tuple:  # noqa: N803
    m, n = A._shape[-2:]
    if M is not None:
        M = M.broadcast_to(tuple(A.shape))  # noqa: N806
    if m < n:  # work on the tall A^T: A^T = V S U^T
        A = A.mT  # noqa: N806
        M = None if M is None else M.mT  # noqa: N806
    Q = _range_basis(A, q, niter, M)  # noqa: N806
    B = Q.mT @ A if M is None else Q.mT @ A - Q.mT @ M  # noqa: N806
    U, S, Vh = linalg_svd(B, full_matrices=False)  # noqa: N806
    U, V = Q @ U, Vh.mT  # noqa: N806
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None) -> Any:  # noqa: N803
    """``(U, S, V)`` with ``A - M ~ U diag(S) V^T`` of rank ``q``, by this file's algorithm."""
    require_tensor("svd_lowrank", A, "A")
    return _svd_tall_or_wide(A, 6 if q is None else q, 2 if niter is None else niter, M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> Any:  # noqa: N803
    """The principal components of the rows of ``A``: ``svd_lowrank`` of ``A`` minus its
    column means (``center``), with ``q = min(6, m, n)`` unless given."""
    require_tensor("pca_lowrank", A, "A")
    m, n = A._shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(-2, keepdim=True)  # noqa: N806
    return _svd_tall_or_wide(A, q, niter, None)


__all__ = ["pca_lowrank", "svd_lowrank"]
