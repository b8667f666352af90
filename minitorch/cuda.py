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
from minitorch.backends.cuda import device as _device
from minitorch.backends.cuda import streams as _streams
from minitorch.backends.cuda.streams import Event, Stream, current_stream, default_stream
from minitorch.backends.cuda_emulator import EmulatorError, set_thread_order, thread_order

__all__ = [
    "EmulatorError", "Event", "Stream", "current_stream", "default_stream",
    "set_stream", "stream", "device_count", "get_device_name", "is_available", "is_emulated",
    "memory_allocated", "memory_stats", "set_thread_order", "synchronize", "thread_order",
    "unavailable_reason", "use_emulator",
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
    """Wait until every kernel launched on any stream has run, and raise the error of a
    kernel that failed meanwhile. Launches are asynchronous (on a GPU and emulated);
    ``.item()``, ``.cpu()`` and printing wait by themselves."""
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


def memory_stats(device: Any = None) -> dict[str, Any]:
    """Device memory in use: CuPy's memory pool on a GPU (``allocated_bytes``,
    ``reserved_bytes``); on the emulator, the host memory its "device" arrays hold
    (``allocated_bytes``, ``peak_allocated_bytes``, ``allocations``)."""
    return _device.memory_stats()


def memory_allocated(device: Any = None) -> int:
    """Bytes of device memory held by tensors right now."""
    return int(memory_stats()["allocated_bytes"])


def emulator_cache_dir() -> str:
    """Where the emulator keeps compiled kernel libraries (safe to delete)."""
    return str(_emulator.cache_dir())
