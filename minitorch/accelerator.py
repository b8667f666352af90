"""``minitorch.accelerator``: is there a device faster than the CPU here, and which?

PyTorch's device-agnostic idiom, which tutorials use to pick where to train::

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"

minitorch's only accelerator is ``"cuda"``: a real GPU through CuPy, or the CPU emulator
of our CUDA kernels once ``minitorch.cuda.use_emulator()`` is on (slow, but the same
kernels). The answers are truthful: without either, there is no accelerator.
"""

from __future__ import annotations

from minitorch import cuda
from minitorch.device import device

__all__ = ["current_accelerator", "current_device_index", "device_count", "is_available", "synchronize"]


def is_available() -> bool:
    """True when device ``"cuda"`` works here (a GPU, or the emulator turned on)."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> device | None:
    """``device(type='cuda')``, or None when there is no accelerator (as PyTorch answers
    on a machine without one). ``check_available=True`` also returns None when the
    accelerator exists but cannot be used right now."""
    if check_available and not is_available():
        return None
    return device("cuda") if is_available() else None


def device_count() -> int:
    """How many accelerator devices there are: 0 or 1."""
    return cuda.device_count()


def current_device_index() -> int:
    """The index of the current accelerator device (always 0 here), -1 without one."""
    return 0 if is_available() else -1


def synchronize(device: object = None) -> None:
    """Wait for every kernel launched on the accelerator to finish."""
    if is_available():
        cuda.synchronize()
