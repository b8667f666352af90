"""Launching: pack each operand's layout for the kernel, check the launch sizes, launch.

Python checks and prepares everything a kernel assumes: each operand's layout is packed
into an ``MtLayout`` struct passed by value (``kernels/strided.cuh``), the operands'
storage must live on the runtime's device, and grid and block sizes are checked against
a GPU's limits, so a bad launch is a clear Python error instead of a driver error (or,
emulated, a crash). A launch is queued on the current stream and returns at once, on a
GPU and emulated (``streams.py``); a host read (``to_numpy``) waits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.backends import Strided
from minitorch.backends.cuda import streams
from minitorch.backends.cuda.device import runtime

MAX_DIMS = 10  # MT_MAX_DIMS in kernels/strided.cuh
THREADS = 256  # threads per block of elementwise and reduction kernels (= MT_ARG_BLOCK)

LAYOUT_DTYPE = np.dtype(
    {"names": ["shape", "strides", "offset", "ndim"],
     "formats": [(np.int64, MAX_DIMS), (np.int64, MAX_DIMS), np.int64, np.int64]},
    align=True,
)  # fmt: skip


def layout(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> np.ndarray:
    """An ``MtLayout`` struct (a one-element NumPy structured array), passed by value."""
    if len(shape) > MAX_DIMS:
        raise RuntimeError(
            f"the CUDA backend supports at most {MAX_DIMS} dimensions (after merging the "
            f"ones that are contiguous), got shape {list(shape)}"
        )
    words = np.zeros(2 * MAX_DIMS + 2, dtype=np.int64)
    words[: len(shape)] = shape
    words[MAX_DIMS : MAX_DIMS + len(strides)] = strides
    words[2 * MAX_DIMS] = offset
    words[2 * MAX_DIMS + 1] = len(shape)
    return words.view(LAYOUT_DTYPE)


def storage(operand: Strided) -> Any:
    """The operand's device storage, after checking it lives on this runtime's device."""
    found = operand.storage
    if not isinstance(found, runtime().storage_type):
        raise TypeError(
            f"expected CUDA storage ({runtime().storage_type.__name__}), got "
            f"{type(found).__name__}: move the tensor with .to('cuda') first"
        )
    return found


def blocks(count: int, per_block: int) -> int:
    """Enough blocks of ``per_block`` threads for ``count`` items, at most the runtime's
    ``max_blocks`` (the kernels' grid-stride loops cover the rest)."""
    return max(1, min(-(-count // per_block), runtime().max_blocks))


def launch(function: Any, grid: tuple[int, ...], block: tuple[int, ...], args: tuple,
           shared_mem: int = 0) -> None:  # fmt: skip
    """Queue a launch on the current stream, after checking the sizes against a GPU's
    limits, so that a bad launch is a clear Python error instead of a CUDA driver error
    (or, emulated, a crash)."""
    grid3, block3 = (*grid, 1, 1)[:3], (*block, 1, 1)[:3]
    threads = block3[0] * block3[1] * block3[2]
    if not (1 <= grid3[0] < 2**31 and 1 <= grid3[1] <= 65535 and 1 <= grid3[2] <= 65535
            and min(block3) >= 1 and threads <= 1024 and block3[2] <= 64
            and 0 <= shared_mem <= 48 * 1024):  # fmt: skip
        raise RuntimeError(
            f"invalid CUDA launch: grid {grid3}, block {block3}, {shared_mem} bytes of shared "
            "memory (limits: grid x < 2^31, y and z <= 65535; at most 1024 threads and "
            "48 KB of shared memory per block)"
        )
    streams.launch(function, grid3, block3, args, shared_mem)
