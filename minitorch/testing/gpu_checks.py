"""Checks for the GPU exercises (chapter 6), on the Python GPU simulator (``gpu_sim``).

Each kernel runs with block sizes that do not divide the problem size (so a missing
bounds check writes past the end, into a guard zone we inspect) and with the threads of a
block in forward, reversed and shuffled order (so a missing barrier changes the answer).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from minitorch.testing.cases import rng
from minitorch.testing.gpu_sim import check_guards, device_array, launch
from minitorch.testing.report import CheckFailed, call_student, checker, fail

ORDERS = ("forward", "reversed", "shuffled")


@checker
def check_saxpy_kernel(kernel: Callable, block_size: int = 32) -> str:
    """``kernel(t, alpha, x, y, out, n)``: ``out[i] = alpha * x[i] + y[i]``, one thread per i."""
    __tracebackhide__ = True
    generator = rng(40)
    count = 0
    for n in [1, 5, 31, 32, 33, 100, 257]:
        x = np.array([generator.gauss(0, 1) for _ in range(n)])
        y = np.array([generator.gauss(0, 1) for _ in range(n)])
        alpha = 2.5
        out = device_array(np.full(n, np.nan))
        grid = math.ceil(n / block_size)
        case = f"n = {n}, grid = ({grid},), block = ({block_size},) (that is {grid * block_size} threads)"
        call_student("saxpy", launch, kernel, (grid,), (block_size,), alpha, device_array(x),
                     device_array(y), out, n, case=case)  # fmt: skip
        count += 1
        if check_guards(out):
            raise CheckFailed(
                f"saxpy wrote past the end of `out` on this case:\n  {case}\n"
                "  hint: the last block has threads beyond n. Guard the write with `if i < n:`."
            )
        expected = alpha * x + y
        if not np.allclose(out, expected, equal_nan=False):
            hint = ""
            if np.isnan(out).any():
                hint = ("some elements were never written: each thread's element is "
                        "i = blockIdx.x * blockDim.x + threadIdx.x (t.block[0] * t.block_dim[0] "
                        "+ t.thread[0]).")  # fmt: skip
            raise fail("saxpy", case, expected, np.asarray(out), hint)
    return f"saxpy is right on {count} launches, including partial last blocks."


@checker
def check_tiled_matmul(kernel: Callable, tile: int = 4) -> str:
    """``kernel(t, a, b, out, n, k, m)`` on flat row-major matrices, launched with
    ``tile x tile`` blocks and shared arrays ``"a"`` and ``"b"`` of ``tile * tile`` cells."""
    __tracebackhide__ = True
    generator = rng(41)
    count = 0
    for n, k, m in [(4, 4, 4), (3, 5, 2), (8, 4, 8), (5, 9, 7), (1, 1, 1)]:
        a = np.array([generator.gauss(0, 1) for _ in range(n * k)])
        b = np.array([generator.gauss(0, 1) for _ in range(k * m)])
        expected = (a.reshape(n, k) @ b.reshape(k, m)).reshape(-1)
        grid = (math.ceil(m / tile), math.ceil(n / tile))
        results = {}
        for order in ORDERS:
            out = device_array(np.full(n * m, np.nan))
            case = (f"a is {n}x{k}, b is {k}x{m}, grid = {grid}, block = ({tile}, {tile}), "
                    f"threads run in {order} order")  # fmt: skip
            shared = {"a": tile * tile, "b": tile * tile}
            call_student("tiled_matmul", _launch_tiled, kernel, grid, tile, shared, order,
                         device_array(a), device_array(b), out, n, k, m, case=case)  # fmt: skip
            count += 1
            if check_guards(out):
                raise CheckFailed(
                    f"tiled_matmul wrote past the end of `out` on this case:\n  {case}\n"
                    "  hint: threads outside the matrix (row >= n or col >= m) must not write."
                )
            results[order] = np.array(out)
            if not np.allclose(out, expected):
                hint = ""
                if order != "forward" and np.allclose(results["forward"], expected):
                    hint = ("right in forward order, wrong in another: a barrier is missing. "
                            "`yield` (= __syncthreads()) after loading a tile, *and* after "
                            "using it, before the next tile overwrites shared memory.")  # fmt: skip
                elif np.isnan(out).any():
                    hint = "some outputs were never written, or read shared cells never loaded."
                raise fail("tiled_matmul", case, expected, np.asarray(out), hint)
    return f"tiled_matmul is right on {count} launches (odd sizes, three thread orders)."


def _launch_tiled(kernel: Callable, grid: tuple, tile: int, shared: dict, order: str,
                  *args: object) -> None:  # fmt: skip
    launch(kernel, grid, (tile, tile), *args, shared=shared, order=order)
