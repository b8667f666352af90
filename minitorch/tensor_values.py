"""A tensor's values outside minitorch: as Python numbers, lists, NumPy arrays, DLPack
capsules, in memory shared with another process, and printed.

``Tensor`` (``minitorch/_tensor.py``) inherits these methods from ``TensorValues``, so the
data structure and the ways its values leave it can be read one at a time. Each method
reads the storage through the layout: ``_host_array`` makes a NumPy view with the
tensor's own shape, strides (in bytes) and offset, so a transposed or sliced tensor's
values come out in its logical order without a copy on the CPU.

``item()`` and the conversions built on it (``bool(t)``, ``float(t)``, ``int(t)``, an
index ``range(t)``) need exactly one element, as in PyTorch: a loss, a count, a label.
"""

from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch import dispatch, shared_storage

if TYPE_CHECKING:
    from minitorch._tensor import Tensor


class TensorValues:
    """The methods of ``Tensor`` that hand its values to Python, NumPy and other processes."""

    __slots__ = ()  # the fields are Tensor's own slots: no per-instance ``__dict__``

    # ----- sharing with other processes (minitorch/shared_storage.py) ---------------

    def share_memory_(self) -> Tensor:
        """Move this tensor's storage into shared memory, in place: every view of it
        (and the tensor itself) reads and writes the shared copy from now on, so a
        process it is sent to (``minitorch.multiprocessing``) sees the same values.

        A NumPy array cannot change the memory it points at, so the move copies the
        cells into a new segment and re-points each tensor holding the old storage: when
        the storage's reference count says this tensor is its only holder (a fresh
        tensor being sent), directly; otherwise the garbage collector lists who refers to
        it (``gc.get_referrers``, a walk over every tracked object: rare and slower). A
        NumPy array taken earlier with ``numpy()`` keeps the old memory, as in PyTorch.
        A tensor on a GPU is left as it is (PyTorch shares CUDA memory another way).

        A non-leaf tensor that requires grad is refused: its autograd history cannot
        cross into another process, so sharing it is a mistake (PyTorch shares it and
        refuses only when it is sent; minitorch says so where the mistake is made)."""
        if self.requires_grad and not self.is_leaf:
            raise RuntimeError(
                "share_memory_(): cannot share a non-leaf tensor that requires grad: its "
                "autograd history cannot cross process boundaries. Share the values with "
                "detach().share_memory_(), or share the leaf tensors it was computed from."
            )
        old = self._storage
        if shared_storage.is_shared(old) or not isinstance(old, np.ndarray):
            return self
        values = dispatch.to_numpy(old, self.device.type)  # on a CUDA stream: waits for it
        new = shared_storage.share(values, type(old))
        del values  # (on the CPU, ``old`` itself)
        # three references when this tensor alone holds it: its slot, ``old``, the argument
        if sys.getrefcount(old) == 3:
            self._storage = new
        else:
            for holder in gc.get_referrers(old):
                if isinstance(holder, TensorValues) and holder._storage is old:
                    holder._storage = new
        return self

    def is_shared(self) -> bool:
        """True when the storage is in shared memory (``share_memory_``), or on a GPU."""
        return shared_storage.is_shared(self._storage) or not isinstance(self._storage, np.ndarray)

    # ----- leaving minitorch -------------------------------------------------------

    def _host_array(self) -> np.ndarray:
        """This tensor's values as a NumPy array over host memory (a view on the CPU, a
        copy of the whole storage from a CUDA device; a new float32 array for bfloat16,
        whose 16-bit words NumPy cannot read as numbers)."""
        storage = dispatch.to_numpy(self._storage, self.device.type)
        item = storage.itemsize
        return self.dtype.decode(np.lib.stride_tricks.as_strided(
            storage[self._offset :] if self.numel() else storage,
            shape=self._shape,
            strides=tuple(s * item for s in self._strides),
        ))  # fmt: skip

    def numpy(self) -> np.ndarray:
        """A NumPy array sharing this tensor's memory (CPU only, like PyTorch)."""
        if self.device.type != "cpu":
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() "
                "to copy the tensor to host memory first."
            )
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if self.dtype.name == "bfloat16":  # NumPy has no bfloat16 to share memory with
            raise TypeError("Got unsupported ScalarType BFloat16 (NumPy has no bfloat16: "
                            "convert first, t.float().numpy())")  # fmt: skip
        return self._host_array()

    # ``np.float32(2) * t``: NumPy would take the tensor as an array and return an array,
    # losing the graph. ``__array_ufunc__ = None`` makes NumPy step aside, so Python calls
    # ``t.__rmul__(np.float32(2))`` instead, as for PyTorch tensors.
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        array = self.detach().cpu().numpy()
        return array.astype(dtype) if dtype is not None else array

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.detach().numpy().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0) if self.device.type == "cpu" else (2, 0)

    def tolist(self) -> Any:
        """Nested Python lists of Python numbers (a number for a 0-d tensor)."""
        return self._host_array().tolist()

    def item(self) -> bool | int | float:
        """The single value of a one-element tensor, as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        cells = dispatch.to_numpy(self._storage, self.device.type)
        return self.dtype.decode(cells[self._offset : self._offset + 1])[0].item()

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous "
                f"(it has {self.numel()} elements); use .any() or .all()"
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self) -> Any:
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    def __repr__(self) -> str:
        from minitorch.printing import tensor_repr

        return tensor_repr(self)

    def __format__(self, format_spec: str) -> str:
        """``f"{loss:.4f}"``: a 0-d tensor formats as its number (as in PyTorch, even
        ``f"{loss}"``); any other tensor only with an empty spec, as ``str``."""
        if self.ndim == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)
