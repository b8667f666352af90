"""The Numba CPU backend (``"numba"``, the default on CPU): the reference backend's
primitives, compiled, tuned and parallel.

Same contract as ``reference.py`` (see ``minitorch/backends/__init__.py``), same results.
``README.md`` in this folder is the guide to its tricks and the speed each one buys; the
readable first step from the reference backend to compiled code is ``numba_simple.py``.

This file gathers the primitives. The Python side of each call turns the ``Strided``
operands into the plain arguments the compiled kernels take (storage arrays, small int64
arrays describing the layout, offsets) and calls the kernel, once per layout worked out
and remembered (``layouts.py``), in ``elementwise_runners.py``, ``reduce_runners.py``,
``matmul_runners.py`` and ``indexing_runners.py``. The loops themselves live in

* ``elementwise_kernels.py`` -- ``map``, ``zip``, ``where``;
* ``reduce_kernels.py``      -- ``reduce``, ``arg_reduce``;
* ``matmul_kernel.py``       -- ``matmul`` (cache-blocked, our own: no BLAS);
* ``small_matmul_kernel.py`` -- ``matmul`` of small matrices, a row or a column at a time;
* ``indexing_kernels.py``    -- ``gather``, ``scatter_add``;
* ``optimizer_kernels.py``   -- ``optimizer_step``, the fused optimizer step (and its Python side);
* ``scalar_functions.py``    -- the scalar functions as Numba sees them, a vectorizable exp.

How the kernels are specialised and cached:

* ``make_zip_kernels(scalar_ops.add)`` builds the kernels of one scalar op: per layout
  class (a contiguous row, a repeated operand, short broadcast rows, tiles...) a serial one
  for small tensors and a parallel one (``prange``) for large ones, and a contiguous one
  for small operands that are one contiguous row each (fewer arguments: ``is_one_row``),
  each compiled on its first call for each dtype combination. The scalar function is
  inlined into the loop, so the compiler vectorizes it, and only the ops and layout
  classes a program uses are ever compiled: a first run compiles little code;
* every kernel is ``cache=True`` and captures nothing but a plain module-level function
  and a few numbers, so a new process loads it from Numba's on-disk cache instead of
  compiling it again (see ``elementwise_kernels.py`` for why that matters); processes
  that compile at the same time save into that cache one at a time (``cache_lock.py``);
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

import os

# Numba's default threading layer here is OpenMP, whose idle workers spin for a while after
# each parallel loop, waiting for more work. On a busy 2-core machine a spinning worker
# takes the core our calling thread needs; passive workers sleep at once, and waking them
# costs less than the parallel thresholds already pay for (the backend guide, README.md,
# has the measurements). Set before Numba starts its threads; a value the user chose wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from minitorch.backends import compile_time, cpu_storage  # noqa: E402
from minitorch.backends.numba import cache_lock  # noqa: E402
from minitorch.backends.numba.fast_start import start_numba_target  # noqa: E402

cache_lock.install()  # processes compiling at once must not mix up the cached kernels
start_numba_target()
compile_time.count_numba_compilations()  # a trace shows compile time apart from kernel time

# The primitives (the contract of ``minitorch/backends/__init__.py``) and their runners
from minitorch.backends.numba.elementwise_runners import (  # noqa: E402, F401
    MAP_KERNELS,
    ZIP_KERNELS,
    map,
    map_runner,
    takes_runner,
    where,
    zip,
    zip_runner,
)
from minitorch.backends.numba.indexing_runners import (  # noqa: E402, F401
    gather,
    gather_runner,
    scatter_add,
    scatter_add_runner,
)
from minitorch.backends.numba.layouts import LAYOUT_CACHE_SIZE, elementwise_layout, is_one_row, reduce_layout  # noqa: E402, F401,E501
from minitorch.backends.numba.linalg_kernels import lu_factor, lu_solve, svd  # noqa: E402, F401
from minitorch.backends.numba.matmul_kernel import MATMUL_KERNELS  # noqa: E402, F401
from minitorch.backends.numba.matmul_runners import matmul, matmul_path, matmul_runner  # noqa: E402, F401
from minitorch.backends.numba.optimizer_kernels import optimizer_step  # noqa: E402, F401
from minitorch.backends.numba.reduce_runners import REDUCE_KERNELS, arg_reduce, reduce, reduce_runner  # noqa: E402, F401
from minitorch.backends.numba.scan_kernel import scan  # noqa: E402, F401
from minitorch.backends.numba.small_matmul_kernel import COLUMNS_MATMUL_KERNEL  # noqa: E402, F401
from minitorch.backends.numba.softmax_kernel import log_softmax_backward, softmax, softmax_runner  # noqa: E402, F401
from minitorch.backends.numba.sort_kernel import sort  # noqa: E402, F401

NAME = "numba"
DEVICE_TYPE = "cpu"
empty, from_numpy, to_numpy = cpu_storage.empty, cpu_storage.from_numpy, cpu_storage.to_numpy  # CPU storage
