"""Three norms PyTorch keeps in ``torch.*`` for old code and TorchScript:
``frobenius_norm``, ``nuclear_norm`` and ``norm_except_dim``.

* ``frobenius_norm(x, dim)`` is ``sqrt(sum x^2)`` over one or two dims, the vector
  2-norm (``linalg.vector_norm(x, 2, dim)``);
* ``nuclear_norm(x, dim=(0, 1))`` is the sum of a matrix's singular values (the ``'nuc'``
  matrix norm), over the two dims given;
* ``norm_except_dim(v, pow, dim)`` is the ``pow``-norm of each slice ``v.select(dim, i)``,
  kept in a shape that broadcasts against ``v``: the ``g`` of weight normalisation,
  ``w = g * v / norm_except_dim(v, 2, dim)``. ``dim=-1`` means the norm of all of ``v``.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch._tensor import Tensor
from minitorch.layout import normalize_dim
from minitorch.ops.common import require_tensor
from minitorch.ops.reduce import norm
from minitorch.ops.svd import svdvals


def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``sqrt(sum(input ** 2))`` over ``dim`` (one dim or two)."""
    require_tensor("frobenius_norm", input)
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. Please use "
                  "`linalg.vector_norm(A, 2., dim, keepdim)` instead", UserWarning, stacklevel=2)  # fmt: skip
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return norm(input, 2, dims, keepdim)


def nuclear_norm(input: Tensor, dim: Any = (0, 1), keepdim: bool = False) -> Tensor:  # noqa: A002
    """The sum of the singular values of each matrix spanned by the two dims ``dim``
    (a matrix's ``'nuc'`` norm); ``nuclear_norm(x, keepdim)`` with a bool is dims (0, 1)."""
    require_tensor("nuclear_norm", input)
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim): PyTorch's first overload
        dim, keepdim = (0, 1), dim
    message = ("at::nuclear_norm is deprecated and it is just left for JIT compatibility. Please use "
               "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")  # fmt: skip
    warnings.warn(message, UserWarning, stacklevel=2)
    if input.ndim < 2 or len(tuple(dim)) != 2:
        raise RuntimeError(f"nuclear_norm: Expected a tensor with at least 2 dimensions and a dim of "
                           f"length 2, got a {input.ndim}-D tensor and dim={dim}")  # fmt: skip
    rows, cols = (normalize_dim(d, input.ndim) for d in dim)
    rest = [d for d in range(input.ndim) if d not in (rows, cols)]
    total = svdvals(input.permute((*rest, rows, cols))).sum(-1)
    if keepdim:
        for d in sorted((rows, cols)):
            total = total.unsqueeze(d)
    return total


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """The ``pow``-norm of each slice of ``v`` along ``dim``, shaped ``1`` on every other
    dim so that it broadcasts against ``v``; ``dim=-1``: the norm of all of ``v``."""
    require_tensor("norm_except_dim", v)
    if dim == -1:
        return norm(v, pow)
    dim = normalize_dim(dim, v.ndim)
    return norm(v, pow, tuple(d for d in range(v.ndim) if d != dim), keepdim=True)


__all__ = ["frobenius_norm", "norm_except_dim", "nuclear_norm"]
