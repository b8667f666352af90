"""Square systems through the LU factorisation: ``linalg.solve``, ``linalg.inv``,
``linalg.det``.

Gaussian elimination with partial pivoting factors a square matrix as ``P A = L U``
(``L`` lower triangular with ones on its diagonal, ``U`` upper triangular, ``P`` the row
swaps): the ``lu_factor`` kernel. From the factors,

* ``solve(A, B)``: ``A X = B`` is ``L (U X) = P B``: forward then back substitution,
  the ``lu_solve`` kernel;
* ``inv(A)``: ``solve(A, I)``;
* ``det(A)``: ``det(P)^-1 det(L) det(U) = (-1)^(number of row swaps) * prod(diag(U))``.

A zero on ``U``'s diagonal means ``A`` is singular: ``solve`` and ``inv`` then raise
``LinAlgError`` (a ``RuntimeError``), as PyTorch does; ``det`` is simply 0.

Batches: every dimension before the last two is a batch dimension; ``solve``'s batch
dimensions broadcast (``A`` of ``[3, n, n]`` with ``B`` of ``[n, k]``).
"""

from __future__ import annotations

from minitorch import dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.creation import arange, eye
from minitorch.dtypes import bool_, int64
from minitorch.layout import broadcast_shapes, numel
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor
from minitorch.ops.linalg import as_batch


class LinAlgError(RuntimeError):
    """A matrix the algorithm cannot handle (singular, non-finite): ``torch.linalg.LinAlgError``."""


def check_square_float(name: str, a: Tensor, kernel: str = "lu_cpu") -> None:
    """PyTorch's errors for input that is not a batch of square floating-point matrices
    (``kernel``: the name PyTorch's message for float16 and bfloat16 gives)."""
    require_tensor(name, a, "A")
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a._shape[-1] != a._shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are "
            f"{a._shape[-2]} by {a._shape[-1]} matrices"
        )
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{a.dtype.type_name} (convert it with .float())"
        )
    refuse_low_precision(name, a, kernel)


def refuse_low_precision(name: str, a: Tensor, kernel: str) -> None:
    """PyTorch has no 16-bit factorisations: its messages for float16 and bfloat16."""
    if a.dtype.is_floating_point and a.dtype.itemsize < 4:
        if name in ("linalg.inv", "linalg.matrix_norm"):
            raise RuntimeError(
                f"{name}: Low precision dtypes not supported. Got {a.dtype.type_name} "
                "(convert it with .float())"
            )
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{a.dtype.type_name}\' (convert it with .float())'
        )


def lu_factors(a: Tensor, batch: tuple[int, ...]) -> tuple[Tensor, Tensor]:
    """``(lu, pivots)`` of ``a`` broadcast to the batch shape ``batch``: ``lu`` is a new
    ``[B, n, n]`` tensor (``L`` below the diagonal, ``U`` on and above), ``pivots`` the
    ``[B, n]`` row swaps. No graph."""
    n = a._shape[-1]
    lu = Tensor._empty((numel(batch), n, n), a.dtype, a.device)
    dispatch.map("copy", lu, as_batch(a, batch, n, n))
    pivots = Tensor._empty((numel(batch), n), int64, a.device)
    dispatch.lu_factor(lu, pivots)
    return lu, pivots


def diagonal_of(lu: Tensor) -> Tensor:
    """The ``[B, n]`` diagonal of a contiguous ``[B, n, n]`` tensor, as a view: one step
    of ``n + 1`` elements walks from ``(i, i)`` to ``(i + 1, i + 1)``."""
    batch, n, _ = lu._shape
    return lu._view((batch, n), (n * n, n + 1), lu._offset)


def solve_with_lu(name: str, a: Tensor, b: Tensor, check: bool = True) -> Tensor:
    """``X`` with ``A X = B`` for ``a`` ``[*, n, n]`` and ``b`` ``[*, n, k]`` (batches
    broadcast), or PyTorch's ``LinAlgError`` when a matrix is singular (``check=False``,
    for ``solve_ex`` and ``inv_ex``: the IEEE infinities and NaNs of dividing by the zero
    pivot instead). No graph."""
    a_batch = a._shape[:-2]
    batch = broadcast_shapes(a_batch, b._shape[:-2])
    n, k = b._shape[-2], b._shape[-1]
    lu, pivots = lu_factors(a, a_batch)  # each matrix of A once, however many B share it
    zero_pivots = (diagonal_of(lu) == 0).nonzero() if check else None
    if zero_pivots is not None and zero_pivots.numel():
        raise _singular(name, a_batch, zero_pivots[0].tolist())
    if a_batch != batch:  # A broadcast over B's batch: its factors as stride-0 views
        lu = as_batch(lu._view(a_batch + (n, n), layout.contiguous_strides(a_batch + (n, n)), 0), batch, n, n)
        pivots = as_batch(pivots._view(a_batch + (n, 1), layout.contiguous_strides(a_batch + (n, 1)), 0),
                          batch, n, 1)  # fmt: skip
        pivots = pivots._view(pivots._shape[:2], pivots._strides[:2], pivots._offset)
    x = Tensor._empty((numel(batch), n, k), a.dtype, a.device)
    dispatch.map("copy", x, as_batch(b, batch, n, k))
    dispatch.lu_solve(x, lu, pivots)
    shape = batch + (n, k)
    return x._view(shape, layout.contiguous_strides(shape), 0)


def _singular(name: str, batch: tuple[int, ...], where: list[int]) -> LinAlgError:
    """PyTorch's message for a singular matrix (which batch element, which pivot)."""
    matrix, pivot = where
    prefix = f"(Batch element {matrix}): " if batch else ""
    if name == "linalg.inv":
        return LinAlgError(
            f"linalg.inv: {prefix}The diagonal element {pivot + 1} is zero, the inversion could "
            "not be completed because the input matrix is singular."
        )
    return LinAlgError(
        f"torch.linalg.solve: {prefix}The solver failed because the input matrix is singular."
    )


class LinalgSolveEx(Function):
    """``X = A^-1 B`` (PyTorch's name for the node). With ``G = dL/dX``::

        dL/dB = A^-T G          (one more solve, with the transpose of A)
        dL/dA = -dL/dB X^T

    (from ``A X = B``: ``dA X + A dX = dB``, so ``dX = A^-1 (dB - dA X)``.)"""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor, check: bool = True) -> Tensor:
        x = solve_with_lu("torch.linalg.solve", a, b, check)
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        a, x = ctx.saved_tensors
        grad_b = solve(a.mT, grad)
        grad_a = -(grad_b @ x.mT) if ctx.needs_input_grad[0] else None
        return grad_a, grad_b, None


class LinalgInvEx(Function):
    """``Y = A^-1``. With ``G = dL/dY``: ``dL/dA = -Y^T G Y^T`` (from ``A Y = I``:
    ``dY = -Y dA Y``)."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, check: bool = True) -> Tensor:
        identity = eye(a._shape[-1], dtype=a.dtype, device=a.device)
        y = solve_with_lu("linalg.inv", a, identity, check)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        return -(y.mT @ grad @ y.mT), None


class LinalgDet(Function):
    """``d = det(A) = (-1)^swaps * prod(diag(U))``. With ``g = dL/dd``, Jacobi's formula
    (``d det(A) = tr(adj(A) dA)``) gives ``dL/dA = g * cof(A)``, the matrix of cofactors:

    * invertible ``A``: ``cof(A) = det(A) A^-T``;
    * singular ``A`` (some ``d`` is 0), through the SVD ``A = U diag(S) Vh``:
      ``cof(A) = det(U) det(Vh) U diag(c) Vh`` with ``c_i`` the product of all singular
      values but ``S_i`` (the cofactors of ``diag(S)``); ``U`` and ``Vh`` are orthogonal,
      so their determinants are +-1 and their cofactor matrices ``det(U) U``, ``det(Vh) Vh``.

    (PyTorch 2.13 returns zeros at an exactly singular ``A``; finite differences agree
    with the cofactors: ``det(diag(2, e, 3)) = 6 e``, so ``d det / d A[1, 1] = 6``.)
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor) -> Tensor:
        batch, n = a._shape[:-2], a._shape[-1]
        lu, pivots = lu_factors(a, batch)
        swaps = (pivots != arange(n, device=a.device)).sum(-1)
        sign = 1 - 2 * (swaps % 2)
        d = (diagonal_of(lu).prod(-1) * sign.to(a.dtype)).reshape(batch)
        ctx.save_for_backward(a, d)
        return d

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        a, d = ctx.saved_tensors
        if (d != 0).all().item():
            return ((grad * d).unsqueeze(-1).unsqueeze(-1) * inv(a).mT,)
        return (grad.unsqueeze(-1).unsqueeze(-1) * _cofactors_by_svd(a),)


def _cofactors_by_svd(a: Tensor) -> Tensor:
    """``cof(A) = det(U) det(Vh) U diag(c) Vh`` (see ``LinalgDet``), defined for every ``A``."""
    from minitorch.ops.svd import linalg_svd  # svd.py imports this file

    u, s, vh = linalg_svd(a)
    n = s.shape[-1]
    on_diagonal = eye(n, dtype=bool_, device=a.device)
    others = where(on_diagonal, 1.0, s.unsqueeze(-2).expand(s.shape + (n,)))  # row i: S, 1 at i
    c = others.prod(-1)
    signs = (det(u) * det(vh)).unsqueeze(-1).unsqueeze(-1)
    return signs * (u * c.unsqueeze(-2)) @ vh


# ----- the functions users call -------------------------------------------------------


def _is_vector_case(a: Tensor, b: Tensor) -> bool:
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when it is 1-D, or has exactly the
    shape of ``A`` without its last dimension."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b._shape == a._shape[:-1])


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803 (PyTorch's names)
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``), for square ``A``; batch
    dimensions broadcast. ``B`` may be a vector (``[n]``, or ``[*, n]`` matching ``A``'s
    batch): then so is ``X``. A singular ``A`` raises ``LinAlgError``."""
    return solve_checked(A, B, left, True)


def solve_checked(A: Tensor, B: Tensor, left: bool, check: bool) -> Tensor:  # noqa: N803
    """``solve``; ``check=False`` (``solve_ex``) lets a singular ``A`` give inf and NaN."""
    check_square_float("linalg.solve", A)
    require_tensor("linalg.solve", B, "B", 2)
    if B.dtype is not A.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A.dtype.type_name} and B of type {B.dtype.type_name} instead"
        )
    if not left:
        return solve_checked(A.mT, B.mT, True, check).mT
    vector = _is_vector_case(A, B)
    b = B.unsqueeze(-1) if vector else B
    if b.ndim < 2 or b._shape[-2] != A._shape[-1]:
        rows, cols = (b._shape[-2], b._shape[-1]) if b.ndim >= 2 else (b._shape[0], 1)
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({A._shape[-2]}x{A._shape[-1]} and {rows}x{cols})"
        )
    broadcast_shapes(A._shape[:-2], b._shape[:-2])
    x = LinalgSolveEx.apply(A, b, check)
    return x.squeeze(-1) if vector else x


def inv(A: Tensor) -> Tensor:  # noqa: N803
    """The inverse ``A^-1`` of each square matrix: ``solve(A, I)``. A singular matrix
    raises ``LinAlgError``, naming the zero pivot as PyTorch does."""
    check_square_float("linalg.inv", A)
    return LinalgInvEx.apply(A)


def det(A: Tensor) -> Tensor:  # noqa: N803
    """The determinant of each square matrix (0 for a singular one)."""
    check_square_float("linalg.det", A)
    return LinalgDet.apply(A)
