"""Dispatch: choose the kernel for each call, and record what ran.

Every operation on tensors ends in a call to one of the *primitives* below (``map``,
``zip``, ``where``, ``reduce``, ``arg_reduce``, ``matmul``, ``gather``,
``scatter_add``; and, whole lines or matrices at a time, ``scan``, ``softmax``,
``log_softmax_backward``, ``sort``, ``lu_factor``, ``lu_solve``, ``svd``). Dispatch is the
only place that knows backends exist. For each call it

1. checks that all tensors live on one device (else PyTorch's ``RuntimeError``);
2. picks the backend chosen for that device (``set_backend`` / ``with backend(...)``);
3. hands the kernel plain ``Strided`` operands (storage, shape, strides, offset);
4. when tracing is on, records the call: op, primitive, backend, dtype, shapes,
   strides, contiguity and time. The dispatch viewer and the notebooks read these.

Set ``MINITORCH_DEBUG=1`` to print each call to stderr (``=2`` adds the strides).

    >>> with minitorch.dispatch.trace() as calls:
    ...     y = x.exp() + 1
    >>> [c.primitive for c in calls]
    ['map', 'zip']
The package, one concept a file:

* ``registry.py``: which backend runs each device (``set_backend``, ``kernels_for``) and
  the ``Strided`` operands a kernel is handed;
* ``storage.py``: allocating, filling, reading and checking device storage;
* ``tracing.py``: the ``recording`` flag, ``trace()``, captures, ``MINITORCH_DEBUG``;
* ``plans.py``: the one plan cache, which runs a call with a known layout at once;
* this file: the primitives themselves.
"""

from __future__ import annotations

import importlib
from typing import Any

from minitorch.backends import FusedStep, Strided
from minitorch.dispatch import tracing
from minitorch.dispatch.plans import cache as plan_cache
from minitorch.dispatch.plans import make as make_plan
from minitorch.dispatch.plans import plan
from minitorch.dispatch.registry import (
    BACKENDS,
    DEFAULT_BACKEND,
    _backend,
    _strided,
    active_backends,
    backend,
    get_backend,
    kernels_for,
    load_backend,
    set_backend,
)  # fmt: skip
from minitorch.dispatch.storage import (
    check_values,
    empty,
    from_numpy,
    refuse_in_capture,
    to_numpy,
    validate,
)  # fmt: skip
from minitorch.dispatch.tracing import (
    DispatchRecord,
    DispatchTrace,
    capturing,
    capturing_now,
    op_context,
    record_replayed,
    set_debug,
    thread_state,
    trace,
)  # fmt: skip

# What the rest of minitorch calls: the primitives below and, from the modules beside
# this one, the names that were always ``dispatch.<name>``.
__all__ = [
    "BACKENDS", "DEFAULT_BACKEND", "DispatchRecord", "DispatchTrace", "FusedStep", "Strided",
    "active_backends", "arg_reduce", "backend", "capturing", "capturing_now", "check_values",
    "compile_fused", "empty", "from_numpy", "gather", "get_backend", "has_primitive",
    "kernel_function", "kernels_for", "load_backend", "log_softmax_backward", "lu_factor", "lu_solve",
    "map", "matmul", "op_context", "optimizer_step", "plan", "record_replayed", "reduce",
    "refuse_in_capture", "scan", "scatter_add", "set_backend", "set_debug", "softmax", "sort", "svd",
    "thread_state", "to_numpy", "trace", "validate", "where", "zip",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    """``dispatch.recording`` (and the debug level) live in ``tracing``, which changes
    them; ``dispatch.plans_made`` is the plan cache's count. Read here, they are read there."""
    if name in ("recording", "_debug"):
        return getattr(tracing, name)
    if name == "plans_made":
        from minitorch.dispatch import plans

        return plans.made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------------------
# The primitives
# --------------------------------------------------------------------------------------


def map(op: str, out: Any, a: Any) -> Any:  # noqa: A001 (the primitive's name)
    if tracing.recording:
        return tracing.run_recorded("map", op, out, (a,), (op, out, a))
    device = out.device
    if a.device is not device:
        _backend(out, (a,))  # (raises for two devices)
    key = ("map", op, active_backends[device.type], out.dtype, a.dtype, out._shape, out._strides, a._strides)
    run = plan_cache.get(key) or make_plan(key)
    run(out._storage, a._storage, out._offset, a._offset)
    return out


def zip(op: str, out: Any, a: Any, b: Any) -> Any:  # noqa: A001
    if tracing.recording:
        return tracing.run_recorded("zip", op, out, (a, b), (op, out, a, b))
    device = out.device
    if a.device is not device or b.device is not device:
        _backend(out, (a, b))  # (raises for two devices)
    key = ("zip", op, active_backends[device.type], out.dtype, a.dtype, out._shape, out._strides, a._strides,
           b._strides)  # fmt: skip
    run = plan_cache.get(key) or make_plan(key)
    run(out._storage, a._storage, b._storage, out._offset, a._offset, b._offset)
    return out


def where(out: Any, cond: Any, a: Any, b: Any) -> Any:
    if tracing.recording:
        return tracing.run_recorded("where", "where", out, (cond, a, b), (out, cond, a, b))
    _backend(out, (cond, a, b)).where(_strided(out), _strided(cond), _strided(a), _strided(b))
    return out


def reduce(op: str, out: Any, a: Any, dim: int) -> Any:
    """Fold each line of ``a`` along ``dim`` into ``out`` (size 1 there)."""
    return _along("reduce", op, out, a, dim)


def _along(primitive: str, op: str, out: Any, a: Any, dim: int) -> Any:
    """``reduce`` and ``softmax``: a primitive over the lines of ``a`` along ``dim``, run
    through a plan keyed by ``a``'s shape and ``dim`` (``out`` has size 1 there, or
    ``a``'s shape)."""
    if tracing.recording:
        return tracing.run_recorded(primitive, op, out, (a,), (op, out, a, dim))
    device = out.device
    if a.device is not device:
        _backend(out, (a,))  # (raises for two devices)
    key = (primitive, op, active_backends[device.type], out.dtype, a.dtype, a._shape, dim, out._strides,
           a._strides)  # fmt: skip
    run = plan_cache.get(key) or make_plan(key)
    run(out._storage, a._storage, out._offset, a._offset)
    return out


def arg_reduce(op: str, out: Any, a: Any, dim: int) -> Any:
    if tracing.recording:
        return tracing.run_recorded("arg_reduce", op, out, (a,), (op, out, a, dim))
    _backend(out, (a,)).arg_reduce(op, _strided(out), _strided(a), dim)
    return out


def matmul(out: Any, a: Any, b: Any) -> Any:
    """``out = a @ b`` for 3-D operands ``[B, n, k] @ [B, k, m]``, or for two matrices
    ``[n, k] @ [k, m]``, which the kernel takes as their batch of one: the same elements
    with a batch stride that is never stepped along. Every product's one way to its kernel."""
    if len(out._shape) == 2:
        if tracing.recording:  # a trace or capture sees the kernel's own 3-D operands
            out3, a3, b3 = (t._view((1, *t._shape), (t._shape[0] * t._shape[1], *t._strides), t._offset)
                            for t in (out, a, b))  # fmt: skip
            tracing.run_recorded("matmul", "matmul", out3, (a3, b3), (out3, a3, b3), matrices=True)
            return out
        (n, m), k = out._shape, a._shape[1]
        shape, strides = (1, n, m), ((n * m, *out._strides), (n * k, *a._strides), (k * m, *b._strides))
    else:
        if tracing.recording:
            return tracing.run_recorded("matmul", "matmul", out, (a, b), (out, a, b))
        shape, strides, k = out._shape, (out._strides, a._strides, b._strides), a._shape[2]
    device = out.device
    if a.device is not device or b.device is not device:
        _backend(out, (a, b))  # (raises for two devices)
    # A plan too, keyed by out's shape ``(B, n, m)`` and the length of the sums (``k``).
    key = ("matmul", "matmul", active_backends[device.type], out.dtype, a.dtype, shape, k, *strides)
    run = plan_cache.get(key) or make_plan(key)
    run(out._storage, a._storage, b._storage, out._offset, a._offset, b._offset)
    return out


def gather(out: Any, a: Any, dim: int, index: Any) -> Any:
    if tracing.recording:
        return tracing.run_recorded("gather", "gather", out, (a, index), (out, a, dim, index))
    device = out.device
    if a.device is not device or index.device is not device:
        _backend(out, (a, index))  # (raises for two devices)
    # A plan too, keyed by out's shape (the index's), the dim and a's shape.
    key = ("gather", "gather", active_backends[device.type], out.dtype, a.dtype, out._shape, dim, a._shape,
           out._strides, a._strides, index._strides)  # fmt: skip
    run = plan_cache.get(key) or make_plan(key)
    run(out._storage, a._storage, index._storage, out._offset, a._offset, index._offset)
    return out


def scatter_add(out: Any, dim: int, index: Any, src: Any) -> Any:
    if tracing.recording:
        return tracing.run_recorded("scatter_add", "scatter_add", out, (index, src), (out, dim, index, src))
    device = out.device
    if index.device is not device or src.device is not device:
        _backend(out, (index, src))  # (raises for two devices)
    # A plan too, keyed by src's shape (the index's), the dim and out's shape.
    key = ("scatter_add", "scatter_add", active_backends[device.type], out.dtype, src.dtype, src._shape, dim,
           out._shape, out._strides, index._strides, src._strides)  # fmt: skip
    run = plan_cache.get(key) or make_plan(key)
    run(out._storage, index._storage, src._storage, out._offset, index._offset, src._offset)
    return out


def scan(op: str, out: Any, a: Any, dim: int) -> Any:
    if tracing.recording:
        return tracing.run_recorded("scan", op, out, (a,), (op, out, a, dim))
    _backend(out, (a,)).scan(op, _strided(out), _strided(a), dim)
    return out


def softmax(op: str, out: Any, a: Any, dim: int) -> Any:
    """Each line of ``a`` along ``dim`` as probabilities (``"softmax"``) or their logs
    (``"log_softmax"``): one pass per line, where the ops would take a max, a subtraction,
    an ``exp``, a sum and a division (or a ``log``) over the whole tensor."""
    return _along("softmax", op, out, a, dim)


def log_softmax_backward(out: Any, grad: Any, y: Any, dim: int) -> Any:
    """The gradient of ``y = log_softmax(x)`` for the gradient ``grad`` arriving at ``y``:
    each line along ``dim`` becomes ``grad - exp(y) * sum(grad)``, one pass per line
    where the ops would take a sum, an ``exp``, a product and a subtraction."""
    if tracing.recording:
        args = (out, grad, y, dim)
        return tracing.run_recorded("log_softmax_backward", "log_softmax", out, (grad, y), args)
    _backend(out, (grad, y)).log_softmax_backward(_strided(out), _strided(grad), _strided(y), dim)
    return out


# Sorting and the matrix factorisations: whole lines or matrices at a time, not elements.


def sort(values: Any, indices: Any, a: Any, dim: int, descending: bool) -> Any:
    if tracing.recording:
        args = (values, indices, a, dim, descending)
        return tracing.run_recorded("sort", "sort", values, (indices, a), args)
    _backend(values, (indices, a)).sort(_strided(values), _strided(indices), _strided(a), dim, descending)
    return values


def lu_factor(lu: Any, pivots: Any) -> Any:
    if tracing.recording:
        return tracing.run_recorded("lu_factor", "lu_factor", lu, (), (lu, pivots))
    _backend(lu, ()).lu_factor(_strided(lu), _strided(pivots))
    return lu


def lu_solve(x: Any, lu: Any, pivots: Any) -> Any:
    if tracing.recording:
        return tracing.run_recorded("lu_solve", "lu_solve", x, (lu, pivots), (x, lu, pivots))
    _backend(x, (lu, pivots)).lu_solve(_strided(x), _strided(lu), _strided(pivots))
    return x


def svd(u: Any, s: Any, vh: Any, a: Any) -> Any:
    if tracing.recording:
        return tracing.run_recorded("svd", "svd", s, (a,), (u, s, vh, a))
    _backend(s, (a,)).svd(_strided(u), _strided(s), _strided(vh), _strided(a))
    return s


def kernel_function(primitive: str, device_type: str) -> Any:
    """The active backend's function for ``primitive`` on ``device_type``, to be called
    with ``Strided`` operands: what the replay of a captured graph calls
    (``minitorch/compiler/replay.py``), skipping the per-call work above."""
    return getattr(kernels_for(device_type), primitive)


# Backends that generate fused elementwise kernels, and the module that does it (for the
# compiler's fusion pass, ``minitorch/compiler/passes/fusion.py``).
FUSED_KERNELS = {"numba": "minitorch.backends.numba.fused_kernels",
                 "cuda": "minitorch.backends.cuda.fused_kernels"}  # fmt: skip


def compile_fused(device_type: str, steps: tuple[FusedStep, ...], input_dtypes: list[str],
                  shape: tuple[int, ...], strides: list[tuple[int, ...]]) -> Any:  # fmt: skip
    """One kernel for a chain of elementwise ``steps`` (``backends.FusedStep``), generated
    and compiled by the backend running ``device_type``: ``(kernel, source)``, called
    ``kernel(out, *inputs)`` with ``Strided`` operands of the given layouts. None when
    that backend has no fused kernels (the reference backends) or not for these dtypes."""
    module = FUSED_KERNELS.get(active_backends[device_type])
    if module is None:
        return None
    return importlib.import_module(module).compile_fused(steps, input_dtypes, shape, strides)


def has_primitive(name: str, device_type: str) -> bool:
    """Whether the backend running ``device_type`` has primitive ``name`` (for the
    optional ones, such as ``optimizer_step``)."""
    return hasattr(kernels_for(device_type), name)


def optimizer_step(rule: str, params: list, grads: list, states: tuple[list, ...], scalars: list,
                   scalars_again: Any = None) -> None:  # fmt: skip
    """One kernel call updates every parameter in ``params`` (one device and dtype) with
    the element rule ``rule`` ("sgd", "adam"): ``minitorch/backends/reference_optimizer.py``.
    ``scalars_again()`` gives the numbers of a later step (for a compiled replay)."""
    others = tuple(t for group in (grads, *states) for t in group) + tuple(params[1:])
    args = (rule, params, grads, states, scalars)
    if tracing.recording:
        return tracing.run_recorded("optimizer_step", rule, params[0], others, args, scalars_again)
    _backend(params[0], others).optimizer_step(  # (the tensors as Strided; scalars as they are)
        rule, [_strided(p) for p in params], [_strided(g) for g in grads],
        tuple([_strided(t) for t in state] for state in states), scalars)  # fmt: skip
    return params[0]
