"""What the SVD gives besides the norms: ``linalg.pinv`` / ``torch.pinverse``,
``linalg.matrix_rank``, ``linalg.lstsq``.

With ``A = U diag(S) Vh`` (``minitorch/ops/svd.py``), the Moore-Penrose pseudoinverse
inverts what can be inverted and drops the rest::

    pinv(A) = Vh^T diag(S^+) U^T,     S^+_i = 1 / S_i  if S_i > cutoff,  else 0

``cutoff = max(atol, rtol * S_max)``: singular values that small are rounding noise of a
rank-deficient matrix, and ``1 / noise`` would swamp the result. PyTorch's defaults: with
neither tolerance given, ``rtol = eps * max(m, n)``; with only a positive ``atol``,
``rtol = 0``. ``matrix_rank`` counts the singular values above the same cutoff, and
``lstsq`` is ``pinv(A) @ B``: the ``X`` of least ``||A X - B||`` (and, among those, of
least ``||X||``).

The gradient of ``P = pinv(A)`` is not the SVD's (that one divides by the gaps
``S_i^2 - S_j^2``, which loses float32's digits when two singular values are close).
Where the rank does not change, differentiating ``P A P = P`` and the symmetry of
``A P`` and ``P A`` gives (Golub and Pereyra) ``dP = -P dA P + P P^T dA^T (I - A P) +
(I - P A) dA^T P^T P``, so with ``G = dL/dP``::

    dL/dA = -P^T G P^T  +  (I - A P) G^T P P^T  +  P^T P G^T (I - P A)

``hermitian=True`` promises ``A = A^T``: as PyTorch, through ``eigh``
(``minitorch/ops/eigh.py``: only the lower triangle is read), inverting the eigenvalues
whose ``|L_i|`` pass the cutoff; the gradient is the formula above, with ``A`` as given
(PyTorch's too).
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import finfo, int64
from minitorch.ops import return_types
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor
from minitorch.ops.solve import _is_vector_case
from minitorch.ops.svd import check_matrices, linalg_svd, svdvals

linalg_lstsq = return_types._return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _symmetric(a: Tensor, hermitian: bool) -> Tensor:
    """``a``, or for ``hermitian`` the symmetric matrix of its lower triangle."""
    if not hermitian:
        return a
    if a._shape[-1] != a._shape[-2]:
        raise RuntimeError("linalg.eigh: A must be batches of square matrices")
    return a.tril() + a.tril(-1).mT


class LinalgPinv(Function):
    """``P = pinv(A)`` through the SVD; the gradient is this file's formula."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, atol: Any, rtol: Any, hermitian: bool) -> Tensor:
        if hermitian:  # A = V diag(L) V^T: invert the eigenvalues whose |L| pass the cutoff
            from minitorch.ops.eigh import eigh

            values, vectors = eigh(a)
            keep = values.abs() > _cutoff(values.abs(), a, atol, rtol)
            inverted = where(keep, 1 / where(keep, values, 1.0), 0.0)
            p = (vectors * inverted.unsqueeze(-2)) @ vectors.mT
        else:
            u, s, vh = linalg_svd(a, full_matrices=False)
            keep = s > _cutoff(s, a, atol, rtol)
            inverted = where(keep, 1 / where(keep, s, 1.0), 0.0)
            p = (vh.mT * inverted.unsqueeze(-2)) @ u.mT
        ctx.save_for_backward(a, p)
        return p

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        a, p = ctx.saved_tensors
        g_t = grad.mT
        residual_rows = g_t - (g_t @ p) @ a  # G^T (I - P A)
        residual_cols = g_t - a @ (p @ g_t)  # (I - A P) G^T
        grad_a = -(p.mT @ grad @ p.mT) + residual_cols @ (p @ p.mT) + (p.mT @ p) @ residual_rows
        return grad_a, None, None, None


def _cutoff(values: Tensor, a: Tensor, atol: Any, rtol: Any) -> Tensor:
    """``max(atol, rtol * S_max)`` per matrix, shaped ``[*, 1]`` against ``values``
    (``[*, k]``); ``atol`` and ``rtol`` may be numbers or tensors of the batch shape."""
    default = finfo(a.dtype).eps * max(a._shape[-2:])
    if rtol is None:
        if atol is None:
            rtol = default
        elif isinstance(atol, Tensor):
            rtol = where(atol > 0, 0.0, default)
        else:
            rtol = 0.0 if atol > 0 else default
    atol = 0.0 if atol is None else atol
    atol = atol.unsqueeze(-1) if isinstance(atol, Tensor) else values.new_full((1,), atol)
    rtol = rtol.unsqueeze(-1) if isinstance(rtol, Tensor) else values.new_full((1,), rtol)
    largest = values.amax(-1, keepdim=True)
    return (rtol * largest).maximum(atol.to(values.dtype))


def pinv(A: Tensor, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,  # noqa: N803
         rtol: Any = None, out: Any = None) -> Tensor:  # fmt: skip
    """The pseudoinverse ``Vh^T diag(S^+) U^T`` (this file's docstring), of shape
    ``[*, n, m]`` for ``A`` of ``[*, m, n]``. ``rcond`` is ``rtol``'s older name."""
    check_matrices("linalg.pinv", A)
    rtol = rcond if rtol is None else rtol
    m, n = A._shape[-2:]
    if not m or not n:
        return A.new_zeros(A._shape[:-2] + (n, m))
    if hermitian and A._shape[-1] != A._shape[-2]:
        raise RuntimeError("linalg.eigh: A must be batches of square matrices")
    return LinalgPinv.apply(A, atol, rtol, hermitian)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    """``torch.pinverse``: ``linalg.pinv(input, rtol=rcond)``."""
    return pinv(input, rtol=rcond)


def matrix_rank(A: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None,  # noqa: N803
                rtol: Any = None, out: Any = None) -> Tensor:  # fmt: skip
    """The number of singular values above ``max(atol, rtol * S_max)`` (int64, one per
    matrix). ``tol`` is ``atol``'s older name."""
    check_matrices("linalg.matrix_rank", A)
    atol = tol if atol is None else atol
    if not A.numel():
        return A.new_zeros(A._shape[:-2], dtype=int64)
    values = svdvals(_symmetric(A.detach(), hermitian))
    return (values > _cutoff(values, A, atol, rtol)).sum(-1)


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: Any = None) -> Any:  # noqa: N803
    """``(solution, residuals, rank, singular_values)`` with ``solution = pinv(A) @ B``,
    the least-squares ``X``. As in PyTorch on the CPU, the other three depend on the
    driver (``gelsy`` by default): ``rank`` for all but ``gels``; ``singular_values`` for
    ``gelsd`` and ``gelss``; ``residuals``, the squared ``||A X - B||`` of each column,
    for all but ``gelsy`` when ``m > n`` and every matrix has full rank; otherwise empty."""
    check_matrices("linalg.lstsq", A)
    require_tensor("linalg.lstsq", B, "B", 2)
    if B.dtype is not A.dtype:
        raise RuntimeError(
            f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {A.dtype.type_name} and other's dtype {B.dtype.type_name}"
        )
    driver = "gelsy" if driver is None else driver
    if driver not in LSTSQ_DRIVERS:
        drivers = ", ".join(LSTSQ_DRIVERS)
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of ({drivers})")
    vector = B.ndim == 1 or _is_vector_case(A, B) and B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    m, n = A._shape[-2:]
    if b._shape[-2] != m:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size(-2), got {m} and {b._shape[-2]}"
        )
    solution = pinv(A, rtol=rcond) @ b
    empty = A.new_zeros((0,))
    values = svdvals(A.detach()) if A.numel() else A.new_zeros(A._shape[:-2] + (0,))
    rank = empty.long()
    if driver != "gels" and A.numel():
        rank = (values > _cutoff(values, A, None, rcond)).sum(-1)
    elif driver != "gels":
        rank = A.new_zeros(A._shape[:-2], dtype=int64)
    residuals = empty
    if driver != "gelsy" and m > n and n and bool((rank == n).all().item() if driver != "gels" else True):
        residuals = ((A @ solution - b) ** 2).sum(-2)
        residuals = residuals.squeeze(-1) if vector else residuals
    singular_values = values if driver in ("gelsd", "gelss") else empty
    return linalg_lstsq(solution.squeeze(-1) if vector else solution, residuals, rank, singular_values)


METHODS = {"pinverse": pinverse}


__all__ = ["lstsq", "matrix_rank", "pinv", "pinverse"]
