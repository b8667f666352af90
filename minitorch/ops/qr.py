"""The QR factorisation ``A = Q R`` (``Q`` with orthonormal columns, ``R`` upper triangular):
``linalg.qr`` and the older ``torch.qr``.

Householder reflections, as LAPACK's ``geqrf``: for each column ``k``, the reflection
``H = I - tau v v^T`` that maps ``x = R[k:, k]`` onto ``beta e_1`` (``beta = -sign(x_0) ||x||``,
the sign that avoids cancellation; ``v = [1, x_1: / (x_0 - beta)]``, ``tau = (beta - x_0) / beta``;
nothing to do, ``tau = 0``, when ``x_1:`` is already zero) is applied to the rest of ``R``::

    R[k:, k:] -= tau v (v^T R[k:, k:])

and ``Q = H_0 H_1 ... H_(k-1)``, applied to the identity from the last reflection back.
LAPACK's sign choice makes the results PyTorch's, signs included. Each step runs on the
whole batch as ops, so every backend runs it.

``mode``: ``'reduced'`` (``Q`` ``[m, k]``, ``R`` ``[k, n]``, ``k = min(m, n)``), ``'complete'``
(``Q`` ``[m, m]``, ``R`` ``[m, n]``), ``'r'`` (``R`` only, ``Q`` empty).

The gradient (``m >= n``; with ``copyltu(M) = tril(M) + tril(M, -1)^T``, the symmetric
matrix of ``M``'s lower triangle)::

    M     = R G_R^T - G_Q^T Q
    dL/dA = (G_Q + Q copyltu(M)) R^-T            (one triangular solve)

Wide (``m < n``), ``A = [X | Y]`` and ``R = [U | V]`` with ``V = Q^T Y``: ``X`` takes the
formula with ``U`` for ``R`` and ``G_Q + Y G_V^T`` for ``G_Q``, and ``dL/dY = Q G_V``. With
``mode='complete'`` and ``m > n`` ``Q`` is not unique, so not differentiable (as PyTorch).
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.creation import eye
from minitorch.ops import return_types
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat
from minitorch.ops.solve import refuse_low_precision
from minitorch.ops.triangular import solve_triangular

qr_result = return_types._return_type("linalg_qr", ["Q", "R"])
torch_qr_result = return_types._return_type("qr", ["Q", "R"])
MODES = ("reduced", "complete", "r")


def reflections(a: Tensor) -> tuple[Tensor, list]:
    """``R`` (``m x n``, zeros below the diagonal) and the ``k = min(m, n)`` reflections
    ``(v, tau)`` that made it, by this file's loop; no graph. ``v`` has ``m - j`` entries,
    the first 1."""
    m, n = a._shape[-2:]
    with no_grad():
        r = a.detach().clone()
        found = []
        for j in range(min(m, n)):
            x = r[..., j:, j]
            alpha = x[..., 0]
            rest = (x[..., 1:] * x[..., 1:]).sum(-1)
            trivial = rest == 0
            norm = (alpha * alpha + rest).sqrt()
            beta = where(alpha >= 0, -norm, norm)
            beta = where(trivial, alpha, beta)
            safe_beta = where(trivial, 1.0, beta)
            tau = where(trivial, 0.0, (beta - alpha) / safe_beta)
            scale = where(trivial, 1.0, alpha - beta)
            v = x / scale.unsqueeze(-1)
            v[..., 0] = 1.0
            block = r[..., j:, j:]
            r[..., j:, j:] = block - (tau.unsqueeze(-1) * v).unsqueeze(-1) * (v.unsqueeze(-2) @ block)
            r[..., j + 1 :, j] = 0.0
            r[..., j, j] = beta
            found.append((v, tau))
    return r, found


def householder(a: Tensor, complete: bool) -> tuple[Tensor, Tensor]:
    """``(Q, R)`` of ``a`` by this file's loop (``complete``: ``Q`` square), no graph."""
    m, n = a._shape[-2:]
    k = min(m, n)
    r, found = reflections(a)
    with no_grad():
        columns = m if complete else k
        q = eye(m, columns, dtype=a.dtype, device=a.device).expand(a._shape[:-2] + (m, columns)).clone()
        for j in reversed(range(k)):
            v, tau = found[j]
            block = q[..., j:, :]
            q[..., j:, :] = block - (tau.unsqueeze(-1) * v).unsqueeze(-1) * (v.unsqueeze(-2) @ block)
    return q, (r if complete else r[..., :k, :].contiguous())


class LinalgQr(Function):
    """``Q, R = qr(A)``; the gradient is this file's formula."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, complete: bool) -> tuple:
        ctx.set_materialize_grads(False)
        q, r = householder(a, complete)
        ctx.save_for_backward(q, r)
        return q, r

    @staticmethod
    def backward(ctx: FunctionCtx, grad_q: Tensor | None, grad_r: Tensor | None) -> tuple:
        q, r = ctx.saved_tensors
        m, n = q._shape[-2], r._shape[-1]
        if q._shape[-1] != min(m, n):
            raise NotImplementedError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        grad_y = None
        if m < n:  # wide: R = [U | V] with V = Q^T Y, so Y's gradient is Q G_V and Q's gains Y G_V^T
            if grad_r is not None:
                grad_v, grad_r = grad_r[..., m:], grad_r[..., :m]
                y = q @ r[..., m:]
                grad_q = y @ grad_v.mT if grad_q is None else grad_q + y @ grad_v.mT
                grad_y = q @ grad_v
            r = r[..., :m]
        inner = 0
        if grad_r is not None:
            inner = r @ grad_r.mT
        if grad_q is not None:
            inner = inner - grad_q.mT @ q
        b = 0 if grad_q is None else grad_q
        if not isinstance(inner, int):
            b = b + q @ (inner.tril() + inner.tril(-1).mT)
        grad_a = solve_triangular(r, b.mT, upper=True).mT
        if m < n:
            grad_y = grad_a.new_zeros(grad_a._shape[:-1] + (n - m,)) if grad_y is None else grad_y
            grad_a = cat([grad_a, grad_y], -1)
        return grad_a, None


def linalg_qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> Any:  # noqa: N803
    """``(Q, R)`` with ``A = Q R`` by Householder reflections (this file's docstring)."""
    require_tensor("linalg.qr", A, "A")
    if A.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.qr: Expected a floating point or complex tensor as input. Got {A.dtype.type_name}"
        )
    refuse_low_precision("linalg.qr", A, "linalg_qr_cpu")
    if mode not in MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
                           "(default), 'r', or 'complete'")  # fmt: skip
    q, r = LinalgQr.apply(A, mode == "complete")
    if mode == "r":
        return qr_result(A.new_zeros((0,)), r)
    return qr_result(q, r)


def qr(input: Tensor, some: bool = True) -> Any:  # noqa: A002
    """``torch.qr``: ``linalg.qr`` with ``some=False`` for ``mode='complete'``."""
    q, r = linalg_qr(input, "reduced" if some else "complete")
    return torch_qr_result(q, r)


METHODS = {"qr": qr}


__all__ = ["linalg_qr", "qr"]
