"""Time spent compiling kernels, counted apart from time spent running them.

A compiled backend builds each kernel the first time a program needs it: Numba compiles
a kernel for the argument types it meets (or loads it from its disk cache), and the CUDA
loader compiles a module of kernels with NVRTC or, on the emulator, with the host's C++
compiler. That happens *inside* the first call, so a timer around the call measures
compiling plus running: the first ``relu`` of a fresh process seemed to take 2 s, and a
student concluded that ReLU is slow. It is not: the kernel ran in microseconds, once
compiled.

So each backend adds the duration of every compilation to a per-thread clock here, and
dispatch reads the clock before and after each call it times (``minitorch/dispatch/tracing.py``)::

    compiled_before = compile_time.seconds()
    start = time.perf_counter()
    call(kernel)
    wall = time.perf_counter() - start
    compile_seconds = compile_time.seconds() - compiled_before   # shown as "compile (once)"
    kernel_seconds = wall - compile_seconds                       # the kernel's own time

The clock is per thread: a Playground training in another thread compiling its kernels
does not add to a notebook's trace. A compilation inside another one (Numba compiling
a scalar function a kernel calls) is counted once, as part of the outer one.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator


class _Clock(threading.local):
    """One thread's compile time so far, and the compilation it is inside (if any)."""

    def __init__(self) -> None:
        self.seconds = 0.0  # finished compilations, in total
        self.depth = 0  # how many compilations are open (nested ones inside the outer)
        self.started = 0.0  # perf_counter() when the outermost open one began


_clock = _Clock()


def seconds() -> float:
    """Seconds this thread has spent compiling kernels, in total so far."""
    return _clock.seconds


def start() -> None:
    """A compilation begins in this thread (pair it with ``stop``)."""
    if _clock.depth == 0:
        _clock.started = time.perf_counter()
    _clock.depth += 1


def stop() -> None:
    """The compilation begun by the matching ``start`` ended (or failed)."""
    if _clock.depth == 0:  # a listener installed in the middle of a compilation
        return
    _clock.depth -= 1
    if _clock.depth == 0:
        _clock.seconds += time.perf_counter() - _clock.started


@contextlib.contextmanager
def compiling() -> Iterator[None]:
    """Count the block as compile time: ``with compile_time.compiling(): build(...)``."""
    start()
    try:
        yield
    finally:
        stop()


_numba_listening = False


def count_numba_compilations() -> None:
    """Add Numba's compilations to the clock (the Numba backends call this on import).

    Numba takes its global compiler lock around every compilation and every load of a
    compiled kernel from its disk cache, and announces each acquisition as the event
    ``"numba:compiler_lock"``; a listener turns those events into ``start``/``stop``.
    A call of an already compiled kernel never takes the lock, so it costs nothing."""
    global _numba_listening
    if _numba_listening:
        return
    from numba.core import event  # deferred: Numba is optional

    class CompileListener(event.Listener):
        def on_start(self, _event: event.Event) -> None:
            start()

        def on_end(self, _event: event.Event) -> None:
            stop()

    event.register("numba:compiler_lock", CompileListener())
    _numba_listening = True
