"""A tensor over storage that already exists.

Every tensor reads a *storage* (a flat buffer: a NumPy array on the CPU) through a layout,
``(shape, strides, offset)``. Ops make new storage (``Tensor._empty``) or views of a
tensor's storage (``Tensor._view``). A few layers above the ops hold storage no tensor
owns yet, and need a tensor over it:

* a tensor received from another process: its shared-memory segment, mapped here
  (``minitorch/multiprocessing/reductions.py``);
* a DataLoader worker's batch, stacked straight into a new segment
  (``minitorch/utils/data/collate.py``);
* a compiled function's results, in the buffers its replay wrote
  (``minitorch/compiler/replay.py``).

``tensor_over_storage`` is their one door. It checks, as every view is checked, that each
position the layout reaches lies inside the storage (``layout.check_in_bounds``): the
kernels that read the tensor later do no bounds checks of their own.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.device import device as Device
from minitorch.dtypes import dtype as DType
from minitorch.layout import check_in_bounds


def tensor_over_storage(
    storage: Any,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    offset: int,
    dtype: DType,
    device: Device,
    base: Tensor | None = None,
) -> Tensor:
    """A tensor reading ``storage`` through ``(shape, strides, offset)``, with no autograd
    history. ``base`` makes it a view of that tensor (sharing its version counter, as
    ``Tensor._view`` does); without it, the tensor is the storage's first owner."""
    shape, strides = tuple(shape), tuple(strides)
    check_in_bounds(shape, strides, offset, len(storage))
    return Tensor._make(storage, shape, strides, offset, dtype, device, base)
