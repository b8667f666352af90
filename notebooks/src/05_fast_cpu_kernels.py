# %% [markdown]
# # 5 · Fast CPU kernels
#
# **Goal (about 35 minutes):** make the kernels of chapter 3 fast, and *measure* why.
# You will compile Python loops to machine code with **Numba**, spread them over cores
# with **parallel loops**, see the **contiguous fast path** that skips index arithmetic,
# and race four matrix multiplications (naive, loop-reordered, cache-blocked, BLAS) live.
# Every number below is measured on the machine running this notebook, so yours will
# differ; the *ratios* are the lesson.
#
# Exercises: `exercises/05_fast_cpu_kernels.ipynb` (a parallel Numba map kernel and a
# Numba matmul).

# %% setup(backend="numba")

# %%
import time

import numba
import numpy as np

import minitorch
from minitorch import dispatch


def best_time(function, repeat=3):
    """The fastest of a few runs, in seconds (the least disturbed by other programs)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)

# %% [markdown]
# ## Why the reference backend is slow
#
# The reference kernels execute every element through the Python interpreter: each
# `a.storage[...]`, each `+`, each call to `index_to_position` creates Python objects and
# dispatches on their types. That costs on the order of a microsecond *per element*. The
# same loop compiled to machine code costs about a nanosecond.

# %%
x = minitorch.randn(20_000)
y = minitorch.randn(20_000)
with minitorch.backend("reference"):
    reference_seconds = best_time(lambda: x + y, repeat=1)
x + y   # the first Numba call may compile (or load the compiled kernel from disk)
numba_seconds = best_time(lambda: x + y)
print(f"reference: {reference_seconds * 1e3:8.2f} ms   ({reference_seconds / 20_000 * 1e9:.0f} ns per element)")
print(f"numba:     {numba_seconds * 1e3:8.2f} ms   ({numba_seconds / 20_000 * 1e9:.1f} ns per element)")
print(f"speed-up:  {reference_seconds / numba_seconds:.0f}x")

# %% [markdown]
# ## Numba: compiling the loops you already wrote
#
# `@numba.njit` compiles a Python function to machine code (through LLVM, the compiler
# behind Clang and Rust) the first time it is called, **specialised to the types of its
# arguments**. Inside, only a subset of Python works: numbers, NumPy arrays, tuples,
# loops, and calls to other `njit` functions. That is why `minitorch/layout.py` writes its
# index helpers with loops and indexing only: Numba compiles the *very same functions*.

# %%
from minitorch.layout import index_to_position, ordinal_to_index

index_to_position_jit = numba.njit(index_to_position)
ordinal_to_index_jit = numba.njit(ordinal_to_index)


@numba.njit
def strided_neg(out, out_shape, out_strides, out_offset, a, a_shape, a_strides, a_offset):
    """out[i] = -a[i], the reference loop: ordinal -> index -> position per operand."""
    index = np.zeros(len(out_shape), np.int64)
    size = 1
    for s in out_shape:
        size *= s
    for ordinal in range(size):
        ordinal_to_index_jit(ordinal, out_shape, index)
        value = a[index_to_position_jit(index, a_strides, a_offset)]
        out[index_to_position_jit(index, out_strides, out_offset)] = -value


def layout_of(t):
    return (t._storage, np.array(t.shape, np.int64), np.array(t.stride(), np.int64), t.storage_offset())


a = minitorch.randn(500, 400)
out = minitorch.empty(500, 400)
start = time.perf_counter()
strided_neg(*layout_of(out), *layout_of(a))
print(f"first call (compiles): {time.perf_counter() - start:.2f} s")
strided_seconds = best_time(lambda: strided_neg(*layout_of(out), *layout_of(a)))
print(f"later calls:           {strided_seconds * 1e3:.2f} ms for {a.numel()} elements")
print("correct:", bool((out == -a).all()))

# %% [markdown]
# The first call paid for compilation. minitorch's backend compiles each kernel with
# `cache=True`, so Numba stores the machine code on disk and later processes load it
# instead of compiling again. The earlier chapters, on the reference backend, used that:
# their setup cell started a *warm-up* in the background
# (`minitorch/course/warm_up.py`), which ran small versions of the coming lessons
# and so filled the disk cache with the kernels they call. Your own `strided_neg` above
# was not among them: that is why its first call compiled.

# %% [markdown]
# ## Three backends, one specification
#
# minitorch ships this very step as a backend of its own: `numba_simple`
# (`minitorch/backends/numba_simple.py`) is the reference backend's loops, with
# `layout.py`'s index functions, compiled by `numba.njit` and nothing else. The tuned
# `numba` backend (`minitorch/backends/numba/`, the default) adds the tricks of the next
# sections. All three compute the same primitives and pass the same tests, so you can
# switch between them and watch only the speed change:

# %%
x = minitorch.randn(200, 200)
y = minitorch.randn(200, 200).t()   # a transposed operand: no flat loop possible
timings = {}
for name in ["reference", "numba_simple", "numba"]:
    with minitorch.backend(name):
        result = x + y                                  # compiles or loads the kernel
        timings[name] = best_time(lambda: x + y, repeat=1 if name == "reference" else 5)
    print(f"{name:13s} {timings[name] * 1e3:9.3f} ms   same values: {bool((result == x + y).all())}")
#
# ## The contiguous fast path
#
# When every operand is contiguous, element `i` of each one is simply at `offset + i`: no
# index arithmetic at all. That loop is so simple that the compiler turns it into **SIMD**
# instructions that process 4 or 8 floats at once.

# %%
@numba.njit
def contiguous_neg(out, out_offset, a, a_offset, size):
    for i in range(size):
        out[out_offset + i] = -a[a_offset + i]


contiguous_neg(out._storage, 0, a._storage, 0, a.numel())
contiguous_seconds = best_time(lambda: contiguous_neg(out._storage, 0, a._storage, 0, a.numel()))
print(f"strided loop:    {strided_seconds * 1e3:.3f} ms")
print(f"contiguous loop: {contiguous_seconds * 1e3:.3f} ms  ({strided_seconds / contiguous_seconds:.0f}x faster)")

# %% [markdown]
# minitorch's Numba backend goes one step further (`minitorch/backends/numba/elementwise_kernels.py`):
# it **coalesces** dimensions that every operand walks in one steady step, so even a
# transposed or sliced tensor runs mostly along contiguous rows. The design rule from
# `docs/architecture.md`: fast paths live *inside* the primitive kernels, never as special cases in
# the ops. Let us compare the backend on a contiguous and a transposed operand:

# %%
big = minitorch.randn(1000, 1000)
big_t = big.t()
big + big; big_t + big_t                     # warm up (compile or load from cache)
with dispatch.trace() as calls:
    big + big
    big_t + big
print([call.path for call in calls])
print(f"contiguous + contiguous: {best_time(lambda: big + big) * 1e3:.2f} ms")
print(f"transposed + contiguous: {best_time(lambda: big_t + big) * 1e3:.2f} ms")

# %% [markdown]
# The transposed case is slower: one of the operands is read with a stride of 1000 cells,
# so every element comes from a different cache line. Memory access patterns, not
# arithmetic, dominate most kernels.
#
# ## Parallel loops
#
# `numba.njit(parallel=True)` with `numba.prange` instead of `range` splits the loop's
# iterations among threads, one per core. Iterations must be independent: each writes
# its own output element.

# %%
@numba.njit(parallel=True)
def parallel_neg(out, a, size):
    for i in numba.prange(size):
        out[i] = -a[i]


@numba.njit
def serial_neg(out, a, size):
    for i in range(size):
        out[i] = -a[i]


huge = np.random.rand(4_000_000)
huge_out = np.empty_like(huge)
parallel_neg(huge_out, huge, huge.size)
serial_neg(huge_out, huge, huge.size)
print("threads:", numba.get_num_threads())
print(f"serial:   {best_time(lambda: serial_neg(huge_out, huge, huge.size)) * 1e3:.2f} ms")
print(f"parallel: {best_time(lambda: parallel_neg(huge_out, huge, huge.size)) * 1e3:.2f} ms")

# %% [markdown]
# Do not expect a speed-up equal to the number of cores here: negation does almost no
# arithmetic per byte, so it is limited by **memory bandwidth**, which all cores share.
# On a machine with few cores that are busy with other programs (a shared CI runner, a
# free Colab instance), the threads may even lose: waking them up and waiting for the
# slowest one costs more than the work. Parallelism pays for compute-heavy kernels on
# idle cores, such as a large matmul.
#
# ## Matrix multiplication, four ways
#
# Matmul does $2n^3$ floating-point operations on $3n^2$ numbers, so each number can be
# reused $n$ times: a fast matmul is all about keeping numbers in registers and caches
# while they are reused. We measure GFLOP/s (billions of operations per second) for:
#
# 1. **naive** `i, j, k` loops: the inner loop walks a column of `b`, jumping a whole row
#    each step (bad for the cache);
# 2. **reordered** `i, k, j` loops: the inner loop walks rows of `b` and `out`
#    contiguously, so it vectorises;
# 3. minitorch's **blocked** Numba kernel (`minitorch/backends/numba/matmul_kernel.py`): reads
#    the rows of `a` and the columns of `b` as contiguous lines (packing an operand laid
#    out otherwise), computes 4×4 tiles in registers, and sweeps cache-sized blocks in
#    parallel;
# 4. **BLAS** through NumPy: decades of hand-tuned assembly (what PyTorch calls on CPU).

# %%
@numba.njit
def matmul_ijk(out, a, b):
    n, k_size = a.shape
    m = b.shape[1]
    for i in range(n):
        for j in range(m):
            total = 0.0
            for k in range(k_size):
                total += a[i, k] * b[k, j]
            out[i, j] = total


@numba.njit
def matmul_ikj(out, a, b):
    n, k_size = a.shape
    m = b.shape[1]
    out[:] = 0.0
    for i in range(n):
        for k in range(k_size):
            a_ik = a[i, k]
            for j in range(m):
                out[i, j] += a_ik * b[k, j]


n = 256
A = minitorch.randn(n, n)
B = minitorch.randn(n, n)
a_np, b_np = A.numpy(), B.numpy()
out_np = np.empty((n, n), np.float32)
matmul_ijk(out_np, a_np, b_np)
matmul_ikj(out_np, a_np, b_np)
A @ B
flops = 2 * n**3
contenders = {
    "naive i,j,k (numba)": lambda: matmul_ijk(out_np, a_np, b_np),
    "reordered i,k,j (numba)": lambda: matmul_ikj(out_np, a_np, b_np),
    "minitorch blocked (numba)": lambda: A @ B,
    "BLAS (numpy)": lambda: a_np @ b_np,
}
for name, run in contenders.items():
    seconds = best_time(run)
    print(f"{name:>26}: {seconds * 1e3:7.2f} ms  {flops / seconds / 1e9:6.2f} GFLOP/s")
print("same result:", np.allclose((A @ B).numpy(), a_np @ b_np, atol=1e-3))

# %% [markdown]
# Your numbers depend on the CPU and on what else is running; on a quiet machine the
# order is usually naive < reordered < blocked < BLAS, each step several times faster.
# (With the reference backend, the same product would take seconds: it is
# `2 * 256**3 ≈ 33 million` interpreted multiply-adds.) The gaps come from the memory
# hierarchy: registers (a few cycles), L1/L2 cache (tens of KB to MB, a few to tens of
# cycles), main memory (hundreds of cycles). Loop order decides which level the inner loop
# hits; blocking keeps a working set in cache; register tiles reuse each loaded value
# several times; SIMD does 4-8 operations per instruction; threads multiply it all by the
# number of cores. BLAS adds hand-written assembly for each CPU generation.
#
# ## Summary
#
# * Interpreted Python costs ~1 µs per element; compiled loops ~1 ns. **Numba** compiles
#   the same index helpers and loops, specialised to argument types, cached on disk.
# * The **contiguous fast path** (`out[i] = f(a[i])`) skips index arithmetic and
#   vectorises; minitorch's backend coalesces dimensions to use it as often as possible.
# * **`prange`** spreads independent iterations over cores; memory-bound kernels gain
#   less than compute-bound ones.
# * **Matmul** speed is about data reuse: loop order, cache blocking, register tiles,
#   SIMD and threads; BLAS is the reference point.
#
# Exercises: `exercises/05_fast_cpu_kernels.ipynb`. Next: **6 · GPU kernels**.
