"""Dispatch: choose the kernel for each call, and record what ran.

Every operation on tensors ends in a call to one of the *primitives* below (``map``,
``zip``, ``where``, ``reduce``, ``arg_reduce``, ``matmul``, ``gather``,
``scatter_add``; and, whole lines or matrices at a time, ``scan``, ``sort``, ``lu_factor``,
``lu_solve``, ``svd``). Dispatch is the only place that knows backends exist. For each call it

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
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from minitorch import backends
from minitorch.backends import FusedStep, Strided, compile_time
from minitorch.layout import is_contiguous, numel

# name -> (module, device type). Modules are imported on first use.
BACKENDS: dict[str, tuple[str, str]] = {
    "reference": ("minitorch.backends.reference", "cpu"),
    "numba": ("minitorch.backends.numba", "cpu"),
    "numba_simple": ("minitorch.backends.numba_simple", "cpu"),
    "cuda": ("minitorch.backends.cuda", "cuda"),
}
DEFAULT_BACKEND = {"cpu": os.environ.get("MINITORCH_CPU_BACKEND", "numba"), "cuda": "cuda"}

# device type -> the name of the backend running it now (``set_backend`` changes it; the
# lean lane, ``minitorch/ops/lean_lane.py``, keys its plans by it, as ``map`` and ``zip``
# below key theirs)
active_backends: dict[str, str] = dict(DEFAULT_BACKEND)
_loaded: dict[str, ModuleType] = {}


def load_backend(name: str) -> ModuleType:
    """The backend module called ``name`` (imported on first use)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {sorted(BACKENDS)}")
    if name not in _loaded:
        _loaded[name] = importlib.import_module(BACKENDS[name][0])
    return _loaded[name]


def set_backend(device: str, name: str) -> None:
    """Use backend ``name`` for every later call on ``device`` ("cpu" or "cuda").

    >>> minitorch.set_backend("cpu", "reference")   # the plain-Python loops
    """
    device_type = str(device).split(":")[0]
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {sorted(BACKENDS)}")
    if BACKENDS[name][1] != device_type:
        raise ValueError(f"backend {name!r} runs on {BACKENDS[name][1]!r}, not {device_type!r}")
    load_backend(name)
    active_backends[device_type] = name


def get_backend(device: str = "cpu") -> str:
    """The name of the backend currently used for ``device``."""
    return active_backends[str(device).split(":")[0]]


@contextlib.contextmanager
def backend(name: str, device: str | None = None) -> Iterator[None]:
    """Use backend ``name`` inside a ``with`` block, then restore the previous one."""
    device_type = device or BACKENDS.get(name, (None, "cpu"))[1]
    previous = get_backend(device_type)
    set_backend(device_type, name)
    try:
        yield
    finally:
        active_backends[device_type] = previous


def kernels_for(device_type: str) -> ModuleType:
    """The backend module that runs calls on ``device_type``."""
    name = active_backends[device_type]
    module = _loaded.get(name)  # every kernel call and allocation asks: one lookup
    return module if module is not None else load_backend(name)


# --------------------------------------------------------------------------------------
# Storage on a device
# --------------------------------------------------------------------------------------


def empty(count: int, numpy_dtype: Any, device_type: str) -> Any:
    module = _loaded.get(active_backends[device_type])  # ``kernels_for``, inlined: every op allocates
    storage = (module or kernels_for(device_type)).empty(count, numpy_dtype)
    if recording:
        for recorder in _my_captures():
            recorder.allocated(storage, device_type)
    return storage


def from_numpy(array: Any, device_type: str, non_blocking: bool = False) -> Any:
    """Device storage holding a copy of the 1-D host ``array``; ``non_blocking`` (CUDA
    only) queues the copy on the current stream."""
    module = kernels_for(device_type)
    storage = module.from_numpy(array, non_blocking=True) if non_blocking else module.from_numpy(array)
    if recording:
        for recorder in _my_captures():
            recorder.constant(storage, device_type, array)
    return storage


def to_numpy(storage: Any, device_type: str) -> Any:
    if recording:
        for recorder in _my_captures():
            recorder.host_read(storage)
    return kernels_for(device_type).to_numpy(storage)


def validate(t: Any, check: Any) -> Any:
    """Return ``check(values)`` on a host copy of ``t``'s values: it raises for bad input
    (an index out of range) before a kernel trusts it, and may answer a question the op
    needs (are all targets counted?). Under ``minitorch.compile`` the check is recorded
    too: a replay checks each new input the same way, and captures again if the answer
    differs."""
    answer = check_values(_strided(t), t.device.type, check)
    if recording:
        for recorder in _my_captures():
            recorder.validation(t, check, answer)
    return answer


def check_values(operand: Strided, device_type: str, check: Any) -> Any:
    """``check(values)`` on a read-only host view of ``operand``'s elements."""
    import numpy as np  # (NumPy is imported by then; kept out of dispatch's own imports)

    values = kernels_for(device_type).to_numpy(operand.storage)
    if is_contiguous(operand.shape, operand.strides):  # (the usual index or target: cheaper)
        count = numel(operand.shape)
        values = values[operand.offset : operand.offset + count].reshape(operand.shape)
        values.flags.writeable = False
        return check(values)
    itemsize = values.itemsize
    return check(np.lib.stride_tricks.as_strided(values[operand.offset :], operand.shape,
                                                 tuple(s * itemsize for s in operand.strides),
                                                 writeable=False))  # fmt: skip


def refuse_in_capture(what: str) -> None:
    """Called by code whose result a captured graph could not replay (random numbers)."""
    if recording:
        for recorder in _my_captures():
            recorder.refuse(what)


# --------------------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------------------


@dataclass
class DispatchRecord:
    """One dispatched kernel call, as the dispatch viewer shows it."""

    op: str  # the user-facing operation (e.g. "Mul" or "SumBackward")
    phase: str  # "forward" or "backward"
    primitive: str  # map, zip, reduce, ...
    kernel: str  # the scalar op inside the primitive (exp, add...) or the primitive
    backend: str
    device: str
    dtype: str
    shapes: tuple[tuple[int, ...], ...]  # output first, then inputs
    strides: tuple[tuple[int, ...], ...]
    contiguous: tuple[bool, ...]
    path: str  # "contiguous" when every operand is contiguous, else "strided"
    seconds: float  # the kernel's own time, without compiling it
    # The op stack when the kernel ran, outermost first: one (name, phase) tuple per op
    # call (a new tuple each call, so the profiler counts calls and nests ops by them).
    frames: tuple = ()
    # The time this call spent compiling its kernel (first use only, else 0), kept apart
    # from ``seconds``: ``minitorch/backends/compile_time.py``.
    compile_seconds: float = 0.0
    # When the host issued the call (``time.perf_counter()``), and the work it queued on
    # device streams: a CUDA launch returns at once, and each queued ``Work`` gets its
    # ``start`` and ``end`` when its stream runs it (``minitorch/backends/cuda/streams.py``).
    issued: float = 0.0
    launches: tuple = ()
    # True for the product of two matrices (``x @ w``): the kernel ran on their batch of
    # one, ``[1, n, k] @ [1, k, m]``, so each of ``shapes`` and ``strides`` starts with a
    # batch dimension the student never wrote (the dispatch viewer shows it as such).
    matrices: bool = False

    @property
    def kernel_seconds(self) -> float:
        """The time the kernel itself ran: on the CPU the call's own ``seconds`` (the
        kernel ran inside it); on a CUDA stream, from its start to its end there, after
        the call had returned (read it and you wait for the stream, as a host read does)."""
        if not self.launches:
            return self.seconds
        for work in self.launches:
            work.finished.wait()
        return sum(work.end - work.start for work in self.launches)


class DispatchTrace(list):
    """The records of one ``trace()`` block, with totals per op and per backend."""

    def totals(self, key: str = "op") -> dict[str, tuple[int, float]]:
        """``{key value: (number of calls, total seconds)}``, e.g. ``key="backend"``."""
        result: dict[str, tuple[int, float]] = {}
        for record in self:
            count, seconds = result.get(getattr(record, key), (0, 0.0))
            result[getattr(record, key)] = (count + 1, seconds + record.kernel_seconds)
        return result


class _ThreadState(threading.local):
    """What dispatch keeps per thread: the stack of user-facing ops whose kernels are
    running (``Function.apply`` pushes ``(op name, phase)`` around each forward and
    backward), so a kernel call is named after the op of *its own* thread."""

    def __init__(self) -> None:
        self.op_stack: list[tuple[str, str]] = []


thread_state = _ThreadState()

# The open ``trace()`` blocks, as (thread id, records): a block records the calls made by
# the thread that opened it, so a Playground training in another thread does not show
# up in a notebook's trace. The tuple is replaced, never changed in place, so a kernel
# call in one thread can read it while another thread opens or closes a block.
_traces: tuple[tuple[int, DispatchTrace], ...] = ()
_traces_lock = threading.Lock()
_debug = backends.debug_level  # MINITORCH_DEBUG, read once in minitorch/backends/__init__.py

# The open captures of ``minitorch.compile`` (``minitorch/compiler/capture.py``), as
# (thread id, recorder): each is told every kernel call, allocation and host read of the
# thread that opened it, and builds a static graph from them. Replaced, never changed.
_captures: tuple[tuple[int, Any], ...] = ()

# True while some thread has a ``trace()`` block or a capture open, or ``MINITORCH_DEBUG``
# is on: only then are the kernel calls timed and recorded, and only then does
# ``Function.apply`` push its op's name on ``thread_state.op_stack``. Off (the usual
# case), a kernel call costs no bookkeeping at all.
recording = bool(_traces or _debug)


def _my_captures() -> list[Any]:
    """The recorders of captures opened by this thread (usually none)."""
    if not _captures:
        return []
    thread = threading.get_ident()
    return [recorder for owner, recorder in _captures if owner == thread]


@contextlib.contextmanager
def capturing(recorder: Any) -> Iterator[Any]:
    """Tell ``recorder`` every kernel call, allocation and host read of this thread
    inside the block (``minitorch.compile`` builds its graphs so)."""
    global _captures, recording
    entry = (threading.get_ident(), recorder)
    with _traces_lock:
        _captures = (*_captures, entry)
        recording = True
    try:
        yield recorder
    finally:
        with _traces_lock:
            _captures = tuple(e for e in _captures if e is not entry)
            recording = bool(_traces or _captures or _debug)


@contextlib.contextmanager
def trace() -> Iterator[DispatchTrace]:
    """Record every call dispatched by this thread inside the block into the returned
    list."""
    global _traces, recording
    entry = (threading.get_ident(), DispatchTrace())
    with _traces_lock:
        _traces = (*_traces, entry)
        recording = True
    try:
        yield entry[1]
    finally:
        with _traces_lock:
            _traces = tuple(e for e in _traces if e is not entry)
            recording = bool(_traces or _captures or _debug)


@contextlib.contextmanager
def op_context(name: str, phase: str = "forward") -> Iterator[None]:
    """Name the user-facing op whose kernels run inside (autograd's Function sets it)."""
    stack = thread_state.op_stack
    stack.append((name, phase))
    try:
        yield
    finally:
        stack.pop()


def set_debug(level: int) -> None:
    """Like ``MINITORCH_DEBUG``: 1 prints each call to stderr, 2 adds strides (the CUDA
    loader reads the same level: it prints each kernel it loads)."""
    global _debug, recording
    _debug = backends.debug_level = level
    recording = bool(_traces or _captures or _debug)


# --------------------------------------------------------------------------------------
# The primitives
# --------------------------------------------------------------------------------------


def _strided(t: Any) -> Strided:
    # ``tuple.__new__`` builds the named tuple directly: its generated constructor is a
    # Python function that costs three times as much, and this runs for every operand.
    return _new_tuple(Strided, (t._storage, t._shape, t._strides, t._offset))


_new_tuple = tuple.__new__


def _operands(args: Any) -> Any:
    """``args`` with every tensor (also inside lists and tuples) as its ``Strided``."""
    if isinstance(args, list):  # (list comprehensions: a generator costs more per item)
        return [_operands(a) for a in args]
    if isinstance(args, tuple):
        return tuple([_operands(a) for a in args])
    return _strided(args) if hasattr(args, "_storage") else args


def _backend(out: Any, inputs: tuple) -> ModuleType:
    """The backend module that runs a call writing ``out`` from ``inputs``, after
    checking that they all live on one device."""
    device = out.device
    for t in inputs:
        if t.device is not device and t.device != device:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {device} and {t.device}! Move them with .to(device) first."
            )
    return _loaded.get(active_backends[device.type]) or kernels_for(device.type)  # (inlined)


# Each primitive below runs its kernel at once when nothing records (the usual case):
#
#     _backend(out, inputs).zip(op, _strided(out), _strided(a), _strided(b))
#
# and otherwise through ``_run_recorded``, which makes the same call (``args`` with each
# tensor as its ``Strided``) and tells the open traces and captures about it.


def _run_recorded(primitive: str, kernel: str, out: Any, inputs: tuple, args: tuple,
                  scalars_again: Any = None, matrices: bool = False) -> Any:  # fmt: skip
    """Check devices, run ``primitive(*args)`` on the backend, time it and record it.

    ``args`` are the backend call's arguments with tensors in place of ``Strided``
    operands: what a capture (``minitorch.compile``) keeps of the call."""
    module = _backend(out, inputs)
    call = getattr(module, primitive)
    kernel_args = _operands(args)
    compiled_before = compile_time.seconds()
    collect = getattr(module, "collect_launches", None)  # backends whose launches are queued
    start = time.perf_counter()
    with collect() if collect else contextlib.nullcontext(()) as launches:
        call(*kernel_args)
    seconds = time.perf_counter() - start
    compile_seconds = compile_time.seconds() - compiled_before  # a kernel's first call compiles it
    seconds -= compile_seconds
    stack = thread_state.op_stack
    op, phase = stack[-1] if stack else (kernel, "forward")
    for recorder in _my_captures():
        recorder.kernel(primitive, args, out.device.type, op, phase, scalars_again)
    if not (_traces or _debug):
        return out
    operands = (out, *inputs)
    contiguous = tuple(is_contiguous(t._shape, t._strides) for t in operands)
    record = DispatchRecord(
        op=op,
        phase=phase,
        primitive=primitive,
        kernel=kernel,
        backend=module.NAME,
        device=str(out.device),
        dtype=(inputs[0] if inputs else out).dtype.name,
        shapes=tuple(t._shape for t in operands),
        strides=tuple(t._strides for t in operands),
        contiguous=contiguous,
        path="contiguous" if all(contiguous) else "strided",
        seconds=seconds,
        frames=tuple(stack),
        compile_seconds=compile_seconds,
        issued=start,
        launches=tuple(launches),
        matrices=matrices,
    )
    thread = threading.get_ident()
    for owner, records in _traces:
        if owner == thread:
            records.append(record)
    if _debug:
        shapes = " ".join(str(list(s)) for s in record.shapes)
        line = f"[minitorch] {op:>16} {primitive}:{kernel} {module.NAME} {record.dtype} {shapes}"
        if _debug >= 2:
            line += f" strides={list(record.strides)} {record.path}"
        compiled = f" (+ compiling {compile_seconds * 1e3:.0f}ms, once)" if compile_seconds else ""
        print(f"{line} {seconds * 1e6:.1f}us{compiled}", file=sys.stderr)
    return out


# ``map``, ``zip``, ``reduce``, ``matmul``, ``gather`` and ``scatter_add``, the primitives of
# every small op and layer (``gather``: a classification loss's pick of each sample's class;
# ``scatter_add``: its gradient), go one step further:
# a *plan*, remembered per layout, runs them. A plan is a function ``run(out, a[, b],
# out_offset, a_offset[, b_offset])`` of the storages and offsets alone, made once for
# everything else a call depends on, which is its key:
#
#     (primitive, op, backend name, out's dtype, a's dtype, shape, strides of out, a[, b])
#     ("reduce", op, backend name, out's dtype, a's dtype, a's shape, dim, strides of out, a)
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
# ``zip_runner``, ``reduce_runner``, ``matmul_runner``, ``gather_runner``,
# ``scatter_add_runner``: the Numba backend) gives its own,
# which calls the kernel directly;
# otherwise the plan calls the primitive with ``Strided`` operands, as the line above.
# (``tests/core/test_op_plans.py`` checks both, and when a plan is used.)

PLAN_CACHE_SIZE = 4096  # plans kept; a program making ever new layouts starts afresh
_plans: dict[tuple, Any] = {}
plans_made = 0  # how many plans were made: tests see whether a call found its plan


def _new_plan(key: tuple) -> Any:
    """The plan for ``key`` (see above), made and remembered."""
    global plans_made
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
    if len(_plans) >= PLAN_CACHE_SIZE:
        _plans.clear()
    _plans[key] = run
    plans_made += 1
    return run


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
    ``device_type`` now (strides of out, then of each input), for a caller that keeps
    plans of its own (the lean lane) and runs them while nothing records."""
    key = (primitive, op, active_backends[device_type], out_dtype, a_dtype, shape, *all_strides)
    return _plans.get(key) or _new_plan(key)


def map(op: str, out: Any, a: Any) -> Any:  # noqa: A001 (the primitive's name)
    if recording:
        return _run_recorded("map", op, out, (a,), (op, out, a))
    device = out.device
    if a.device is not device:
        _backend(out, (a,))  # (raises for two devices)
    key = ("map", op, active_backends[device.type], out.dtype, a.dtype, out._shape, out._strides, a._strides)
    run = _plans.get(key) or _new_plan(key)
    run(out._storage, a._storage, out._offset, a._offset)
    return out


def zip(op: str, out: Any, a: Any, b: Any) -> Any:  # noqa: A001
    if recording:
        return _run_recorded("zip", op, out, (a, b), (op, out, a, b))
    device = out.device
    if a.device is not device or b.device is not device:
        _backend(out, (a, b))  # (raises for two devices)
    key = ("zip", op, active_backends[device.type], out.dtype, a.dtype, out._shape, out._strides, a._strides,
           b._strides)  # fmt: skip
    run = _plans.get(key) or _new_plan(key)
    run(out._storage, a._storage, b._storage, out._offset, a._offset, b._offset)
    return out


def where(out: Any, cond: Any, a: Any, b: Any) -> Any:
    if recording:
        return _run_recorded("where", "where", out, (cond, a, b), (out, cond, a, b))
    _backend(out, (cond, a, b)).where(_strided(out), _strided(cond), _strided(a), _strided(b))
    return out


def reduce(op: str, out: Any, a: Any, dim: int) -> Any:
    if recording:
        return _run_recorded("reduce", op, out, (a,), (op, out, a, dim))
    device = out.device
    if a.device is not device:
        _backend(out, (a,))  # (raises for two devices)
    # A plan too, keyed by ``a``'s shape and the reduced dim (``out`` has size 1 there).
    key = ("reduce", op, active_backends[device.type], out.dtype, a.dtype, a._shape, dim, out._strides,
           a._strides)  # fmt: skip
    run = _plans.get(key) or _new_plan(key)
    run(out._storage, a._storage, out._offset, a._offset)
    return out


def _reduced_shape(shape: tuple, dim: int) -> tuple:
    """``shape`` with size 1 along ``dim`` (a 0-d input's output has shape ``(1,)``)."""
    return shape[:dim] + (1,) + shape[dim + 1 :]


def arg_reduce(op: str, out: Any, a: Any, dim: int) -> Any:
    if recording:
        return _run_recorded("arg_reduce", op, out, (a,), (op, out, a, dim))
    _backend(out, (a,)).arg_reduce(op, _strided(out), _strided(a), dim)
    return out


def matmul(out: Any, a: Any, b: Any, matrices: bool = False) -> Any:
    """``out = a @ b`` for 3-D operands ``[B, n, k] @ [B, k, m]``; ``matrices``: they are
    the batch of one of two matrices (``linalg.one_batch``), which a trace records."""
    if recording:
        return _run_recorded("matmul", "matmul", out, (a, b), (out, a, b), matrices=matrices)
    device = out.device
    if a.device is not device or b.device is not device:
        _backend(out, (a, b))  # (raises for two devices)
    # A plan too, keyed by out's shape ``(B, n, m)`` and the length of the sums (``k``).
    key = ("matmul", "matmul", active_backends[device.type], out.dtype, a.dtype, out._shape, a._shape[2],
           out._strides, a._strides, b._strides)  # fmt: skip
    run = _plans.get(key) or _new_plan(key)
    run(out._storage, a._storage, b._storage, out._offset, a._offset, b._offset)
    return out


def matrix_product(out: Any, a: Any, b: Any) -> Any:
    """``matmul`` of three matrices (2-D; the usual ``x @ w`` and its gradients): the
    kernel's batch of one ``[1, n, k] @ [1, k, m]``, whose plan is found from the
    matrices' own layouts, so no 3-D views of them are made (the batch stride is never
    stepped along). Only when nothing records: a trace or capture gets the
    3-D tensors of ``matmul`` (``ops/linalg.py`` decides)."""
    device = out.device
    if a.device is not device or b.device is not device:
        _backend(out, (a, b))  # (raises for two devices)
    key = ("matrix product", active_backends[device.type], out.dtype, a.dtype, out._shape, a._shape[1],
           out._strides, a._strides, b._strides)  # fmt: skip
    run = _plans.get(key) or _new_matrix_plan(key)
    run(out._storage, a._storage, b._storage, out._offset, a._offset, b._offset)
    return out


def _new_matrix_plan(key: tuple) -> Any:
    """The plan of ``matrix_product``: ``matmul``'s plan for the batch of one (with the
    batch strides ``linalg.one_batch`` gives its views), kept under the matrices' key too."""
    _, backend_name, out_dtype, a_dtype, (rows, cols), depth, out_strides, a_strides, b_strides = key
    batch_key = ("matmul", "matmul", backend_name, out_dtype, a_dtype, (1, rows, cols), depth,
                 (rows * cols, *out_strides), (rows * depth, *a_strides),
                 (depth * cols, *b_strides))  # fmt: skip
    run = _plans.get(batch_key) or _new_plan(batch_key)
    if len(_plans) >= PLAN_CACHE_SIZE:
        _plans.clear()
    _plans[key] = run
    return run


def gather(out: Any, a: Any, dim: int, index: Any) -> Any:
    if recording:
        return _run_recorded("gather", "gather", out, (a, index), (out, a, dim, index))
    device = out.device
    if a.device is not device or index.device is not device:
        _backend(out, (a, index))  # (raises for two devices)
    # A plan too, keyed by out's shape (the index's), the dim and a's shape.
    key = ("gather", "gather", active_backends[device.type], out.dtype, a.dtype, out._shape, dim, a._shape,
           out._strides, a._strides, index._strides)  # fmt: skip
    run = _plans.get(key) or _new_plan(key)
    run(out._storage, a._storage, index._storage, out._offset, a._offset, index._offset)
    return out


def scatter_add(out: Any, dim: int, index: Any, src: Any) -> Any:
    if recording:
        return _run_recorded("scatter_add", "scatter_add", out, (index, src), (out, dim, index, src))
    device = out.device
    if index.device is not device or src.device is not device:
        _backend(out, (index, src))  # (raises for two devices)
    # A plan too, keyed by src's shape (the index's), the dim and out's shape.
    key = ("scatter_add", "scatter_add", active_backends[device.type], out.dtype, src.dtype, src._shape, dim,
           out._shape, out._strides, index._strides, src._strides)  # fmt: skip
    run = _plans.get(key) or _new_plan(key)
    run(out._storage, index._storage, src._storage, out._offset, index._offset, src._offset)
    return out


def scan(op: str, out: Any, a: Any, dim: int) -> Any:
    if recording:
        return _run_recorded("scan", op, out, (a,), (op, out, a, dim))
    _backend(out, (a,)).scan(op, _strided(out), _strided(a), dim)
    return out


# Sorting and the matrix factorisations: whole lines or matrices at a time, not elements.


def sort(values: Any, indices: Any, a: Any, dim: int, descending: bool) -> Any:
    if recording:
        return _run_recorded("sort", "sort", values, (indices, a), (values, indices, a, dim, descending))
    _backend(values, (indices, a)).sort(_strided(values), _strided(indices), _strided(a), dim, descending)
    return values


def lu_factor(lu: Any, pivots: Any) -> Any:
    if recording:
        return _run_recorded("lu_factor", "lu_factor", lu, (), (lu, pivots))
    _backend(lu, ()).lu_factor(_strided(lu), _strided(pivots))
    return lu


def lu_solve(x: Any, lu: Any, pivots: Any) -> Any:
    if recording:
        return _run_recorded("lu_solve", "lu_solve", x, (lu, pivots), (x, lu, pivots))
    _backend(x, (lu, pivots)).lu_solve(_strided(x), _strided(lu), _strided(pivots))
    return x


def svd(u: Any, s: Any, vh: Any, a: Any) -> Any:
    if recording:
        return _run_recorded("svd", "svd", s, (a,), (u, s, vh, a))
    _backend(s, (a,)).svd(_strided(u), _strided(s), _strided(vh), _strided(a))
    return s


def record_replayed(primitive: str, kernel: str, device_type: str, operands: list, op: str, phase: str,
                    seconds: float) -> None:  # fmt: skip
    """Add a kernel call that a compiled graph's replay made (``minitorch/compiler/replay.py``,
    which calls kernels directly) to this thread's open ``trace()`` blocks, so that the
    dispatch viewer and the profiler see replayed work too. ``operands``: output first."""
    from minitorch.dtypes import from_numpy_dtype

    module = kernels_for(device_type)
    contiguous = tuple(is_contiguous(o.shape, o.strides) for o in operands)
    record = DispatchRecord(
        op=op, phase=phase, primitive=primitive, kernel=kernel, backend=module.NAME,
        device=device_type, dtype=from_numpy_dtype(operands[-1].storage.dtype).name,
        shapes=tuple(o.shape for o in operands), strides=tuple(o.strides for o in operands),
        contiguous=contiguous, path="contiguous" if all(contiguous) else "strided",
        seconds=seconds, frames=((op, phase),), issued=time.perf_counter() - seconds,
    )  # fmt: skip
    thread = threading.get_ident()
    for owner, records in _traces:
        if owner == thread:
            records.append(record)


def capturing_now() -> bool:
    """Whether this thread is inside a capture (a compiled function called inside another
    one then runs eagerly, so that the outer capture sees its kernel calls)."""
    return bool(_my_captures())


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
    if recording:
        return _run_recorded("optimizer_step", rule, params[0], others, args, scalars_again)
    _backend(params[0], others).optimizer_step(  # (the tensors as Strided; scalars as they are)
        rule, [_strided(p) for p in params], [_strided(g) for g in grads],
        tuple([_strided(t) for t in state] for state in states), scalars)  # fmt: skip
    return params[0]
