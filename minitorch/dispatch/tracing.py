"""Tracing: record what each kernel call ran, for the dispatch viewer, the profiler,
``MINITORCH_DEBUG`` and ``minitorch.compile``.

``recording`` is the one flag every primitive reads first: False (the usual case), a
call runs its kernel and keeps no books; True while some thread has a ``trace()`` block
or a capture open, or ``MINITORCH_DEBUG`` is on, and then each call goes through
``run_recorded``, which times it and tells the open traces and captures.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from minitorch import backends
from minitorch.backends import compile_time
from minitorch.dispatch.registry import _backend, _operands, kernels_for
from minitorch.layout import is_contiguous

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


def my_captures() -> list[Any]:
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


# Each primitive (``minitorch/dispatch/__init__.py``) runs its kernel at once when nothing
# records (the usual case):
#
#     _backend(out, inputs).zip(op, _strided(out), _strided(a), _strided(b))
#
# and otherwise through ``run_recorded``, which makes the same call (``args`` with each
# tensor as its ``Strided``) and tells the open traces and captures about it.


def run_recorded(primitive: str, kernel: str, out: Any, inputs: tuple, args: tuple,
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
    for recorder in my_captures():
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
    return bool(my_captures())
