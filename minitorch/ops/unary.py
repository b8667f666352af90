"""Elementwise functions of one tensor: ``exp``, ``log``, ``relu``, ...

Each is a ``Function`` whose forward is one ``map`` kernel with an op from the scalar-op
table, and whose backward is the derivative, written as tensor operations right beside
it (so it can be differentiated again). ``grad`` is dL/dy; backward returns dL/dx.

Functions such as ``exp`` turn integer input into the default float dtype first,
like PyTorch (``minitorch.tensor([1, 2]).exp()`` is float32): their row in the scalar-op
table (``minitorch/scalar_ops.py``) says ``returns_float``.
"""

from __future__ import annotations

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import bool_, finfo, get_default_dtype, int64
from minitorch.ops.activation_derivatives import ReluBackward, SigmoidBackward, TanhBackward
from minitorch.ops.choice import where
from minitorch.ops.common import cast, require_tensor, result_strides
from minitorch.scalar_ops import MAP_OPS


def apply_map(op: str, x: Tensor) -> Tensor:
    """Run one ``map`` kernel: ``out[i] = f(x[i])`` into a new contiguous tensor.
    Every unary op passes here first, so this is where a non-tensor is refused."""
    require_tensor(op, x)
    scalar_op = MAP_OPS[op]
    if scalar_op.returns_float and not x.dtype.is_floating_point:
        x = cast(x, get_default_dtype())
    if op == "neg" and x.dtype is bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if op == "relu" and x.dtype is bool_:
        raise RuntimeError("Boolean inputs not supported for relu (convert first, e.g. x.float())")
    if op in ("abs", "floor", "ceil") and x.dtype is bool_:
        raise NotImplementedError(
            f"{op} is not implemented for bool tensors (as in PyTorch); convert first, "
            f"e.g. x.float() or x.long()"
        )
    strides = result_strides(x._shape, (x,))  # x's memory order (None: contiguous)
    out = Tensor._empty(x._shape, bool_ if scalar_op.returns_bool else x.dtype, x.device, strides)
    return dispatch.map(op, out, x)


class Neg(Function):
    """y = -x;  dy/dx = -1"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return apply_map("neg", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        return -grad


class Abs(Function):
    """y = |x|;  dy/dx = sign(x)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("abs", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * x.sign()


class Exp(Function):
    """y = e^x;  dy/dx = e^x = y"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("exp", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad * y


class Log(Function):
    """y = ln x;  dy/dx = 1 / x"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("log", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad / x


class Log1p(Function):
    """y = ln(1 + x);  dy/dx = 1 / (1 + x)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("log1p", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad / (x + 1)


class Sqrt(Function):
    """y = sqrt(x);  dy/dx = 1 / (2 sqrt(x)) = 1 / (2y)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("sqrt", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad / (y * 2)


class Rsqrt(Function):
    """y = 1 / sqrt(x);  dy/dx = -1/2 x^(-3/2) = -y^3 / 2"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("rsqrt", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad * y * y * y * -0.5


class Tanh(Function):
    """y = tanh x;  dy/dx = 1 - tanh^2 x = 1 - y^2"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("tanh", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return TanhBackward.apply(grad, y)


class Sigmoid(Function):
    """y = 1 / (1 + e^-x);  dy/dx = y (1 - y)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("sigmoid", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return SigmoidBackward.apply(grad, y)


TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi)


class Erf(Function):
    """y = erf(x) = 2/sqrt(pi) * integral of exp(-t^2) from 0 to x;
    dy/dx = 2/sqrt(pi) * exp(-x^2)"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return apply_map("erf", x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * (-x * x).exp() * TWO_OVER_SQRT_PI


class Relu(Function):
    """y = max(x, 0);  dy/dx = 1 where y > 0, else 0"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("relu", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return ReluBackward.apply(grad, y)


class Reciprocal(Function):
    """y = 1 / x;  dy/dx = -1 / x^2 = -y^2"""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = apply_map("reciprocal", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return -grad * y * y


class Piecewise(Function):
    """``sign``, ``floor``, ``ceil``: flat almost everywhere, so the gradient is 0."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, op: str) -> Tensor:
        return apply_map(op, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor, None]:
        return grad * 0, None


def neg(x: Tensor) -> Tensor:
    return Neg.apply(x)


def abs(x: Tensor) -> Tensor:  # noqa: A001 (PyTorch's name)
    return Abs.apply(x)


def exp(x: Tensor) -> Tensor:
    return Exp.apply(x)


def log(x: Tensor) -> Tensor:
    return Log.apply(x)


def log1p(x: Tensor) -> Tensor:
    return Log1p.apply(x)


def sqrt(x: Tensor) -> Tensor:
    return Sqrt.apply(x)


def rsqrt(x: Tensor) -> Tensor:
    return Rsqrt.apply(x)


def tanh(x: Tensor) -> Tensor:
    return Tanh.apply(x)


def sigmoid(x: Tensor) -> Tensor:
    return Sigmoid.apply(x)


def erf(x: Tensor) -> Tensor:
    """The error function (used by the exact GELU)."""
    return Erf.apply(x)


def relu(x: Tensor) -> Tensor:
    return Relu.apply(x)


def reciprocal(x: Tensor) -> Tensor:
    return Reciprocal.apply(x)


def sign(x: Tensor) -> Tensor:
    require_tensor("sign", x)
    if x.dtype is bool_:
        return x.clone()  # the sign of True is True, of False False
    return Piecewise.apply(x, "sign")


def floor(x: Tensor) -> Tensor:
    return Piecewise.apply(x, "floor")


def ceil(x: Tensor) -> Tensor:
    return Piecewise.apply(x, "ceil")


def logical_not(x: Tensor) -> Tensor:
    return apply_map("logical_not", x)


def bitwise_not(x: Tensor) -> Tensor:
    """``~x``: every bit flipped on integers (``~5 == -6``), ``not`` on bools."""
    require_tensor("bitwise_not", x)
    if x.dtype is bool_:
        return apply_map("logical_not", x)
    if x.dtype.is_floating_point:
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{x.dtype.type_name}'")
    return apply_map("bitwise_not", x)


def invert(x: Tensor) -> Tensor:
    """The ``~`` operator: ``bitwise_not``, refused on floats as in PyTorch."""
    if x.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(x)


def square(x: Tensor) -> Tensor:
    """``x * x`` (its derivative, ``2x``, comes from ``Mul``'s)."""
    require_tensor("square", x)
    if x.dtype is bool_:
        x = cast(x, int64)  # PyTorch's square is pow(x, 2): int64 for a bool tensor
    return x * x


def isnan(x: Tensor) -> Tensor:
    """True where ``x`` is NaN: the only value not equal to itself."""
    require_tensor("isnan", x)
    return x != x


def isinf(x: Tensor) -> Tensor:
    require_tensor("isinf", x)
    return x.abs() == float("inf") if x.dtype.is_floating_point else x != x


def isfinite(x: Tensor) -> Tensor:
    require_tensor("isfinite", x)
    return (x - x) == 0 if x.dtype.is_floating_point else x == x


class NanToNum(Function):
    """y = x, with NaN, +inf and -inf replaced by given numbers;  dy/dx = 1 where x is
    finite, and 0 where it was replaced (a replacement is a constant)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, nan: float, posinf: float, neginf: float) -> Tensor:
        ctx.save_for_backward(x)
        y = where(x == float("inf"), posinf, x)
        y = where(x == float("-inf"), neginf, y)
        return where(x != x, nan, y)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return grad * x.isfinite(), None, None, None


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,  # noqa: A002
               neginf: float | None = None) -> Tensor:  # fmt: skip
    """``input`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf``
    (by default the dtype's largest and smallest finite numbers). Integers and bools have
    no such values: they come back as a copy."""
    require_tensor("nan_to_num", input)
    if not input.dtype.is_floating_point:
        return input.clone()
    largest = finfo(input.dtype).max  # 3.4028e38 for float32
    posinf = largest if posinf is None else float(posinf)
    neginf = -largest if neginf is None else float(neginf)
    return NanToNum.apply(input, float(nan), posinf, neginf)
