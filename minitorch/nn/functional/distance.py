"""Distances and similarities between vectors: ``cosine_similarity``, ``pairwise_distance``
(row ``i`` of one batch against row ``i`` of the other) and ``pdist`` (every pair of rows of
one matrix).

- cosine similarity: ``x . y / (max(|x|, eps) max(|y|, eps))``, computed as PyTorch does,
  each vector divided by its own (clamped) norm first and then the products summed, which
  keeps large vectors from overflowing ``|x| |y|``;
- pairwise distance: ``|x - y + eps|_p`` over the last dimension (the ``eps`` keeps the
  gradient of the norm finite when ``x == y``);
- ``pdist``: ``|x_i - x_j|_p`` for every ``i < j``, in the order of the upper triangle
  (row by row), ``N (N - 1) / 2`` numbers for ``N`` rows.
"""

from __future__ import annotations

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.functional import broadcast_tensors
from minitorch.ops.common import require_tensor


def _clamp_min_keep_gradient(norm: Tensor, eps: float) -> Tensor:
    """``max(norm, eps)`` whose gradient is the norm's own (PyTorch clamps in place under
    ``no_grad``, so the clamp is invisible to autograd)."""
    return norm + (norm.clamp_min(eps) - norm).detach()


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast first)."""
    require_tensor("cosine_similarity", x1, "x1")
    require_tensor("cosine_similarity", x2, "x2", 2)
    x1, x2 = broadcast_tensors(x1, x2)
    n1 = _clamp_min_keep_gradient(x1.norm(2, dim=dim, keepdim=True), eps)
    n2 = _clamp_min_keep_gradient(x2.norm(2, dim=dim, keepdim=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:  # fmt: skip
    """``|x1 - x2 + eps|_p`` over the last dimension of the broadcast inputs."""
    require_tensor("pairwise_distance", x1, "x1")
    require_tensor("pairwise_distance", x2, "x2", 2)
    last = max(x1.ndim, x2.ndim) - 1
    if last < 0:
        return (x1 - x2 + eps).abs()
    return (x1 - x2 + eps).norm(p, dim=last, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:  # noqa: A002
    """The ``p``-norm distance between every pair of rows ``i < j`` of an ``[N, M]`` matrix."""
    require_tensor("pdist", input)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    firsts = [i for i in range(n) for _ in range(i + 1, n)]
    seconds = [j for i in range(n) for j in range(i + 1, n)]
    if not firsts:
        return creation.zeros(0, dtype=input.dtype, device=input.device) + input.sum() * 0
    index_i = creation.tensor(firsts, device=input.device)
    index_j = creation.tensor(seconds, device=input.device)
    return (input.index_select(0, index_i) - input.index_select(0, index_j)).norm(p, dim=1)
