"""LAPACK's packed QR and the products of its reflections: ``geqrf``,
``linalg.householder_product`` (``orgqr``) and ``ormqr``.

``geqrf(A)`` runs the Householder loop of ``qr.py`` and returns what it made in one
matrix, as LAPACK stores it: ``R`` on and above the diagonal, and below the diagonal of
column ``j`` the reflection vector ``v_j`` (its first entry, an implicit 1, is not
stored), with the scalars ``tau`` beside it::

    A = [[r r r]          H_j = I - tau_j v_j v_j^T,   v_j = [0 .. 0, 1, a[j+1:, j]]
         [v r r]          Q   = H_0 H_1 ... H_(k-1)    (k = len(tau))
         [v v r]
         [v v v]]

``Q`` is never formed by ``geqrf``. The two products read the packed vectors back:

* ``householder_product(A, tau)``: the first ``n`` columns of ``Q`` (``A`` is ``m x n``,
  ``m >= n``), the reflections applied to the identity from the last one back;
* ``ormqr(A, tau, C, left, transpose)``: ``Q C``, ``Q^T C``, ``C Q`` or ``C Q^T``, one
  reflection at a time, without ``Q``. ``H`` is symmetric, so ``Q^T = H_(k-1) ... H_0``,
  and each reflection costs one product with a vector::

      H C = C - tau v (v^T C)          C H = C - tau (C v) v^T

Both are written with differentiable ops, so autograd gives their gradients (with
respect to ``A``, ``tau`` and ``C``). ``geqrf`` has none, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import no_grad
from minitorch.creation import eye
from minitorch.ops import return_types
from minitorch.ops.common import require_tensor
from minitorch.ops.qr import reflections
from minitorch.ops.shape import cat, stack
from minitorch.ops.solve import refuse_low_precision

geqrf_result = return_types._return_type("geqrf", ["a", "tau"])


def _check_float(name: str, A: Tensor, kernel: str) -> None:  # noqa: N803
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{A.dtype.type_name}'")
    refuse_low_precision(name, A, kernel)  # float16, bfloat16: as every factorisation


class Geqrf(Function):
    """``(a, tau)`` of ``A``, the packed factors; no derivative (as PyTorch)."""

    @staticmethod
    def forward(ctx: FunctionCtx, A: Tensor) -> tuple:  # noqa: N803
        r, found = reflections(A)
        with no_grad():
            for j, (v, _) in enumerate(found):
                r[..., j + 1 :, j] = v[..., 1:]
            tau = stack([t for _, t in found], -1) if found else A.new_zeros(A._shape[:-2] + (0,))
        return r, tau

    @staticmethod
    def backward(ctx: FunctionCtx, grad_a: Any, grad_tau: Any) -> tuple:
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor, *, out: Any = None) -> Any:  # noqa: A002
    """LAPACK's packed QR of ``input``: ``(a, tau)`` as this file's docstring draws them."""
    require_tensor("geqrf", input)
    _check_float("torch.geqrf", input, "geqrf_cpu")
    return geqrf_result(*Geqrf.apply(input))


def _reflector(A: Tensor, j: int, length: int) -> Tensor:  # noqa: N803
    """``v_j`` of length ``length``: zeros, a 1 at ``j``, then ``A[j+1:, j]``."""
    batch = A._shape[:-2]
    below = A[..., j + 1 : length, j]
    return cat([A.new_zeros(batch + (j,)), A.new_ones(batch + (1,)), below], -1)


def _apply(A: Tensor, tau: Tensor, C: Tensor, left: bool, order: range) -> Tensor:  # noqa: N803
    """``C`` with the reflections ``H_j`` (``j`` in ``order``) applied one by one from the
    left (``H C``) or the right (``C H``)."""
    length = C._shape[-2] if left else C._shape[-1]
    for j in order:
        v = _reflector(A, j, length)
        t = tau[..., j].unsqueeze(-1).unsqueeze(-1)
        if left:
            C = C - t * v.unsqueeze(-1) * (v.unsqueeze(-2) @ C)
        else:
            C = C - t * (C @ v.unsqueeze(-1)) * v.unsqueeze(-2)
    return C


def _check_tau(name: str, A: Tensor, tau: Tensor) -> None:  # noqa: N803
    require_tensor(name, A)
    require_tensor(name, tau, "tau", 2)
    _check_float(f"torch.{name}", A, f"{name.split('.')[-1]}_cpu")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"torch.{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}")  # fmt: skip
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"torch.{name}: tau dtype {tau.dtype.type_name} does not match input dtype "
                           f"{A.dtype.type_name}")  # fmt: skip


def householder_product(input: Tensor, tau: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The first ``n`` columns of ``Q = H_0 ... H_(k-1)`` from ``geqrf``'s packed vectors
    (``input`` ``m x n``, ``m >= n``; ``tau`` of length ``k <= n``)."""
    _check_tau("linalg.householder_product", input, tau)
    m, n = input._shape[-2:]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or "
                           "equal to input.shape[-1]")  # fmt: skip
    if tau._shape[-1] > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or "
                           "equal to tau.shape[-1]")  # fmt: skip
    identity = eye(m, n, dtype=input.dtype, device=input.device).expand(input._shape[:-2] + (m, n))
    return _apply(input, tau, identity, True, range(tau._shape[-1] - 1, -1, -1))


orgqr = householder_product  # LAPACK's name


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False,  # noqa: A002
          *, out: Any = None) -> Tensor:  # fmt: skip
    """``Q C`` (``left``), ``C Q`` (not ``left``), with ``Q^T`` for ``transpose``: ``Q`` from
    ``geqrf``'s ``(input, input2 = tau)``, ``C = input3``, one reflection at a time."""
    _check_tau("ormqr", input, input2)
    require_tensor("ormqr", input3, "input3", 3)
    size = input3._shape[-2] if left else input3._shape[-1]
    side = "other.shape[-2]" if left else "other.shape[-1]"
    if input._shape[-2] != size:
        raise RuntimeError(f"torch.ormqr: {side} must be equal to input.shape[-2]")
    if input2._shape[-1] != min(size, input._shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min({side}, input.shape[-1])")
    k = input2._shape[-1]
    forward = left == transpose  # Q^T C and C Q start with H_0
    return _apply(input, input2, input3, left, range(k) if forward else range(k - 1, -1, -1))


METHODS = {"geqrf": geqrf, "orgqr": orgqr, "ormqr": ormqr}

__all__ = ["geqrf", "householder_product", "orgqr", "ormqr"]
