"""The Numba CPU backend (``"numba"``, the default on CPU): the reference backend's
primitives, compiled, tuned and parallel.

Same contract as ``reference.py`` (see ``minitorch/backends/__init__.py``), same results.
``README.md`` in this folder is the guide to its tricks and the speed each one buys; the
readable first step from the reference backend to compiled code is ``numba_simple.py``.

This file is the thin Python side: for each call it turns the ``Strided`` operands into
the plain arguments the compiled kernels take (storage arrays, small int64 arrays
describing the layout, offsets) and calls the kernel. The loops themselves live in

* ``elementwise_kernels.py`` -- ``map``, ``zip``, ``where``;
* ``reduce_kernels.py``      -- ``reduce``, ``arg_reduce``;
* ``matmul_kernel.py``       -- ``matmul`` (cache-blocked, our own: no BLAS);
* ``small_matmul_kernel.py`` -- ``matmul`` of small matrices, a row or a column at a time;
* ``indexing_kernels.py``    -- ``gather``, ``scatter_add``;
* ``optimizer_kernels.py``   -- ``optimizer_step``, the fused optimizer step (and its Python side);
* ``scalar_functions.py``    -- the scalar functions as Numba sees them, a vectorizable exp.

How the kernels are specialised and cached:

* ``make_zip_kernels(scalar_ops.add)`` builds the kernels of one scalar op: a serial one
  for small tensors, a parallel one (``prange``) for large ones, and a contiguous one for
  small operands that are one contiguous row each (fewer arguments: ``is_one_row``), each
  compiled on its first call for each dtype combination. The scalar function is inlined
  into the loop, so the compiler vectorizes it, and only the ops a program uses are ever
  compiled;
* every kernel is ``cache=True`` and captures nothing but a plain module-level function
  and a few numbers, so a new process loads it from Numba's on-disk cache instead of
  compiling it again (see ``elementwise_kernels.py`` for why that matters);
* layouts arrive as int64 arrays, so tensors of every rank share one compilation.

Tiny tensors must stay cheap, so this side does as little as possible per call: the
layout arrays are built once per distinct layout and kept in a bounded cache (the
``LAYOUT_CACHE_SIZE`` most recently used layouts).

Threads: the parallel kernels use Numba's thread pool (``numba.set_num_threads`` limits
it). ``parallel_policy.run`` picks the serial or the parallel kernel for each call: small
work never wakes threads, and large work goes parallel only while that measures faster on
this machine right now (a busy core makes a parallel loop wait for its slowest thread).
"""

from __future__ import annotations

import functools
import os

# Numba's default threading layer here is OpenMP, whose idle workers spin for a while after
# each parallel loop, waiting for more work. On a busy 2-core machine a spinning worker
# takes the core our calling thread needs: a serial (2000, 3) @ (3, 1) right after a
# parallel sum took 15.9 ms instead of 0.14 ms. Passive workers sleep at once; waking them
# costs tens of microseconds, which the parallel thresholds already pay for. Set before
# Numba starts its threads; a value the user chose wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np

from minitorch.backends import Strided, compile_time, cpu_storage
from minitorch.backends.half_precision import HALF_LETTERS, through_float32
from minitorch.backends.numba import parallel_policy
from minitorch.backends.numba.compile_notice import announce_if_compiling
from minitorch.backends.numba.elementwise_kernels import make_map_kernels, make_zip_kernels, where_kernel
from minitorch.backends.numba.fast_start import start_numba_target
from minitorch.backends.numba.indexing_kernels import gather_kernel, scatter_add_kernel
from minitorch.backends.numba.linalg_kernels import lu_factor, lu_solve, svd  # noqa: F401 (primitives)
from minitorch.backends.numba.matmul_kernel import MATMUL_KERNELS
from minitorch.backends.numba.optimizer_kernels import optimizer_step  # noqa: F401 (a primitive)
from minitorch.backends.numba.reduce_kernels import arg_reduce_kernel, make_reduce_kernels
from minitorch.backends.numba.scalar_functions import reduce_functions, scalar_function
from minitorch.backends.numba.scan_kernel import scan  # noqa: F401 (a primitive)
from minitorch.backends.numba.small_matmul_kernel import COLUMNS_MATMUL_KERNEL, SMALL_MATMUL_KERNEL
from minitorch.backends.numba.sort_kernel import sort  # noqa: F401 (a primitive)
from minitorch.layout import merge_dims, merge_kept_dims, numel
from minitorch.scalar_ops import MAP_OPS, ZIP_OPS

start_numba_target()
compile_time.count_numba_compilations()  # a trace shows compile time apart from kernel time

NAME = "numba"
DEVICE_TYPE = "cpu"
empty, from_numpy, to_numpy = cpu_storage.empty, cpu_storage.from_numpy, cpu_storage.to_numpy  # CPU storage


# --------------------------------------------------------------------------------------
# Layouts: merge dimensions once per distinct layout, remember the result
# --------------------------------------------------------------------------------------

# How many distinct layouts each cache remembers. A program uses a handful of shapes
# again and again; one that makes ever new shapes evicts the least recently used.
LAYOUT_CACHE_SIZE = 4096

@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def elementwise_layout(shape: tuple[int, ...], *all_strides: tuple[int, ...]):
    """For ``shape`` and the strides of out, then of each input: ``(shape, strides,
    total)`` with the merged layout (``layout.merge_dims``) as int64 arrays and the
    number of elements."""
    new_shape, new_strides = merge_dims(shape, *all_strides)
    return np.array(new_shape, dtype=np.int64), np.array(new_strides, dtype=np.int64), numel(shape)


class KernelTable(dict):
    """``kernels[op]``: the ``(serial, parallel)`` kernels of one op, built by ``factory``
    on first use (each then compiles on its own first call)."""

    def __init__(self, factory, table: dict) -> None:
        super().__init__()
        self.factory, self.table = factory, table

    def __missing__(self, op: str):
        with compile_time.compiling():  # building the kernels is part of their one-time cost
            kernel = self.factory(scalar_function(self.table, op))
        announce_if_compiling(kernel[0], op)
        self[op] = kernel
        return kernel


_MAP_KERNELS = KernelTable(make_map_kernels, MAP_OPS)
_ZIP_KERNELS = KernelTable(make_zip_kernels, ZIP_OPS)


# --------------------------------------------------------------------------------------
# The primitives
# --------------------------------------------------------------------------------------


# The elementwise primitives run through *runners*: ``zip_runner(op, shape, *strides)``
# is a function that runs ``zip(op)`` for that one layout, called with the storages and
# offsets only (``run(out, a, b, out_offset, a_offset, b_offset)``). Everything that
# depends on the layout alone (the merged layout arrays, the element count, which
# kernels) is worked out when the runner is made; a runner is remembered per layout, and
# dispatch keeps the runners of the layouts a program uses (``dispatch.zip``), so a small
# op calls its runner and the runner its kernel: two Python calls. The serial-or-parallel
# choice stays in the call (``parallel_policy.force`` may change it at any time).
# Numba compiles a kernel per dtype on its own, so one runner serves every dtype Numba
# takes; 16-bit floats are widened first (``through_float32``), so they go through
# ``map``/``zip`` below and never reach a runner (``takes_runner``).


def takes_runner(numpy_dtype: np.dtype) -> bool:
    """Whether the runners take storages of ``numpy_dtype`` (not 16-bit floats)."""
    return numpy_dtype.char not in HALF_LETTERS


def is_one_row(merged_strides: np.ndarray) -> bool:
    """Whether a merged layout is one contiguous row in every operand (same-shape
    contiguous tensors): then the runner calls the op's contiguous kernel, which takes
    three arguments fewer than the general one (Numba checks each argument's type on
    every call: 0.1 us of a 2.4 us 10x10 add)."""
    return merged_strides.shape[1] == 1 and bool((merged_strides == 1).all())


def _nothing_to_run(*storages_and_offsets: object) -> None:
    """The runner of a layout with no elements."""


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def map_runner(op: str, shape: tuple[int, ...], out_strides: tuple[int, ...], a_strides: tuple[int, ...]):
    """``run(out, a, out_offset, a_offset)``: ``map(op)`` on storages laid out so."""
    merged_shape, merged_strides, total = elementwise_layout(shape, out_strides, a_strides)
    if not total:
        return _nothing_to_run
    kernels = _MAP_KERNELS[op]
    serial, contiguous = kernels[0], kernels[2]

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

    return run_contiguous if is_one_row(merged_strides) else run


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def zip_runner(op: str, shape: tuple[int, ...], out_strides: tuple[int, ...], a_strides: tuple[int, ...],
               b_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, b, out_offset, a_offset, b_offset)``: ``zip(op)`` on storages laid out so."""
    merged_shape, merged_strides, total = elementwise_layout(shape, out_strides, a_strides, b_strides)
    if not total:
        return _nothing_to_run
    kernels = _ZIP_KERNELS[op]
    serial, contiguous = kernels[0], kernels[2]

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

    return run_contiguous if is_one_row(merged_strides) else run


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
        offsets = np.array([out.offset, cond.offset, a.offset, b.offset], dtype=np.int64)
        args = (out.storage, cond.storage, a.storage, b.storage, shape, strides, offsets, total)
        parallel_policy.run("where", "where", total, (where_kernel, where_kernel), args)


# --------------------------------------------------------------------------------------
# Reductions: kept dimensions (merged) and the reduced one
# --------------------------------------------------------------------------------------


class ReduceKernelTable(dict):
    """``kernels[op]``: the ``(serial, parallel)`` reduce kernels of one reduction."""

    def __missing__(self, op: str):
        with compile_time.compiling():
            kernel = make_reduce_kernels(*reduce_functions(op))
        announce_if_compiling(kernel[0], op)
        self[op] = kernel
        return kernel


_REDUCE_KERNELS = ReduceKernelTable()


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def reduce_layout(shape: tuple[int, ...], dim: int, out_strides: tuple[int, ...], a_strides: tuple[int, ...]):
    """``(shape, strides, total, length, a_step)`` of a reduction of ``a`` (of ``shape``)
    along ``dim``: the kept dimensions merged for out and a (``layout.merge_kept_dims``)
    as int64 arrays, how many outputs there are, and the reduced run of ``a``: ``length``
    elements ``a_step`` apart. A 0-d input is one run of one element."""
    new_shape, new_strides = merge_kept_dims(shape, dim, out_strides, a_strides)
    length, a_step = (shape[dim], a_strides[dim]) if shape else (1, 0)
    total = numel(shape[:dim] + shape[dim + 1 :])
    return np.array(new_shape, dtype=np.int64), np.array(new_strides, dtype=np.int64), total, length, a_step


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def reduce_runner(op: str, shape: tuple[int, ...], dim: int, out_strides: tuple[int, ...],
                  a_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, out_offset, a_offset)``: ``reduce(op)`` along ``dim`` of an ``a`` of
    ``shape``, on storages laid out so."""
    merged_shape, merged_strides, total, length, a_step = reduce_layout(shape, dim, out_strides, a_strides)
    if not total:
        return _nothing_to_run
    kernels = _REDUCE_KERNELS[op]
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
        is_max = op == "argmax"
        args = (is_max, out.storage, a.storage, shape, strides, out.offset, a.offset, length, a_step, total)
        parallel_policy.run("arg_reduce", op, total * length, (arg_reduce_kernel, arg_reduce_kernel), args)


# --------------------------------------------------------------------------------------
# Matmul, gather, scatter_add
# --------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def matmul_runner(op: str, shape: tuple[int, ...], depth: int, out_strides: tuple[int, ...],
                  a_strides: tuple[int, ...], b_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, b, out_offset, a_offset, b_offset)``: ``out[z] = a[z] @ b[z]`` for
    an ``out`` of ``shape`` ``(B, n, m)`` and sums ``depth`` (k) long, on storages laid
    out so. Which kernel (``matmul_path``) and the layout arrays it reads are decided here,
    once per layout; ``op`` is always ``"matmul"``."""
    batch, rows, cols = shape
    if batch * rows * cols == 0:
        return _nothing_to_run
    if depth == 0:  # an empty sum is 0

        def fill_with_zeros(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
            zero = Strided(np.zeros(1, out.dtype), shape, (0, 0, 0), 0)
            map("copy", Strided(out, shape, out_strides, out_offset), zero)

        return fill_with_zeros
    # The int64 arrays the kernel reads its layout from (it only reads them)
    layout_arrays = (np.array((batch, rows, depth, cols), dtype=np.int64),
                     np.array((out_strides, a_strides, b_strides), dtype=np.int64))  # fmt: skip
    work = batch * rows * cols * depth
    path = matmul_path(work, depth, cols, out_strides[2])
    if path == "tiled":
        announce_if_compiling(MATMUL_KERNELS[0], "matmul")

        def run(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
            args = (out, a, b, *layout_arrays, offsets_array(out_offset, a_offset, b_offset))
            parallel_policy.run("matmul", "matmul", work, MATMUL_KERNELS, args)

        return run
    kernel = SMALL_MATMUL_KERNEL if path == "rows" else COLUMNS_MATMUL_KERNEL
    announce_if_compiling(kernel, "matmul")

    def run_small(out, a, b, out_offset: int, a_offset: int, b_offset: int) -> None:
        kernel(out, a, b, *layout_arrays, offsets_array(out_offset, a_offset, b_offset), 1)

    return run_small


@through_float32
def matmul(out: Strided, a: Strided, b: Strided) -> None:
    """``out[z] = a[z] @ b[z]`` for ``a`` ``[B, n, k]``, ``b`` ``[B, k, m]``."""
    run = matmul_runner("matmul", out.shape, a.shape[2], out.strides, a.strides, b.strides)
    run(out.storage, a.storage, b.storage, out.offset, a.offset, b.offset)


def matmul_path(work: int, depth: int, cols: int, out_col_stride: int) -> str:
    """Which kernel computes a product of ``work`` multiply-adds, ``depth`` (k) long sums
    and ``cols`` (m) columns: ``"rows"`` or ``"columns"`` (``small_matmul_kernel.py``: a
    row or a column of out at a time, no set-up) or ``"tiled"`` (``matmul_kernel.py``:
    packed 4x4 tiles, cache blocks, threads). The small kernels run on one thread, so
    only below the parallel threshold. The rows kernel needs contiguous output rows, and
    wins while the rows are long enough to vectorize and the sums short: ``cols >= 8``
    and ``depth <= 2 * cols``. The columns kernel wins where there are few columns *and*
    short sums, ``cols * depth <= 8``.

    Measured (one thread, float32), the rows kernel's time over the tiled kernel's, for
    ``n`` rows; the rule picks the entries marked *::

        n    k |  m = 1     2     4     8    16    32    64
        8    2 |   0.93  0.98  0.93  0.86* 0.73* 0.56* 0.39*
        8    8 |   0.92  0.95  0.92  0.83* 0.69* 0.48* 0.33*
        8   16 |   0.89  0.94  0.95  0.82* 0.65* 0.49* 0.33*
        8   32 |   0.86  0.93  1.00  0.86  0.66* 0.51* 0.33*
        8  128 |   0.95  1.10  1.33  1.06  0.82  0.56  0.44*
        64   2 |   1.01  1.00  0.94  0.67* 0.45* 0.27* 0.19*
        64   8 |   0.86  1.59  1.00  0.74* 0.52* 0.33* 0.23*
        64  16 |   0.86  0.77  1.13  0.85* 0.57* 0.38* 0.28*
        64  32 |   0.95  1.05  1.38  1.06  0.95* 0.54* 0.43*
        64  64 |   1.05  1.25  1.72  1.39  1.07  0.80* 0.59*
        64 128 |   1.12  1.43  1.97  1.69  1.31  0.99  0.76*
        500  2 |   0.99  0.94  0.88  0.55* 0.27* 0.18* 0.12*
        500  8 |   0.83  0.91  1.02  0.73* 0.43* 0.27* 0.17*
        500 16 |   0.84  0.97  1.23  0.87* 0.58* 0.35* 0.26*
        500 32 |   0.96  1.14  1.55  1.19  0.82* 0.53* 0.41*
        500 128|   1.19  1.54  2.18  1.89  1.48  1.13  0.76*

    (A few cells off the rule win too, e.g. ``n = 8, k = 128, m = 32``; the rule keeps to
    the region where the rows kernel wins everywhere. Cells near its edge are within a
    few percent of 1 and move by that much from run to run. ``m = 1``, a matrix times a vector,
    leaves its inner loop nothing to vectorize.) The columns kernel's time over the tiled
    kernel's (the rule picks ``m * k <= 8``, marked *; the longer sums lose)::

        n    k |  m = 1     2     3     4
        8    2 |   0.82* 0.89* 0.89* 0.87*
        8    8 |   0.85* 0.99  1.11  1.21
        64   3 |   0.59* 0.76* 0.87  1.01
        64   8 |   0.66* 0.98  1.24  1.54
        500  2 |   0.31* 0.51* 0.63* 0.79*
        500  3 |   0.37* 0.64* 0.80  1.00
        500  8 |   0.53* 1.03  1.33  1.70
        2000 3 |   0.33* 0.61* 0.85  1.15
        2000 8 |   0.53* 1.02  1.48  2.04
        2000 32|   0.94  1.86  3.23  4.10
    """
    if work >= parallel_policy.THRESHOLDS["matmul"]:
        return "tiled"
    if out_col_stride == 1 and 8 <= cols and depth <= 2 * cols:
        return "rows"
    return "columns" if cols * depth <= 8 else "tiled"


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def offsets_array(*offsets: int) -> np.ndarray:
    """The storage offsets of a call's operands as the int64 array a kernel reads, made
    once per combination (a training step's are the same, usually all 0)."""
    return np.array(offsets, dtype=np.int64)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def indexing_arrays(shape: tuple, all_strides: tuple):
    return (np.array(shape, dtype=np.int64),
            np.array(all_strides, dtype=np.int64).reshape(len(all_strides), len(shape)))  # fmt: skip


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def gather_runner(op: str, shape: tuple[int, ...], dim: int, a_shape: tuple[int, ...],
                  out_strides: tuple[int, ...], a_strides: tuple[int, ...],
                  index_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, index, out_offset, a_offset, index_offset)``: ``gather`` along ``dim``
    into an ``out`` of ``shape`` (the index's), on storages laid out so, with the layout
    arrays made once; ``op`` is always ``"gather"`` (``a_shape`` keys the plan only)."""
    total = numel(shape)
    if total == 0:
        return _nothing_to_run
    shape_array, strides_array = indexing_arrays(shape, (out_strides, a_strides, index_strides))

    def run(out, a, index, out_offset: int, a_offset: int, index_offset: int) -> None:
        args = (out, a, index, shape_array, strides_array, offsets_array(out_offset, a_offset, index_offset),
                dim, total)  # fmt: skip
        parallel_policy.run("gather", "gather", total, (gather_kernel, gather_kernel), args)

    return run


@through_float32
def gather(out: Strided, a: Strided, dim: int, index: Strided) -> None:
    """``out[i][j][k] = a[i][index[i][j][k]][k]`` (shown for ``dim == 1``)."""
    run = gather_runner("gather", tuple(out.shape), dim, tuple(a.shape), tuple(out.strides), tuple(a.strides),
                        tuple(index.strides))  # fmt: skip
    run(out.storage, a.storage, index.storage, out.offset, a.offset, index.offset)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def scatter_add_runner(op: str, shape: tuple[int, ...], dim: int, out_shape: tuple[int, ...],
                       out_strides: tuple[int, ...], index_strides: tuple[int, ...],
                       src_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, index, src, out_offset, index_offset, src_offset)``: ``scatter_add``
    along ``dim`` of a ``src`` of ``shape`` (the index's), on storages laid out so, with
    the layout arrays made once; ``op`` is always ``"scatter_add"`` (``out_shape`` keys
    the plan only). Serial, as the kernel must be."""
    total = numel(shape)
    if total == 0:
        return _nothing_to_run
    shape_array, strides_array = indexing_arrays(shape, (src_strides, out_strides, index_strides))

    def run(out, index, src, out_offset: int, index_offset: int, src_offset: int) -> None:
        offsets = offsets_array(src_offset, out_offset, index_offset)
        scatter_add_kernel(out, index, src, shape_array, strides_array, offsets, dim, total)

    return run


@through_float32
def scatter_add(out: Strided, dim: int, index: Strided, src: Strided) -> None:
    """``out[i][index[i][j][k]][k] += src[i][j][k]`` (shown for ``dim == 1``)."""
    run = scatter_add_runner("scatter_add", tuple(src.shape), dim, tuple(out.shape), tuple(out.strides),
                             tuple(index.strides), tuple(src.strides))  # fmt: skip
    run(out.storage, index.storage, src.storage, out.offset, index.offset, src.offset)
