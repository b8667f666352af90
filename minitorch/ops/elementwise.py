"""The one path of every elementwise op of two operands: ``prepare``, then a plan.

The forward of ``a + b`` (and of ``-``, ``*``, ``/``, ``**``, the comparisons, the fused
derivatives...) is one ``zip`` kernel after ``prepare`` has answered four questions:

1. **Type promotion** (``minitorch/dtypes.py``): what dtype does the result have? Both
   operands are converted to it; a Python number becomes a 0-d tensor of that dtype.
2. **Checks**: does the op make sense here (``-`` on booleans, integer division by 0)?
3. **Broadcasting** (``minitorch/layout.py``): at what common shape? Each operand is
   viewed at it, a stretched dimension having stride 0. No data is copied.
4. **The output**: a new tensor of that shape, laid out in the memory order of the
   first operand that fills it (``x.t() + y.t()`` is transposed, as in PyTorch).

**Plans.** For most calls the answers depend only on the operands' dtypes, shapes and
strides (and the type of a Python number), never on their values. A training loop asks
the same questions about the same layouts on every step, so ``apply_zip`` runs
``prepare`` once per *key* (op, backend, and each operand's dtype, shape and strides, or
its number type) and remembers what it decided as a ``ZipPlan``: the result's shape,
dtype and strides, and the kernel call for that layout (``dispatch.plan``: each operand
read through its broadcast strides). The next call with the same key allocates the
output and runs the kernel::

    plan = the plan remembered for (op, backend, a's layout, b's layout)
    if there is none: out = prepare(op, a, b) and zip, and remember what prepare decided
    else:             out = a new tensor as the plan describes; plan.run(storages, offsets)

A plan is kept only when ``prepare`` decided from layouts alone: no operand was cast
(a cast copies, and the copy is new on every call) and no check read values (integer
``//``, ``%`` and ``**`` look at the divisor or exponent). Everything else takes
``prepare`` on every call, with the same result.

A plan holds no tensor and no storage, so nothing can make it stale: an in-place write
changes values, not layouts; a view of a changed base has its own strides, read on each
call; another backend (``set_backend``) or dtype is another key. Plans live in the one
cache of ``minitorch/dispatch/plans.py``, shared by all threads (a plan is a pure
function of its key), and are not served while a trace or capture records, so every
kernel call is recorded with its tensors (``dispatch.plans.remembered``).

``apply_zip_into`` is the same for an in-place write, ``t.sub_(lr * t.grad)``: the
kernel writes straight into ``t``'s storage.
"""

from __future__ import annotations

from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import FunctionCtx
from minitorch.dispatch import plans as dispatch_plans
from minitorch.dtypes import bool_, get_default_dtype, result_type
from minitorch.layout import broadcast_shapes, new_tensor_layout, out_of_memory
from minitorch.ops.common import (
    as_operand,
    broadcast_all,
    broadcast_view,
    is_number,
    python_number,
    result_strides,
    scalar_tensor,
)
from minitorch.scalar_ops import ZIP_OPS

# Ops whose checks read the operands' values when they are integers (see ``prepare``).
CHECKS_VALUES_OF_INTEGERS = ("floordiv", "remainder", "pow")

# The Python numbers a plan can stand for: their promotion depends on their type alone.
PLAIN_NUMBERS = (int, float, bool)


def prepare(op: str, a: Any, b: Any) -> tuple[Tensor, Tensor, Tensor]:
    """Promote, check and broadcast the operands of ``op``; allocate the output.
    Returns ``(out, a, b)``, ready for ``dispatch.zip``."""
    tensors_of_one_dtype = isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is b.dtype
    if tensors_of_one_dtype:
        dtype, like = a.dtype, a  # the common case, without the general promotion rules
    else:
        for operand in (a, b):
            if not (isinstance(operand, Tensor) or is_number(operand)):
                raise TypeError(
                    f"{op}(): expected a Tensor or a number, but got {type(operand).__name__}"
                    + (" (convert it with minitorch.tensor(...))" if hasattr(operand, "__len__") else "")
                )
        a, b = python_number(a), python_number(b)
        like = a if isinstance(a, Tensor) else b
        dtype = result_type(a, b)
    scalar_op = ZIP_OPS[op]
    if scalar_op.returns_float and not dtype.is_floating_point:
        dtype = get_default_dtype()  # true division of integers gives floats
    if op in ("logical_and", "logical_or"):
        dtype = bool_
    if dtype is bool_ or op == "sub":
        _check_bool_operands(op, a, b, dtype)
    divisor = b  # (a number is checked as a number: no kernel, no read from a device)
    if not (tensors_of_one_dtype and a.dtype is dtype):  # numbers, casts: make operands
        a, b = as_operand(a, dtype, like), as_operand(b, dtype, like)
    if op in ("floordiv", "remainder") and not dtype.is_floating_point:
        if (divisor == 0 if is_number(divisor) else (b == 0).any()):  # SIGFPE in a CUDA kernel
            raise RuntimeError(
                f"ZeroDivisionError: integer {'//' if op == 'floordiv' else '%'} by zero"
            )
    if op == "pow" and not dtype.is_floating_point and dtype is not bool_:
        if (divisor < 0 if is_number(divisor) else (b < 0).any()):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    shape, (a, b) = broadcast_all(a, b)
    strides = result_strides(shape, (a, b))  # (None: contiguous, the usual case)
    out = Tensor._empty(shape, bool_ if scalar_op.returns_bool else dtype, like.device, strides)
    return out, a, b


def _is_bool(value: Any) -> bool:
    return value.dtype is bool_ if isinstance(value, Tensor) else isinstance(value, bool)


def _check_bool_operands(op: str, a: Any, b: Any, dtype: Any) -> None:
    """PyTorch refuses arithmetic that makes no sense on booleans."""
    if op == "sub" and (_is_bool(a) or _is_bool(b)):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if op == "pow" and not isinstance(b, Tensor):
        return  # PyTorch allows a bool tensor to a scalar power
    if op in ("floordiv", "remainder", "pow") and dtype is bool_:
        name = {"floordiv": "div_floor_cpu", "remainder": "remainder_cpu", "pow": "pow"}[op]
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\'')


class ZipPlan:
    """What ``prepare`` decided for one key: the result's ``shape``, ``out_dtype``,
    ``out_strides`` and element ``count``; ``operand_dtype``, the dtype a Python number
    operand becomes; ``run(out, a, b, out_offset, a_offset, b_offset)``, the kernel call
    for the layout; and ``empty``, the backend's allocator, with ``cells``, the NumPy
    dtype of the result's storage."""

    __slots__ = ("shape", "out_dtype", "out_strides", "count", "operand_dtype", "run", "empty", "cells")

    def __init__(self, op: str, out: Tensor, a: Tensor, b: Tensor) -> None:
        self.shape, self.out_dtype, self.out_strides = out._shape, out.dtype, out._strides
        self.count = new_tensor_layout(out._shape, out.dtype.itemsize)[0]
        self.operand_dtype = a.dtype
        device_type = out.device.type
        self.run = dispatch.plan("zip", op, device_type, out.dtype, a.dtype, out._shape, out._strides,
                                 a._strides, b._strides)  # fmt: skip
        self.empty, self.cells = dispatch.kernels_for(device_type).empty, out.dtype.numpy


def plan_key(op: str, a: Any, b: Any) -> tuple | None:
    """The key of ``op(a, b)``'s plan: the op, the backend, and each operand's dtype,
    shape and strides (a number: its type). ``None`` when no plan can stand for the
    call: no tensor operand, two devices, or a number of another type."""
    if isinstance(a, Tensor):
        backend = dispatch.active_backends[a.device.type]
        if isinstance(b, Tensor):
            if b.device is not a.device:
                return None
            return ("zip_op", op, backend, a.dtype, a._shape, a._strides, b.dtype, b._shape, b._strides)
        if type(b) in PLAIN_NUMBERS:
            return ("zip_op", op, backend, a.dtype, a._shape, a._strides, type(b))
        return None
    if isinstance(b, Tensor) and type(a) in PLAIN_NUMBERS:
        backend = dispatch.active_backends[b.device.type]
        return ("zip_op", op, backend, type(a), b.dtype, b._shape, b._strides)
    return None


def apply_zip(op: str, a: Any, b: Any) -> Tensor:
    """``out[i] = f(a[i], b[i])`` for a zip op of the scalar-op table (``op``), for
    tensors and numbers ``a`` and ``b``: the plan for their layouts, else ``prepare``."""
    key = plan_key(op, a, b)
    plan = dispatch_plans.remembered(key) if key is not None else None
    if plan is None:
        return _prepare_and_remember(key, op, a, b)
    a_is_tensor = isinstance(a, Tensor)
    like = a if a_is_tensor else b
    if not a_is_tensor:
        a = scalar_tensor(a, plan.operand_dtype, like)
    elif not isinstance(b, Tensor):
        b = scalar_tensor(b, plan.operand_dtype, like)
    try:
        storage = plan.empty(plan.count, plan.cells)
    except MemoryError as error:
        raise out_of_memory(plan.shape, plan.out_dtype.itemsize) from error
    out = Tensor._make(storage, plan.shape, plan.out_strides, 0, plan.out_dtype, like.device)
    plan.run(storage, a._storage, b._storage, 0, a._offset, b._offset)
    return out


def _prepare_and_remember(key: tuple | None, op: str, a: Any, b: Any) -> Tensor:
    """``op(a, b)`` through ``prepare``; its decisions are remembered as the plan for
    ``key`` when they depended on layouts alone (see the module's docstring)."""
    out, prepared_a, prepared_b = prepare(op, a, b)
    dispatch.zip(op, out, prepared_a, prepared_b)
    if key is not None and _decided_by_layouts(op, (a, b), (prepared_a, prepared_b)):
        dispatch_plans.remember(key, ZipPlan(op, out, prepared_a, prepared_b))
    return out


def _decided_by_layouts(op: str, operands: tuple, prepared: tuple) -> bool:
    """True when ``prepare`` turned ``operands`` into ``prepared`` without a cast (each
    tensor is read in its own storage, at most broadcast) and without reading values."""
    if op in CHECKS_VALUES_OF_INTEGERS and not prepared[0].dtype.is_floating_point:
        return False
    return all(
        not isinstance(given, Tensor) or (used._storage is given._storage and used._offset == given._offset)
        for given, used in zip(operands, prepared)
    )


def save_operands(ctx: FunctionCtx, a: Any, b: Any, *outputs: Tensor,
                  keep: tuple[bool, bool] = (True, True)) -> None:  # fmt: skip
    """Save what a backward needs: the tensor operands that ``keep`` asks for (and any
    ``outputs``) with ``save_for_backward``, and the Python numbers (a number is not a
    tensor and cannot be saved: ``x * 2`` remembers the 2 as ``ctx.numbers``)."""
    a_is_tensor, b_is_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    ctx.save_for_backward(a if keep[0] and a_is_tensor else None,
                          b if keep[1] and b_is_tensor else None, *outputs)  # fmt: skip
    ctx.numbers = (None if a_is_tensor else a, None if b_is_tensor else b)


def saved_operands(ctx: FunctionCtx) -> tuple:
    """``(a, b, *outputs)`` as ``save_operands`` kept them: each operand is its saved
    tensor, or its number (``None`` when neither was kept)."""
    saved = ctx.saved_tensors
    number_a, number_b = ctx.numbers
    a = saved[0] if saved[0] is not None else number_a
    b = saved[1] if saved[1] is not None else number_b
    return (a, b, *saved[2:]) if len(saved) > 2 else (a, b)


def apply_zip_into(op: str, t: Tensor, other: Any) -> bool:
    """``t op= other`` written by the kernel straight into ``t``'s storage, when that is
    the whole of the write: ``other`` (a tensor of ``t``'s dtype and device, in other
    storage, or a plain number of ``t``'s kind) broadcasts to ``t``'s shape, and ``t`` has
    no stretched (stride-0) dimension. An integer ``t`` takes ``+ - *`` of integers (its
    ``/`` gives floats, which an integer tensor cannot hold). Returns False, having done
    nothing, otherwise: then the caller takes the general recipe of
    ``minitorch/ops/inplace.py``, which raises PyTorch's errors where there are some."""
    floating = t.dtype.is_floating_point
    if not floating and (t.dtype is bool_ or op == "div"):
        return False
    if isinstance(other, Tensor):
        if other.dtype is not t.dtype or other.device is not t.device or other._storage is t._storage:
            return False
        key = ("zip_into", op, dispatch.active_backends[t.device.type], t.dtype, t._shape, t._strides,
               other._shape, other._strides)  # fmt: skip
    elif type(other) is int or (floating and type(other) is float):  # (a bool has rules of its own)
        key = ("zip_into", op, dispatch.active_backends[t.device.type], t.dtype, t._shape, t._strides, None)
        other = scalar_tensor(other, t.dtype, t)
    else:
        return False
    run = dispatch_plans.remembered(key)
    if run is None:
        if not _writable_in_place(t, other):
            return False
        operand = broadcast_view(other, t._shape)
        dispatch.zip(op, t, t, operand)
        dispatch_plans.remember(key, dispatch.plan("zip", op, t.device.type, t.dtype, t.dtype, t._shape,
                                                   t._strides, t._strides, operand._strides))  # fmt: skip
    else:
        run(t._storage, t._storage, other._storage, t._offset, t._offset, other._offset)
    t._bump_version()
    return True


def _writable_in_place(t: Tensor, other: Tensor) -> bool:
    """Whether ``t op= other`` can be one kernel writing into ``t``: each element of
    ``t`` in a cell of its own, and ``other`` no larger than ``t`` once broadcast."""
    if any(stride == 0 and size > 1 for size, stride in zip(t._shape, t._strides)):
        return False  # several elements in one cell: the general path raises PyTorch's error
    try:
        return broadcast_shapes(t._shape, other._shape) == t._shape
    except RuntimeError:
        return False
