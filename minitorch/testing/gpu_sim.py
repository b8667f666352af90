"""A tiny GPU simulator in Python, for learning how CUDA kernels are written.

A CUDA kernel is one function that thousands of threads run at once, each knowing its
position: ``blockIdx`` (which block of the grid) and ``threadIdx`` (which thread in the
block). Threads of one block share fast ``shared`` memory and wait for each other at a
barrier, ``__syncthreads()``.

Here a kernel is a Python function ``kernel(t, *args)`` where ``t`` carries ``t.block``,
``t.thread``, ``t.block_dim``, ``t.grid_dim`` (each ``(x, y)``) and ``t.shared`` (a dict of
NumPy arrays, one per block). A kernel that needs a barrier is a *generator*: every
``yield`` is a ``__syncthreads()``. ``launch`` runs the threads of a block in a chosen
order (``forward``, ``reversed``, ``shuffled``): like on a real GPU, a kernel must give
the same answer in every order, which is how a missing barrier shows up.

Global memory is a NumPy array *with a guard zone* (``device_array``): a write past the
end lands in the guard, and ``check_guards`` reports it, as a memory checker would.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

GUARD = 64  # cells of guard zone after each device array


@dataclass
class Thread:
    """What a simulated thread knows about itself (CUDA's built-in variables)."""

    block: tuple[int, int]
    thread: tuple[int, int]
    block_dim: tuple[int, int]
    grid_dim: tuple[int, int]
    shared: dict[str, np.ndarray] = field(default_factory=dict)


GUARD_VALUE = -123456.0  # what the guard zone holds until something writes there


def device_array(values: np.ndarray | list) -> np.ndarray:
    """Copy ``values`` (flattened) into "device memory": the view has exactly
    ``len(values)`` cells, but GUARD more cells follow it in the same buffer."""
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    buffer = np.full(flat.size + GUARD, GUARD_VALUE)
    buffer[: flat.size] = flat
    return buffer[: flat.size]


def check_guards(array: np.ndarray) -> int:
    """How many guard cells after ``array`` were overwritten (0 when none)."""
    buffer = array.base if array.base is not None else array
    return int(np.sum(buffer[array.size :] != GUARD_VALUE))


def _as_unchecked(array: np.ndarray) -> np.ndarray:
    """The whole buffer of a device array: indexing past its end then lands in the guard
    zone (a real GPU does not stop you either) instead of raising IndexError."""
    buffer = array.base if array.base is not None else array
    return buffer if buffer.size > array.size else array


def launch(kernel: Callable, grid: tuple[int, ...], block: tuple[int, ...], *args: Any,
           shared: dict[str, int] | None = None, order: str = "forward", seed: int = 0) -> None:  # fmt: skip
    """Run ``kernel`` on a grid of blocks of threads. ``shared`` names the shared arrays
    (and their sizes) every block gets. Device arrays are passed with their guard zone
    reachable, so out-of-bounds writes are caught afterwards by ``check_guards``."""
    grid2 = (tuple(grid) + (1,))[:2]
    block2 = (tuple(block) + (1,))[:2]
    generator = random.Random(seed)
    raw_args = [_as_unchecked(a) if isinstance(a, np.ndarray) else a for a in args]
    is_generator = inspect.isgeneratorfunction(kernel)
    for by in range(grid2[1]):
        for bx in range(grid2[0]):
            memory = {name: np.full(size, np.nan) for name, size in (shared or {}).items()}
            threads = [
                Thread((bx, by), (tx, ty), block2, grid2, memory)
                for ty in range(block2[1])
                for tx in range(block2[0])
            ]
            if order == "reversed":
                threads.reverse()
            elif order == "shuffled":
                generator.shuffle(threads)
            if not is_generator:
                for t in threads:
                    kernel(t, *raw_args)
                continue
            running = [kernel(t, *raw_args) for t in threads]
            while running:  # run every thread up to its next barrier, then the next phase
                still = []
                for coroutine in running:
                    try:
                        next(coroutine)
                        still.append(coroutine)
                    except StopIteration:
                        pass
                if still and len(still) != len(running):
                    raise RuntimeError(
                        "some threads of a block finished while others wait at __syncthreads(): "
                        "every thread of a block must reach every barrier"
                    )
                if order == "shuffled":
                    generator.shuffle(still)
                running = still
