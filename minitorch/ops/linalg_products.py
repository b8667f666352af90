"""``torch.linalg``'s formulas over products and views: ``multi_dot``, ``vecdot``,
``vander``, ``diagonal``. Each is made of ops that have a derivative (``mm``, ``sum``,
``cumprod``, ``diagonal``), so the gradients come with them.

``multi_dot([A, B, C, ...])`` is ``A @ B @ C ...`` multiplied in the cheapest order. The
product is associative, the cost is not: for ``A [10, 100]``, ``B [100, 5]``,
``C [5, 50]``, ``(A B) C`` takes ``10*100*5 + 10*5*50 = 7500`` multiply-adds and
``A (B C)`` takes ``100*5*50 + 10*100*50 = 75000``. The classic dynamic programme finds
the best split of every run ``i..j`` of the chain from the best splits of shorter runs::

    cost[i][j] = min over i <= s < j of  cost[i][s] + cost[s+1][j] + rows_i * cols_s * cols_j
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor, require_tensors
from minitorch.ops.shape import cat


def _chain_order(shapes: list[tuple[int, int]]) -> list[list[int]]:
    """``split[i][j]``: where the cheapest product of matrices ``i..j`` splits."""
    count = len(shapes)
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            options = [(cost[i][s] + cost[s + 1][j] + shapes[i][0] * shapes[s][1] * shapes[j][1], s)
                       for s in range(i, j)]  # fmt: skip
            cost[i][j], split[i][j] = min(options)
    return split


def _multiply(matrices: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return matrices[i]
    s = split[i][j]
    return _multiply(matrices, split, i, s) @ _multiply(matrices, split, s + 1, j)


def multi_dot(tensors: Any, *, out: Any = None) -> Tensor:
    """The product of a chain of matrices, in the cheapest order (this file's docstring).
    The first may be a vector (a row) and the last a vector (a column); the result then
    loses that dimension, as ``@`` does."""
    require_tensors("linalg.multi_dot", tensors)
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_vector, last_vector = tensors[0].ndim == 1, tensors[-1].ndim == 1
    for position, t in enumerate(tensors):
        end = position in (0, len(tensors) - 1)
        if t.ndim != 2 and not (end and t.ndim == 1):
            which = "first" if position == 0 else "last" if position == len(tensors) - 1 else None
            if which:
                raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.ndim}D")
            raise RuntimeError(f"multi_dot(): tensor {position} must be 2D but got {t.ndim}D")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{tensors[0].dtype.type_name} and tensor {position} {t.dtype.type_name}"
            )
    matrices = list(tensors)
    if first_vector:
        matrices[0] = matrices[0].unsqueeze(0)
    if last_vector:
        matrices[-1] = matrices[-1].unsqueeze(-1)
    for position in range(1, len(matrices)):
        if matrices[position - 1]._shape[1] != matrices[position]._shape[0]:
            a, b = matrices[position - 1]._shape, matrices[position]._shape
            raise RuntimeError(
                f"multi_dot(): tensors {position - 1} and {position} with shapes {list(a)} and "
                f"{list(b)} cannot be multiplied"
            )
    split = _chain_order([t._shape for t in matrices])
    result = _multiply(matrices, split, 0, len(matrices) - 1)
    if first_vector:
        result = result.squeeze(0)
    if last_vector:
        result = result.squeeze(-1)
    return result


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The dot product along ``dim`` of ``x`` and ``y`` broadcast together:
    ``sum(x * y, dim)`` (real tensors, so no conjugate)."""
    require_tensor("linalg.vecdot", x, "x")
    require_tensor("linalg.vecdot", y, "y", 2)
    if x.dtype is not y.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{x.dtype.type_name} and y of type {y.dtype.type_name} instead."
        )
    return (x * y).sum(dim)


def vander(x: Tensor, *, N: Any = None) -> Tensor:  # noqa: N803 (PyTorch's name)
    """``linalg.vander``: the increasing powers ``out[..., i, j] = x[..., i] ** j`` for
    ``j < N`` (``N`` defaults to ``x.shape[-1]``), for a batch of vectors. Computed as
    PyTorch does, a running product of ``[1, x, x, ...]`` (``cumprod``), so integers
    become int64 and the gradient is ``cumprod``'s."""
    require_tensor("linalg.vander", x, "x")
    if x.ndim == 0:  # a number is a vector of one, as in PyTorch
        x = x.reshape(1)
    columns = x._shape[-1] if N is None else N
    if columns <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = x.new_ones(x._shape + (1,))
    repeated = x.unsqueeze(-1).expand(x._shape + (columns - 1,))
    return cat([ones, repeated], -1).cumprod(-1)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803
    """``linalg.diagonal``: ``A.diagonal(offset, dim1, dim2)``, with the defaults on the
    last two dimensions (a batch of matrices), and as a view."""
    require_tensor("linalg.diagonal", A, "A")
    return A.diagonal(offset, dim1, dim2)


__all__ = ["diagonal", "multi_dot", "vander", "vecdot"]
