"""The simple Numba backend (``"numba_simple"``): the reference backend, compiled.

Put this file beside ``reference.py``: every kernel is the reference's loop, line for
line, with the same index functions from ``minitorch/layout.py``. The one-line jump to
compiled code is ``njit``: Numba translates each loop to machine code the first time it
runs (per dtype), so it runs at the speed of compiled code instead of Python's: hundreds
of times faster than the reference, and the tuned ``numba`` backend is faster again
(``docs/backend-guide.md`` has the times).

    minitorch.set_backend("cpu", "numba_simple")      # or MINITORCH_CPU_BACKEND=numba_simple

What changes from the reference, and why:

* shapes and strides arrive as int64 arrays, so one compilation serves every rank;
* a kernel that runs a scalar op is built once per op with the op's function inlined
  (``_compiled(op)``); Numba then keeps it in its disk cache, so a new process loads it;
* the element count is computed in Python and passed in.

What it does *not* do is everything the tuned ``numba`` backend (``backends/numba/``)
adds: merged dimensions, row-by-row walks, tiles, lanes, threads. Compare the two to see
what each trick buys (``backends/numba/README.md``).
"""

from __future__ import annotations

import functools
import zlib
from pathlib import Path

import numpy as np
from numba import njit

from minitorch import layout, scalar_ops
from minitorch.backends import Strided, cpu_storage
from minitorch.backends.half_precision import through_float32
from minitorch.backends.numba.linalg_kernels import lu_factor, lu_solve, svd  # noqa: F401 (primitives)
from minitorch.backends.numba.scalar_functions import jitable
from minitorch.backends.numba.scan_kernel import scan  # noqa: F401 (a primitive, shared)
from minitorch.backends.numba.softmax_kernel import log_softmax_backward, softmax  # noqa: F401 (shared)
from minitorch.backends.numba.sort_kernel import sort  # noqa: F401 (a primitive, shared)
from minitorch.scalar_ops import MAP_OPS, REDUCE_OPS, ZIP_OPS

NAME = "numba_simple"
DEVICE_TYPE = "cpu"
empty, from_numpy, to_numpy = cpu_storage.empty, cpu_storage.from_numpy, cpu_storage.to_numpy  # CPU storage

JIT = {"cache": True, "error_model": "numpy"}  # keep compiled code on disk; 1/0 = inf
index_to_position = njit(**JIT)(layout.index_to_position)  # the reference's own functions
ordinal_to_index = njit(**JIT)(layout.ordinal_to_index)
# Numba's disk cache checks only the date of the file a kernel is in. The kernels of
# scalar ops capture this checksum, so editing scalar_ops.py or layout.py compiles them
# anew instead of loading old code (the other kernels: after editing layout.py, touch
# this file).
SOURCE_VERSION = zlib.crc32(b"".join(Path(m.__file__).read_bytes() for m in (layout, scalar_ops)))


def _arrays(operand: Strided) -> tuple:
    """``(storage, strides as int64, offset)``: an operand as the kernels take it."""
    return operand.storage, np.array(operand.strides, dtype=np.int64), operand.offset


@functools.cache
def _compiled(op: str):
    """The kernel of one scalar op: ``map``/``zip``/``reduce`` with its function inlined.

    Numba keys its disk cache on the values a kernel captures: the plain table function
    (pickled by name, so the key is the same in every process) and ``SOURCE_VERSION``.
    """
    version = SOURCE_VERSION
    if op in MAP_OPS:
        f = jitable(MAP_OPS[op].fn)

        def map_loop(out, out_strides, out_offset, a, a_strides, a_offset, shape, total):
            """Agrees with ``reference.map``: ``for i: out[i] = f(a[i])``."""
            assert version == SOURCE_VERSION  # the captured checksum (see above)
            index = np.zeros(shape.size, dtype=np.int64)
            for ordinal in range(total):
                ordinal_to_index(ordinal, shape, index)
                value = a[index_to_position(index, a_strides, a_offset)]
                out[index_to_position(index, out_strides, out_offset)] = f(value)

        return njit(**JIT)(map_loop)
    if op in ZIP_OPS:
        g = jitable(ZIP_OPS[op].fn)

        def zip_loop(out, out_strides, out_offset, a, a_strides, a_offset, b, b_strides, b_offset,
                     shape, total):  # fmt: skip
            """Agrees with ``reference.zip``: ``for i: out[i] = g(a[i], b[i])``."""
            assert version == SOURCE_VERSION
            index = np.zeros(shape.size, dtype=np.int64)
            for ordinal in range(total):
                ordinal_to_index(ordinal, shape, index)
                x = a[index_to_position(index, a_strides, a_offset)]
                y = b[index_to_position(index, b_strides, b_offset)]
                out[index_to_position(index, out_strides, out_offset)] = g(x, y)

        return njit(**JIT)(zip_loop)
    combine, identity = jitable(REDUCE_OPS[op].combine.fn), REDUCE_OPS[op].identity
    has_identity, start_value = identity is not None, float(identity or 0)

    def reduce_loop(out, out_strides, out_offset, a, a_strides, a_offset, shape, dim, length, total):
        """Agrees with ``reference.reduce`` (``shape`` is out's; ``a`` has ``length``
        elements along ``dim``)::

            for each out index o:  acc = identity, or a[o] for max/min
                                   for j:  acc = combine(acc, a[o with dim=j])
                                   out[o] = acc
        """
        assert version == SOURCE_VERSION
        index = np.zeros(shape.size, dtype=np.int64)
        for ordinal in range(total):
            ordinal_to_index(ordinal, shape, index)
            out_position = index_to_position(index, out_strides, out_offset)
            if has_identity:
                out[out_position] = start_value  # written, then read: acc gets out's dtype
                start = 0
            else:
                out[out_position] = a[index_to_position(index, a_strides, a_offset)]
                start = 1
            acc = out[out_position]
            for j in range(start, length):
                index[dim] = j
                acc = combine(acc, a[index_to_position(index, a_strides, a_offset)])
            index[dim] = 0
            out[out_position] = acc

    return njit(**JIT)(reduce_loop)


@njit(**JIT)
def where_loop(out, out_strides, out_offset, cond, cond_strides, cond_offset,
               a, a_strides, a_offset, b, b_strides, b_offset, shape, total):  # fmt: skip
    """Agrees with ``reference.where``: ``for i: out[i] = a[i] if cond[i] else b[i]``."""
    index = np.zeros(shape.size, dtype=np.int64)
    for ordinal in range(total):
        ordinal_to_index(ordinal, shape, index)
        if cond[index_to_position(index, cond_strides, cond_offset)]:
            value = a[index_to_position(index, a_strides, a_offset)]
        else:
            value = b[index_to_position(index, b_strides, b_offset)]
        out[index_to_position(index, out_strides, out_offset)] = value


@njit(**JIT)
def arg_reduce_loop(is_max, out, out_strides, out_offset, a, a_strides, a_offset, shape, dim, length, total):
    """Agrees with ``reference.arg_reduce``: the index of the first max (``is_max``) or
    min along ``dim``; a NaN wins over everything."""
    index = np.zeros(shape.size, dtype=np.int64)
    for ordinal in range(total):
        ordinal_to_index(ordinal, shape, index)
        best_j = 0
        best = a[index_to_position(index, a_strides, a_offset)]
        for j in range(1, length):
            index[dim] = j
            value = a[index_to_position(index, a_strides, a_offset)]
            if best != best:  # NaN already found: it stays the answer
                break
            better = value > best if is_max else value < best
            if better or value != value:
                best, best_j = value, j
        index[dim] = 0
        out[index_to_position(index, out_strides, out_offset)] = best_j


@njit(**JIT)
def matmul_loop(out, out_strides, out_offset, a, a_strides, a_offset, b, b_strides, b_offset,
                batch, rows, cols, inner):  # fmt: skip
    """Agrees with ``reference.matmul``: ``out[z, i, j] = sum over k of a[z, i, k] * b[z, k, j]``."""
    for z in range(batch):
        for i in range(rows):
            for j in range(cols):
                position = index_to_position((z, i, j), out_strides, out_offset)
                out[position] = 0  # written, then read: acc gets out's dtype
                acc = out[position]
                for k in range(inner):
                    x = a[index_to_position((z, i, k), a_strides, a_offset)]
                    y = b[index_to_position((z, k, j), b_strides, b_offset)]
                    acc = acc + x * y
                out[position] = acc


@njit(**JIT)
def gather_loop(scatter, out, out_strides, out_offset, data, data_strides, data_offset,
                index, index_strides, index_offset, shape, dim, total):  # fmt: skip
    """Agrees with ``reference.gather`` (``out[i][j][k] = data[i][index[i][j][k]][k]`` for
    dim 1) or, when ``scatter``, with ``reference.scatter_add``
    (``out[i][index[i][j][k]][k] += data[i][j][k]``). ``shape`` is the walked tensor's."""
    where = np.zeros(shape.size, dtype=np.int64)
    for ordinal in range(total):
        ordinal_to_index(ordinal, shape, where)
        chosen = index[index_to_position(where, index_strides, index_offset)]
        walked = where.copy()  # the index into the tensor walked element by element
        where[dim] = chosen  # ... and into the other one
        if scatter:
            out[index_to_position(where, out_strides, out_offset)] += data[
                index_to_position(walked, data_strides, data_offset)
            ]
        else:
            out[index_to_position(walked, out_strides, out_offset)] = data[
                index_to_position(where, data_strides, data_offset)
            ]


# --------------------------------------------------------------------------------------
# The primitives: operands to arrays, then the loop
# --------------------------------------------------------------------------------------


def _shape(shape: tuple[int, ...]) -> tuple:
    """``(shape as int64, element count)``."""
    return np.array(shape, dtype=np.int64), layout.numel(shape)


@through_float32
def map(op: str, out: Strided, a: Strided) -> None:  # noqa: A001 (the primitive's name)
    _compiled(op)(*_arrays(out), *_arrays(a), *_shape(out.shape))


@through_float32
def zip(op: str, out: Strided, a: Strided, b: Strided) -> None:  # noqa: A001
    _compiled(op)(*_arrays(out), *_arrays(a), *_arrays(b), *_shape(out.shape))


@through_float32
def where(out: Strided, cond: Strided, a: Strided, b: Strided) -> None:
    where_loop(*_arrays(out), *_arrays(cond), *_arrays(a), *_arrays(b), *_shape(out.shape))


@through_float32
def reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    shape, total = _shape(out.shape)
    _compiled(op)(*_arrays(out), *_arrays(a), shape, dim, a.shape[dim], total)


@through_float32
def arg_reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    shape, total = _shape(out.shape)
    arg_reduce_loop(op == "argmax", *_arrays(out), *_arrays(a), shape, dim, a.shape[dim], total)


@through_float32
def matmul(out: Strided, a: Strided, b: Strided) -> None:
    matmul_loop(*_arrays(out), *_arrays(a), *_arrays(b), *out.shape, a.shape[2])


@through_float32
def gather(out: Strided, a: Strided, dim: int, index: Strided) -> None:
    shape, total = _shape(out.shape)
    gather_loop(False, *_arrays(out), *_arrays(a), *_arrays(index), shape, dim, total)


@through_float32
def scatter_add(out: Strided, dim: int, index: Strided, src: Strided) -> None:
    shape, total = _shape(src.shape)
    gather_loop(True, *_arrays(out), *_arrays(src), *_arrays(index), shape, dim, total)
