"""The singular value decomposition: ``linalg.svd``, ``linalg.svdvals``, ``torch.svd``.

Every real ``[m, n]`` matrix is ``A = U diag(S) Vh``: ``S`` the ``k = min(m, n)``
singular values, non-negative and descending, ``U`` (``[m, k]``) and ``Vh`` (``[k, n]``)
with orthonormal columns and rows. With ``full_matrices=True`` (``linalg.svd``'s default)
``U`` is completed to a square ``[m, m]`` and ``Vh`` to ``[n, n]``. The signs of a pair
(column ``u_i``, row ``v_i``) are not unique: flipping both leaves ``A`` unchanged, and
different libraries choose differently; compare ``U diag(S) Vh``, not ``U``.

The ``svd`` kernel computes it (the reference backend by Jacobi rotations). The
gradient, with ``E[i, j] = S[j]^2 - S[i]^2`` and ``skew(X) = X - X^T`` (PyTorch's
formula; it needs distinct singular values, else ``E`` has a zero off its diagonal)::

    inner = (skew(U^T gU) S + S skew(Vh gVh^T)) / E   + diag(gS)     (k x k)
    gA    = U inner Vh
          + (I - U U^T) gU S^-1 Vh          when m > k (U does not span R^m)
          + U S^-1 gVh (I - Vh^T Vh)        when n > k

Only ``S`` used (``svdvals``, a norm): ``gA = U diag(gS) Vh``, defined everywhere.

Non-finite input, as PyTorch: NaN raises ``LinAlgError``; a matrix holding an infinity
gives NaN for its ``S`` (and here for its ``U`` and ``Vh`` too, where PyTorch's are
arbitrary).
"""

from __future__ import annotations

import math

from minitorch import dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.creation import eye
from minitorch.layout import numel
from minitorch.ops import return_types
from minitorch.ops.common import broadcast_view, require_tensor
from minitorch.ops.linalg import as_batch
from minitorch.ops.solve import LinAlgError, refuse_low_precision


def _unbatched(t: Tensor, batch: tuple[int, ...]) -> Tensor:
    """A contiguous ``[B, r, c]`` kernel result viewed with the batch shape ``batch``."""
    shape = batch + t._shape[1:]
    return t._view(shape, layout.contiguous_strides(shape), 0)


class LinalgSvd(Function):
    """``U, S, Vh = svd(A)``; the gradient is the formula in this file's docstring."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, full_matrices: bool) -> tuple:
        ctx.set_materialize_grads(False)  # an unused output's gradient stays None
        batch, (m, n) = a._shape[:-2], a._shape[-2:]
        k = min(m, n)
        count = numel(batch)
        u = Tensor._full((count, m, m if full_matrices else k), 0, a.dtype, a.device)
        s = Tensor._empty((count, k), a.dtype, a.device)
        vh = Tensor._full((count, n if full_matrices else k, n), 0, a.dtype, a.device)
        infinite = None
        if count and k:
            a3 = as_batch(a, batch, m, n)
            infinite = a3.isinf().any(-1).any(-1)  # [B]: matrices holding an infinity
            if infinite.any().item():
                a3 = a3.masked_fill(infinite.reshape(count, 1, 1), 0)
            dispatch.svd(u, s, vh, a3)
        elif count and full_matrices:  # no singular values: U and Vh are identities
            dispatch.map("copy", u, broadcast_view(eye(m, dtype=a.dtype, device=a.device), u._shape))
            dispatch.map("copy", vh, broadcast_view(eye(n, dtype=a.dtype, device=a.device), vh._shape))
        if infinite is not None and infinite.any().item():  # as LAPACK in PyTorch: NaN
            u, s, vh = (t.masked_fill(infinite.reshape((count,) + (1,) * (t.ndim - 1)), math.nan)
                        for t in (u, s, vh))  # fmt: skip
        u, s, vh = _unbatched(u, batch), _unbatched(s, batch), _unbatched(vh, batch)
        ctx.save_for_backward(u, s, vh)
        return u, s, vh

    @staticmethod
    def backward(ctx: FunctionCtx, grad_u: Tensor | None, grad_s: Tensor | None,
                 grad_vh: Tensor | None) -> tuple:  # fmt: skip
        u, s, vh = ctx.saved_tensors
        k = s.shape[-1]
        m, n = u.shape[-2], vh.shape[-1]
        u, vh = u[..., :k], vh[..., :k, :]  # full matrices: only the first k take part
        grad_u = None if grad_u is None else grad_u[..., :k]
        grad_vh = None if grad_vh is None else grad_vh[..., :k, :]
        if grad_u is None and grad_vh is None:
            return (u * grad_s.unsqueeze(-2)) @ vh, None
        squares = s * s
        gaps = squares.unsqueeze(-2) - squares.unsqueeze(-1) + eye(k, dtype=s.dtype, device=s.device)
        row_s, column_s = s.unsqueeze(-2), s.unsqueeze(-1)
        inner = 0
        if grad_u is not None:
            skew_u = u.mT @ grad_u
            inner = inner + (skew_u - skew_u.mT) * row_s
        if grad_vh is not None:
            skew_v = vh @ grad_vh.mT
            inner = inner + column_s * (skew_v - skew_v.mT)
        inner = inner / gaps
        if grad_s is not None:
            inner = inner + grad_s.unsqueeze(-1) * eye(k, dtype=s.dtype, device=s.device)
        grad_a = u @ inner @ vh
        if m > k and grad_u is not None:
            g_over_s = grad_u / row_s
            grad_a = grad_a + (g_over_s - u @ (u.mT @ g_over_s)) @ vh
        if n > k and grad_vh is not None:
            g_over_s = grad_vh / column_s
            grad_a = grad_a + u @ (g_over_s - (g_over_s @ vh.mT) @ vh)
        return grad_a, None


def check_matrices(name: str, a: Tensor) -> None:
    """``a`` must be a tensor of floating-point matrices (``[..., m, n]``), as every
    function built on the SVD asks (PyTorch's messages)."""
    require_tensor(name, a, "A")
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{a.dtype.type_name} (convert it with .float())"
        )
    refuse_low_precision(name, a, "linalg_svd_cpu")


def _check(name: str, a: Tensor) -> None:
    """``check_matrices``, and no NaN: the SVD itself refuses them."""
    check_matrices(name, a)
    if a.numel() and a.detach().isnan().any().item():
        raise LinAlgError(  # PyTorch names linalg.svd whichever function was called
            "linalg.svd: The algorithm failed to converge because the input matrix contained "
            "non-finite values."
        )


def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> tuple:  # noqa: N803
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (``torch.linalg.svd``). ``full_matrices``
    (the default) completes ``U`` and ``Vh`` to square matrices. ``driver`` is accepted
    and ignored (it picks a CUDA algorithm in PyTorch)."""
    _check("linalg.svd", A)
    return return_types.linalg_svd(*LinalgSvd.apply(A, full_matrices))


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:  # noqa: N803
    """The singular values of ``A``, descending: ``linalg.svd(A).S``."""
    _check("linalg.svdvals", A)
    return LinalgSvd.apply(A, False)[1]


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple:
    """``(U, S, V)`` with ``input = U diag(S) V^T`` (the older ``torch.svd``: ``V``, not
    ``Vh``; ``some=True`` gives the reduced matrices). With ``compute_uv=False``, ``U``
    and ``V`` are zero-filled ``[m, m]`` and ``[n, n]``, as in PyTorch."""
    _check("svd", input)
    if not compute_uv:
        values = svdvals(input)
        m, n = input.shape[-2:]
        zeros_u = input.new_zeros(input.shape[:-2] + (m, m))
        zeros_v = input.new_zeros(input.shape[:-2] + (n, n))
        return return_types.svd(zeros_u, values, zeros_v)
    u, s, vh = LinalgSvd.apply(input, not some)
    return return_types.svd(u, s, vh.mT)
