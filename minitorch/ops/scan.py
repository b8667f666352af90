"""Running sums and products along a dimension: ``cumsum`` and ``cumprod``.

``cumsum(x, dim)`` holds, at position ``j`` of ``dim``, the sum of ``x`` up to and
including ``j``: ``cumsum([1, 2, 3]) = [1, 3, 6]``; ``cumprod([1, 2, 3]) = [1, 2, 6]``.
Each forward is one ``scan`` kernel (``minitorch/backends/reference.py`` has its loop),
which folds every prefix of a line with a reduction's combine op (``REDUCE_OPS`` in
``minitorch/scalar_ops.py``).

The result dtype follows PyTorch: integer and bool inputs give int64 (like ``sum``, so
that a running count does not overflow a small type), ``dtype=`` converts the input
first, and 16-bit floats are added up in float32 and rounded once per output.
"""

from __future__ import annotations

from typing import Any

from minitorch import dispatch, layout
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.dtypes import as_dtype, bool_, float32, int64
from minitorch.ops.choice import where
from minitorch.ops.common import cast, require_tensor
from minitorch.ops.diagonals import triangle_mask


def apply_scan(op: str, x: Tensor, dim: int, dtype: Any) -> Tensor:
    """Run the ``scan`` kernel of ``op`` (``"sum"``, ``"prod"``) along ``dim`` into a new
    tensor of the result dtype."""
    if dtype is not None:
        result_dtype = as_dtype(dtype)
    elif x.dtype.is_floating_point:
        result_dtype = x.dtype
    else:
        result_dtype = int64  # bool and every integer type: a count must not overflow
    if result_dtype is bool_:
        raise NotImplementedError(f"\"cum{op}_out_cpu\" not implemented for 'Bool'")
    half = result_dtype.is_floating_point and result_dtype.itemsize == 2
    x = cast(x, float32 if half else result_dtype)
    out = Tensor._empty(x._shape, x.dtype, x.device)
    if x.ndim == 0:  # a 0-d tensor is one line of one element
        dispatch.scan(op, out._view((1,), (1,), 0), x._view((1,), (1,), x._offset), 0)
    else:
        dispatch.scan(op, out, x, dim)
    return cast(out, result_dtype)


def reverse_cumsum(t: Tensor, dim: int) -> Tensor:
    """``out[j] = sum of t[k] for k >= j``: the running sum from the far end."""
    return t.flip(dim).cumsum(dim).flip(dim)


class Cumsum(Function):
    """y_j = x_0 + ... + x_j;  x_i appears in every y_j with j >= i, so
    dL/dx_i = sum over j >= i of dL/dy_j (a running sum from the far end)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dim: int, dtype: Any) -> Tensor:
        ctx.dim, ctx.input_dtype = dim, x.dtype
        return apply_scan("sum", x, dim, dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        if grad.ndim == 0:
            return grad.to(ctx.input_dtype), None, None
        return reverse_cumsum(grad, ctx.dim).to(ctx.input_dtype), None, None


class Cumprod(Function):
    """y_j = x_0 * ... * x_j;  dy_j/dx_i = product of x_k for k <= j, k != i (j >= i).

    Where x has no zero, that product is y_j / x_i, so dL/dx_i = (sum over j >= i of
    g_j y_j) / x_i with g = dL/dy. A zero cannot be divided by; let z be the position of
    the first zero of a line:

    * i < z: the same formula (x_i is not zero, and y_j = 0 for j >= z adds nothing);
    * i = z: dL/dx_z = (x_0 ... x_{z-1}) * sum over j >= z of g_j (x_{z+1} ... x_j);
    * i > z: every product includes x_z = 0, so dL/dx_i = 0.

    Those masks make a gradient that is right, but whose own derivative is not (a
    gradient fixed at 0 still changes with x_z). So when the backward itself is recorded
    (``create_graph=True``) and x has a zero, it uses the product formula directly, which
    is a polynomial in x and differentiates correctly, at the cost of an n x n matrix per
    line (``_cumprod_backward_by_products``).
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, dim: int, dtype: Any) -> Tensor:
        y = apply_scan("prod", x, dim, dtype)
        ctx.dim, ctx.input_dtype = dim, x.dtype
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        if grad.ndim == 0 or grad.numel() == 0:
            return grad.to(ctx.input_dtype), None, None
        dim, x = ctx.dim, x.to(grad.dtype)
        is_zero = x == 0
        if is_grad_enabled() and bool(is_zero.any()):
            return _cumprod_backward_by_products(x, grad, dim).to(ctx.input_dtype), None, None
        zeros_so_far = is_zero.cumsum(dim)  # how many zeros up to and including j
        before_zero = zeros_so_far == 0
        first_zero = is_zero & (zeros_so_far == 1)
        grad_before = reverse_cumsum(grad * y, dim) / where(before_zero, x, 1)
        product_before = where(before_zero, x, 1).prod(dim, keepdim=True)
        products_after = where(before_zero | first_zero, 1, x).cumprod(dim)  # x_{z+1} ... x_j
        grad_at_zero = product_before * where(before_zero, 0, grad * products_after).sum(dim, keepdim=True)
        grad_x = where(before_zero, grad_before, where(first_zero, grad_at_zero, 0))
        return grad_x.to(ctx.input_dtype), None, None


def _cumprod_backward_by_products(x: Tensor, grad: Tensor, dim: int) -> Tensor:
    """dL/dx_i = (x_0 ... x_{i-1}) * sum over j >= i of g_j (x_{i+1} ... x_j), with no
    division. Along the last dimension (``dim`` is moved there and back), row i of an
    n x n matrix holds x_j for j > i and 1 elsewhere; its running product is
    ``x_{i+1} ... x_j`` at every j >= i (and 1 for j < i, which the mask drops)."""
    x, grad = x.transpose(dim, -1), grad.transpose(dim, -1)
    n = x.shape[-1]
    square = x.unsqueeze(-2).expand(*x.shape[:-1], n, n)  # square[.., i, j] = x_j
    after_i = triangle_mask(square, 1, lower=False)  # j > i
    products = where(after_i, square, 1).cumprod(-1)
    products = where(triangle_mask(square, 0, lower=False), products, 0)  # only j >= i
    before_i = where(triangle_mask(square, -1, lower=True), square, 1).prod(-1)  # x_0 ... x_{i-1}
    return (before_i * (products * grad.unsqueeze(-2)).sum(-1)).transpose(dim, -1)


def _scan_arguments(function: str, x: Tensor, dim: Any) -> int:
    require_tensor(function, x)
    if dim is None:
        raise TypeError(f'{function}() missing 1 required positional arguments: "dim"')
    return layout.normalize_dim(dim, x.ndim)


def cumsum(input: Tensor, dim: Any = None, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """The running sum along ``dim``: ``cumsum([1, 2, 3], 0) = [1, 3, 6]``."""
    return Cumsum.apply(input, _scan_arguments("cumsum", input, dim), dtype)


def cumprod(input: Tensor, dim: Any = None, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """The running product along ``dim``: ``cumprod([1, 2, 3], 0) = [1, 2, 6]``."""
    return Cumprod.apply(input, _scan_arguments("cumprod", input, dim), dtype)
