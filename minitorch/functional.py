"""``minitorch.functional``: PyTorch's ``torch.functional`` module, functions written
with the public ops (each is also ``minitorch.<name>``).

Most are shape helpers (``atleast_2d``, ``broadcast_tensors``, ``cartesian_prod``) or
contractions (``tensordot``, ``chain_matmul``) that a tutorial writes in one line; they
are built from views, ``matmul`` and reductions, so their gradients come for free. The
rest of ``torch.functional`` (``einsum``, ``meshgrid``, ``norm``, ``split``, ``unique``)
lives with the ops and is re-exported here.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch import creation, layout
from minitorch._tensor import Size, Tensor
from minitorch.ops.common import require_tensor, require_tensors
from minitorch.ops.einsum import einsum
from minitorch.ops.linalg import matmul
from minitorch.ops.meshgrid import meshgrid
from minitorch.ops.reduce import norm
from minitorch.ops.shape import cat, split, stack
from minitorch.ops.sort import unique

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
    "broadcast_tensors", "cartesian_prod", "cdist", "chain_matmul", "einsum", "meshgrid",
    "norm", "split", "tensordot", "unique",
]  # fmt: skip


def _tensors(function: str, tensors: tuple) -> tuple:
    """``f(a, b)`` and ``f([a, b])`` both mean the tensors ``a, b`` (checked to be tensors)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    require_tensors(function, tensors)
    return tensors


def _at_least(rank: int, tensors: tuple) -> Any:
    """Views with size-1 dimensions added until each has ``rank`` dimensions, placed as
    PyTorch places them: a vector ``[n]`` becomes ``[1, n]`` and then ``[1, n, 1]``."""
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    results = []
    for t in _tensors(f"atleast_{rank}d", tensors):
        if t.ndim == 0:
            t = t.reshape((1,) * rank)
        if rank >= 2 and t.ndim == 1:
            t = t.unsqueeze(0)
        if rank >= 3 and t.ndim == 2:
            t = t.unsqueeze(-1)
        results.append(t)
    return results[0] if single else tuple(results)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dimension (a 0-d tensor becomes ``[1]``)."""
    return _at_least(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dimensions (``[n]`` becomes ``[1, n]``)."""
    return _at_least(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions (``[m, n]`` becomes ``[m, n, 1]``)."""
    return _at_least(3, tensors)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of these shapes broadcast to (PyTorch's rules: align on
    the right; each dimension equal, or 1)."""
    return Size(layout.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes]))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """Views of the tensors expanded to their common shape (no copy: stride 0 along the
    stretched dimensions)."""
    tensors = _tensors("broadcast_tensors", tensors)
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t.expand(shape) for t in tensors)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Sum of products over pairs of dimensions: ``dims=k`` pairs ``a``'s last ``k`` with
    ``b``'s first ``k``; ``dims=([1, 0], [0, 1])`` names the pairs.

    It is one matrix product: move the summed dimensions of ``a`` last and those of ``b``
    first, flatten each side into a matrix ``[kept, summed] @ [summed, kept]``, and
    reshape the result to ``a``'s kept dimensions followed by ``b``'s."""
    require_tensor("tensordot", a, "a", 1)
    require_tensor("tensordot", b, "b", 2)
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a = [layout.normalize_dim(d, a.ndim) for d in dims_a]
    dims_b = [layout.normalize_dim(d, b.ndim) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                f"and second has size {b.shape[db]} in dim {db}"
            )
    kept_a = [d for d in range(a.ndim) if d not in dims_a]
    kept_b = [d for d in range(b.ndim) if d not in dims_b]
    summed = math.prod(a.shape[d] for d in dims_a)
    left = a.permute(kept_a + dims_a).reshape(-1, summed)
    right = b.permute(dims_b + kept_b).reshape(summed, -1)
    shape = [a.shape[d] for d in kept_a] + [b.shape[d] for d in kept_b]
    return matmul(left, right).reshape(shape)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row (like
    ``itertools.product``)."""
    tensors = _tensors("cartesian_prod", tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], dim=1)


CDIST_COMPUTE_MODES = (
    "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist",
)  # fmt: skip


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = CDIST_COMPUTE_MODES[0]) -> Tensor:
    """Distances between every row of ``x1`` ``[.., P, M]`` and every row of ``x2``
    ``[.., R, M]``: ``out[.., i, j] = ||x1[.., i, :] - x2[.., j, :]||_p``, shape ``[.., P, R]``.
    ``compute_mode`` picks PyTorch's shortcut for p=2 (``|a|^2 + |b|^2 - 2 a.b`` by a matrix
    product); minitorch always takes the differences, the exact way, so every mode agrees."""
    require_tensor("cdist", x1, "x1", 1)
    require_tensor("cdist", x2, "x2", 2)
    if compute_mode not in CDIST_COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    differences = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # [.., P, R, M]
    return norm(differences, p=p, dim=-1)


def block_diag(*tensors: Tensor) -> Tensor:
    """A matrix with the given matrices on its diagonal and zeros elsewhere (0-d and 1-D
    inputs count as ``[1, 1]`` and ``[1, n]``)."""
    blocks = [atleast_2d(t) for t in _tensors("block_diag", tensors)]
    if not blocks:
        return creation.empty(1, 0)
    columns = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        width = b.shape[1]
        before = creation.zeros(b.shape[0], start, dtype=b.dtype, device=b.device)
        after = creation.zeros(b.shape[0], columns - start - width, dtype=b.dtype, device=b.device)
        rows.append(cat([before, b, after], dim=1))
        start += width
    return cat(rows, dim=0)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """``m1 @ m2 @ ... @ mn`` for 2-D matrices (PyTorch deprecates it for
    ``torch.linalg.multi_dot``; kept because older tutorials call it)."""
    matrices = _tensors("chain_matmul", matrices)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more input tensors")
    result = matrices[0]
    for m in matrices[1:]:
        result = matmul(result, m)
    return result
