"""Which backend runs each device, and the operands a kernel is handed.

``BACKENDS`` names every backend and the device it runs on; ``set_backend`` (or ``with
backend(...)``) chooses one per device, and ``kernels_for`` gives the module that runs a
call now. A kernel never sees a ``Tensor``: it gets each operand as a ``Strided``
(storage, shape, strides, offset), made by ``_strided``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from minitorch.backends import Strided

# name -> (module, device type). Modules are imported on first use.
BACKENDS: dict[str, tuple[str, str]] = {
    "reference": ("minitorch.backends.reference", "cpu"),
    "numba": ("minitorch.backends.numba", "cpu"),
    "numba_simple": ("minitorch.backends.numba_simple", "cpu"),
    "cuda": ("minitorch.backends.cuda", "cuda"),
}
DEFAULT_BACKEND = {"cpu": os.environ.get("MINITORCH_CPU_BACKEND", "numba"), "cuda": "cuda"}

# device type -> the name of the backend running it now (``set_backend`` changes it; the
# plans of ``minitorch/dispatch/plans.py`` are keyed by it)
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
