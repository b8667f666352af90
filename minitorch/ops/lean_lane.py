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
do the shapes broadcast?         ``b`` has ``a``'s shape (or is  working out the common
                                 a number)                       shape
is anything recording calls?     no ``dispatch.trace()``, no     pushing the op's name
                                 capture, no ``MINITORCH_DEBUG`` for the trace
===============================  ==============================  ======================

When all four hold, the result is exactly what the general path computes (the same
dtype, strides and values: ``tests/core/test_lean_lane.py`` checks both against PyTorch),
so the lane allocates the output and calls the kernel at once::

    if b is a number: b = a 0-d tensor of a's dtype, viewed at a's shape (stride 0)
    out = a new tensor of a's shape, laid out like a (result_strides)
    dispatch.zip(op, out, a, b)

When any of them fails, ``lean_zip`` returns ``None`` and the op takes the general path:
a graph is recorded when one is needed, promotion and broadcasting happen as usual, and
a trace sees the op's name (``Add``) on every kernel call. The checks themselves cost a
fraction of a microsecond, so an op that cannot take the lane loses almost nothing.

Backward formulas run with grad mode off, so ``grad * b`` in a backward takes the lane
too, and so does an optimizer's ``lr * p.grad`` under ``no_grad``.
"""

from __future__ import annotations

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import thread_state as grad_mode_of_thread
from minitorch.dtypes import bool_
from minitorch.ops.common import broadcast_view, result_strides, scalar_tensor
from minitorch.scalar_ops import ZIP_OPS


def lean_zip(op: str, a: object, b: object) -> Tensor | None:
    """``op(a, b)`` through the lean lane, or ``None`` when the lane does not apply
    (then the caller takes the general path)."""
    if not (isinstance(a, Tensor) and a.dtype.is_floating_point and not dispatch.recording):
        return None
    shape = a._shape
    b_is_tensor = isinstance(b, Tensor)
    if b_is_tensor:
        if b._shape != shape or b.dtype is not a.dtype:
            return None
    elif type(b) is not float and type(b) is not int:  # (a bool has rules of its own)
        return None
    # Needs a gradient: as ``Function.apply`` asks it (a view's ``requires_grad`` may
    # first have to catch up with an in-place write to its base).
    if grad_mode_of_thread.mode.enabled and (
        a._requires_grad or (a._base is not None and a.requires_grad)
        or (b_is_tensor and (b._requires_grad or (b._base is not None and b.requires_grad)))
    ):  # fmt: skip
        return None
    if not b_is_tensor:  # a number: as the general path's ``as_operand`` and ``broadcast_all``
        b = broadcast_view(scalar_tensor(b, a.dtype, a), shape)
    strides = result_strides(shape, (a, b))  # laid out like ``a`` (or ``b``), as the general path
    out = Tensor._empty(shape, bool_ if ZIP_OPS[op].returns_bool else a.dtype, a.device, strides)
    return dispatch.zip(op, out, a, b)
