"""Matrix multiplication: ``a @ b`` with PyTorch's rules for every rank.

* 1-D @ 1-D: the dot product (a 0-d tensor);
* 2-D @ 2-D: the matrix product ``[n, k] @ [k, m] -> [n, m]``;
* 1-D operands are treated as a row (left) or column (right) and that dimension is
  removed again from the result;
* more dimensions: a *batch* of matrix products; the batch dimensions (all but the last
  two) broadcast like elementwise shapes: ``[5, 1, n, k] @ [3, k, m] -> [5, 3, n, m]``.

All of them become one ``matmul`` kernel call on ``[B, n, k] @ [B, k, m]``.
The derivative of ``C = A @ B`` is ``dA = dC @ B^T`` and ``dB = A^T @ dC`` (the engine
then sums over batch dimensions that were broadcast).
"""

from __future__ import annotations

import functools
from typing import Any

from minitorch import dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_
from minitorch.layout import broadcast_shapes, numel
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import View


class Matmul(Function):
    """C = A @ B for operands of at least 2 dimensions (batch dims broadcast)."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return product(a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        grad_a = grad @ b.mT if ctx.needs_input_grad[0] else None
        grad_b = a.mT @ grad if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def product(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` for operands of at least 2 dimensions, as one ``matmul`` kernel call on
    the batch ``[B, n, k] @ [B, k, m]`` the kernel takes (two matrices are a batch of
    one); the kernel call of ``Matmul.forward`` and ``Addmm.forward``."""
    n, k, m = a._shape[-2], a._shape[-1], b._shape[-1]
    if len(a._shape) == 2 and len(b._shape) == 2:  # two matrices (the usual case)
        out = Tensor._empty((n, m), a.dtype, a.device)
        return dispatch.matmul(out, a, b)  # (the kernel takes them as a batch of one)
    batch = batch_shape(a._shape, b._shape)
    out = Tensor._empty((numel(batch), n, m), a.dtype, a.device)
    dispatch.matmul(out, as_batch(a, batch, n, k), as_batch(b, batch, k, m))
    return out._view(batch + (n, m), layout.contiguous_strides(batch + (n, m)), 0)


@functools.lru_cache(maxsize=1024)
def batch_shape(a_shape: tuple, b_shape: tuple) -> tuple:
    """The broadcast batch dimensions of ``a_shape @ b_shape`` (all but the last two),
    remembered: a training loop multiplies the same shapes on every step."""
    return broadcast_shapes(a_shape[:-2], b_shape[:-2])


def as_batch(t: Tensor, batch: tuple, rows: int, cols: int) -> Tensor:
    """``t`` as the 3-D ``[B, rows, cols]`` operand the kernel takes: broadcast to the
    batch shape (stride 0, no copy), then the batch dimensions merged into one, which is
    a view unless their strides forbid it (then the operand is copied)."""
    flat = (numel(batch), rows, cols)
    shape, strides, merged = batch_layout(t._shape, t._strides, batch, flat)
    if merged is None:
        dense = Tensor._empty(shape, t.dtype, t.device)
        dispatch.map("copy", dense, t._view(shape, strides, t._offset))
        return dense._view(flat, layout.contiguous_strides(flat), 0)
    return t._view(flat, merged, t._offset)


@functools.lru_cache(maxsize=1024)
def batch_layout(shape: tuple, strides: tuple, batch: tuple, flat: tuple) -> tuple:
    """``(shape, strides, merged)`` of an operand broadcast to ``batch + flat[1:]``, and
    the strides of that as the 3-D ``flat`` (``None`` when the batch dimensions cannot be
    merged without a copy). Remembered per layout: working it out took two thirds of the
    Python time of a small ``a @ b``. (Broadcasting never moves the offset.)"""
    shape, strides, _ = layout.expand(shape, strides, 0, batch + flat[1:])
    return shape, strides, layout.view_strides(shape, strides, flat)


class Mm(Matmul):
    """``a @ b`` of two matrices: a ``Matmul`` named ``MmBackward0``, as in PyTorch."""


class UnsafeView(View):
    """The ``View`` that gives a flattened product back its batch dimensions (named
    ``UnsafeViewBackward0``, as PyTorch's matmul names it)."""


class Addmm(Function):
    """y = bias + x @ w_t for matrices ``x [N, in]``, ``w_t [in, out]`` and ``bias [out]``:
    PyTorch's ``addmm``, what ``F.linear`` records for a matrix input (with ``w_t`` the
    transposed weight, ``weight.t()``, a view). One matmul kernel, the bias added in place.

    With ``g`` the gradient ``[N, out]``: ``dbias = sum of g over N``, ``dx = g w_t^T``,
    ``dw_t = x^T g``; the last is computed as ``(g^T x)^T``, so that once ``TBackward0``
    has transposed it back, the weight's gradient is contiguous like the weight.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, bias: Tensor, x: Tensor, w_t: Tensor) -> Tensor:
        ctx.save_for_backward(x, w_t)
        out = product(x, w_t)
        bias_rows = bias._view(out._shape, (0, bias._strides[0]), bias._offset)  # every row reads it
        return dispatch.zip("add", out, out, bias_rows)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        x, w_t = ctx.saved_tensors
        needs_bias, needs_x, needs_w_t = ctx.needs_input_grad
        grad_bias = grad.sum(0) if needs_bias else None
        grad_x = grad @ w_t.mT if needs_x else None
        grad_w_t = (grad.mT @ x).mT if needs_w_t else None
        return grad_bias, grad_x, grad_w_t


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight.T + bias`` with ``weight`` of shape ``[out_features, in_features]``.

    The graph is PyTorch's: for a matrix ``x``, ``AddmmBackward0(bias, x, TBackward0(weight))``
    (``MmBackward0`` without a bias); other ranks are flattened to a matrix first and
    the result viewed back (``ViewBackward0`` around the product).
    """
    require_tensor("linear", x)
    require_tensor("linear", weight, "weight", 2)
    if not x._shape or len(weight._shape) != 2 or x._shape[-1] != weight._shape[1]:
        _check(x, weight.mT if weight.ndim == 2 else weight)
        raise RuntimeError(f"linear(): weight must be 2-D, got shape {list(weight.shape)}")
    if x.dtype is not weight.dtype or (bias is not None and bias.dtype is not x.dtype):
        _check(x, weight.mT)  # raises the dtype error
    w_t = weight.t()
    if bias is None or bias._shape != (weight._shape[0],):
        out = matmul(x, w_t)
        return out if bias is None else out + bias
    if len(x._shape) == 2:
        return Addmm.apply(bias, x, w_t)
    out = Addmm.apply(bias, x.reshape(numel(x._shape[:-1]), x._shape[-1]), w_t)
    return out.view(x._shape[:-1] + (weight._shape[0],))


def _check_tensors(name: str, a: Any, b: Any) -> None:
    """PyTorch's TypeError for a list, an array or a number given where a tensor is needed."""
    for position, value in enumerate((a, b), 1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{name}(): argument {position} must be Tensor, not {type(value).__name__} "
                f"(convert it with minitorch.tensor(...))"
            )


def _check(a: Tensor, b: Tensor) -> None:
    # (PyTorch refuses bool only when there is something to multiply: an empty operand
    # gives an empty or all-False result without reaching its kernel.)
    if (a.dtype is bool_ or b.dtype is bool_) and a.numel() and b.numel():
        raise NotImplementedError(
            "matrix products are not implemented for 'Bool' tensors (as in PyTorch); "
            "convert first, e.g. a.float() @ b.float()"
        )
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and "
            f"{b.ndim}D"
        )
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name} != "
            f"{b.dtype.name}. Convert one with .to(other.dtype)."
        )
    inner_a = a._shape[-1]
    inner_b = b._shape[-2] if b.ndim > 1 else b._shape[0]
    if inner_a != inner_b:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{inner_a}] and src [{inner_b}] "
                f"to have the same number of elements, but got {inner_a} and {inner_b} "
                "elements respectively"
            )
        rows = "x".join(str(s) for s in (a._shape if a.ndim > 1 else (1, inner_a))[-2:])
        cols = "x".join(str(s) for s in (b._shape if b.ndim > 1 else (inner_b, 1))[-2:])
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows} and {cols}): the last "
            f"dimension of the first ({inner_a}) must equal the second-to-last of the "
            f"second ({inner_b})"
        )
    if a.ndim > 2 or b.ndim > 2:  # batch dimensions must broadcast
        batch_shape(a._shape, b._shape if b.ndim > 1 else (inner_b, 1))


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """The matrix product with PyTorch's rules for 1-D and batched operands."""
    _check_tensors("matmul", a, b)
    _check(a, b)
    if a.ndim == 1 and b.ndim == 1:
        return Matmul.apply(a.unsqueeze(0), b.unsqueeze(1)).reshape(())
    if a.ndim == 1:
        return Matmul.apply(a.unsqueeze(0), b).squeeze(-2)
    if b.ndim == 1:
        return Matmul.apply(a, b.unsqueeze(1)).squeeze(-1)
    if a.ndim == 2 and b.ndim == 2:
        return Mm.apply(a, b)
    if b.ndim == 2 and a.ndim > 2:  # PyTorch folds the batch into the rows: one product
        flat = Mm.apply(a.reshape(numel(a._shape[:-1]), a._shape[-1]), b)
        shape = a._shape[:-1] + (b._shape[1],)
        return UnsafeView.apply(flat, (shape, layout.contiguous_strides(shape), flat._offset))
    return Matmul.apply(a, b)


def mm(a: Tensor, b: Tensor) -> Tensor:
    _check_tensors("mm", a, b)
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm(): expected 2D tensors, got {a.ndim}D and {b.ndim}D")
    return matmul(a, b)


def bmm(a: Tensor, b: Tensor) -> Tensor:
    _check_tensors("bmm", a, b)
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"bmm(): expected 3D tensors, got {a.ndim}D and {b.ndim}D")
    if a._shape[0] != b._shape[0]:
        raise RuntimeError(f"bmm(): batch sizes differ: {a._shape[0]} and {b._shape[0]}")
    return matmul(a, b)


def dot(a: Tensor, b: Tensor) -> Tensor:
    _check_tensors("dot", a, b)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return matmul(a, b)


def mv(a: Tensor, b: Tensor) -> Tensor:
    _check_tensors("mv", a, b)
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"mv(): expected a 2D matrix and a 1D vector, got {a.ndim}D and {b.ndim}D")
    return matmul(a, b)
