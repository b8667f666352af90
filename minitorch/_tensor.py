"""The Tensor: a storage, a layout, a dtype, a device, and autograd bookkeeping.

This file holds the *data structure* only. A tensor is

* ``_storage`` -- a flat 1-D array shared by every view of it (NumPy on the CPU);
* ``_shape``, ``_strides``, ``_offset`` -- how to read that storage (``minitorch/layout.py``);
* ``dtype`` and ``device``;
* autograd fields: ``requires_grad``, ``grad``, ``grad_fn`` (the node that made this
  tensor), ``_base`` (the tensor this one is a view of) and a *version counter* shared
  by all views of one storage, bumped by every in-place write.

The operations (``+``, ``exp``, ``sum``, ``view``, ...) live in ``minitorch/ops/`` and are
attached to ``Tensor`` as methods by ``minitorch/ops/__init__.py``: each op is written
once, with its derivative beside it.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch.device import device as Device
from minitorch.dispatch import tracing as dispatch_tracing  # ``recording``: is a trace or capture open?
from minitorch.dtypes import dtype as DType
from minitorch.layout import (
    allocating,
    check_in_bounds,
    checked_numel,
    contiguous_strides,
    is_contiguous,
    new_tensor_layout,
    normalize_dim,
    numel,
    out_of_memory,
)
from minitorch.tensor_values import TensorValues


class Size(tuple):
    """A tensor's shape: a tuple that prints like PyTorch's ``torch.Size``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"  # as PyTorch prints it, like the dtypes

    def numel(self) -> int:
        return numel(self)


class VersionCounter:
    """How many times a storage was written in place. Shared by all views of it, so
    autograd can tell that a tensor it saved for backward has changed since.

    Every new tensor makes one, and most are never written in place, so ``value``
    starts as this class attribute: making a counter runs no ``__init__``, and the
    instance gets a ``value`` of its own at its first bump."""

    value = 0


class Tensor(TensorValues):
    """An n-dimensional array with PyTorch's API. Create one with
    ``minitorch.tensor(data)``, ``minitorch.zeros(shape)``, ...

    ``Tensor(...)`` itself is PyTorch's *legacy* constructor, kept because old tutorials
    call it (see ``__init__``). The library makes its tensors with ``Tensor._make``."""

    __slots__ = (
        "_storage", "_shape", "_strides", "_offset", "dtype", "device",
        "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_base", "_version_counter",
        "_grad_accumulator", "_backward_hooks", "_retains_grad", "_history_version",
        "_post_accumulate_grad_hooks", "__weakref__",
    )  # fmt: skip

    def __init__(self, *data_or_sizes: Any, device: Any = None) -> None:
        """PyTorch's legacy constructor: ``Tensor([[1, 2], [3, 4]])`` copies the values in
        the default dtype, ``Tensor(2, 3)`` makes that shape, ``Tensor()`` an empty
        tensor, ``Tensor(other)`` shares ``other``'s storage (``legacy_tensor`` in
        ``legacy_constructors.py`` says how each is read)."""
        from minitorch.legacy_constructors import legacy_tensor  # built on this file

        made = legacy_tensor(None, data_or_sizes, device)
        self._init(made._storage, made._shape, made._strides, made._offset, made.dtype, made.device)
        self._version_counter = made._version_counter  # shared with ``other``'s

    @staticmethod
    def _make(
        storage: Any,
        shape: tuple[int, ...],
        strides: tuple[int, ...],
        offset: int,
        dtype: DType,
        device: Device,
        base: Tensor | None = None,
    ) -> Tensor:
        """A tensor reading ``storage`` through the layout ``(shape, strides, offset)``;
        ``base`` is the tensor it is a view of. Every tensor the library makes starts here."""
        t = object.__new__(Tensor)
        t._init(storage, shape, strides, offset, dtype, device, base)
        return t

    def _init(
        self,
        storage: Any,
        shape: tuple[int, ...],
        strides: tuple[int, ...],
        offset: int,
        dtype: DType,
        device: Device,
        base: Tensor | None = None,
    ) -> None:
        """Set every field: the data, the layout, and empty autograd bookkeeping."""
        self._storage = storage
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        self._offset = offset
        self.dtype = dtype
        self.device = device
        self._requires_grad = False
        self._grad: Tensor | None = None
        self._grad_fn: Any = None
        self._output_nr = 0
        self._base = base
        if base is None:
            self._version_counter, self._history_version = VersionCounter(), 0
        else:  # a view shares its base's counter, and notes where it stood (see ``grad_fn``)
            self._version_counter = counter = base._version_counter
            self._history_version = counter.value
        self._grad_accumulator: weakref.ref | None = None
        self._backward_hooks: dict | None = None  # a leaf's hooks, shared with its node
        self._post_accumulate_grad_hooks: list | None = None  # a leaf's, run after ``.grad`` changes
        self._retains_grad = False

    # ----- making tensors (used by ops; users call minitorch.zeros etc.) -------------

    @staticmethod
    def _empty(shape: tuple[int, ...], dtype: DType, device: Device, strides: tuple | None = None) -> Tensor:
        """A new tensor with its own (uninitialised) storage: contiguous, or with
        ``strides`` that lay ``shape`` out densely in another order of the dimensions.
        (An elementwise op's plan makes its outputs the same way, with the allocator it
        keeps: ``minitorch/ops/elementwise.py``.)"""
        shape = tuple(shape)
        count, contiguous = new_tensor_layout(shape, dtype.itemsize)  # checked, remembered
        try:
            storage = dispatch.empty(count, dtype.numpy, device.type)
        except MemoryError as error:
            raise out_of_memory(shape, dtype.itemsize) from error
        t = object.__new__(Tensor)  # (``_make``, inlined: every op's output is made here)
        t._init(storage, shape, contiguous if strides is None else strides, 0, dtype, device)
        return t

    @staticmethod
    def _full(shape: tuple[int, ...], value: Any, dtype: DType, device: Device) -> Tensor:
        """A new contiguous tensor with every element equal to ``value``."""
        if (device.type == "cpu" and dtype.is_floating_point and dtype.itemsize >= 4
                and type(value) in (int, float, bool) and not dispatch_tracing.recording):  # fmt: skip
            # CPU storage is a NumPy array: filled where it lies, with the very values
            # ``np.full`` gives a float32 or float64, and no host array to copy over.
            # Other types take the path below, and so does a capture (it keeps a constant).
            t = Tensor._empty(shape, dtype, device)
            t._storage.fill(value)
            return t
        count = checked_numel(shape, dtype.itemsize)
        with allocating(shape, 8):  # the value's own NumPy type first, then cast as PyTorch
            host = dtype.encode(np.full(count, value))
        storage = dispatch.from_numpy(host, device.type)
        return Tensor._make(storage, shape, contiguous_strides(shape), 0, dtype, device)

    def _view(self, shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Tensor:
        """A new tensor reading this one's storage through another layout (no copy).

        Every view the library makes comes through here, so here is where its layout is
        checked to stay inside the storage (``layout.check_in_bounds``): the kernels that
        later read it do no bounds checks of their own."""
        shape, strides = tuple(shape), tuple(strides)
        check_in_bounds(shape, strides, offset, len(self._storage))
        base = self._base if self._base is not None else self
        return Tensor._make(self._storage, shape, strides, offset, self.dtype, self.device, base)

    def _alias(self) -> Tensor:
        """Same storage and layout, no autograd history (``detach`` without the name)."""
        alias = Tensor._make(self._storage, self._shape, self._strides, self._offset, self.dtype,
                       self.device)  # fmt: skip
        alias._version_counter = self._version_counter
        return alias

    # ----- shape and layout --------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or the size of one dimension."""
        if dim is None:
            return Size(self._shape)
        return self._shape[normalize_dim(dim, self.ndim)] if self._shape else 1

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        return numel(self._shape)

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        """How many storage cells one step along each dimension jumps."""
        if dim is None:
            return self._strides
        return self._strides[normalize_dim(dim, self.ndim)] if self._strides else 1

    def storage_offset(self) -> int:
        """Where element ``[0, 0, ...]`` sits in the storage."""
        return self._offset

    def is_contiguous(self) -> bool:
        return is_contiguous(self._shape, self._strides)

    def untyped_storage_size(self) -> int:
        """Number of cells in the storage shared by this tensor and its views."""
        return len(self._storage)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def element_size(self) -> int:
        return self.dtype.itemsize

    # ----- autograd fields ---------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        if self._base is not None and self._history_version != self._version_counter.value:
            self._refresh_view_history()  # see ``grad_fn``
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not self.is_leaf:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach()."
            )
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        """The gradient ``backward`` accumulated here (``None`` until then)."""
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        """Assigning a gradient by hand is checked as PyTorch checks it: ``None``, or a
        tensor of this tensor's shape, dtype and device (``x.grad = 0.`` is a TypeError)."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value._shape != self._shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._shape)}' to a tensor "
                    f"of size '{list(self._shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype}' to a tensor "
                    f"with dtype '{self.dtype}'. The gradient must match the tensor's dtype."
                )
            if value.device != self.device:
                raise RuntimeError(
                    f"attempting to assign a gradient with device type '{value.device.type}' to "
                    f"a tensor with device type '{self.device.type}'. Please ensure that the "
                    "gradient and the tensor are on the same device"
                )
        self._grad = value

    @property
    def grad_fn(self) -> Any:
        """The autograd node that produced this tensor (``None`` for leaves).

        A view whose storage was written in place since its node was made (through its
        base or another view) reads values its node knows nothing of: it first gets a
        new node reading it out of its base's new history, as in PyTorch
        (``refresh_view_history`` in ``ops/inplace.py``, attached as a method)."""
        if self._base is not None and self._history_version != self._version_counter.value:
            self._refresh_view_history()
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a differentiable op (parameters, inputs)."""
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        return self._version_counter.value

    def _bump_version(self) -> None:
        self._version_counter.value += 1

    def detach(self) -> Tensor:
        """A tensor sharing this one's storage, cut out of the autograd graph."""
        return self._alias()

    def detach_(self) -> Tensor:
        """Cut this tensor out of the graph, in place: it becomes a leaf."""
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        return self._alias()

    @data.setter
    def data(self, other: Tensor) -> None:
        self._storage, self._shape, self._strides, self._offset = (
            other._storage, other._shape, other._strides, other._offset)  # fmt: skip
        self.dtype, self.device = other.dtype, other.device


def is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)
