"""Devices: where a tensor's storage lives, ``"cpu"`` or ``"cuda"``.

A device is just a name. Which *kernels* run on it is decided by dispatch
(``minitorch/dispatch/registry.py``); whether CUDA is usable (a real GPU, or our CPU emulator of
the CUDA kernels) is decided by ``minitorch.cuda``.

    >>> device("cuda")
    device(type='cuda', index=0)
"""

from __future__ import annotations

import threading


class device:  # noqa: N801 (PyTorch's name)
    """A device type (``"cpu"`` or ``"cuda"``) with an optional index (``"cuda:0"``)."""

    def __init__(self, type: str | device, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        if not isinstance(type, str):
            raise TypeError(f"device() expects a string like 'cpu' or 'cuda', got {type!r}")
        if ":" in type:
            type, _, number = type.partition(":")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{number}'")
            index = int(number)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}"
            )
        if type == "cuda" and index is None:
            index = 0
        if type == "cuda" and index != 0:
            raise RuntimeError(f"CUDA device index {index} is out of range: minitorch uses cuda:0")
        self.type = type
        self.index = index

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


CPU = device("cpu")


_known: dict[str, device] = {"cpu": CPU}


class _DefaultDevice(threading.local):
    """The device factories use when none is given; each thread has its own (like PyTorch)."""

    value: device | None = None


_default_device = _DefaultDevice()


def set_default_device(value: str | device | None) -> None:
    """Make factories (``zeros``, ``randn``, ``nn.Linear``'s parameters...) create their
    tensors on ``value`` when no ``device=`` is given, in this thread; ``None`` resets it
    to the CPU. (An explicit ``device=`` always wins.)"""
    _default_device.value = None if value is None else as_device(value)


def get_default_device() -> device:
    """The device factories use when no ``device=`` is given (see ``set_default_device``)."""
    return _default_device.value or CPU


def as_device(value: str | device | None) -> device:
    """``None`` means the CPU; a string or device is parsed (and reused: tensors on one
    device share one device object, which makes the device checks of every op cheap)."""
    if value is None:
        return CPU
    key = str(value)
    if key not in _known:
        _known[key] = value if isinstance(value, device) else device(value)
    return _known[key]
