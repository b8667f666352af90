"""The Python side of ``map``, ``zip`` and ``where``: operands to kernel arguments.

The elementwise primitives run through *runners*: ``zip_runner(op, shape, *strides)`` is
a function that runs ``zip(op)`` for that one layout, called with the storages and offsets
only (``run(out, a, b, out_offset, a_offset, b_offset)``). Everything that depends on the
layout alone is worked out when the runner is made: the merged layout arrays, the element
count, the layout class (``elementwise_kernels.zip_layout_class``) and so which kernels.
Dispatch keeps the runners of the layouts a program uses (``dispatch.zip``), so a small op
calls its runner and the runner its kernel: two Python calls. The serial-or-parallel
choice stays in the call (``parallel_policy.force`` may change it at any time).

Numba compiles a kernel per dtype on its own, so one runner serves every dtype Numba
takes; 16-bit floats are widened first (``through_float32``), so they go through ``map``
and ``zip`` below and never reach a runner (``takes_runner``).
"""

from __future__ import annotations

import functools

import numpy as np

from minitorch.backends import Strided, compile_time
from minitorch.backends.half_precision import HALF_LETTERS, through_float32
from minitorch.backends.numba import parallel_policy
from minitorch.backends.numba.compile_notice import announce_if_compiling
from minitorch.backends.numba.elementwise_kernels import (
    WHERE_KERNELS,
    make_map_kernels,
    make_zip_kernels,
    map_layout_class,
    zip_layout_class,
)
from minitorch.backends.numba.layouts import LAYOUT_CACHE_SIZE, elementwise_layout, is_one_row, nothing_to_run
from minitorch.backends.numba.scalar_functions import scalar_function
from minitorch.scalar_ops import MAP_OPS, ZIP_OPS


class KernelTable(dict):
    """``kernels[op]``: the ``LayoutKernels`` of one op, built by ``factory`` on first
    use (each of its kernels then compiles on its own first call)."""

    def __init__(self, factory, table: dict) -> None:
        super().__init__()
        self.factory, self.table = factory, table

    def __missing__(self, op: str):
        with compile_time.compiling():  # building the kernels is part of their one-time cost
            kernels = self.factory(scalar_function(self.table, op))
        self[op] = kernels
        return kernels


MAP_KERNELS = KernelTable(make_map_kernels, MAP_OPS)
ZIP_KERNELS = KernelTable(make_zip_kernels, ZIP_OPS)


def takes_runner(numpy_dtype: np.dtype) -> bool:
    """Whether the runners take storages of ``numpy_dtype`` (not 16-bit floats)."""
    return numpy_dtype.char not in HALF_LETTERS


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def map_runner(op: str, shape: tuple[int, ...], out_strides: tuple[int, ...], a_strides: tuple[int, ...]):
    """``run(out, a, out_offset, a_offset)``: ``map(op)`` on storages laid out so."""
    merged_shape, merged_strides, total = elementwise_layout(shape, out_strides, a_strides)
    if not total:
        return nothing_to_run
    one_row = is_one_row(merged_strides)
    kernels = MAP_KERNELS[op][map_layout_class(merged_shape, merged_strides)]
    serial, contiguous = kernels[0], MAP_KERNELS[op].contiguous
    announce_if_compiling(contiguous if one_row else serial, op)

    def run(out, a, out_offset: int, a_offset: int) -> None:
        if total < parallel_policy.serial_below:  # small: the serial kernel, at once
            serial(out, a, merged_shape, merged_strides, out_offset, a_offset, total, 1)
        else:
            args = (out, a, merged_shape, merged_strides, out_offset, a_offset, total)
            parallel_policy.run("map", op, total, kernels, args)

    def run_contiguous(out, a, out_offset: int, a_offset: int) -> None:
        if total < parallel_policy.serial_below:  # small: one contiguous row, at once
            contiguous(out, a, out_offset, a_offset, total)
        else:
            run(out, a, out_offset, a_offset)

    return run_contiguous if one_row else run


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def zip_runner(op: str, shape: tuple[int, ...], out_strides: tuple[int, ...], a_strides: tuple[int, ...],
               b_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, b, out_offset, a_offset, b_offset)``: ``zip(op)`` on storages laid out so."""
    merged_shape, merged_strides, total = elementwise_layout(shape, out_strides, a_strides, b_strides)
    if not total:
        return nothing_to_run
    one_row = is_one_row(merged_strides)
    kernels = ZIP_KERNELS[op][zip_layout_class(merged_shape, merged_strides)]
    serial, contiguous = kernels[0], ZIP_KERNELS[op].contiguous
    announce_if_compiling(contiguous if one_row else serial, op)

    def run(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
        if total < parallel_policy.serial_below:  # small: the serial kernel, at once
            serial(out, a, b, merged_shape, merged_strides, out_offset, a_offset, b_offset, total, 1)
        else:
            args = (out, a, b, merged_shape, merged_strides, out_offset, a_offset, b_offset, total)
            parallel_policy.run("zip", op, total, kernels, args)

    def run_contiguous(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
        if total < parallel_policy.serial_below:  # small: one contiguous row, at once
            contiguous(out, a, b, out_offset, a_offset, b_offset, total)
        else:
            run(out, a, b, out_offset, a_offset, b_offset)

    return run_contiguous if one_row else run


@through_float32
def map(op: str, out: Strided, a: Strided) -> None:  # noqa: A001 (the primitive's name)
    """``for i: out[i] = f(a[i])`` with ``f = MAP_OPS[op].fn``."""
    map_runner(op, out.shape, out.strides, a.strides)(out.storage, a.storage, out.offset, a.offset)


@through_float32
def zip(op: str, out: Strided, a: Strided, b: Strided) -> None:  # noqa: A001
    """``for i: out[i] = f(a[i], b[i])`` with ``f = ZIP_OPS[op].fn``."""
    zip_runner(op, out.shape, out.strides, a.strides, b.strides)(out.storage, a.storage, b.storage,
                                                                 out.offset, a.offset, b.offset)  # fmt: skip


@through_float32
def where(out: Strided, cond: Strided, a: Strided, b: Strided) -> None:
    """``for i: out[i] = a[i] if cond[i] else b[i]``."""
    shape, strides, total = elementwise_layout(out.shape, out.strides, cond.strides, a.strides, b.strides)
    if total:
        announce_if_compiling(WHERE_KERNELS[0], "where")
        offsets = np.array([out.offset, cond.offset, a.offset, b.offset], dtype=np.int64)
        args = (out.storage, cond.storage, a.storage, b.storage, shape, strides, offsets, total)
        parallel_policy.run("where", "where", total, WHERE_KERNELS, args)
