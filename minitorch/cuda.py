"""``minitorch.cuda``: can device ``"cuda"`` run here, and on what?

Like ``torch.cuda``. Device ``"cuda"`` runs minitorch's CUDA C kernels (``kernels/``)
either on a real NVIDIA GPU, through CuPy, or -- on any machine with a C++ compiler --
on our CPU emulator of the very same kernels::

    >>> import minitorch
    >>> minitorch.cuda.is_available()        # no GPU here
    False
    >>> minitorch.cuda.use_emulator()        # or: MINITORCH_CUDA=emulator
    >>> minitorch.cuda.is_available()
    True
    >>> x = minitorch.ones(3, device="cuda")  # runs the .cu kernels, compiled by g++

The emulator runs each block's threads one at a time, so it is slow; it exists to let
you read, change and test kernels without a GPU. ``thread_order("reversed")`` (or the
environment variable ``MINITORCH_CUDA_ORDER=reversed``) runs the threads backwards, which
exposes a forgotten ``__syncthreads()``.

Importing this module never imports CuPy or compiles anything.
"""

from __future__ import annotations

from typing import Any

from minitorch.backends import cuda_emulator as _emulator
from minitorch.backends.allocator import OutOfMemoryError, system_memory
from minitorch.backends.cuda import device as _device
from minitorch.backends.cuda import streams as _streams
from minitorch.backends.cuda.streams import Event, Stream, current_stream, default_stream
from minitorch.backends.cuda_emulator import EmulatorError, set_thread_order, thread_order

__all__ = [
    "EmulatorError", "Event", "Stream", "current_stream", "default_stream",
    "set_stream", "stream", "device_count", "get_device_name", "is_available", "is_emulated",
    "memory_allocated", "memory_stats", "set_thread_order", "synchronize", "thread_order",
    "unavailable_reason", "use_emulator", "OutOfMemoryError", "empty_cache",
    "max_memory_allocated", "max_memory_reserved", "memory_reserved", "memory_snapshot",
    "memory_summary", "reset_peak_memory_stats", "set_per_process_memory_fraction",
]  # fmt: skip


def is_available() -> bool:
    """True when device "cuda" works: a GPU with CuPy, or after ``use_emulator()``."""
    return _device.is_available()


def unavailable_reason() -> str:
    """Why ``is_available()`` is False, and the two ways forward ("" when it is True)."""
    return _device.unavailable_reason()


def use_emulator() -> None:
    """Run device "cuda" on the CPU emulator of the CUDA kernels from now on (the same as
    starting Python with ``MINITORCH_CUDA=emulator``). Call it before making CUDA
    tensors. Needs a C++20 compiler (g++ 10 or newer; Colab has one)."""
    _device.use_emulator()


def is_emulated() -> bool:
    """True when device "cuda" runs on the CPU emulator rather than a GPU."""
    return _device.using_emulator()


def device_count() -> int:
    """How many CUDA devices minitorch can use: 0 or 1 (the emulator counts as one)."""
    return _device.device_count()


def get_device_name(device: Any = None) -> str:
    """The GPU's name, or a description of the emulator."""
    if not is_available():
        raise RuntimeError(unavailable_reason())
    if is_emulated():
        return "minitorch CUDA emulator (CPU)"
    import cupy

    properties = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    return properties["name"].decode()


def synchronize(device: Any = None) -> None:
    """A device-wide synchronize (``cudaDeviceSynchronize``): wait until all work queued
    so far has run, on every stream -- one the program no longer refers to included, as
    a dropped stream still runs its work -- and raise the error of a kernel that failed
    meanwhile. (``Stream.synchronize()`` waits for one stream only.) Launches are
    asynchronous (on a GPU and emulated); ``.item()``, ``.cpu()`` and printing wait by
    themselves."""
    _streams.synchronize_all()


# Streams and events (Stream, Event, current_stream, default_stream, above):
# minitorch/backends/cuda/streams.py explains them.


def stream(stream: Stream | None) -> Any:
    """``with minitorch.cuda.stream(s):`` queues the kernels launched inside on ``s``
    (``None`` leaves the current stream as it is)."""
    return _streams.using(stream)


def set_stream(stream: Stream) -> None:
    """Make ``stream`` this thread's current stream (prefer ``with stream(s):``)."""
    _streams.set_current(stream)


# Memory: the caching allocator of minitorch/backends/allocator.py (on the emulator) or
# CuPy's memory pool (on a GPU), with torch.cuda's functions. ``minitorch.memory`` has
# the same for the CPU.


def _allocator() -> Any:
    return _device.runtime().allocator


def memory_stats(device: Any = None) -> dict[str, int]:
    """The allocator's counters under PyTorch's names (``"allocated_bytes.all.current"``,
    ``"reserved_bytes.large_pool.peak"``, ``"num_alloc_retries"``...; the list is in
    ``CachingAllocator.stats``). On a GPU, CuPy's pool gives the current bytes only.
    Empty while device "cuda" cannot run (PyTorch's answer before CUDA starts)."""
    return _allocator().stats() if is_available() else {}


def _stat(key: str) -> int:
    stats = memory_stats()
    if stats and key not in stats:
        raise RuntimeError(f"CuPy's memory pool does not keep {key!r}")
    return stats.get(key, 0)


def memory_allocated(device: Any = None) -> int:
    """Bytes of device memory held by tensors now (each block rounded up to 512 B)."""
    return _stat("allocated_bytes.all.current")


def max_memory_allocated(device: Any = None) -> int:
    """The most bytes tensors held at once since the start or ``reset_peak_memory_stats()``."""
    return _stat("allocated_bytes.all.peak")


def memory_reserved(device: Any = None) -> int:
    """Bytes the allocator holds from the device: allocated blocks plus its cache."""
    return _stat("reserved_bytes.all.current")


def max_memory_reserved(device: Any = None) -> int:
    """The most bytes reserved at once since the start or ``reset_peak_memory_stats()``."""
    return _stat("reserved_bytes.all.peak")


def memory_summary(device: Any = None) -> str:
    """The statistics as a readable table."""
    return _allocator().summary()


def empty_cache() -> None:
    """Give the cached free segments back to the device (tensors keep theirs)."""
    if is_available():
        _allocator().empty_cache()


def reset_peak_memory_stats(device: Any = None) -> None:
    """Start the peaks (``max_memory_allocated``...) again from the current values."""
    _allocator().reset_peak_stats()


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Let the allocator reserve at most ``fraction`` of the device's memory (on the
    emulator: of the machine's); past it an allocation raises ``OutOfMemoryError``."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    if is_emulated():
        total = system_memory()
    else:
        import cupy

        total = cupy.cuda.runtime.memGetInfo()[1]
    _allocator().set_limit(int(fraction * total))


def memory_snapshot() -> list[dict[str, Any]]:
    """The allocator's segments and blocks (the format is in ``minitorch.memory.snapshot``)."""
    return _allocator().snapshot()


def emulator_cache_dir() -> str:
    """Where the emulator keeps compiled kernel libraries (safe to delete)."""
    return str(_emulator.cache_dir())
