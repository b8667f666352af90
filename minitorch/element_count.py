"""How many elements a shape holds, and whether a kernel (and the machine) can count that far.

``numel`` multiplies the sizes; ``checked_numel`` first makes sure the count, the stride of a
contiguous layout's dimension 0 and the byte count fit the kernels' signed 64-bit integers;
``allocating`` turns NumPy's ``MemoryError`` into PyTorch's ``RuntimeError``. Pure functions
on tuples, re-exported by ``minitorch/layout.py`` where the rest of a layout's rules live.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence


def numel(shape: Sequence[int]) -> int:
    """Number of elements: the product of the sizes (1 for a 0-d tensor)."""
    count = 1
    for size in shape:
        count *= size
    return count


INT64_MAX = 2**63 - 1  # kernels count elements, positions and bytes in signed 64-bit integers


def checked_numel(shape: Sequence[int], itemsize: int = 1) -> int:
    """``numel(shape)``, after checking that a kernel can count that far.

    Python's integers never overflow, but the kernels' 64-bit ones do: a loop over
    ``2**64`` elements wraps around and never ends. So every place that makes a shape
    asks here first, and so does every allocation (with its ``itemsize``). Three numbers
    must fit in int64, as in PyTorch:

    * the element count. PyTorch multiplies the sizes left to right in unsigned 64-bit,
      so ``(2**62, 2**62, 0)`` is refused although it has no elements: the product
      overflowed before it reached the 0;
    * the stride a contiguous layout gives dimension 0, ``prod(max(size, 1))`` over the
      other dimensions (so ``zeros(0, 2**62, 4)`` is refused too);
    * a new storage's byte count, ``count * itemsize``.
    """
    shape = tuple(shape)
    count = numel(shape)
    if 0 < count < 2**48:  # the common case: no size is 0, so none of the three can overflow
        return count
    before_zero = shape[: shape.index(0)] if 0 in shape else shape
    if count > INT64_MAX or numel(before_zero) >= 2**64:
        raise RuntimeError(
            f"numel: integer multiplication overflow: the sizes {list(shape)} have more than "
            "the 2**63 - 1 elements a tensor can index. Use smaller sizes."
        )
    if numel([size for size in shape[1:] if size > 1]) > INT64_MAX:
        raise RuntimeError(
            f"Stride calculation overflowed: a contiguous layout of sizes {list(shape)} needs "
            "strides beyond 2**63 - 1. Use smaller sizes."
        )
    if count * itemsize > INT64_MAX:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)}: {count} elements of "
            f"{itemsize} bytes are more than 2**63 - 1 bytes. Use smaller sizes."
        )
    return count


def out_of_memory(shape: Sequence[int], itemsize: int) -> RuntimeError:
    """The error for a storage the machine cannot hold. A count that passes
    ``checked_numel`` may still be more memory than there is (``ones(2**40)``: 4 TiB);
    NumPy then raises ``MemoryError``, PyTorch a ``RuntimeError`` naming the bytes."""
    return RuntimeError(
        f"can't allocate memory: you tried to allocate {numel(shape) * itemsize} bytes for "
        f"a tensor of sizes {list(shape)}. Use smaller sizes."
    )


@contextlib.contextmanager
def allocating(shape: Sequence[int], itemsize: int) -> Iterator[None]:
    """Allocate a storage for ``shape`` inside this block: a ``MemoryError`` becomes
    PyTorch's ``RuntimeError`` (``out_of_memory``). (``Tensor._empty``, which runs for
    every op, writes the same as a plain ``try``, which costs nothing when it succeeds.)"""
    try:
        yield
    except MemoryError as error:
        raise out_of_memory(shape, itemsize) from error
