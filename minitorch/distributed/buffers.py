"""A tensor's memory as an MPI buffer, without a copy where the layout allows one.

MPI reads and writes *contiguous runs of cells*. A minitorch tensor on the CPU is a flat
NumPy storage read through a layout (shape, strides, offset; ``minitorch/layout.py``).
When the layout is contiguous the tensor's cells are exactly the run
``storage[offset : offset + numel]``, and that slice is a NumPy *view*: handing it to
MPI lets MPI read and write the tensor itself, with no copy at all::

    tensor (3, 4), strides (4, 1), offset 8       storage: [ . . . . . . . . # # # # # # # # # # # # . . ]
                                                                           ^ offset 8, 12 cells

Any other layout (a transpose, a slice with a step, a CUDA tensor) is *staged*: copied to
a fresh contiguous tensor on the CPU, communicated, and copied back into the original
(``tensor.copy_(staged)``), which is what PyTorch's MPI backend does too.

Moving data (broadcast, gather, send...) never looks at the values, so every dtype
travels as raw bytes. Reducing needs MPI to do arithmetic on the cells, and MPI has no
float16 or bfloat16 type: those two are reduced in float32 (staged as ``t.float()``,
rounded back on the copy), which is also more accurate than summing in 16 bits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from minitorch._tensor import Tensor
from minitorch.autograd import no_grad

# Tensors whose cells MPI can fold with its own arithmetic (every dtype except the two
# 16-bit floats; NumPy's dtype tells mpi4py which MPI type a buffer holds).
REDUCIBLE = {"bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"}


def check_tensor(tensor: object, name: str = "tensor") -> Tensor:
    """``tensor`` if it is a Tensor, else PyTorch's TypeError (before any message is sent)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name} must be a Tensor, got {type(tensor).__name__}")
    return tensor


def check_tensor_list(tensors: object, name: str) -> list[Tensor]:
    """A list (or tuple) of Tensors, else PyTorch's TypeError."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name} must be a list of Tensors, got {type(tensors).__name__}")
    return [check_tensor(t, f"every element of {name}") for t in tensors]


def cells(tensor: Tensor) -> np.ndarray | None:
    """The tensor's cells as a flat NumPy view of its storage (no copy), or ``None`` when
    its layout or device does not allow one."""
    storage = tensor._storage
    if tensor.device.type != "cpu" or not isinstance(storage, np.ndarray) or not tensor.is_contiguous():
        return None
    start = tensor.storage_offset()
    return storage[start : start + tensor.numel()]


@contextmanager
def mpi_buffer(tensor: Tensor, *, reduce: bool = False, write: bool = True) -> Iterator[np.ndarray]:
    """A NumPy array MPI may read (and, with ``write``, write) for ``tensor``.

    Without ``reduce`` it is the tensor's bytes (``uint8``); with ``reduce`` its numbers in
    a dtype MPI can fold. The tensor's own memory when ``cells`` allows it; otherwise a
    staged copy, written back into ``tensor`` when the block ends."""
    staged = tensor
    if reduce and tensor.dtype.name not in REDUCIBLE:
        staged = tensor.detach().float()  # float16/bfloat16: folded in float32
    view = cells(staged)
    if view is None:
        staged = staged.detach().contiguous().cpu().clone()
        view = cells(staged)
    yield view if reduce else view.view(np.uint8)
    if write and staged is not tensor:
        with no_grad():
            tensor.copy_(staged)
    elif write:
        tensor._bump_version()  # MPI wrote the cells in place: autograd must know


def new_buffer_like(tensor: Tensor, count: int) -> Tensor:
    """A contiguous CPU tensor holding ``count`` copies of ``tensor``'s shape, stacked on a
    new first dim (where a gather lands before it is split into the caller's list)."""
    from minitorch.creation import empty

    return empty((count, *tensor.shape), dtype=tensor.dtype)
