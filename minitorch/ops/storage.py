"""The storage under a tensor, as PyTorch shows it: ``untyped_storage()``,
``storage()``, ``data_ptr()``, ``nbytes``, ``itemsize``.

A tensor is a *layout* over a flat storage shared by all its views. The storage is
counted in bytes (``untyped_storage().nbytes()``); a tensor's ``nbytes`` counts only its
own elements, ``numel() * itemsize``. ``data_ptr()`` is the memory address of the
element ``[0, 0, ...]``:

    t.data_ptr() == t.untyped_storage().data_ptr() + t.storage_offset() * t.itemsize

Here the address is that of the NumPy array holding the storage (on a real GPU, of the
CuPy array), plus ``offset * itemsize``. So two views of one storage have the same
``untyped_storage().data_ptr()``, and ``x[1:].data_ptr() - x.data_ptr()`` is one itemsize.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor


def _address(array: Any) -> int:
    """Where ``array``'s first byte lies in memory (NumPy, or CuPy on a GPU)."""
    interface = getattr(array, "__array_interface__", None)
    return interface["data"][0] if interface is not None else int(array.data.ptr)


class UntypedStorage:
    """The bytes under a tensor and all its views (``t.untyped_storage()``)."""

    def __init__(self, array: Any, device: Any) -> None:
        self._array, self.device = array, device

    def data_ptr(self) -> int:
        return _address(self._array)

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def __repr__(self) -> str:
        return f"minitorch UntypedStorage of {self.nbytes()} bytes on {self.device}"


class TypedStorage(UntypedStorage):
    """The storage read as elements of the tensor's dtype (``t.storage()``): every cell,
    whatever part of it the tensor's own layout reaches."""

    def __init__(self, array: Any, device: Any, dtype: Any) -> None:
        super().__init__(array, device)
        self.dtype = dtype

    def size(self) -> int:
        return len(self._array)

    def __len__(self) -> int:
        return len(self._array)

    def element_size(self) -> int:
        return self.dtype.itemsize

    def tolist(self) -> list:
        return Tensor._make(self._array, (len(self._array),), (1,), 0, self.dtype, self.device).tolist()

    def __getitem__(self, index: Any) -> Any:
        """One cell (a negative index counts from the end), or a list for a slice."""
        if isinstance(index, slice):
            return self.tolist()[index]
        size = len(self._array)
        if not -size <= index < size:
            raise IndexError(f"index {index} out of range for storage of size {size}")
        return Tensor._make(self._array, (), (), index % size, self.dtype, self.device).item()

    def __repr__(self) -> str:
        return f"minitorch TypedStorage of {self.size()} {self.dtype} elements on {self.device}"


def untyped_storage(t: Tensor) -> UntypedStorage:
    return UntypedStorage(t._storage, t.device)


def storage(t: Tensor) -> TypedStorage:
    return TypedStorage(t._storage, t.device, t.dtype)


def data_ptr(t: Tensor) -> int:
    """The address of element ``[0, 0, ...]``: the storage's plus ``offset * itemsize``."""
    return _address(t._storage) + t._offset * t.dtype.itemsize


def nbytes(t: Tensor) -> int:
    """The bytes of the tensor's own elements, ``numel() * itemsize`` (an expanded view
    counts every element it shows; its storage may hold far fewer)."""
    return t.numel() * t.dtype.itemsize


def itemsize(t: Tensor) -> int:
    """The bytes of one element (``element_size()``)."""
    return t.dtype.itemsize
