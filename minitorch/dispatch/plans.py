"""The plan cache: how a kernel call with a layout seen before runs at once.

A plan is made on a miss, from everything a call depends on except its storages and
offsets, and remembered here; the next call with the same key finds it with one
dictionary lookup and runs it.
"""

from __future__ import annotations

import functools
from typing import Any

from minitorch.backends import Strided
from minitorch.dispatch import tracing
from minitorch.dispatch.registry import active_backends, load_backend

# ``map``, ``zip``, ``reduce``, ``softmax``, ``matmul``, ``gather`` and ``scatter_add``, the
# primitives of every small op and layer (``gather``: a classification loss's pick of each sample's class;
# ``scatter_add``: its gradient), run through a *plan*, remembered per layout. A plan is a
# function ``run(out, a[, b], out_offset, a_offset[, b_offset])`` of the storages and
# offsets alone, made once for everything else a call depends on, which is its key:
#
#     (primitive, op, backend name, out's dtype, a's dtype, shape, strides of out, a[, b])
#     ("reduce", op, backend name, out's dtype, a's dtype, a's shape, dim, strides of out, a)
#     ("softmax", op, ...): the same, for ``softmax``/``log_softmax`` of each line along dim
#     ("matmul", "matmul", backend name, out's dtype, a's dtype, out's shape (B, n, m), k,
#      strides of out, a, b)
#     ("gather", "gather", backend name, out's dtype, a's dtype, out's shape, dim, a's shape,
#      strides of out, a, index)
#     ("scatter_add", "scatter_add", backend name, out's dtype, src's dtype, src's shape, dim,
#      out's shape, strides of out, index, src)
#
# The backend name is the one active for the device now (so ``set_backend`` or ``with
# backend(...)`` finds other plans), the dtypes and strides are read from the tensors on
# every call, and nothing else is kept: storages and offsets come with each call, so a
# plan never holds a tensor, and in-place writes, views of changed bases, or storage the
# allocator hands out again cannot make one stale. A plan is a pure function of its key,
# so all threads share them. A backend that offers runners (``map_runner``,
# ``zip_runner``, ``reduce_runner``, ``softmax_runner``, ``matmul_runner``, ``gather_runner``,
# ``scatter_add_runner``: the Numba backend) gives its own,
# which calls the kernel directly;
# otherwise the plan calls the primitive with ``Strided`` operands.
# (``tests/core/test_op_plans.py`` checks both, and when a plan is used.)

PLAN_CACHE_SIZE = 4096  # plans kept; a program making ever new layouts starts afresh
cache: dict[tuple, Any] = {}
made = 0  # how many plans were made: tests see whether a call found its plan


def make(key: tuple) -> Any:
    """The plan for ``key`` (see above), made and remembered."""
    primitive, op, backend_name, out_dtype, a_dtype, shape, *layout = key
    module = load_backend(backend_name)
    runner = getattr(module, primitive + "_runner", None)
    if runner is not None and module.takes_runner(out_dtype.numpy) and module.takes_runner(a_dtype.numpy):
        run = runner(op, shape, *layout)
    elif primitive == "reduce":  # (the layout starts with the reduced dim; out has size 1 there)
        dim, *all_strides = layout
        reduce_along = module.reduce

        def reduce_call(out: Strided, a: Strided) -> None:
            reduce_along(op, out, a, dim)

        run = _primitive_plan(reduce_call, (_reduced_shape(shape, dim), shape), all_strides)
    elif primitive == "softmax":  # (as a reduction's layout, but out has a's shape)
        dim, *all_strides = layout
        softmax_along = module.softmax

        def softmax_call(out: Strided, a: Strided) -> None:
            softmax_along(op, out, a, dim)

        run = _primitive_plan(softmax_call, (shape, shape), all_strides)
    elif primitive == "gather":  # (the layout starts with the dim and a's shape)
        dim, a_shape, *all_strides = layout
        gather_along = module.gather

        def gather_call(out: Strided, a: Strided, index: Strided) -> None:
            gather_along(out, a, dim, index)

        run = _primitive_plan(gather_call, (shape, a_shape, shape), all_strides)
    elif primitive == "scatter_add":  # (the layout starts with the dim and out's shape)
        dim, out_shape, *all_strides = layout
        scatter_along = module.scatter_add

        def scatter_call(out: Strided, index: Strided, src: Strided) -> None:
            scatter_along(out, dim, index, src)

        run = _primitive_plan(scatter_call, (out_shape, shape, shape), all_strides)
    elif primitive == "matmul":  # (the layout starts with the length of the sums)
        (depth, *all_strides), (batch, rows, cols) = layout, shape
        run = _primitive_plan(module.matmul, (shape, (batch, rows, depth), (batch, depth, cols)), all_strides)
    else:  # map, zip: every operand of one shape
        primitive_call = functools.partial(getattr(module, primitive), op)
        run = _primitive_plan(primitive_call, (shape,) * len(layout), layout)
    return remember(key, run)


def remember(key: tuple, plan: Any) -> Any:
    """Keep ``plan`` for ``key`` (starting afresh when the cache is full) and count it;
    returns ``plan``. While a trace or capture records nothing is kept: no plan is served
    then (``remembered``), so keeping one would only crowd the cache.
    Besides the kernel calls above, the ops layer keeps here what its readable code
    decided for a layout (``minitorch/ops/elementwise.py``: promotion, broadcasting, the
    output's layout), under keys that start with the op's path (``"zip_op"``)."""
    global made
    if tracing.recording:
        return plan
    if len(cache) >= PLAN_CACHE_SIZE:
        cache.clear()
    cache[key] = plan
    made += 1
    return plan


def remembered(key: tuple) -> Any:
    """The plan kept for ``key`` by ``remember``, or ``None``. Always ``None`` while a trace
    or capture records: then every kernel call goes through dispatch's primitives with
    its tensors, so that the trace sees each one (and the op's name on it)."""
    return None if tracing.recording else cache.get(key)


def _reduced_shape(shape: tuple, dim: int) -> tuple:
    """``shape`` with size 1 along ``dim`` (a 0-d input's output has shape ``(1,)``)."""
    return shape[:dim] + (1,) + shape[dim + 1 :]


def _primitive_plan(call: Any, shapes: tuple, all_strides: Any) -> Any:
    """A plan that calls the backend's primitive as ``call(out, a[, b])``, with ``Strided``
    operands of ``shapes`` and ``all_strides`` (out's first)."""
    count = len(shapes)

    def run(*storages_then_offsets: Any) -> None:
        storages, offsets = storages_then_offsets[:count], storages_then_offsets[count:]
        call(*[Strided(storages[i], shapes[i], all_strides[i], offsets[i]) for i in range(count)])

    return run


def plan(primitive: str, op: str, device_type: str, out_dtype: Any, a_dtype: Any, shape: tuple,
         *all_strides: tuple) -> Any:  # fmt: skip
    """The plan ``map`` or ``zip`` (``primitive``) would use for these operands on
    ``device_type`` now (strides of out, then of each input), for a plan of the ops layer
    (``minitorch/ops/elementwise.py``), which runs it while nothing records."""
    key = (primitive, op, active_backends[device_type], out_dtype, a_dtype, shape, *all_strides)
    return cache.get(key) or make(key)
