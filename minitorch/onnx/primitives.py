"""Each primitive kernel call of a captured graph, as ONNX nodes.

A captured node is ``primitive(args)`` on strided views (``minitorch/compiler/graph.py``).
``emit(builder, node)`` reads its input views (``OnnxGraphBuilder.read``), computes the
kernel's result with ONNX ops, and writes it into its output view (``write``):

=============================== =====================================================
primitive                       ONNX
=============================== =====================================================
``map(op, out, a)``             the elementwise op (``Exp``, ``Relu``...; ``copy``
                                between dtypes is ``Cast``)
``zip(op, out, a, b)``          ``Add``, ``Mul``, ``Max``, ``Less``, ``And``...
``where(out, cond, a, b)``      ``Where``
``reduce(op, out, a, dim)``     ``ReduceSum``/``ReduceMax``/... on ``dim``, keepdims=1
``arg_reduce(op, out, a, dim)`` ``ArgMax``/``ArgMin`` on ``dim``, keepdims=1
``matmul(out, a, b)``           ``MatMul``
``gather(out, a, dim, index)``  ``GatherElements``
``scatter_add(out, ...)``       ``ScatterElements`` with reduction="add"
``scan("sum", out, a, dim)``    ``CumSum``
``softmax(op, out, a, dim)``    ``Softmax``/``LogSoftmax`` on ``dim``
=============================== =====================================================

The inputs of a kernel are cast to its output's dtype first, as the kernel computes in
that dtype (comparisons keep theirs, logical ops take booleans). Where ONNX's op and
PyTorch's differ, the translation computes PyTorch's answer: ``max``/``min``/``argmax``
of floats see NaN (``ReduceMax`` and ``ArgMax`` skip it), float ``%`` and ``//`` start
from the exact ``fmod`` (``Mod`` with fmod=1). Input checks (``check`` nodes) are
dropped: ONNX runtimes check indices themselves. Anything else (sorting, the
factorisations, an optimizer step, a fused kernel), and an ONNX op asked for an element
type it does not take (``Add`` on booleans, ``schemas.py``), raises
``UnsupportedOperatorError`` naming the op.
"""

from __future__ import annotations

import numpy as np

from minitorch.compiler.graph import Node, Operand
from minitorch.onnx.errors import UnsupportedOperatorError
from minitorch.onnx.schemas import UnsupportedTypeError
from minitorch.onnx.views import OnnxGraphBuilder

UNARY = {
    "neg": "Neg", "abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "sin": "Sin",
    "cos": "Cos", "asin": "Asin", "acos": "Acos", "atan": "Atan", "tanh": "Tanh",
    "sinh": "Sinh", "cosh": "Cosh", "erf": "Erf", "sigmoid": "Sigmoid", "relu": "Relu",
    "sign": "Sign", "floor": "Floor", "ceil": "Ceil", "reciprocal": "Reciprocal",
    "logical_not": "Not", "bitwise_not": "BitwiseNot",
}  # fmt: skip
BINARY = {
    "add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow", "maximum": "Max",
    "minimum": "Min", "eq": "Equal", "lt": "Less", "le": "LessOrEqual", "gt": "Greater",
    "ge": "GreaterOrEqual", "logical_and": "And", "logical_or": "Or",
    "bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor",
}  # fmt: skip
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}
LOGICAL = {"logical_not", "logical_and", "logical_or"}
REDUCE = {"sum": "ReduceSum", "prod": "ReduceProd", "max": "ReduceMax", "min": "ReduceMin",
          "any": "ReduceMax", "all": "ReduceMin"}  # fmt: skip


def unsupported(node: Node, why: str = "") -> UnsupportedOperatorError:
    what = node.primitive if node.kernel == node.primitive else f"{node.primitive}:{node.kernel}"
    if why:
        reason = f": {why}. Run"
    else:
        reason = (". The exporter writes map, zip, where, reduce, arg_reduce, matmul, gather, "
                  "scatter_add and cumsum kernels; run")  # fmt: skip
    return UnsupportedOperatorError(
        f"minitorch.onnx: cannot export {node.op or what} (kernel call {node.name}: {what})"
        f"{reason} this part of the model outside the exported module."
    )


def input_in(builder: OnnxGraphBuilder, view: Operand, dtype: np.dtype) -> str:
    """``view`` read and cast to ``dtype``."""
    return builder.cast(builder.read(view), builder.buffers[view.buffer].dtype, dtype)


def emit(builder: OnnxGraphBuilder, node: Node) -> None:
    """Add the ONNX nodes computing ``node`` (see the module's table)."""
    try:
        emit_ops(builder, node)
    except UnsupportedTypeError as error:  # an ONNX op asked for a type it does not take
        raise unsupported(node, str(error)) from None


def emit_ops(builder: OnnxGraphBuilder, node: Node) -> None:
    primitive = node.primitive
    if primitive == "check":
        return
    if primitive in ("map", "zip"):
        kernel, out, *inputs = node.args
        builder.write(out, elementwise(builder, node, kernel, out, inputs))
    elif primitive == "where":
        out, cond, a, b = node.args
        dtype = builder.buffers[out.buffer].dtype
        condition = input_in(builder, cond, np.dtype(bool))
        chosen = builder.op("Where", condition, input_in(builder, a, dtype), input_in(builder, b, dtype))
        builder.write(out, chosen)
    elif primitive == "reduce":
        kernel, out, a, dim = node.args
        builder.write(out, reduction(builder, kernel, out, a, dim))
    elif primitive == "arg_reduce":
        kernel, out, a, dim = node.args
        found = arg_reduction(builder, kernel, a, dim)
        builder.write(out, builder.cast(found, np.dtype(np.int64), builder.buffers[out.buffer].dtype))
    elif primitive == "matmul":
        out, a, b = node.args
        dtype = builder.buffers[out.buffer].dtype
        builder.write(out, builder.op("MatMul", input_in(builder, a, dtype), input_in(builder, b, dtype)))
    elif primitive == "gather":
        out, a, dim, index = node.args
        # torch.gather lets ``a`` be larger than ``index`` off ``dim``; ONNX wants equal
        # sizes there, so read the corner of ``a`` that the index can reach (a view).
        corner = tuple(a.shape[d] if d == dim else size for d, size in enumerate(index.shape))
        source = Operand(a.buffer, corner, a.strides, a.offset)
        where = input_in(builder, index, np.dtype(np.int64))
        builder.write(out, builder.op("GatherElements", builder.read(source), where, axis=dim))
    elif primitive == "scatter_add":
        out, dim, index, src = node.args
        dtype = builder.buffers[out.buffer].dtype
        part = Operand(src.buffer, index.shape, src.strides, src.offset)  # the part it adds
        added = builder.op("ScatterElements", builder.read(out), input_in(builder, index, np.dtype(np.int64)),
                           input_in(builder, part, dtype), axis=dim, reduction="add")  # fmt: skip
        builder.write(out, added)
    elif primitive == "scan" and node.args[0] == "sum":
        _, out, a, dim = node.args
        dtype = builder.buffers[out.buffer].dtype
        builder.write(out, builder.op("CumSum", input_in(builder, a, dtype), builder.ints(dim)))
    elif primitive == "softmax":
        kernel, out, a, dim = node.args
        dtype = builder.buffers[out.buffer].dtype
        onnx_op = "LogSoftmax" if kernel == "log_softmax" else "Softmax"
        builder.write(out, builder.op(onnx_op, input_in(builder, a, dtype), axis=dim))
    else:
        raise unsupported(node)


def elementwise(builder: OnnxGraphBuilder, node: Node, kernel: str, out: Operand, inputs: list) -> str:
    """``map`` and ``zip``: the value ``kernel`` computes from ``inputs``."""
    dtype = builder.buffers[out.buffer].dtype
    if kernel in COMPARISONS:
        common = np.result_type(*(builder.buffers[v.buffer].dtype for v in inputs))
        a, b = (input_in(builder, v, common) for v in inputs)
        if kernel == "ne":
            return builder.op("Not", builder.op("Equal", a, b))
        return builder.op(BINARY[kernel], a, b)
    args = [input_in(builder, v, np.dtype(bool) if kernel in LOGICAL else dtype) for v in inputs]
    if kernel == "copy":
        return args[0]
    if kernel in UNARY:
        return builder.op(UNARY[kernel], *args)
    if kernel in BINARY:
        return builder.op(BINARY[kernel], *args)
    floating = np.issubdtype(dtype, np.floating)
    if kernel == "log1p":
        return builder.op("Log", builder.op("Add", args[0], builder.shared(np.ones((), dtype), "one")))
    if kernel == "rsqrt":
        return builder.op("Reciprocal", builder.op("Sqrt", args[0]))
    if kernel == "floordiv" and floating:
        return floating_floor_division(builder, *args, dtype)
    if kernel == "floordiv":
        return integer_floor_division(builder, *args, dtype)
    if kernel == "remainder" and floating:
        return floating_remainder(builder, *args, dtype)
    if kernel == "remainder":
        return builder.op("Mod", *args, fmod=0)
    raise unsupported(node, f"no ONNX op for {kernel} on {dtype.name}")


def integer_floor_division(builder: OnnxGraphBuilder, a: str, b: str, dtype: np.dtype) -> str:
    """``a // b`` on integers: ONNX's ``Div`` rounds toward zero, so one less where the
    remainder moves past zero (``past_zero``)::

        q = trunc(a / b);  r = a - q * b;  q - (r != 0 and (r < 0) != (b < 0))"""
    truncated = builder.op("Div", a, b)
    remainder = builder.op("Sub", a, builder.op("Mul", truncated, b))
    adjust = builder.cast(past_zero(builder, remainder, b, dtype), np.dtype(bool), dtype)
    return builder.op("Sub", truncated, adjust)


def past_zero(builder: OnnxGraphBuilder, r: str, b: str, dtype: np.dtype) -> str:
    """Where the truncated remainder ``r = fmod(a, b)`` must move by ``b`` to take ``b``'s
    sign (floored division): ``r != 0 and (r < 0) != (b < 0)``, a boolean."""
    zero = builder.shared(np.zeros((), dtype), "zero")
    inexact = builder.op("Not", builder.op("Equal", r, zero))
    signs_differ = builder.op("Xor", builder.op("Less", r, zero), builder.op("Less", b, zero))
    return builder.op("And", inexact, signs_differ)


def floating_remainder(builder: OnnxGraphBuilder, a: str, b: str, dtype: np.dtype) -> str:
    """``a % b`` on floats, as PyTorch computes it: C's ``fmod`` (exact, the sign of
    ``a``), then ``+ b`` where it is not zero and its sign differs from ``b``'s::

        r = fmod(a, b);  r + b if r != 0 and (r < 0) != (b < 0) else r

    (``a - floor(a / b) * b`` rounds ``a / b``: 0 instead of -0.5 for ``1e7 % -0.75``.)"""
    r = builder.op("Mod", a, b, fmod=1)
    return builder.op("Where", past_zero(builder, r, b, dtype), builder.op("Add", r, b), r)


def floating_floor_division(builder: OnnxGraphBuilder, a: str, b: str, dtype: np.dtype) -> str:
    """``a // b`` on floats, as PyTorch (and Python) compute it, from the exact ``fmod``
    rather than the rounded ``a / b`` (``floor(1e7 / -0.75)`` is one too large)::

        r = fmod(a, b);  q = (a - r) / b - (1 if r moves past zero, as in ``%``)
        floor(q), + 1 where q - floor(q) > 0.5    (q is an integer up to rounding)
        0 with the sign of a / b where q == 0;  a / b where b == 0 (inf or nan)

    The signed zero is a product (``0.0 * -1``): onnxruntime's ``Where`` returns 0.0 for
    a -0.0 it picks from its first branch."""
    names = {0.0: "zero", 0.5: "half", 1.0: "one", -1.0: "minus_one"}
    constant = {v: builder.shared(np.full((), v, dtype), name) for v, name in names.items()}
    quotient = builder.op("Div", a, b)
    r = builder.op("Mod", a, b, fmod=1)
    q = builder.op("Div", builder.op("Sub", a, r), b)
    q = builder.op("Sub", q, builder.cast(past_zero(builder, r, b, dtype), np.dtype(bool), dtype))
    floored = builder.op("Floor", q)
    rounded_up = builder.op("Greater", builder.op("Sub", q, floored), constant[0.5])
    floored = builder.op("Add", floored, builder.cast(rounded_up, np.dtype(bool), dtype))  # 0.0, not -0.0
    negative = builder.op("Less", builder.op("Div", constant[1.0], quotient), constant[0.0])  # -0.0 too
    negative_zero = builder.op("And", builder.op("Equal", q, constant[0.0]), negative)
    result = builder.op("Mul", floored, builder.op("Where", negative_zero, constant[-1.0], constant[1.0]))
    return builder.op("Where", builder.op("Equal", b, constant[0.0]), quotient, result)


def nan_found(builder: OnnxGraphBuilder, values: str, dim: int) -> tuple[str, str]:
    """Where ``values`` is NaN, as 0/1 int32, and whether each slice along ``dim`` holds
    one (a boolean, keepdims=1)."""
    is_nan = builder.cast(builder.op("IsNaN", values), np.dtype(bool), np.dtype(np.int32))
    any_nan = builder.op("ReduceMax", is_nan, builder.ints([dim]), keepdims=1)
    return is_nan, builder.cast(any_nan, np.dtype(np.int32), np.dtype(bool))


def arg_reduction(builder: OnnxGraphBuilder, kernel: str, a: Operand, dim: int) -> str:
    """``arg_reduce``: the int64 position of the first largest (smallest) element along
    ``dim``, keeping it with size 1. As in PyTorch a NaN is larger and smaller than every
    number: a slice holding one answers its first NaN (``ArgMax`` alone skips NaN)."""
    values = builder.read(a)
    onnx_op = "ArgMax" if kernel == "argmax" else "ArgMin"  # the first one, as the kernel
    found = builder.op(onnx_op, values, axis=dim, keepdims=1)
    if not np.issubdtype(builder.buffers[a.buffer].dtype, np.floating):
        return found
    is_nan, any_nan = nan_found(builder, values, dim)
    return builder.op("Where", any_nan, builder.op("ArgMax", is_nan, axis=dim, keepdims=1), found)


def reduction(builder: OnnxGraphBuilder, kernel: str, out: Operand, a: Operand, dim: int) -> str:
    """``reduce``: fold dimension ``dim`` of ``a``, keeping it with size 1. ``max`` and
    ``min`` of floats are NaN where the slice holds a NaN, as in PyTorch (``ReduceMax``
    skips NaN)."""
    dtype = builder.buffers[out.buffer].dtype
    if kernel in ("any", "all"):  # booleans folded as 0/1 integers: any = max, all = min
        truth = input_in(builder, a, np.dtype(bool))
        values = builder.cast(truth, np.dtype(bool), np.dtype(np.int32))
        folded = builder.op(REDUCE[kernel], values, builder.ints([dim]), keepdims=1)
        return builder.cast(folded, np.dtype(np.int32), dtype)
    values = input_in(builder, a, dtype)
    folded = builder.op(REDUCE[kernel], values, builder.ints([dim]), keepdims=1)
    if kernel not in ("max", "min") or not np.issubdtype(dtype, np.floating):
        return folded
    _, any_nan = nan_found(builder, values, dim)
    return builder.op("Where", any_nan, builder.shared(np.full((), np.nan, dtype), "nan"), folded)
