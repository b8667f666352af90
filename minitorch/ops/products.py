"""Products built from ``matmul``: ``addmm``, ``addmv``, ``addr``, ``baddbmm``,
``addbmm``, ``inner``, ``kron``, ``vdot``, ``trace``, ``matrix_power``, ``dist``.

The ``add*`` family is BLAS's ``gemm`` written out: ``beta * input + alpha * (a @ b)``.
``beta = 0`` means "ignore ``input``", so a NaN in it does not leak into the result, as
in PyTorch. Every function here is a formula of ops that already have a derivative
(``mm``, ``bmm``, ``outer``, ``diagonal``, ``sum``...), so each gradient comes for free.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor
from minitorch.ops.composite import outer
from minitorch.ops.inplace import inplace_variant
from minitorch.ops.linalg import bmm, dot, mm, mv
from minitorch.ops.reduce import norm


def _scaled_sum(function: str, x: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """``beta * x + alpha * product``, broadcasting ``x`` to ``product``'s shape; with
    ``beta == 0`` the result is ``alpha * product`` whatever ``x`` holds (even NaN)."""
    require_tensor(function, x)
    if not x.dtype.is_floating_point and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError("For integral input tensors, argument beta must not be a floating point number.")
    scaled = product if alpha == 1 else alpha * product
    if beta == 0:
        return scaled
    return (x if beta == 1 else beta * x) + scaled


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``beta * input + alpha * (mat1 @ mat2)`` for matrices ``mat1`` ``(n, m)`` and
    ``mat2`` ``(m, p)``; ``input`` broadcasts to ``(n, p)`` (a bias row, say)."""
    require_tensor("addmm", input)
    return _scaled_sum("addmm", input, mm(mat1, mat2), beta, alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``beta * input + alpha * (mat @ vec)``: a matrix times a vector, plus a vector."""
    require_tensor("addmv", input)
    return _scaled_sum("addmv", input, mv(mat, vec), beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``beta * input + alpha * outer(vec1, vec2)``: a rank-one update of a matrix."""
    require_tensor("addr", input)
    return _scaled_sum("addr", input, outer(vec1, vec2), beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``beta * input + alpha * bmm(batch1, batch2)``: ``addmm`` for each of ``b`` matrix pairs."""
    require_tensor("baddbmm", input)
    return _scaled_sum("baddbmm", input, bmm(batch1, batch2), beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``: the batch of products summed
    into one matrix (a reduction over the batch, unlike ``baddbmm``)."""
    require_tensor("addbmm", input)
    return _scaled_sum("addbmm", input, bmm(batch1, batch2).sum(0), beta, alpha)


def inner(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The sum of products over the last dimension of both: for vectors their dot
    product; in general ``out[i..., j...] = sum_k input[i..., k] * other[j..., k]``, of
    shape ``input.shape[:-1] + other.shape[:-1]``. A 0-d operand just multiplies."""
    require_tensor("inner", input)
    require_tensor("inner", other, "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    k = input.shape[-1]
    rows, cols = input.reshape(-1, k), other.reshape(-1, k)
    return mm(rows, cols.t()).reshape(*input.shape[:-1], *other.shape[:-1])


def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The Kronecker product: every element of ``input`` scales a whole copy of
    ``other``, ``out[i * q + k] = input[i] * other[k]`` in each dimension (``q`` the size of
    ``other`` there). Interleaving the dims as ``(a0, b0, a1, b1, ...)`` and merging each
    pair is that formula."""
    require_tensor("kron", input)
    require_tensor("kron", other, "other", 2)
    ndim = max(input.ndim, other.ndim)
    a_shape = (1,) * (ndim - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (ndim - other.ndim) + tuple(other.shape)
    a = input.reshape([size for s in a_shape for size in (s, 1)])
    b = other.reshape([size for s in b_shape for size in (1, s)])
    return (a * b).reshape([p * q for p, q in zip(a_shape, b_shape)])


def vdot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The dot product of two vectors, conjugating the first (real tensors: ``dot``)."""
    require_tensor("vdot", input)
    return dot(input, other)


def trace(input: Tensor) -> Tensor:  # noqa: A002
    """The sum of a matrix's main diagonal, ``sum_i input[i][i]`` (integers sum to int64)."""
    require_tensor("trace", input)
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


def matrix_power(input: Tensor, n: int) -> Tensor:  # noqa: A002
    """``input`` multiplied by itself ``n`` times (a batch of square matrices), by repeated
    squaring: ``A^13 = A^8 A^4 A^1``, read off the bits of 13, ``log2(n)`` products instead
    of ``n``. ``n = 0`` is the identity; a negative ``n`` is the inverse's power."""
    require_tensor("matrix_power", input)
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        shape = input.shape
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            + (f"{shape[-2]} by {shape[-1]} matrices" if input.ndim >= 2 else f"{input.ndim}-D")
        )
    if n == 0:  # the identity, still in input's graph (with gradient 0), as in PyTorch
        identity = input.clone().fill_(0)
        identity.diagonal(0, -2, -1).fill_(1)
        return identity
    if n < 0:
        from minitorch.ops.solve import inv  # the factorisations load only when needed

        input, n = inv(input), -n
    result, square = None, input
    while n:
        if n & 1:
            result = square if result is None else result @ square
        n >>= 1
        if n:
            square = square @ square
    return result


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:  # noqa: A002
    """The ``p``-norm of ``input - other`` (broadcast together): ``(sum |a - b|^p)^(1/p)``."""
    require_tensor("dist", input)
    require_tensor("dist", other, "other", 2)
    return norm(input - other, p)


METHODS = {
    "addmm": addmm, "addmv": addmv, "addr": addr, "baddbmm": baddbmm, "addbmm": addbmm,
    "inner": inner, "kron": kron, "vdot": vdot, "trace": trace,
    "matrix_power": matrix_power, "dist": dist,
}  # fmt: skip
METHODS.update(
    {f"{name}_": inplace_variant(METHODS[name]) for name in ("addmm", "addmv", "addr", "baddbmm", "addbmm")}
)
