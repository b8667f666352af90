"""The lean lane: ``a + b`` on tensors that need no graph, with nothing else to decide.

Most of the time ``a + b`` costs on a small tensor is bookkeeping, not arithmetic: on a
10x10 float32 add the kernel itself is well under a microsecond, and the general path
(``Add.apply`` -> ``Add.forward`` -> ``prepare`` -> ``dispatch.zip``) spends several
more deciding things that, in the common case, have one answer:

===============================  ==============================  ======================
the general path asks            the lean lane's condition       so it skips
===============================  ==============================  ======================
does any input need a gradient?  grad mode is off, or no input   ``Function.apply``: the
                                 requires grad                   ctx, the graph node
what is the result's dtype?      ``a`` is a floating-point       promotion, casts, the
                                 tensor, ``b`` a tensor of its   bool and zero checks
                                 dtype or a Python int or float
do the shapes broadcast?         (asked once per pair of         working out the common
                                 layouts: the plan keeps it)     shape and views
is anything recording calls?     no ``dispatch.trace()``, no     pushing the op's name
                                 capture, no ``MINITORCH_DEBUG`` for the trace
===============================  ==============================  ======================

When all four hold, the result is exactly what the general path computes (the same
dtype, strides and values: ``tests/core/test_lean_lane.py`` checks both against PyTorch),
so the lane allocates the output and calls the kernel at once::

    if b is a number: b = a 0-d tensor of a's dtype (broadcast: read at every position)
    plan = the lane's plan for (op, backend, a's dtype, a's and b's shapes and strides)
    out = a new tensor of plan.shape and plan.out_dtype, laid out as plan.out_strides
    plan.run(out's storage, a's storage, b's storage, 0, a's offset, b's offset)

**Plans.** Everything but the storages and offsets is the same on every call with the
same key (the op, the backend active for the device, ``a``'s dtype, the shapes and strides
of ``a`` and ``b``; a number ``b`` is keyed as ``None``): the common shape, the output's
dtype and strides (``result_strides``: ``a``'s memory order), its element count, and the
kernel call for that layout with each operand's broadcast strides (``dispatch.plan``: the
merged layout, which kernel). Shapes that do not broadcast get no plan: the general path
raises PyTorch's error. So the lane works them
out on the first call and remembers them in a ``ZipPlan``; a later call with the same key
reads the strides and dtype off the tensors, finds its plan with one dictionary lookup,
allocates and runs. A plan holds no tensor and no storage, so nothing can make it stale:
an in-place write changes values, not layouts; a view whose base changed still has its
own strides and offset, read on each call; storage the allocator hands out again is just
the storage passed on that call; a tensor whose ``data`` was replaced has new fields,
read on each call; another backend (``set_backend``) or dtype is another key. A plan is a
pure function of its key, so every thread shares them (grad mode and recording, which
are per thread, are asked on every call). ``plans_made`` counts the plans made, so tests
can tell whether a call found one.

When any of them fails, ``lean_zip`` returns ``None`` and the op takes the general path:
a graph is recorded when one is needed, promotion and broadcasting happen as usual, and
a trace sees the op's name (``Add``) on every kernel call. The checks themselves cost a
fraction of a microsecond, so an op that cannot take the lane loses almost nothing.

``add``, ``sub``, ``mul``, ``div`` and ``pow`` (``a ** 2``: PyTorch's tutorials square and
cube inputs that need no gradient) ask the lane first, and so do the fused derivatives of
``minitorch/ops/unary.py``. So does their ``Function.forward`` when a graph *is* recorded
(``apply_zip`` in ``binary.py``): ``Function.apply`` runs a forward with grad mode off, so
there the lane only asks about dtypes and layouts, and ``w * x`` with ``w`` a parameter
skips the promotion and broadcasting of ``prepare`` too. Backward formulas run with grad
mode off, so ``grad * b`` in a backward takes the lane too, and so does an optimizer's
``lr * p.grad`` under ``no_grad``.

In-place updates take a lane of their own, ``lean_zip_into``: ``p.sub_(lr * p.grad)``
under ``no_grad`` (an optimizer's step written by hand) finds a plan for the layouts of
``p`` and the operand and writes the kernel's result straight into ``p``'s storage.

The same question, "does this call record anything?", is ``records_nothing``: when the
answer is no, ``transpose`` makes its view at once and ``matmul`` of two matrices calls its
kernel at once (``grad @ w.mT`` in ``Linear``'s backward), without ``Function.apply``.
"""

from __future__ import annotations

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import thread_state as grad_mode_of_thread
from minitorch.dispatch import tracing as dispatch_tracing  # ``recording``: is a trace or capture open?
from minitorch.dtypes import bool_
from minitorch.layout import broadcast_shapes, new_tensor_layout, out_of_memory
from minitorch.ops.common import broadcast_view, result_strides, scalar_tensor
from minitorch.scalar_ops import ZIP_OPS


class ZipPlan:
    """What one key (see above) always gives: the result's shape, dtype, strides and
    element count, ``run(out, a, b, out_offset, a_offset, b_offset)``, the kernel call
    for the layout (each operand read through its broadcast strides), and ``empty``, the
    backend's allocator, with ``cells``, the NumPy dtype of the result's storage."""

    __slots__ = ("shape", "out_dtype", "out_strides", "count", "run", "empty", "cells")

    def __init__(self, op: str, a: Tensor, b: Tensor) -> None:
        self.shape = shape = broadcast_shapes(a._shape, b._shape)  # (raises if they do not)
        a, b = broadcast_view(a, shape), broadcast_view(b, shape)  # stride 0 where stretched
        self.out_dtype = bool_ if ZIP_OPS[op].returns_bool else a.dtype
        self.count, contiguous = new_tensor_layout(shape, self.out_dtype.itemsize)
        dense = result_strides(shape, (a, b))  # laid out like ``a`` (or ``b``), as the general path
        self.out_strides = contiguous if dense is None else dense
        self.run = dispatch.plan("zip", op, a.device.type, self.out_dtype, a.dtype, shape,
                                 self.out_strides, a._strides, b._strides)  # fmt: skip
        self.empty, self.cells = dispatch.kernels_for(a.device.type).empty, self.out_dtype.numpy


PLAN_CACHE_SIZE = 4096  # plans kept; a program making ever new layouts starts afresh
_plans: dict[tuple, ZipPlan] = {}
plans_made = 0


def lean_zip(op: str, a: object, b: object) -> Tensor | None:
    """``op(a, b)`` through the lean lane, or ``None`` when the lane does not apply
    (then the caller takes the general path)."""
    if not (isinstance(a, Tensor) and a.dtype.is_floating_point and not dispatch_tracing.recording):
        return None
    b_is_tensor = isinstance(b, Tensor)
    # Needs a gradient: as ``Function.apply`` asks it (a view's ``requires_grad`` may
    # first have to catch up with an in-place write to its base). (``records_nothing``,
    # below, for both operands, written out: this runs for every small op.)
    if grad_mode_of_thread.mode.enabled and (
        a._requires_grad or (a._base is not None and a.requires_grad)
        or (b_is_tensor and (b._requires_grad or (b._base is not None and b.requires_grad)))
    ):  # fmt: skip
        return None
    if b_is_tensor:
        if b.dtype is not a.dtype or b.device is not a.device:
            return None  # (two devices: the general path says so)
    elif type(b) is not float and type(b) is not int:  # (a bool has rules of its own)
        return None
    device = a.device
    if b_is_tensor:
        key = (op, dispatch.active_backends[device.type], a.dtype, a._shape, a._strides, b._shape, b._strides)
    else:  # a number: a 0-d tensor of a's dtype, as the general path's ``as_operand``,
        b = scalar_tensor(b, a.dtype, a)  # read at every position (stride 0)
        key = (op, dispatch.active_backends[device.type], a.dtype, a._shape, a._strides, None, None)
    plan = _plans.get(key) or _new_plan(key, op, a, b)
    if plan is None:  # shapes that do not broadcast: the general path raises PyTorch's error
        return None
    # The output, as ``Tensor._empty`` makes it, with the allocator the plan keeps.
    try:
        storage = plan.empty(plan.count, plan.cells)
    except MemoryError as error:
        raise out_of_memory(plan.shape, plan.out_dtype.itemsize) from error
    out = object.__new__(Tensor)  # (``Tensor._make``, inlined)
    out._init(storage, plan.shape, plan.out_strides, 0, plan.out_dtype, device)
    plan.run(storage, a._storage, b._storage, 0, a._offset, b._offset)
    return out


def lean_zip_into(op: str, t: Tensor, other: object) -> bool:
    """``t op= other`` (``t.sub_(other)``, an optimizer's update under ``no_grad``) through
    the lean lane: the kernel writes straight into ``t``'s storage. Returns False, having
    done nothing, when the lane does not apply; the caller then takes ``zip_into``'s path.

    The lane's conditions, plus what an in-place write needs: grad mode off (nothing to
    record, no leaf to protect), ``other`` in separate storage (no overlap to copy out
    first), and a plan found for the layouts, which exists only when ``other`` broadcasts
    to ``t``'s shape and ``t`` has no stretched (stride-0) dimension to write through."""
    if grad_mode_of_thread.mode.enabled or dispatch_tracing.recording:
        return False
    if not (isinstance(t, Tensor) and t.dtype.is_floating_point):
        return False
    if isinstance(other, Tensor):
        if other.dtype is not t.dtype or other.device is not t.device or other._storage is t._storage:
            return False
        key = ("into", op, dispatch.active_backends[t.device.type], t.dtype, t._shape, t._strides,
               other._shape, other._strides)  # fmt: skip
    elif type(other) is float or type(other) is int:
        key = ("into", op, dispatch.active_backends[t.device.type], t.dtype, t._shape, t._strides, None, None)
        other = scalar_tensor(other, t.dtype, t)
    else:
        return False
    run = _plans.get(key) or _new_plan_into(key, op, t, other)
    if run is None:
        return False
    run(t._storage, t._storage, other._storage, t._offset, t._offset, other._offset)
    t._bump_version()
    return True


def _new_plan_into(key: tuple, op: str, t: Tensor, other: Tensor) -> object:
    """The kernel call of ``t op= other`` for these layouts, remembered; ``None`` (not
    remembered) when the write cannot be made in place this way."""
    if any(stride == 0 and size > 1 for size, stride in zip(t._shape, t._strides)):
        return None  # several elements in one cell: the general path raises PyTorch's error
    try:
        if broadcast_shapes(t._shape, other._shape) != t._shape:
            return None  # the result would be larger than ``t``
    except RuntimeError:
        return None
    operand = broadcast_view(other, t._shape)
    run = dispatch.plan("zip", op, t.device.type, t.dtype, t.dtype, t._shape, t._strides, t._strides,
                        operand._strides)  # fmt: skip
    return _remember(key, run)


def records_nothing(t: Tensor) -> bool:
    """True when an op on ``t`` alone records nothing: no trace or capture, and grad mode
    off or ``t`` needing no gradient (as ``Function.apply`` asks). A view op such as
    ``transpose`` then makes its view at once: in a backward formula (``grad @ w.mT``) it
    runs with grad mode off, so there ``Function.apply`` would only add its bookkeeping."""
    return not dispatch_tracing.recording and not (
        grad_mode_of_thread.mode.enabled and (t._requires_grad or (t._base is not None and t.requires_grad))
    )


def nothing_records() -> bool:
    """True when no op can record anything now: grad mode off (a backward formula without
    ``create_graph``, or ``no_grad``) and no trace or capture. A backward formula may then
    call kernels and make views at once (``Addmm``'s backward)."""
    return not grad_mode_of_thread.mode.enabled and not dispatch_tracing.recording


def _new_plan(key: tuple, op: str, a: Tensor, b: Tensor) -> ZipPlan | None:
    """The plan for ``key``, made and remembered; ``None`` (not remembered) when the
    shapes of ``a`` and ``b`` do not broadcast."""
    try:
        plan = ZipPlan(op, a, b)
    except RuntimeError:
        return None
    return _remember(key, plan)


def _remember(key: tuple, plan: object) -> object:
    """Keep ``plan`` for ``key`` (starting afresh when the cache is full) and count it."""
    global plans_made
    if len(_plans) >= PLAN_CACHE_SIZE:
        _plans.clear()
    _plans[key] = plan
    plans_made += 1
    return plan
