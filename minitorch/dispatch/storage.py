"""Storage on a device: allocate it, fill it from the host, read it back, check it.

Each function asks the backend running the device, and tells an open capture of
``minitorch.compile`` what it did (``tracing.recording``), so a replay can do it again.
"""

from __future__ import annotations

from typing import Any

from minitorch.backends import Strided
from minitorch.dispatch import tracing
from minitorch.dispatch.registry import _loaded, _strided, active_backends, kernels_for
from minitorch.layout import is_contiguous, numel

# --------------------------------------------------------------------------------------
# Storage on a device
# --------------------------------------------------------------------------------------


def empty(count: int, numpy_dtype: Any, device_type: str) -> Any:
    module = _loaded.get(active_backends[device_type])  # ``kernels_for``, inlined: every op allocates
    storage = (module or kernels_for(device_type)).empty(count, numpy_dtype)
    if tracing.recording:
        for recorder in tracing.my_captures():
            recorder.allocated(storage, device_type)
    return storage


def from_numpy(array: Any, device_type: str, non_blocking: bool = False) -> Any:
    """Device storage holding a copy of the 1-D host ``array``; ``non_blocking`` (CUDA
    only) queues the copy on the current stream."""
    module = kernels_for(device_type)
    storage = module.from_numpy(array, non_blocking=True) if non_blocking else module.from_numpy(array)
    if tracing.recording:
        for recorder in tracing.my_captures():
            recorder.constant(storage, device_type, array)
    return storage


def to_numpy(storage: Any, device_type: str) -> Any:
    if tracing.recording:
        for recorder in tracing.my_captures():
            recorder.host_read(storage)
    return kernels_for(device_type).to_numpy(storage)


def validate(t: Any, check: Any) -> Any:
    """Return ``check(values)`` on a host copy of ``t``'s values: it raises for bad input
    (an index out of range) before a kernel trusts it, and may answer a question the op
    needs (are all targets counted?). Under ``minitorch.compile`` the check is recorded
    too: a replay checks each new input the same way, and captures again if the answer
    differs."""
    answer = check_values(_strided(t), t.device.type, check)
    if tracing.recording:
        for recorder in tracing.my_captures():
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
    if tracing.recording:
        for recorder in tracing.my_captures():
            recorder.refuse(what)
