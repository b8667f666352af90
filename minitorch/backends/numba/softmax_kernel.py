"""The Numba kernel of ``softmax`` (``softmax`` and ``log_softmax`` of each line). It must
agree with ``reference.softmax``; both Numba backends use it.

A line's softmax needs the whole line before it can write one element (its max, then the
sum of its exponentials), so each line is one loop of three passes, all over elements
that are already in the cache after the first (``exp`` is ``fast_exp``, the exp that
vector instructions can compute, ``scalar_functions.py``)::

    for each line (an index into the kept dimensions):
        m = max of a[line]                              (NaN wins)
        s = sum of exp(a[line] - m)                     (softmax: each exp kept in out)
        out[line] = exp(a[line] - m) / s                softmax
        out[line] = (a[line] - m) - log(s)              log_softmax

The caller splits the tensor as a reduction does (``layout.merge_kept_dims``): the kept
dimensions, merged, pick a line; the line is ``length`` elements ``a_step`` apart in ``a``
and ``out_step`` apart in ``out``. When both steps are 1 (the usual ``dim=-1`` of a
contiguous tensor) the passes read slices, which Numba turns into vector instructions.
Lines are independent, so the parallel kernel hands each thread a share of them.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit, prange

from minitorch import layout
from minitorch.backends import Strided
from minitorch.backends.half_precision import through_float32
from minitorch.backends.kernel_source_version import code_version
from minitorch.backends.numba import parallel_policy
from minitorch.backends.numba.compile_notice import announce_if_compiling
from minitorch.backends.numba.elementwise_kernels import chunk_bounds, row_start
from minitorch.backends.numba.layouts import LAYOUT_CACHE_SIZE, nothing_to_run, reduce_layout
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, PRANGE_ONLY, fast_exp

# A line's max and sum are reductions: one value carried through the whole loop. Compiled
# to the letter, each step waits for the one before, one element at a time. The flags below
# let the compiler carry several partial results in one vector register instead, eight
# elements a step, and combine them at the end. For the sum that means adding in another
# order ("reassoc": the partial sums), within float rounding of the loop's order.
SUM_FASTMATH = {"reassoc"}
# For the max it means a vector max instruction, which the compiler uses only when it may
# assume no element is NaN ("nnan") and need not tell -0.0 from 0.0 ("nsz"). A NaN needs no
# special care: whichever value the max then is, the NaN's exp is NaN, so the line's sum
# is, and with it every output of the line (as PyTorch has it).
MAX_FASTMATH = {"nnan", "nsz"}


@njit(fastmath=MAX_FASTMATH, **JIT_OPTIONS)
def line_max(x):
    """The max of a contiguous line (see ``MAX_FASTMATH`` for a line with a NaN)."""
    top = x[0]
    for j in range(1, x.size):
        top = x[j] if x[j] > top else top
    return top


@njit(fastmath=SUM_FASTMATH, **JIT_OPTIONS)
def line_sum(y):
    """The sum of a contiguous line, in vector partial sums (``SUM_FASTMATH``)."""
    total = y[0] - y[0]  # zero, in the line's dtype
    for j in range(y.size):
        total += y[j]
    return total


BLOCK = 64  # lines of a packed tensor whose exponentials are taken in one loop


@njit(**JIT_OPTIONS)
def packed_lines(out, a, out_offset, a_offset, length, begin, end, logs):
    """Lines ``begin .. end-1`` of a tensor whose lines lie back to back in both operands
    (a contiguous ``[N, C]`` along ``C``): the same three passes, but the exponentials of
    ``BLOCK`` lines at a time in one loop over all their elements, so that short lines
    (27 classes) still fill whole vector instructions. Each line's own passes read and
    write slices of that line alone (``x_line``, ``y_line``): the compiler then knows
    that writing ``y_line`` changes neither ``x_line`` nor the line's max, and
    vectorizes them."""
    tops = np.empty(BLOCK, dtype=a.dtype)
    for first in range(begin, end, BLOCK):
        lines = min(BLOCK, end - first)
        count = lines * length
        x = a[a_offset + first * length : a_offset + first * length + count]
        y = out[out_offset + first * length : out_offset + first * length + count]
        for i in range(lines):  # pass 1: the shifted line, x - max
            x_line, y_line = x[i * length : (i + 1) * length], y[i * length : (i + 1) * length]
            top = line_max(x_line)
            tops[i] = top
            for j in range(length):
                y_line[j] = x_line[j] - top
        for j in range(count):  # pass 2: the exponentials of the whole block
            y[j] = fast_exp(y[j])
        for i in range(lines):  # pass 3: each line's sum, then its outputs
            x_line, y_line = x[i * length : (i + 1) * length], y[i * length : (i + 1) * length]
            total = line_sum(y_line)
            top = tops[i]
            if logs:
                log_total = np.log(total)
                for j in range(length):
                    y_line[j] = (x_line[j] - top) - log_total
            else:
                for j in range(length):
                    y_line[j] = y_line[j] / total


@functools.cache
def softmax_kernels(op: str, lines_layout: str) -> tuple:
    """``(serial, parallel)``: the kernel of ``op`` for lines laid out so (``"packed"``:
    back to back in both operands; ``"contiguous"``: each line's elements 1 apart;
    ``"strided"``); each compiles on its first call."""
    logs = op == "log_softmax"
    contiguous_lines, packed = lines_layout != "strided", lines_layout == "packed"

    def build(parallel: bool):
        # Captured values key Numba's disk cache apart (see ``code_version``).
        variant = (parallel, logs, lines_layout, code_version(chunk_bounds))

        def softmax_kernel(out, a, shape, strides, out_offset, a_offset, length, out_step, a_step,
                           lines, chunks):  # fmt: skip
            """Agrees with ``reference.softmax`` (see the module docstring)."""
            pieces = chunks if variant[0] else 1
            for chunk in prange(pieces):
                begin, end = chunk_bounds(chunk, pieces, lines)
                if packed:
                    packed_lines(out, a, out_offset, a_offset, length, begin, end, logs)
                    continue
                for line in range(begin, end):
                    # The kept layout is one "row" per line: its last dimension too.
                    column = line % shape[-1]
                    row = line // shape[-1]
                    o = row_start(row, shape, strides[0], out_offset) + column * strides[0, -1]
                    p = row_start(row, shape, strides[1], a_offset) + column * strides[1, -1]
                    if contiguous_lines:
                        x = a[p : p + length]
                        y = out[o : o + length]
                        top = line_max(x)
                        for j in range(length):
                            y[j] = fast_exp(x[j] - top)
                        total = line_sum(y)
                        if logs:
                            log_total = np.log(total)
                            for j in range(length):
                                y[j] = (x[j] - top) - log_total
                        else:
                            for j in range(length):
                                y[j] = y[j] / total
                    else:
                        top = a[p]
                        for j in range(1, length):
                            value = a[p + j * a_step]
                            if value > top or value != value:
                                top = value
                        total = top - top
                        if logs:
                            for j in range(length):
                                total += fast_exp(a[p + j * a_step] - top)
                            log_total = np.log(total)
                            for j in range(length):
                                out[o + j * out_step] = (a[p + j * a_step] - top) - log_total
                        else:
                            for j in range(length):
                                e = fast_exp(a[p + j * a_step] - top)
                                out[o + j * out_step] = e
                                total += e
                            for j in range(length):
                                out[o + j * out_step] = out[o + j * out_step] / total

        return njit(parallel=PRANGE_ONLY if variant[0] else False, **JIT_OPTIONS)(softmax_kernel)

    return build(False), build(True)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def softmax_runner(op: str, shape: tuple[int, ...], dim: int, out_strides: tuple[int, ...],
                   a_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, out_offset, a_offset)``: ``softmax(op)`` along ``dim`` of tensors of
    ``shape``, on storages laid out so (the layout worked out once)."""
    if layout.numel(shape) == 0:
        return nothing_to_run
    merged_shape, merged_strides, lines, length, a_step = reduce_layout(shape, dim, out_strides, a_strides)
    out_step = out_strides[dim]
    if a_step == 1 and out_step == 1:
        one_run = merged_shape.size == 1 and bool((merged_strides[:, 0] == length).all())
        kernels = softmax_kernels(op, "packed" if one_run else "contiguous")
    else:
        kernels = softmax_kernels(op, "strided")
    announce_if_compiling(kernels[0], op)
    work = lines * length

    def run(out, a, out_offset: int, a_offset: int) -> None:
        args = (out, a, merged_shape, merged_strides, out_offset, a_offset, length, out_step, a_step, lines)
        parallel_policy.run("softmax", op, work, kernels, args)

    return run


@through_float32
def softmax(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Each line of ``a`` along ``dim`` made into probabilities (``"softmax"``) or their
    logs (``"log_softmax"``), written to ``out`` (of ``a``'s shape)."""
    softmax_runner(op, a.shape, dim, out.strides, a.strides)(out.storage, a.storage, out.offset, a.offset)


# --------------------------------------------------------------------------------------
# log_softmax's backward: out = g - exp(y) * sum(g), line by line
# --------------------------------------------------------------------------------------


@njit(**JIT_OPTIONS)
def packed_backward_lines(out, g, y, offsets, length, begin, end):
    """Lines ``begin .. end-1`` of ``log_softmax_backward`` when all three operands lie
    back to back (a contiguous ``[N, C]`` along ``C``): as in ``packed_lines``, the
    exponentials of ``BLOCK`` lines are taken in one loop, then each line's sum of ``g``
    and its outputs."""
    for first in range(begin, end, BLOCK):
        lines = min(BLOCK, end - first)
        count = lines * length
        o, p, q = offsets[0] + first * length, offsets[1] + first * length, offsets[2] + first * length
        out_block, g_block, y_block = out[o : o + count], g[p : p + count], y[q : q + count]
        for j in range(count):  # the softmax of the block, exp(y)
            out_block[j] = fast_exp(y_block[j])
        for i in range(lines):
            out_line = out_block[i * length : (i + 1) * length]
            g_line = g_block[i * length : (i + 1) * length]
            total = line_sum(g_line)
            for j in range(length):
                out_line[j] = g_line[j] - out_line[j] * total


@functools.cache
def log_softmax_backward_kernels(lines_layout: str) -> tuple:
    """``(serial, parallel)`` kernels of ``log_softmax_backward`` for lines laid out so
    (``"packed"``, ``"contiguous"`` or ``"strided"``, as for ``softmax_kernels``)."""
    contiguous_lines, packed = lines_layout != "strided", lines_layout == "packed"

    def build(parallel: bool):
        variant = (parallel, lines_layout, code_version(chunk_bounds))  # (keys the disk cache)

        def log_softmax_backward_kernel(out, g, y, shape, strides, offsets, length, steps, lines, chunks):
            """Agrees with ``reference.log_softmax_backward``: for each line,
            ``s = sum(g)``, then ``out = g - exp(y) * s``."""
            pieces = chunks if variant[0] else 1
            for chunk in prange(pieces):
                begin, end = chunk_bounds(chunk, pieces, lines)
                if packed:
                    packed_backward_lines(out, g, y, offsets, length, begin, end)
                    continue
                for line in range(begin, end):
                    column, row = line % shape[-1], line // shape[-1]
                    o = row_start(row, shape, strides[0], offsets[0]) + column * strides[0, -1]
                    p = row_start(row, shape, strides[1], offsets[1]) + column * strides[1, -1]
                    q = row_start(row, shape, strides[2], offsets[2]) + column * strides[2, -1]
                    if contiguous_lines:
                        out_line, g_line, y_line = out[o : o + length], g[p : p + length], y[q : q + length]
                        total = line_sum(g_line)
                        for j in range(length):
                            out_line[j] = g_line[j] - fast_exp(y_line[j]) * total
                    else:
                        total = g[p] - g[p]  # zero, in the line's dtype
                        for j in range(length):
                            total += g[p + j * steps[1]]
                        for j in range(length):
                            softmax_j = fast_exp(y[q + j * steps[2]])
                            out[o + j * steps[0]] = g[p + j * steps[1]] - softmax_j * total

        return njit(parallel=PRANGE_ONLY if variant[0] else False, **JIT_OPTIONS)(log_softmax_backward_kernel)

    return build(False), build(True)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def log_softmax_backward_runner(shape: tuple[int, ...], dim: int, out_strides: tuple[int, ...],
                                g_strides: tuple[int, ...], y_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, g, y, out_offset, g_offset, y_offset)`` for tensors of ``shape`` laid out so."""
    if layout.numel(shape) == 0:
        return nothing_to_run
    all_strides = (out_strides, g_strides, y_strides)
    kept_shape, kept_strides = layout.merge_kept_dims(shape, dim, *all_strides)
    merged_shape = np.array(kept_shape, dtype=np.int64)
    merged_strides = np.array(kept_strides, dtype=np.int64)
    length, lines = shape[dim], layout.numel(shape) // shape[dim]
    steps = np.array([strides[dim] for strides in all_strides], dtype=np.int64)
    if (steps == 1).all():
        one_run = merged_shape.size == 1 and bool((merged_strides[:, 0] == length).all())
        kernels = log_softmax_backward_kernels("packed" if one_run else "contiguous")
    else:
        kernels = log_softmax_backward_kernels("strided")
    announce_if_compiling(kernels[0], "log_softmax_backward")
    work = lines * length

    def run(out, g, y, out_offset: int, g_offset: int, y_offset: int) -> None:
        offsets = np.array((out_offset, g_offset, y_offset), dtype=np.int64)
        args = (out, g, y, merged_shape, merged_strides, offsets, length, steps, lines)
        parallel_policy.run("log_softmax_backward", "log_softmax", work, kernels, args)

    return run


@through_float32
def log_softmax_backward(out: Strided, grad: Strided, y: Strided, dim: int) -> None:
    """``out = grad - exp(y) * sum(grad)`` along ``dim``, line by line (all one shape)."""
    log_softmax_backward_runner(out.shape, dim, out.strides, grad.strides, y.strides)(
        out.storage, grad.storage, y.storage, out.offset, grad.offset, y.offset)
