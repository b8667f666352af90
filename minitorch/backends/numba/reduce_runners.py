"""The Python side of ``reduce`` and ``arg_reduce``: operands to kernel arguments.

The input's dimensions are split in two (``layouts.reduce_layout``): the kept ones, merged
for out and a, and the reduced one, a run of ``length`` elements ``a_step`` apart. A
runner per layout (as for ``map``, ``elementwise_runners.py``) holds those arrays and the
op's kernels; ``parallel_policy`` picks the serial or the parallel one per call.
"""

from __future__ import annotations

import functools

from minitorch.backends import Strided, compile_time
from minitorch.backends.half_precision import through_float32
from minitorch.backends.numba import parallel_policy
from minitorch.backends.numba.compile_notice import announce_if_compiling
from minitorch.backends.numba.layouts import LAYOUT_CACHE_SIZE, nothing_to_run, reduce_layout
from minitorch.backends.numba.reduce_kernels import ARG_REDUCE_KERNELS, make_reduce_kernels
from minitorch.backends.numba.scalar_functions import reduce_functions


class ReduceKernelTable(dict):
    """``kernels[op]``: the ``LayoutKernels`` of one reduction (``make_reduce_kernels``)."""

    def __missing__(self, op: str):
        with compile_time.compiling():
            kernel = make_reduce_kernels(*reduce_functions(op))
        self[op] = kernel
        return kernel


REDUCE_KERNELS = ReduceKernelTable()


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def reduce_runner(op: str, shape: tuple[int, ...], dim: int, out_strides: tuple[int, ...],
                  a_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, out_offset, a_offset)``: ``reduce(op)`` along ``dim`` of an ``a`` of
    ``shape``, on storages laid out so."""
    merged_shape, merged_strides, total, length, a_step = reduce_layout(shape, dim, out_strides, a_strides)
    if not total:
        return nothing_to_run
    kernels = REDUCE_KERNELS[op][bool(a_step == 1)]
    announce_if_compiling(kernels[0], op)
    work = total * length if total > 1 else 0  # a single output is one thread's fold

    def run(out, a, out_offset: int, a_offset: int) -> None:
        args = (out, a, merged_shape, merged_strides, out_offset, a_offset, length, a_step, total)
        parallel_policy.run("reduce", op, work, kernels, args)

    return run


@through_float32
def reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Fold dimension ``dim`` of ``a`` into ``out`` (size 1 there) with ``REDUCE_OPS[op]``."""
    reduce_runner(op, a.shape, dim, out.strides, a.strides)(out.storage, a.storage, out.offset, a.offset)


@through_float32
def arg_reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Index along ``dim`` of the first max (``argmax``) or min (``argmin``)."""
    shape, strides, total, length, a_step = reduce_layout(a.shape, dim, out.strides, a.strides)
    if total:
        announce_if_compiling(ARG_REDUCE_KERNELS[0], op)
        is_max = op == "argmax"
        args = (is_max, out.storage, a.storage, shape, strides, out.offset, a.offset, length, a_step, total)
        parallel_policy.run("arg_reduce", op, total * length, ARG_REDUCE_KERNELS, args)
