"""The Numba CPU backend: the reference backend's primitives, compiled and parallel.

Same contract as ``reference.py`` (see ``minitorch/backends/__init__.py``), same results.
This file is the thin Python side: for each call it turns the ``Strided`` operands into
the plain arguments the compiled kernels take (storage arrays, small int64 arrays
describing the layout, offsets) and calls the kernel. The loops themselves live in

* ``numba_elementwise.py`` -- ``map``, ``zip``, ``where``;
* ``numba_reduce.py``      -- ``reduce``, ``arg_reduce``;
* ``numba_matmul.py``      -- ``matmul`` (cache-blocked, our own: no BLAS);
* ``numba_indexing.py``    -- ``gather``, ``scatter_add``;
* ``numba_math.py``        -- the scalar functions as Numba sees them, a vectorizable exp.

How the kernels are specialised and cached:

* ``make_zip_kernels(scalar_ops.add)`` builds the kernels of one scalar op: a serial one
  for small tensors and a parallel one (``prange``) for large ones, each compiled on its
  first call for each dtype combination. The scalar function is inlined into the loop, so
  the compiler vectorizes it, and only the ops a program uses are ever compiled;
* every kernel is ``cache=True`` and captures nothing but a plain module-level function
  and a few numbers, so a new process loads it from Numba's on-disk cache instead of
  compiling it again (see ``numba_elementwise.py`` for why that matters);
* layouts arrive as int64 arrays, so tensors of every rank share one compilation.

Tiny tensors must stay cheap, so this side does as little as possible per call: the
layout arrays are built once per distinct layout and kept in a small dictionary.

Threads: the parallel kernels use Numba's thread pool (``numba.set_num_threads`` limits
it). On a machine whose cores are busy with other programs, waking a sleeping worker can
take milliseconds; the thresholds keep small tensors away from threads altogether.
"""

from __future__ import annotations

import builtins

import numba
import numpy as np

from minitorch.backends import Strided
from minitorch.backends.numba_elementwise import make_map_kernels, make_zip_kernels, where_kernel
from minitorch.backends.numba_indexing import gather_kernel, scatter_add_kernel
from minitorch.backends.numba_math import reduce_functions, scalar_function
from minitorch.backends.numba_matmul import matmul_kernel
from minitorch.backends.numba_reduce import arg_reduce_kernel, make_reduce_kernels
from minitorch.layout import numel
from minitorch.scalar_ops import MAP_OPS, ZIP_OPS

NAME = "numba"
DEVICE_TYPE = "cpu"


def empty(count: int, numpy_dtype: np.dtype) -> np.ndarray:
    """A new flat storage of ``count`` cells (values undefined until written)."""
    return np.empty(count, dtype=numpy_dtype)


def from_numpy(array: np.ndarray) -> np.ndarray:
    """CPU storage *is* a NumPy array: nothing to copy."""
    return array


def to_numpy(storage: np.ndarray) -> np.ndarray:
    return storage


# --------------------------------------------------------------------------------------
# Layouts: coalesce once per distinct layout, remember the result
# --------------------------------------------------------------------------------------


def coalesce(shape: tuple[int, ...], strides_list: tuple[tuple[int, ...], ...]):
    """The fewest dimensions that walk every operand in the same order as ``shape``.

    Size-1 dimensions are dropped (they never move), and dimension ``d`` merges into
    ``d + 1`` when every operand jumps ``strides[d] == strides[d + 1] * shape[d + 1]``::

        shape (4, 5) strides (5, 1) and (5, 1)   ->  shape (20,) strides (1,) and (1,)
        shape (4, 5) strides (1, 4) and (5, 1)   ->  unchanged (a transposed input)
        shape ()                                 ->  shape (1,) strides (0,): one element
    """
    # (this module defines its own ``zip`` and ``map`` primitives: use the builtins here)
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    new_shape: list[int] = []
    new_strides: list[list[int]] = [[] for _ in strides_list]
    for d in dims:
        if new_shape and all(
            new[-1] == strides[d] * shape[d] for new, strides in builtins.zip(new_strides, strides_list)
        ):
            new_shape[-1] *= shape[d]
            for new, strides in builtins.zip(new_strides, strides_list):
                new[-1] = strides[d]
        else:
            new_shape.append(shape[d])
            for new, strides in builtins.zip(new_strides, strides_list):
                new.append(strides[d])
    if not new_shape:
        return [1], [[0] for _ in strides_list]
    return new_shape, new_strides


_LAYOUT_CACHE: dict = {}
_LAYOUT_CACHE_LIMIT = 4096

# Below this many elements one thread does everything: waking the other threads costs
# tens of microseconds (more on a busy machine), more than a small loop.
PARALLEL_THRESHOLD = 1 << 18


def chunk_count(total: int) -> int:
    """How many pieces a kernel cuts ``total`` elements into: 1, or one per thread."""
    return 1 if total < PARALLEL_THRESHOLD else numba.get_num_threads()


def elementwise_layout(key: tuple):
    """For ``key = (shape, out strides, input strides...)``: ``(shape, strides, total,
    large)`` with the coalesced layout as int64 arrays, the number of elements, and
    whether there are enough of them to use every thread. Cached per layout, so repeated
    calls on like tensors cost one dictionary lookup."""
    found = _LAYOUT_CACHE.get(key)
    if found is None:
        new_shape, new_strides = coalesce(key[0], key[1:])
        total = numel(key[0])
        found = (
            np.array(new_shape, dtype=np.int64),
            np.array(new_strides, dtype=np.int64),
            total,
            total >= PARALLEL_THRESHOLD,
        )
        if len(_LAYOUT_CACHE) >= _LAYOUT_CACHE_LIMIT:
            _LAYOUT_CACHE.clear()
        _LAYOUT_CACHE[key] = found
    return found


class KernelTable(dict):
    """``kernels[op]``: the ``(serial, parallel)`` kernels of one op, built by ``factory``
    on first use (each then compiles on its own first call)."""

    def __init__(self, factory, table: dict) -> None:
        super().__init__()
        self.factory, self.table = factory, table

    def __missing__(self, op: str):
        kernel = self.factory(scalar_function(self.table, op))
        self[op] = kernel
        return kernel


_MAP_KERNELS = KernelTable(make_map_kernels, MAP_OPS)
_ZIP_KERNELS = KernelTable(make_zip_kernels, ZIP_OPS)


# --------------------------------------------------------------------------------------
# The primitives
# --------------------------------------------------------------------------------------


def map(op: str, out: Strided, a: Strided) -> None:  # noqa: A001 (the primitive's name)
    """``for i: out[i] = f(a[i])`` with ``f = MAP_OPS[op].fn``."""
    shape, strides, total, large = elementwise_layout((out.shape, out.strides, a.strides))
    if total:
        serial, parallel = _MAP_KERNELS[op]
        chunks = numba.get_num_threads() if large else 1
        (serial if chunks == 1 else parallel)(
            out.storage, a.storage, shape, strides, out.offset, a.offset, total, chunks
        )


def zip(op: str, out: Strided, a: Strided, b: Strided) -> None:  # noqa: A001
    """``for i: out[i] = f(a[i], b[i])`` with ``f = ZIP_OPS[op].fn``."""
    shape, strides, total, large = elementwise_layout((out.shape, out.strides, a.strides, b.strides))
    if total:
        serial, parallel = _ZIP_KERNELS[op]
        chunks = numba.get_num_threads() if large else 1
        (serial if chunks == 1 else parallel)(
            out.storage,
            a.storage,
            b.storage,
            shape,
            strides,
            out.offset,
            a.offset,
            b.offset,
            total,
            chunks,
        )


def where(out: Strided, cond: Strided, a: Strided, b: Strided) -> None:
    """``for i: out[i] = a[i] if cond[i] else b[i]``."""
    shape, strides, total, large = elementwise_layout(
        (out.shape, out.strides, cond.strides, a.strides, b.strides)
    )
    if total:
        chunks = numba.get_num_threads() if large else 1
        offsets = np.array([out.offset, cond.offset, a.offset, b.offset], dtype=np.int64)
        where_kernel(out.storage, cond.storage, a.storage, b.storage, shape, strides, offsets, total, chunks)


# --------------------------------------------------------------------------------------
# Reductions: kept dimensions (coalesced) and the reduced one
# --------------------------------------------------------------------------------------


class ReduceKernelTable(dict):
    """``kernels[op]``: the ``(serial, parallel)`` reduce kernels of one reduction."""

    def __missing__(self, op: str):
        kernel = make_reduce_kernels(*reduce_functions(op))
        self[op] = kernel
        return kernel


_REDUCE_KERNELS = ReduceKernelTable()


def reduce_layout(out: Strided, a: Strided, dim: int):
    """``(shape, strides, total)`` of the kept dimensions (every one but ``dim``) for out
    and a, coalesced and cached like an elementwise layout."""
    key = ("reduce", dim, a.shape, out.strides, a.strides)
    found = _LAYOUT_CACHE.get(key)
    if found is None:
        kept = [d for d in range(len(a.shape)) if d != dim]
        kept_shape = tuple(a.shape[d] for d in kept)
        new_shape, new_strides = coalesce(
            kept_shape,
            (tuple(out.strides[d] for d in kept), tuple(a.strides[d] for d in kept)),
        )
        found = (
            np.array(new_shape, dtype=np.int64),
            np.array(new_strides, dtype=np.int64),
            numel(kept_shape),
        )
        _LAYOUT_CACHE[key] = found
    return found


def reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Fold dimension ``dim`` of ``a`` into ``out`` (size 1 there) with ``REDUCE_OPS[op]``."""
    shape, strides, total = reduce_layout(out, a, dim)
    if total:
        length = a.shape[dim] if a.shape else 1
        a_step = a.strides[dim] if a.shape else 0
        chunks = chunk_count(total * length) if total > 1 else 1
        serial, parallel = _REDUCE_KERNELS[op]
        (serial if chunks == 1 else parallel)(
            out.storage,
            a.storage,
            shape,
            strides,
            out.offset,
            a.offset,
            length,
            a_step,
            total,
            chunks,
        )


def arg_reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Index along ``dim`` of the first max (``argmax``) or min (``argmin``)."""
    shape, strides, total = reduce_layout(out, a, dim)
    if total:
        length = a.shape[dim] if a.shape else 1
        a_step = a.strides[dim] if a.shape else 0
        arg_reduce_kernel(
            op == "argmax",
            out.storage,
            a.storage,
            shape,
            strides,
            out.offset,
            a.offset,
            length,
            a_step,
            total,
            chunk_count(total * length),
        )


# --------------------------------------------------------------------------------------
# Matmul, gather, scatter_add
# --------------------------------------------------------------------------------------

MATMUL_PARALLEL_THRESHOLD = 1 << 21  # multiply-adds below which one thread is faster


def matmul(out: Strided, a: Strided, b: Strided) -> None:
    """``out[z] = a[z] @ b[z]`` for ``a`` ``[B, n, k]``, ``b`` ``[B, k, m]``."""
    batch, rows, cols = out.shape
    depth = a.shape[2]
    if batch * rows * cols == 0:
        return
    if depth == 0:  # an empty sum is 0
        map("copy", out, Strided(np.zeros(1, out.storage.dtype), out.shape, (0, 0, 0), 0))
        return
    matmul_kernel(
        out.storage,
        a.storage,
        b.storage,
        np.array((batch, rows, depth, cols), dtype=np.int64),
        np.array((out.strides, a.strides, b.strides), dtype=np.int64),
        np.array((out.offset, a.offset, b.offset), dtype=np.int64),
        batch * rows * cols * depth >= MATMUL_PARALLEL_THRESHOLD,
    )


def _indexing_layout(shape, *operands: Strided):
    return (
        np.array(shape, dtype=np.int64),
        np.array([operand.strides for operand in operands], dtype=np.int64).reshape(
            len(operands), len(shape)
        ),
        np.array([operand.offset for operand in operands], dtype=np.int64),
    )


def gather(out: Strided, a: Strided, dim: int, index: Strided) -> None:
    """``out[i][j][k] = a[i][index[i][j][k]][k]`` (shown for ``dim == 1``)."""
    total = numel(out.shape)
    if total == 0:
        return
    shape, strides, offsets = _indexing_layout(out.shape, out, a, index)
    gather_kernel(
        out.storage,
        a.storage,
        index.storage,
        shape,
        strides,
        offsets,
        dim,
        total,
        chunk_count(total),
    )


def scatter_add(out: Strided, dim: int, index: Strided, src: Strided) -> None:
    """``out[i][index[i][j][k]][k] += src[i][j][k]`` (shown for ``dim == 1``)."""
    total = numel(src.shape)
    if total == 0:
        return
    shape, strides, offsets = _indexing_layout(src.shape, src, out, index)
    scatter_add_kernel(out.storage, index.storage, src.storage, shape, strides, offsets, dim, total)
