"""The matrix exponential ``exp(A) = I + A + A^2/2! + A^3/3! + ...`` (``torch.matrix_exp``,
``linalg.matrix_exp``): ``exp(t A) x0`` solves ``x' = A x``.

The series converges for every ``A`` but slowly, and with huge cancelling terms, when
``||A||`` is large. Scaling and squaring avoids both: ``exp(A) = exp(A / 2^s)^(2^s)``,
so pick ``s`` with ``||A / 2^s||_1 <= 1/2``, sum a short Taylor series of the small
matrix, then square the result ``s`` times::

    B   = A / 2^s
    E   = I + B (I + B/2 (I + B/3 (... (I + B/q))))     Horner's form: q products
    E   = E @ E,  s times

With ``||B|| <= 1/2`` the first dropped term is below ``(1/2)^(q+1) / (q+1)!``: ``q = 18``
is under float64's rounding. Each matrix of a batch gets its
own ``s``; a matrix that needs fewer squarings keeps its value (``where``) while the
others square. Every step is a matmul, a sum or a ``where``, so the gradient is theirs:
the derivative of this approximation, which approximates the derivative of ``exp``.

Each squaring doubles the relative rounding error already in ``E``, so after ``s`` of
them float32's 6e-8 has become ``2^s`` times that: float32 matrices are computed in
float64 and rounded once at the end.
"""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.creation import eye
from minitorch.dtypes import float64
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor


def _squarings(a: Tensor) -> Tensor:
    """Per matrix, the ``s >= 0`` with ``||A||_1 / 2^s <= 1/2`` (int64, batch shape)."""
    norm = a.detach().abs().sum(-2).amax(-1).to(float64)  # largest column sum
    finite = where(norm.isfinite(), norm, 0.0)
    steps = (finite * 2).log2().ceil()
    return where(steps > 0, steps, 0.0).long()


def matrix_exp(A: Tensor) -> Tensor:  # noqa: N803 (PyTorch's name)
    """``exp(A)`` of each square matrix, by scaling and squaring (this file's docstring)."""
    require_tensor("linalg.matrix_exp", A, "A")
    if A.ndim < 2 or A._shape[-1] != A._shape[-2]:
        shape = A._shape
        raise RuntimeError(
            "linalg.matrix_exp: A must be batches of square matrices, but they are "
            + (f"{shape[-2]} by {shape[-1]} matrices" if A.ndim >= 2 else f"{A.ndim}-D")
        )
    if not A.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
            f"{A.dtype.type_name} (convert it with .float())"
        )
    n = A._shape[-1]
    identity = eye(n, dtype=A.dtype, device=A.device)
    if A.numel() == 0:
        return A + identity if n else A.clone()
    if A.dtype.itemsize < 8:
        return matrix_exp(A.to(float64)).to(A.dtype)
    squarings = _squarings(A)
    most = int(squarings.amax().item())
    scale = (2.0 ** -squarings.to(A.dtype)).unsqueeze(-1).unsqueeze(-1)
    b = A * scale
    terms = 18
    result = identity + b / terms
    for k in range(terms - 1, 0, -1):  # Horner: I + B/k (previous)
        result = identity + (b @ result) / k
    for step in range(most):
        squared = result @ result
        result = where((squarings > step).unsqueeze(-1).unsqueeze(-1), squared, result)
    return result


METHODS = {"matrix_exp": matrix_exp}


__all__ = ["matrix_exp"]
