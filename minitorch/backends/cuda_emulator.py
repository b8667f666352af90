"""A CPU emulator for minitorch's CUDA kernels: the same ``.cu`` files, built by g++.

Students without a GPU, and our CI, run the *very same* CUDA C as a GPU would. The host
C++ compiler builds each kernel module against ``kernels/emulator/cuda_emulator.h``, a
small header of ours that gives C++ the CUDA vocabulary (``__global__``, ``threadIdx``,
``__syncthreads``, ``__shared__``, warp shuffles, atomics). A runtime library
(``kernels/emulator/scheduler.cpp``) runs a launch: blocks one after another, each
block's threads as coroutines that switch at barriers. Read the comments of those two
files for how; this module is the Python side:

* ``RawModule(code)`` / ``.get_function(name)`` / ``function(grid, block, args,
  shared_mem=...)`` -- the same interface as ``cupy.RawModule``, so the CUDA backend
  (``minitorch/backends/cuda/``) launches through one code path on both.
* device memory: ``DeviceArray``, a NumPy array subclass living in host memory, so a
  kernel argument that is device memory (a pointer) can be told apart from a NumPy
  structured array (a struct passed by value, as CuPy does): ``emulator_memory.py``.
* the thread order: ``set_thread_order("reversed")``, ``with thread_order("shuffled"):``
  or the environment variable ``MINITORCH_CUDA_ORDER`` (``forward``, ``reversed``,
  ``shuffled`` or ``shuffled:SEED``). A missing ``__syncthreads`` often only shows up in
  some orders.
* compiled libraries are cached in ``~/.cache/minitorch/cuda-emulator`` (or under
  ``$MINITORCH_CACHE_DIR`` / ``$XDG_CACHE_HOME``), keyed by a hash of the source, the
  header, the options and the compiler version: ``emulator_build.py`` turns the source
  into a library.

What the emulator proves: the algorithm and the index arithmetic, barriers placed right,
no reads of unwritten shared memory. What it cannot tell: speed, occupancy, coalescing,
or CuPy's launch path. ``function(...)`` runs a kernel before it returns; device "cuda"
queues each launch on a stream instead (``minitorch/backends/cuda/streams.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from minitorch.backends.emulator_build import (  # noqa: F401 (the emulator's public names)
    CompileError,
    _cached_build,
    _runtime,
    build_translation_unit,
    cache_dir,
    find_compiler,
    is_available,
    kernels_dir,
    unavailable_reason,
)
from minitorch.backends.emulator_memory import (  # noqa: F401 (the emulator's public names)
    GUARD_BYTES,
    GUARD_VALUE,
    DeviceArray,
    _guard,
    empty,
    from_numpy,
    to_numpy,
)

ORDERS = {"forward": 0, "reversed": 1, "shuffled": 2}
MAX_THREADS_PER_BLOCK = 1024
MAX_SHARED_BYTES = 48 * 1024


class EmulatorError(RuntimeError):
    """A kernel did something a GPU would get wrong (reported by the scheduler)."""


# --------------------------------------------------------------------------------------
# Thread order
# --------------------------------------------------------------------------------------


def _parse_order(text: str) -> tuple[str, int]:
    name, _, seed = text.strip().lower().partition(":")
    if name not in ORDERS:
        raise ValueError(
            f"unknown thread order {text!r}: use 'forward', 'reversed', 'shuffled' or "
            "'shuffled:SEED' (MINITORCH_CUDA_ORDER)"
        )
    return name, int(seed) if seed else 0


_order = _parse_order(os.environ.get("MINITORCH_CUDA_ORDER", "forward"))


def set_thread_order(order: str, seed: int = 0) -> None:
    """Run later launches' threads (and blocks) in this order: ``"forward"``,
    ``"reversed"`` or ``"shuffled"`` (a new permutation per block, from ``seed``)."""
    global _order
    _order = (_parse_order(order)[0], seed)


def get_thread_order() -> tuple[str, int]:
    return _order


@contextlib.contextmanager
def thread_order(order: str, seed: int = 0) -> Iterator[None]:
    """``with thread_order("reversed"):`` runs the launches inside in that order."""
    previous = _order
    set_thread_order(order, seed)
    try:
        yield
    finally:
        set_thread_order(*previous)


# --------------------------------------------------------------------------------------
# Launching
# --------------------------------------------------------------------------------------


class LaunchConfig(ctypes.Structure):
    """Mirrors ``mt_emu::LaunchConfig`` in ``cuda_emulator.h``."""

    _fields_ = [
        ("grid", ctypes.c_uint * 3),
        ("block", ctypes.c_uint * 3),
        ("shared_mem", ctypes.c_ulonglong),
        ("order", ctypes.c_int),
        ("seed", ctypes.c_uint),
    ]


_launch_lock = threading.Lock()  # one launch at a time: shared memory is static


def _unlock_in_child() -> None:
    """A forked child keeps only the thread that forked: a launch another thread (a
    stream's worker) was running at the fork would leave the lock locked forever."""
    global _launch_lock
    _launch_lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which cannot fork
    os.register_at_fork(after_in_child=_unlock_in_child)


class RawModule:
    """Like ``cupy.RawModule(code=..., options=...)``: CUDA source, compiled on first
    use (here by the host compiler), with ``get_function(name)``."""

    def __init__(self, code: str, options: Sequence[str] = (), name: str = "module") -> None:
        self.code = code
        self.options = tuple(options)
        self.name = re.sub(r"\W", "_", name)
        self._library: ctypes.CDLL | None = None
        self._names: list[str] = []

    def compile(self) -> None:
        if self._library is not None:
            return
        _runtime()
        unit, self._names = build_translation_unit(self.code)
        path = _cached_build(self.name, unit, [o for o in self.options if o.startswith("-D")])
        self._library = ctypes.CDLL(str(path))

    def get_function(self, name: str) -> Function:
        self.compile()
        if name not in self._names:
            raise AttributeError(f"no kernel {name!r} in module {self.name!r}: {self._names}")
        return Function(name, getattr(self._library, f"mt_launch_{name}"))


def _dim3(value: int | Sequence[int], what: str) -> tuple[int, int, int]:
    dims = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(dims) <= 3 or any(not isinstance(d, (int, np.integer)) for d in dims):
        raise ValueError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))  # type: ignore[return-value]


def _argument(value: Any, keep: list) -> int:
    """The address of an argument's bytes, as ``cuLaunchKernel`` wants them."""
    if isinstance(value, DeviceArray):  # device memory: pass the pointer's value
        pointer = ctypes.c_void_p(value.ctypes.data)
        keep.append(pointer)
        return ctypes.addressof(pointer)
    if isinstance(value, np.ndarray):  # a struct (or array) passed by value, as in CuPy
        value = np.ascontiguousarray(value)
        keep.append(value)
        return value.ctypes.data
    if isinstance(value, bool):
        value = np.bool_(value)
    elif isinstance(value, int):
        value = np.int64(value)
    elif isinstance(value, float):
        value = np.float64(value)
    if isinstance(value, np.generic):
        holder = np.array(value)
        keep.append(holder)
        return holder.ctypes.data
    raise TypeError(f"unsupported kernel argument type {type(value).__name__}")


class Function:
    """One kernel of a ``RawModule``; call it like a CuPy kernel."""

    def __init__(self, name: str, launcher: Any) -> None:
        self.name = name
        self._launcher = launcher
        launcher.argtypes = [ctypes.POINTER(LaunchConfig), ctypes.POINTER(ctypes.c_void_p)]
        launcher.restype = ctypes.c_int

    def __call__(
        self,
        grid: int | Sequence[int],
        block: int | Sequence[int],
        args: Sequence[Any],
        shared_mem: int = 0,
        stream: Any = None,
    ) -> None:
        """Launch and wait for the kernel (CuPy's call; minitorch's streams instead
        ``prepare`` a launch and run it later on a stream's worker thread)."""
        self.prepare(grid, block, args, shared_mem)()

    def prepare(self, grid: int | Sequence[int], block: int | Sequence[int],
                args: Sequence[Any], shared_mem: int = 0) -> Callable[[], None]:  # fmt: skip
        """Check the launch and pack its arguments now, with the thread order of now;
        return the function that runs the kernel. It holds ``args``, so the operands'
        memory lives until the kernel has run."""
        grid3, block3 = _dim3(grid, "grid"), _dim3(block, "block")
        threads = block3[0] * block3[1] * block3[2]
        if min(grid3) < 1 or min(block3) < 1 or threads > MAX_THREADS_PER_BLOCK:
            raise ValueError(
                f"invalid launch of {self.name}: grid {grid3}, block {block3} (every size "
                f"at least 1, at most {MAX_THREADS_PER_BLOCK} threads per block)"
            )
        if not 0 <= shared_mem <= MAX_SHARED_BYTES:
            raise ValueError(f"{self.name}: shared_mem={shared_mem} is outside 0..48 KB")
        keep: list = [args]
        params = (ctypes.c_void_p * max(1, len(args)))(*[_argument(a, keep) for a in args])
        order, seed = _order
        config = LaunchConfig(
            (ctypes.c_uint * 3)(*grid3), (ctypes.c_uint * 3)(*block3), shared_mem,
            ORDERS[order], seed & 0xFFFFFFFF,
        )  # fmt: skip

        def run() -> None:
            with _launch_lock:  # (ctypes lets go of the GIL while the kernel runs)
                status = self._launcher(ctypes.byref(config), params)
                message = _runtime().mt_emulator_last_error().decode(errors="replace") if status else ""
            if status != 0:
                raise EmulatorError(message)
            self._check_guards(keep[0])

        return run

    def _check_guards(self, args: Sequence[Any]) -> None:
        """Raise if the kernel wrote into the guard bytes behind an argument."""
        for position, arg in enumerate(args):
            guard = _guard(arg) if isinstance(arg, DeviceArray) else None
            if guard is not None and (guard != GUARD_VALUE).any():
                first = int(np.argmax(guard != GUARD_VALUE))
                guard[:] = GUARD_VALUE
                raise EmulatorError(
                    f"kernel {self.name} wrote past the end of argument {position} (a "
                    f"{arg.size}-element {arg.dtype} array), {first} byte(s) after its last "
                    "element. On a GPU this silently corrupts other memory."
                )
