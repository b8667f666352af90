"""Questions a tensor answers about itself: where it lives (``is_cpu``, ``get_device``,
``layout``), what its dtype can hold (``is_signed``), how it relates to another tensor
(``is_same_size``, ``is_set_to``), its place in the autograd graph (``retains_grad``,
``output_nr``), and the conjugate-transpose views ``H``, ``mH``, ``adjoint``.

None of them computes anything new: each reads the fields a tensor already has, its
storage, shape, strides, offset, dtype and device (``_tensor.py``). Several are answers
fixed by what minitorch is: no complex numbers, so ``is_conj()`` is ``False`` and the
conjugate transpose ``mH`` is just the transpose ``mT``; one dense layout, so ``layout``
is always ``strided``; no named tensors, so ``name`` is ``None``.

``as_subclass(cls)`` is the one that builds something: a view of the same data whose
Python class is ``cls`` (a subclass of ``Tensor``), still attached to the graph.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor


class Layout:
    """How a tensor's elements are laid out in memory (PyTorch's ``torch.layout``).

    minitorch has one: ``strided``, every element at ``offset + sum(i_k * stride_k)``.
    PyTorch's others (``sparse_coo``, ``sparse_csr``...) store only the nonzeros."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = Layout("strided")


def layout(t: Tensor) -> Layout:
    """``t.layout``: always ``minitorch.strided`` (a dense tensor read through strides)."""
    return strided


def is_cpu(t: Tensor) -> bool:
    """``t.is_cpu``: whether ``t``'s storage is in main memory."""
    return t.device.type == "cpu"


def is_meta(t: Tensor) -> bool:
    """``t.is_meta``: ``False`` (a meta tensor has a shape and no data; minitorch's
    tensors always have data)."""
    return False


def get_device(input: Tensor) -> int:  # noqa: A002 (PyTorch's name)
    """The index of ``input``'s GPU (``0`` for ``cuda:0``), or ``-1`` on the CPU."""
    require_tensor("get_device", input)
    return -1 if input.device.type == "cpu" else (input.device.index or 0)


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input``'s dtype is a floating-point type (``float16/32/64``, ``bfloat16``)."""
    require_tensor("is_floating_point", input)
    return input.dtype.is_floating_point


def is_signed(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input``'s dtype holds negative numbers: every float and signed integer
    type, not ``uint8`` or ``bool``."""
    require_tensor("is_signed", input)
    return input.dtype.is_signed


def is_conj(input: Tensor) -> bool:  # noqa: A002
    """``False``: a conjugated view exists only for complex tensors, which minitorch lacks."""
    require_tensor("is_conj", input)
    return False


def is_distributed(input: Tensor) -> bool:  # noqa: A002
    """``False``: a tensor is never split across processes (``minitorch.distributed``
    sends whole tensors)."""
    require_tensor("is_distributed", input)
    return False


def numel(input: Tensor) -> int:  # noqa: A002
    """The number of elements of ``input``: the product of its sizes."""
    require_tensor("numel", input)
    return input.numel()


def is_nonzero(input: Tensor) -> bool:  # noqa: A002
    """Whether the single value of a one-element tensor is not zero (``bool(input)``);
    any other number of elements is a RuntimeError, as in ``if tensor:``."""
    require_tensor("is_nonzero", input)
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def is_same_size(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """Whether the two tensors have the same shape."""
    require_tensor("is_same_size", input)
    require_tensor("is_same_size", other, "other", 2)
    return tuple(input.shape) == tuple(other.shape)


def is_set_to(t: Tensor, tensor: Tensor) -> bool:
    """Whether ``t`` and ``tensor`` are the same view of the same storage: one storage,
    and the same offset, shape and strides (what ``t.set_(tensor)`` leaves behind)."""
    require_tensor("is_set_to", tensor, "tensor", 1)
    return (t._storage is tensor._storage and t._offset == tensor._offset
            and t._shape == tensor._shape and t._strides == tensor._strides)  # fmt: skip


def _matrices_only(t: Tensor, what: str, batches: bool) -> None:
    if t.ndim == 0:
        message = f"{what} is deprecated on 0-D tensors. Consider using x.conj()."
        warnings.warn(message, UserWarning, stacklevel=3)
    elif t.ndim == 1 or (t.ndim > 2 and not batches):
        kind = "matrices or batches of matrices" if batches else "matrices (2-D tensors)"
        hint = "" if batches else ". For batches of matrices, consider using tensor.mH"
        raise RuntimeError(f"{what} is only supported on {kind}. Got {t.ndim}-D tensor{hint}")


def conjugate_transpose(t: Tensor) -> Tensor:
    """``t.H``: the conjugate transpose of a matrix; with real numbers, ``t.t()``."""
    _matrices_only(t, "tensor.H", batches=False)
    return t if t.ndim == 0 else t.transpose(0, 1)


def matrix_conjugate_transpose(t: Tensor) -> Tensor:
    """``t.mH``: the last two dims swapped (each matrix of a batch conjugate-transposed)."""
    if t.ndim < 2:
        raise RuntimeError(
            f"tensor.mH is only supported on matrices or batches of matrices. Got {t.ndim}-D tensor."
        )
    return t.transpose(-2, -1)


def adjoint(input: Tensor) -> Tensor:  # noqa: A002
    """The conjugate transpose of each matrix in ``input`` (a view): with real numbers,
    ``input.transpose(-2, -1)``."""
    require_tensor("adjoint", input)
    _matrices_only(input, "adjoint()", batches=True)
    return input if input.ndim == 0 else input.transpose(-2, -1)


def retains_grad(t: Tensor) -> bool:
    """``t.retains_grad``: whether a non-leaf ``t`` keeps its ``.grad`` (``retain_grad()``
    was called); always ``False`` for leaves, which keep theirs anyway."""
    return (not t.is_leaf) and t._retains_grad


def output_nr(t: Tensor) -> int:
    """``t.output_nr``: which output of its ``grad_fn`` this tensor is (``0`` for a
    single-output op; ``0, 1, ...`` for the pieces of ``unbind`` or ``chunk``)."""
    return t._output_nr


def name(t: Tensor) -> None:
    """``t.name``: ``None`` (PyTorch's name of a graph value in TorchScript)."""
    return None


def grad_dtype(t: Tensor) -> Any:
    """``t.grad_dtype``: the dtype ``t.grad`` has, which is ``t``'s own."""
    return t.dtype


def const_data_ptr(t: Tensor) -> int:
    """``t.const_data_ptr()``: the address of ``t``'s first element, as ``data_ptr()``
    (PyTorch's promise not to write through it)."""
    return t.data_ptr()


def volatile(t: Tensor) -> bool:
    """``t.volatile``: removed from PyTorch (0.4); always ``False``, with its warning."""
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _set_volatile(t: Tensor, value: Any) -> None:
    warnings.warn(
        "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
        UserWarning, stacklevel=2,
    )  # fmt: skip


def as_subclass(t: Tensor, cls: type) -> Tensor:
    """A tensor of class ``cls`` (a ``Tensor`` subclass) that shares ``t``'s data: an
    alias view, so writes through either show in both and gradients flow back to ``t``."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )
    alias = t.view_as(t)
    made = object.__new__(cls)
    for slot in Tensor.__slots__:
        if slot != "__weakref__":
            setattr(made, slot, getattr(alias, slot))
    return made


METHODS = {
    "get_device": get_device, "is_signed": is_signed, "is_conj": is_conj,
    "is_distributed": is_distributed, "is_nonzero": is_nonzero, "is_same_size": is_same_size,
    "is_set_to": is_set_to, "adjoint": adjoint, "const_data_ptr": const_data_ptr,
    "as_subclass": as_subclass,
}  # fmt: skip

PROPERTIES = {
    "layout": layout, "is_cpu": is_cpu, "is_meta": is_meta, "H": conjugate_transpose,
    "mH": matrix_conjugate_transpose, "retains_grad": retains_grad, "output_nr": output_nr,
    "name": name, "grad_dtype": grad_dtype,
}  # fmt: skip


def install() -> None:
    """Put the read-only ``PROPERTIES`` on ``Tensor`` (``METHODS`` go through the table
    in ``ops/__init__.py``), and ``volatile`` with its setter that only warns."""
    for attribute, getter in PROPERTIES.items():
        setattr(Tensor, attribute, property(getter, doc=getter.__doc__))
    Tensor.volatile = property(volatile, _set_volatile, doc=volatile.__doc__)
