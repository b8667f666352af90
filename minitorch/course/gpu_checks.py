"""Run small CUDA C kernels from a notebook, and the checks for the GPU exercises
(chapter 6).

A kernel is a string of CUDA C. ``raw_module(source)`` compiles it with the interface of
``cupy.RawModule``: through CuPy on a real GPU, otherwise on minitorch's CPU emulator of
CUDA (``minitorch/backends/cuda_emulator.py``, the one that runs ``kernels/*.cu``)::

    module = raw_module(source)
    kernel = module.get_function("saxpy")
    kernel((blocks,), (threads,), (np.float32(2.0), x, y, out, np.int32(n)))

Arguments are passed like CuPy does: device arrays as pointers, NumPy scalars by value
(so write ``np.int32(n)`` for an ``int`` and ``np.float32(a)`` for a ``float``).

The checks launch the student's kernel on many sizes (the last block only partly used),
with the threads of each block in forward and in reversed order, and compare with NumPy.
Every array a check passes has spare cells behind its end, so a write past the end is
caught (on a GPU too) instead of corrupting memory. On the emulator, a read of shared
memory nobody has written yet reads as NaN. The first failure is explained in plain words.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch.course.cases import rng
from minitorch.course.report import CheckFailed, NotDoneYet, checker, fail

ORDERS = ("forward", "reversed")
UNWRITTEN = 1e30  # what the checks put in `out` before a launch: "never written"
PADDING = 4096  # spare elements behind every array a check passes, to catch overruns


# --------------------------------------------------------------------------------------
# A GPU, or the emulator
# --------------------------------------------------------------------------------------


def on_real_gpu() -> bool:
    """True when kernels run on a real GPU through CuPy (not on the emulator)."""
    import minitorch

    try:
        return minitorch.cuda.is_available() and not minitorch.cuda.is_emulated()
    except Exception:  # noqa: BLE001 (a broken driver means: no GPU)
        return False


def raw_module(source: str, name: str = "student") -> Any:
    """``cupy.RawModule(code=source)`` on a GPU; the emulator's ``RawModule`` otherwise."""
    if on_real_gpu():
        import cupy

        return cupy.RawModule(code=source)
    from minitorch.backends import cuda_emulator

    return cuda_emulator.RawModule(source, name=name)


def to_device(array: Any) -> Any:
    """Copy a host array to (possibly emulated) device memory, flattened."""
    array = np.ascontiguousarray(array).reshape(-1)
    if on_real_gpu():
        import cupy

        return cupy.asarray(array)
    from minitorch.backends import cuda_emulator

    return cuda_emulator.from_numpy(array)


def to_host(array: Any) -> np.ndarray:
    """Copy device memory back to an ordinary NumPy array (waits for the GPU)."""
    if on_real_gpu():
        import cupy

        return cupy.asnumpy(array)
    from minitorch.backends import cuda_emulator

    return cuda_emulator.to_numpy(array)


@contextlib.contextmanager
def thread_order(order: str) -> Iterator[None]:
    """Run the threads of each block in ``order`` ("forward", "reversed", "shuffled") on
    the emulator. A real GPU picks its own order, so there this does nothing."""
    if on_real_gpu():
        yield
        return
    from minitorch.backends import cuda_emulator

    with cuda_emulator.thread_order(order):
        yield


def _padded(array: np.ndarray) -> Any:
    """``array`` on the device, followed by ``PADDING`` cells holding ``UNWRITTEN``."""
    spare = np.full(PADDING, UNWRITTEN, dtype=array.dtype)
    return to_device(np.concatenate([array.reshape(-1), spare]))


def _check_overrun(name: str, got: np.ndarray, size: int, case: str) -> np.ndarray:
    """The first ``size`` cells of ``got``; raises when a cell behind them was written."""
    __tracebackhide__ = True
    written = np.flatnonzero(got[size:] != UNWRITTEN)
    if written.size:
        raise CheckFailed(
            f"`{name}` wrote past the end of `out` ({size} elements) on this case:\n  {case}\n"
            f"  {written.size} cell(s) behind the end were written, the farthest "
            f"{int(written[-1]) + 1} cell(s) after it. On a GPU this silently corrupts other memory.\n"
            "  hint: the last block has threads beyond the end of the data. Guard the write "
            "with `if (i < n)` (for a matrix: `if (row < n && col < m)`)."
        )
    return got[:size]


# --------------------------------------------------------------------------------------
# Compiling and launching a student's kernel
# --------------------------------------------------------------------------------------


def _compile(source: str, name: str) -> Any:
    __tracebackhide__ = True
    if not isinstance(source, str):
        raise CheckFailed(f"pass the CUDA C source of `{name}` as a string, got {type(source).__name__}")
    if "your code here" in source:
        raise NotDoneYet(
            f"the body of `{name}` still says `your code here`. Write the kernel in the cell "
            "above, run that cell, then run this check again."
        )
    try:
        return raw_module(source).get_function(name)
    except AttributeError:
        raise CheckFailed(
            f"there is no kernel named `{name}` in your source: write "
            f'`extern "C" __global__ void {name}(...)`.'
        ) from None
    except Exception as error:  # noqa: BLE001 (CompileError or CuPy's compile error)
        log = str(error).strip().splitlines()
        shown = "\n    ".join(log[:12])
        raise CheckFailed(f"`{name}` does not compile:\n    {shown}") from None


def _launch(kernel: Any, name: str, grid: tuple, block: tuple, args: tuple, order: str, case: str) -> None:
    __tracebackhide__ = True
    try:
        with thread_order(order):
            kernel(grid, block, args)
    except Exception as error:  # noqa: BLE001 (EmulatorError or a CUDA error)
        message = str(error)
        hint = ""
        if "wrote past the end" in message:
            hint = ("\n  hint: the last block has threads beyond the end of the data. Guard "
                    "the write with `if (i < n)` (for a matrix: `if (row < n && col < m)`).")  # fmt: skip
        raise CheckFailed(f"`{name}` failed on this case:\n  {case}\n  {message}{hint}") from None


# --------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------


@checker
def check_saxpy_kernel(source: str, block_size: int = 32) -> str:
    """``saxpy(float alpha, const float* x, const float* y, float* out, int n)``:
    ``out[i] = alpha * x[i] + y[i]``, one thread per ``i``, 1-D grid of 1-D blocks."""
    __tracebackhide__ = True
    kernel = _compile(source, "saxpy")
    generator = rng(40)
    count = 0
    for n in [1, 5, 31, 32, 33, 100, 257]:
        x = np.array([generator.gauss(0, 1) for _ in range(n)], dtype=np.float32)
        y = np.array([generator.gauss(0, 1) for _ in range(n)], dtype=np.float32)
        alpha = np.float32(2.5)
        expected = alpha * x + y
        grid = math.ceil(n / block_size)
        for order in ORDERS:
            out = _padded(np.full(n, UNWRITTEN, dtype=np.float32))
            case = (f"n = {n}, grid = ({grid},), block = ({block_size},) (that is "
                    f"{grid * block_size} threads), threads in {order} order")  # fmt: skip
            args = (alpha, _padded(x), _padded(y), out, np.int32(n))
            _launch(kernel, "saxpy", (grid,), (block_size,), args, order, case)
            count += 1
            got = _check_overrun("saxpy", to_host(out), n, case)
            if not np.allclose(got, expected, rtol=1e-5, atol=1e-6):
                hint = ""
                if (got == UNWRITTEN).any():
                    hint = ("some elements were never written: each thread's element is "
                            "i = blockIdx.x * blockDim.x + threadIdx.x.")  # fmt: skip
                raise fail("saxpy", case, expected, got, hint)
    return f"saxpy is right on {count} launches, including partial last blocks and reversed threads."


@checker
def check_tiled_matmul(source: str, tile: int = 4) -> str:
    """``tiled_matmul(const float* a, const float* b, float* out, int n, int k, int m)``
    on flat row-major matrices, launched with ``tile x tile`` blocks on a grid of
    ``(ceil(m / tile), ceil(n / tile))`` blocks."""
    __tracebackhide__ = True
    kernel = _compile(source, "tiled_matmul")
    generator = rng(41)
    count = 0
    for n, k, m in [(4, 4, 4), (3, 5, 2), (8, 4, 8), (5, 9, 7), (1, 1, 1)]:
        a = np.array([generator.gauss(0, 1) for _ in range(n * k)], dtype=np.float32)
        b = np.array([generator.gauss(0, 1) for _ in range(k * m)], dtype=np.float32)
        expected = (a.reshape(n, k) @ b.reshape(k, m)).reshape(-1)
        grid = (math.ceil(m / tile), math.ceil(n / tile))
        for order in ORDERS:
            out = _padded(np.full(n * m, UNWRITTEN, dtype=np.float32))
            case = (f"a is {n}x{k}, b is {k}x{m}, grid = {grid}, block = ({tile}, {tile}), "
                    f"threads in {order} order")  # fmt: skip
            args = (_padded(a), _padded(b), out, np.int32(n), np.int32(k), np.int32(m))
            _launch(kernel, "tiled_matmul", grid, (tile, tile), args, order, case)
            count += 1
            got = _check_overrun("tiled_matmul", to_host(out), n * m, case)
            if not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
                hint = ""
                if np.isnan(got).any():
                    hint = ("NaN means a thread read a shared-memory cell no thread had "
                            "written yet: call __syncthreads() after loading a tile, before "
                            "anyone reads it.")  # fmt: skip
                elif (got == UNWRITTEN).any():
                    hint = ("some outputs were never written: thread (tx, ty) of block "
                            "(bx, by) writes out[row * m + col] with row = by*TILE + ty, "
                            "col = bx*TILE + tx.")  # fmt: skip
                elif k > tile:
                    hint = ("wrong only when k needs more than one tile: a thread that is done "
                            "with a tile must wait (__syncthreads()) before the next tile "
                            "overwrites shared memory that others are still reading.")  # fmt: skip
                raise fail("tiled_matmul", case, expected, got, hint)
    return f"tiled_matmul is right on {count} launches (odd sizes, forward and reversed threads)."
