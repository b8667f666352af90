"""Where device "cuda" runs: a real GPU through CuPy, or the CPU emulator.

Both offer the same small *runtime* interface (make storage, copy it, compile a module),
so the loader and the launcher above have one code path::

    MINITORCH_CUDA unset/"auto"/"gpu"  -> a GPU through CuPy, when CuPy finds one
    MINITORCH_CUDA=emulator            -> the emulator (minitorch/backends/cuda_emulator.py)
    minitorch.cuda.use_emulator()      -> the emulator, from now on

Nothing here imports CuPy or compiles anything until a runtime is first needed.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch.backends import cuda_emulator
from minitorch.backends.allocator import OutOfMemoryError, emulator_allocator

NVRTC_OPTIONS = ("--std=c++17",)  # how every module is compiled, on a GPU and emulated

_MODES = {"": "auto", "auto": "auto", "gpu": "gpu", "cupy": "gpu", "emulator": "emulator"}
_mode = _MODES.get(os.environ.get("MINITORCH_CUDA", "").strip().lower(), "invalid")
_gpu_problem_cache: list[str | None] = []
_runtimes: dict[str, Any] = {}  # "gpu" / "emulator" -> its runtime, made on first use
lock = threading.RLock()  # guards the runtimes and their compiled-module caches


def use_emulator() -> None:
    """Run device "cuda" on the CPU emulator from now on (same as MINITORCH_CUDA=emulator).
    Call it before creating CUDA tensors: storage made on a GPU cannot be used by it."""
    global _mode
    if not cuda_emulator.is_available():
        raise RuntimeError(f"cannot use the CUDA emulator: {cuda_emulator.unavailable_reason()}")
    _mode = "emulator"


@contextlib.contextmanager
def running_on(mode: str) -> Iterator[None]:
    """Run device "cuda" on ``"emulator"`` or ``"gpu"`` inside a ``with`` block (tests)."""
    global _mode
    previous = _mode
    if mode == "emulator":
        use_emulator()
    elif mode == "gpu" and gpu_problem() is None:
        _mode = "gpu"
    else:
        raise RuntimeError(f"cannot run CUDA on {mode!r}: {gpu_problem()}")
    try:
        yield
    finally:
        _mode = previous


def emulated() -> contextlib.AbstractContextManager:
    """``with emulated():`` runs device "cuda" on the emulator inside the block."""
    return running_on("emulator")


def using_emulator() -> bool:
    return _mode == "emulator"


def gpu_problem() -> str | None:
    """Why CuPy cannot run kernels on a GPU here (None when it can)."""
    if not _gpu_problem_cache:
        try:
            import cupy

            count = cupy.cuda.runtime.getDeviceCount()
            problem = None if count > 0 else "no CUDA GPU was found"
        except ImportError as error:
            problem = f"CuPy is not installed ({error})"
        except Exception as error:  # noqa: BLE001 - CUDARuntimeError without a driver/GPU
            problem = f"no CUDA GPU was found (CuPy says: {type(error).__name__}: {error})"
        _gpu_problem_cache.append(problem)
    return _gpu_problem_cache[0]


def is_available() -> bool:
    """True when device "cuda" can run: a GPU with CuPy, or the emulator was chosen."""
    if _mode == "emulator":
        return cuda_emulator.is_available()
    return _mode != "invalid" and gpu_problem() is None


def unavailable_reason() -> str:
    """Why device "cuda" cannot run, and the two ways forward ("" when it can)."""
    if is_available():
        return ""
    if _mode == "invalid":
        return (
            f"MINITORCH_CUDA={os.environ.get('MINITORCH_CUDA')!r} is not understood: use "
            "'emulator' (the CPU emulator of the CUDA kernels), 'gpu', or leave it unset"
        )
    if _mode == "emulator":
        return f"the CUDA emulator was requested, but {cuda_emulator.unavailable_reason()}"
    return (
        f"CUDA is not available: {gpu_problem()}. Two ways forward: (1) on a machine "
        "with an NVIDIA GPU (Colab, for example) install CuPy: pip install "
        "'minitorch[cuda]'; (2) without a GPU, run the very same CUDA kernels on the CPU "
        "emulator: call minitorch.cuda.use_emulator() or set MINITORCH_CUDA=emulator "
        "(it needs a C++ compiler such as g++)."
    )


class _GpuRuntime:
    """CuPy: real device memory and real launches."""

    emulated = False
    max_blocks = 4096  # plenty to fill any GPU; grid-stride loops do the rest

    def __init__(self) -> None:
        import cupy

        self.cupy = cupy
        self.storage_type = cupy.ndarray
        self.modules: dict[tuple, Any] = {}  # compiled modules and kernels of this runtime
        self.functions: dict[tuple, Any] = {}

    def raw_module(self, code: str, name: str) -> Any:
        return self.cupy.RawModule(code=code, options=NVRTC_OPTIONS)

    def empty(self, count: int, numpy_dtype: Any) -> Any:
        try:
            return self.cupy.empty(count, dtype=numpy_dtype)
        except self.cupy.cuda.memory.OutOfMemoryError as error:
            raise OutOfMemoryError(f"CUDA out of memory: {error}\n\n{self.allocator.summary()}") from None

    def from_numpy(self, array: np.ndarray) -> Any:
        return self.cupy.asarray(np.ascontiguousarray(array).reshape(-1))

    def to_numpy(self, storage: Any) -> np.ndarray:
        return self.cupy.asnumpy(storage)

    @property
    def allocator(self) -> CupyPool:
        return CupyPool(self.cupy.get_default_memory_pool())

    def device_count(self) -> int:
        return self.cupy.cuda.runtime.getDeviceCount()


class _EmulatorRuntime:
    """The CPU emulator: DeviceArray storage, kernels built by the host compiler."""

    emulated = True
    max_blocks = 64  # fewer coroutines; grid-stride loops still cover every element
    storage_type = cuda_emulator.DeviceArray

    def __init__(self) -> None:
        self.modules: dict[tuple, Any] = {}
        self.functions: dict[tuple, Any] = {}

    def raw_module(self, code: str, name: str) -> Any:
        return cuda_emulator.RawModule(code, NVRTC_OPTIONS, name=name)

    empty = staticmethod(cuda_emulator.empty)
    from_numpy = staticmethod(cuda_emulator.from_numpy)
    to_numpy = staticmethod(cuda_emulator.to_numpy)
    allocator = emulator_allocator  # minitorch/backends/allocator.py

    def device_count(self) -> int:
        return 1


def runtime() -> Any:
    """The runtime device "cuda" uses; raises a RuntimeError naming both ways forward
    when there is none."""
    found = _runtimes.get(_mode)
    if found is None:
        if not is_available():
            raise RuntimeError(unavailable_reason())
        with lock:
            found = _runtimes.get(_mode)
            if found is None:
                found = _EmulatorRuntime() if _mode == "emulator" else _GpuRuntime()
                _runtimes[_mode] = found
    return found


class CupyPool:
    """CuPy's memory pool (itself a caching allocator) seen through the interface of
    ``CachingAllocator``: the numbers it keeps, under PyTorch's names. CuPy keeps no
    peaks and does not list its blocks."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    def stats(self) -> dict[str, int]:
        return {"allocated_bytes.all.current": self.pool.used_bytes(),
                "reserved_bytes.all.current": self.pool.total_bytes(),
                "memory_limit": self.pool.get_limit()}  # fmt: skip

    def summary(self) -> str:
        return "\n".join(f"CuPy memory pool {key}: {value}" for key, value in self.stats().items())

    def empty_cache(self) -> None:
        self.pool.free_all_blocks()

    def set_limit(self, nbytes: int | None) -> None:
        self.pool.set_limit(size=nbytes or 0)

    def reset_peak_stats(self) -> None:
        raise RuntimeError("CuPy's memory pool keeps no peaks to reset")

    def snapshot(self) -> list[dict[str, Any]]:
        raise RuntimeError("CuPy's memory pool does not list its blocks")


def device_count() -> int:
    return runtime().device_count() if is_available() else 0
