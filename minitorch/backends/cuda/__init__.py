"""The CUDA backend (``"cuda"``): minitorch's primitives as readable CUDA C kernels.

The kernels live in ``kernels/*.cu`` (one family per file) and ``kernels/strided.cuh``
(the shared header: strided indexing and Python's ``//``, ``%``, ``**``). This package
loads and launches them, one job per file:

* ``device.py`` -- where kernels run: a real GPU through CuPy, or the CPU emulator of the
  same ``.cu`` files (``minitorch/backends/cuda_emulator.py``), behind one interface;
* ``source.py`` -- specialising a ``.cu`` file for one op and pair of dtypes (text only);
* ``loader.py`` -- compiling each specialised module once and keeping its kernels;
* ``launcher.py`` -- packing operand layouts, checking launch sizes, launching;
* ``streams.py`` -- streams and events: each launch is queued and returns at once;
* ``work_queue.py`` -- the emulator's streams: queues run by worker threads;
* this file       -- the primitives of the backend contract (``minitorch/backends/__init__.py``).

Each primitive prepares what its kernel assumes, then launches it: dimensions that can be
merged are merged (``layout.merge_dims``: a contiguous tensor becomes 1-D, and the kernel
takes its no-division fast path), one thread per element (or a block row per reduced
output), as many blocks as needed. Every kernel agrees with the same-named function of
``reference.py``.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minitorch.backends import Strided
from minitorch.backends.cuda import streams
from minitorch.backends.cuda.device import emulated, running_on, runtime
from minitorch.backends.cuda.launcher import THREADS, blocks, launch, layout, storage
from minitorch.backends.cuda.loader import CudaCompileError, kernel
from minitorch.backends.cuda.source import dtype_name
from minitorch.backends.cuda.work_queue import collect_launches
from minitorch.layout import merge_dims, merge_kept_dims, numel

__all__ = ["CudaCompileError", "collect_launches", "emulated", "running_on"]  # besides the primitives

NAME = "cuda"
DEVICE_TYPE = "cuda"
TILE = 16  # MT_TILE in kernels/matmul.cu


def _elementwise(family: str, op: str, out: Strided, inputs: list[Strided],
                 in_name: str) -> None:  # fmt: skip
    """map, zip and where: one launch over every output element."""
    count = numel(out.shape)
    if count == 0:
        return
    shape, strides = merge_dims(out.shape, out.strides, *(t.strides for t in inputs))
    operands = [out, *inputs]
    layouts = [layout(shape, s, t.offset) for s, t in builtins.zip(strides, operands)]
    function = kernel(family, op, in_name, dtype_name(out.storage))
    args = (*(storage(t) for t in operands), *layouts, np.int64(count))
    launch(function, (blocks(count, THREADS),), (THREADS,), args)


def _reduction(family: str, op: str, out: Strided, a: Strided, dim: int) -> None:
    """reduce and arg_reduce: one row of a block per output cell (see reduce.cu)."""
    count = numel(out.shape)
    if count == 0:
        return
    size = a.shape[dim]
    shape, (out_strides, a_strides) = merge_kept_dims(out.shape, dim, out.strides, a.strides)
    threads_x = 32  # a power of two from 32 to 256, about the reduced size
    while threads_x < min(size, THREADS):
        threads_x *= 2
    threads_y = THREADS // threads_x
    out_name = dtype_name(out.storage)
    function = kernel(family, op, dtype_name(a.storage), out_name)
    args = (storage(out), storage(a), layout(shape, out_strides, out.offset),
            layout(shape, a_strides, a.offset), np.int64(size), np.int64(a.strides[dim]),
            np.int64(count))  # fmt: skip
    shared = THREADS * np.dtype(out_name).itemsize if family == "reduce" else 0
    launch(function, (blocks(count, threads_y),), (threads_x, threads_y), args, shared)


# --------------------------------------------------------------------------------------
# The primitives (the contract of minitorch/backends/__init__.py)
# --------------------------------------------------------------------------------------


def empty(count: int, numpy_dtype: Any) -> Any:
    """Uninitialised device storage for ``count`` elements."""
    dtype_name(np.dtype(numpy_dtype))
    return runtime().empty(count, numpy_dtype)


def from_numpy(array: np.ndarray, non_blocking: bool = False) -> Any:
    """Copy a 1-D host array to the device: now, or with ``non_blocking`` queued on the
    current stream (``streams.copy_to_device``)."""
    dtype_name(array.dtype)
    return streams.copy_to_device(array) if non_blocking else runtime().from_numpy(array)


def to_numpy(device_storage: Any) -> np.ndarray:
    """Copy device storage back to the host, after waiting for every stream (a kernel
    still queued may write it; ``streams.py`` says why all of them)."""
    streams.synchronize_all()
    return runtime().to_numpy(device_storage)


def map(op: str, out: Strided, a: Strided) -> None:  # noqa: A001 (the primitive's name)
    """``out[i] = f(a[i])``: kernels/map.cu."""
    _elementwise("map", op, out, [a], dtype_name(a.storage))


def zip(op: str, out: Strided, a: Strided, b: Strided) -> None:  # noqa: A001
    """``out[i] = f(a[i], b[i])``: kernels/zip.cu."""
    if dtype_name(a.storage) != dtype_name(b.storage):
        raise TypeError("zip: both inputs must have one dtype (dispatch promotes them)")
    _elementwise("zip", op, out, [a, b], dtype_name(a.storage))


def where(out: Strided, cond: Strided, a: Strided, b: Strided) -> None:
    """``out[i] = a[i] if cond[i] else b[i]``: kernels/where.cu."""
    if dtype_name(cond.storage) != "bool" or dtype_name(a.storage) != dtype_name(b.storage):
        raise TypeError("where: the condition must be bool and a, b must share one dtype")
    _elementwise("where", "", out, [cond, a, b], dtype_name(a.storage))


def reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Fold dimension ``dim``: kernels/reduce.cu."""
    _reduction("reduce", op, out, a, dim)


def arg_reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Index of the first max/min along ``dim``: kernels/arg_reduce.cu."""
    if dtype_name(out.storage) != "int64":
        raise TypeError("arg_reduce writes int64 indices")
    _reduction("arg_reduce", op, out, a, dim)


def scan(op: str, out: Strided, a: Strided, dim: int) -> None:
    """The running fold along ``dim`` (cumsum, cumprod), one thread per line: kernels/scan.cu."""
    _per_line("scan", op, out, a, dim)


def softmax(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Softmax or log-softmax of each line along ``dim``, one thread per line: kernels/softmax.cu."""
    _per_line("softmax", op, out, a, dim)


def log_softmax_backward(out: Strided, grad: Strided, y: Strided, dim: int) -> None:
    """``grad - exp(y) * sum(grad)`` along ``dim``, one thread per line:
    kernels/log_softmax_backward.cu."""
    name = dtype_name(out.storage)
    if not dtype_name(grad.storage) == dtype_name(y.storage) == name:
        raise TypeError("log_softmax_backward: out, grad and y must share one dtype")
    if numel(out.shape) == 0:
        return
    shape, all_strides = merge_kept_dims(out.shape, dim, out.strides, grad.strides, y.strides)
    lines = numel(shape)
    operands = (out, grad, y)
    layouts = [layout(shape, strides, operand.offset)
               for strides, operand in builtins.zip(all_strides, operands)]  # fmt: skip
    steps = [np.int64(operand.strides[dim]) for operand in operands]
    args = (*[storage(operand) for operand in operands], *layouts, np.int64(out.shape[dim]), *steps,
            np.int64(lines))  # fmt: skip
    launch(kernel("log_softmax_backward", "", name, name), (blocks(lines, THREADS),), (THREADS,), args)


def _per_line(family: str, op: str, out: Strided, a: Strided, dim: int) -> None:
    """Launch a kernel that walks whole lines along ``dim``, one thread per line, writing
    ``out`` of ``a``'s shape (scan.cu, softmax.cu): the other dimensions are merged where
    their strides allow, and each thread gets the line's length and its two strides."""
    name = dtype_name(out.storage)
    if dtype_name(a.storage) != name:
        raise TypeError(f"{family}: out and a must share one dtype (the ops layer converts first)")
    if numel(out.shape) == 0:
        return
    shape, (out_strides, a_strides) = merge_kept_dims(a.shape, dim, out.strides, a.strides)
    lines = numel(shape)
    args = (storage(out), storage(a), layout(shape, out_strides, out.offset),
            layout(shape, a_strides, a.offset), np.int64(a.shape[dim]), np.int64(out.strides[dim]),
            np.int64(a.strides[dim]), np.int64(lines))  # fmt: skip
    launch(kernel(family, op, name, name), (blocks(lines, THREADS),), (THREADS,), args)


def matmul(out: Strided, a: Strided, b: Strided) -> None:
    """``out[z] = a[z] @ b[z]`` with shared-memory tiles: kernels/matmul.cu."""
    batch, rows, cols = out.shape
    name = dtype_name(out.storage)
    if not dtype_name(a.storage) == dtype_name(b.storage) == name:
        raise TypeError("matmul: out, a and b must share one dtype")
    if batch * rows * cols == 0:
        return
    grid = (-(-cols // TILE), min(-(-rows // TILE), 65535), min(batch, 65535))
    args = (storage(out), storage(a), storage(b), layout(out.shape, out.strides, out.offset),
            layout(a.shape, a.strides, a.offset), layout(b.shape, b.strides, b.offset))  # fmt: skip
    launch(kernel("matmul", "", name, name), grid, (TILE, TILE), args)


def _indexing(family: str, out: Strided, data: Strided, dim: int, index: Strided,
              walked: Strided) -> None:  # fmt: skip
    count = numel(walked.shape)
    if count == 0:
        return
    name = dtype_name(out.storage)
    if dtype_name(index.storage) != "int64" or dtype_name(data.storage) != name:
        raise TypeError(f"{family}: the index must be int64, and the values share out's dtype")
    args = (storage(out), storage(data), storage(index),
            layout(out.shape, out.strides, out.offset),
            layout(data.shape, data.strides, data.offset),
            layout(index.shape, index.strides, index.offset), np.int64(dim), np.int64(count))  # fmt: skip
    launch(kernel(family, "", name, name), (blocks(count, THREADS),), (THREADS,), args)


def gather(out: Strided, a: Strided, dim: int, index: Strided) -> None:
    """``out[i][j][k] = a[i][index[i][j][k]][k]`` (dim 1): kernels/gather_scatter.cu."""
    _indexing("gather", out, a, dim, index, out)


def scatter_add(out: Strided, dim: int, index: Strided, src: Strided) -> None:
    """``out[i][index[i][j][k]][k] += src[i][j][k]`` (dim 1): kernels/gather_scatter.cu."""
    _indexing("scatter_add", out, src, dim, index, src)


def _no_kernel(primitive: str) -> None:
    raise NotImplementedError(
        f"{primitive} has no CUDA kernel yet (sorting and the matrix factorisations run on "
        "the CPU only): move the tensor there first, e.g. x.cpu()"
    )


def sort(values: Strided, indices: Strided, a: Strided, dim: int, descending: bool) -> None:
    """No CUDA kernel yet: raises NotImplementedError."""
    _no_kernel("sort")


def lu_factor(lu: Strided, pivots: Strided) -> None:
    """No CUDA kernel yet: raises NotImplementedError."""
    _no_kernel("lu_factor")


def lu_solve(x: Strided, lu: Strided, pivots: Strided) -> None:
    """No CUDA kernel yet: raises NotImplementedError."""
    _no_kernel("lu_solve")


def svd(u: Strided, s: Strided, vh: Strided, a: Strided) -> None:
    """No CUDA kernel yet: raises NotImplementedError."""
    _no_kernel("svd")
