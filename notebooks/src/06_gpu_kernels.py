# colab: gpu
# %% [markdown]
# # 6 · GPU kernels
#
# **Goal (about 35 minutes):** learn how a GPU kernel is written and launched: the
# **thread mapping** (which thread computes which element), **shared memory** and the
# **tiled matmul**, **asynchronous launches** and synchronisation, and why PyTorch keeps a
# **caching memory pool**. No GPU is needed: the kernels here run on a small GPU
# *simulator* written in Python (`minitorch/testing/gpu_sim.py`), which runs every thread
# of a block and lets us shuffle their order, the way a real GPU would. minitorch's real
# CUDA kernels (the `kernels/*.cu` files, issue 5) run through CuPy on a GPU, or on
# minitorch's C++ emulator of the same `.cu` files when there is none.
#
# Exercises: `exercises/06_gpu_kernels.ipynb` (`saxpy` with a bounds check, and a tiled
# matmul with barriers).

# %% setup(emulate_cuda=True)

# %%
import math
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import minitorch
from minitorch.testing.gpu_sim import check_guards, device_array, launch

# %% [markdown]
# ## Thousands of threads, one function
#
# A CPU kernel is a loop: `for i in range(n): out[i] = a[i] + b[i]`. A GPU kernel is the
# **body** of that loop, run by one thread per element. Threads are grouped in **blocks**
# (up to 1024 threads, which can cooperate), blocks in a **grid**. Each thread computes
# its element from its coordinates:
#
# ```cuda
# __global__ void add(const float* a, const float* b, float* out, int n) {
#     int i = blockIdx.x * blockDim.x + threadIdx.x;   // which element is mine?
#     if (i < n) out[i] = a[i] + b[i];                 // the last block may overhang
# }
# // launch: add<<<ceil(n / 256.0), 256>>>(a, b, out, n);
# ```
#
# In our simulator, the kernel is a Python function of `t` (the thread's coordinates) and
# the arguments:

# %%
def add(t, a, b, out, n):
    i = t.block[0] * t.block_dim[0] + t.thread[0]   # blockIdx.x * blockDim.x + threadIdx.x
    if i < n:
        out[i] = a[i] + b[i]


n = 10
a, b = device_array(np.arange(n)), device_array(np.ones(n))
out = device_array(np.zeros(n))
block = 4
grid = math.ceil(n / block)          # 3 blocks of 4 threads = 12 threads for 10 elements
launch(add, (grid,), (block,), a, b, out, n)
print(out)

# %% [markdown]
# The `if i < n` matters: 12 threads ran for 10 elements. Without it, threads 10 and 11
# write past the end of `out`. A GPU does not stop them: they silently overwrite whatever
# lives there. Our device arrays have a guard zone behind them to catch that:

# %%
def add_unguarded(t, a, b, out, n):
    i = t.block[0] * t.block_dim[0] + t.thread[0]
    out[i] = a[i] + b[i]


out = device_array(np.zeros(n))
launch(add_unguarded, (grid,), (block,), a, b, out, n)
print("cells written past the end:", check_guards(out))

# %% [markdown]
# This is why minitorch checks shapes, devices and indices in Python *before* launching
# (chapter 3): inside a kernel, nothing checks anything.
#
# For strided tensors the GPU kernel does exactly what the reference kernel does, with the
# loop replaced by the thread index: `ordinal = blockIdx.x * blockDim.x + threadIdx.x`,
# then ordinal → index → position per operand (see `kernels/strided.cuh` and
# `kernels/map.cu`). The elementwise *op* is pasted in from the scalar-op table's `cuda`
# column.
#
# ## 2-D grids and the tiled matmul
#
# For a matrix product, a natural mapping is one thread per output element, with a 2-D
# grid: `row = blockIdx.y * blockDim.y + threadIdx.y`, `col = blockIdx.x * ...`. Each
# thread then reads a whole row of `a` and column of `b` from **global memory** (the GPU's
# large, slow DRAM). Neighbouring threads read the same values again and again.
#
# **Tiling** fixes that. The threads of a `T×T` block cooperatively load a `T×T` tile of
# `a` and of `b` into **shared memory** (fast, on-chip, visible to the block), wait until
# everyone has loaded (`__syncthreads()`), each accumulate `T` products from the tiles,
# wait again (so nobody overwrites the tile while others still read it), and move to the
# next tile. Every value loaded from global memory is now used `T` times.
#
# In the simulator a kernel that needs barriers is a generator: each `yield` is a
# `__syncthreads()`.

# %%
TILE = 4


def tiled_matmul(t, a, b, out, n, k, m):
    tx, ty = t.thread
    row = t.block[1] * TILE + ty
    col = t.block[0] * TILE + tx
    tile_a, tile_b = t.shared["a"], t.shared["b"]      # __shared__ float tile_a[TILE*TILE]
    total = 0.0
    for start in range(0, k, TILE):
        # each thread loads one element of each tile (0 outside the matrices)
        tile_a[ty * TILE + tx] = a[row * k + start + tx] if row < n and start + tx < k else 0.0
        tile_b[ty * TILE + tx] = b[(start + ty) * m + col] if start + ty < k and col < m else 0.0
        yield                                           # __syncthreads(): tiles are loaded
        for q in range(TILE):
            total += tile_a[ty * TILE + q] * tile_b[q * TILE + tx]
        yield                                           # __syncthreads(): done reading
    if row < n and col < m:
        out[row * m + col] = total


def run_matmul(kernel, A, B, order="forward"):
    n, k = A.shape
    m = B.shape[1]
    out = device_array(np.zeros(n * m))
    grid = (math.ceil(m / TILE), math.ceil(n / TILE))
    launch(kernel, grid, (TILE, TILE), device_array(A), device_array(B), out, n, k, m,
           shared={"a": TILE * TILE, "b": TILE * TILE}, order=order)
    return out.reshape(n, m)


A = np.random.rand(6, 7)
B = np.random.rand(7, 5)
for order in ["forward", "reversed", "shuffled"]:
    print(order, np.allclose(run_matmul(tiled_matmul, A, B, order), A @ B))

# %% [markdown]
# Remove the second barrier and the threads that run first start loading the next tile
# while others are still reading the current one. The answer is now wrong, and on a real
# GPU it would be wrong only *sometimes*, depending on timing: the nastiest kind of bug.

# %%
def tiled_matmul_one_barrier(t, a, b, out, n, k, m):
    tx, ty = t.thread
    row, col = t.block[1] * TILE + ty, t.block[0] * TILE + tx
    tile_a, tile_b = t.shared["a"], t.shared["b"]
    total = 0.0
    for start in range(0, k, TILE):
        tile_a[ty * TILE + tx] = a[row * k + start + tx] if row < n and start + tx < k else 0.0
        tile_b[ty * TILE + tx] = b[(start + ty) * m + col] if start + ty < k and col < m else 0.0
        yield
        for q in range(TILE):
            total += tile_a[ty * TILE + q] * tile_b[q * TILE + tx]
    if row < n and col < m:
        out[row * m + col] = total


for order in ["forward", "reversed", "shuffled"]:
    print(order, np.allclose(run_matmul(tiled_matmul_one_barrier, A, B, order), A @ B))

# %% [markdown]
# minitorch's C++ emulator of the real `.cu` kernels has the same three thread orders
# (`MINITORCH_CUDA_ORDER=shuffled`) for the same reason.
#
# ## Asynchronous launches
#
# A kernel launch on a GPU returns **immediately**: the CPU puts the launch into a queue
# (a CUDA *stream*) and goes on running Python while the GPU works through the queue in
# order. That is what lets a slow Python interpreter keep a fast GPU busy: while the GPU
# computes layer 3, Python is already issuing layer 4.
#
# The CPU must wait only when it needs a *result*: `loss.item()`, `print(tensor)`,
# `.numpy()`, or an explicit `torch.cuda.synchronize()`. Here is the idea with a
# one-worker queue standing in for the GPU:

# %%
class ToyStream:
    """A queue of work done in order by one worker, like a CUDA stream."""

    def __init__(self):
        self.worker = ThreadPoolExecutor(max_workers=1)
        self.last = None

    def launch(self, work):          # returns at once: the work is only queued
        self.last = self.worker.submit(work)

    def synchronize(self):           # wait until everything queued has run
        if self.last is not None:
            self.last.result()


def fake_kernel():
    time.sleep(0.05)                 # pretend the GPU computes for 50 ms


stream = ToyStream()
start = time.perf_counter()
for _ in range(4):
    stream.launch(fake_kernel)
launched = time.perf_counter() - start
stream.synchronize()
finished = time.perf_counter() - start
print(f"4 launches returned after {launched * 1e3:.1f} ms; the work finished after {finished * 1e3:.0f} ms")

# %% [markdown]
# Two consequences you will meet in PyTorch:
#
# * **Timing GPU code needs a synchronize**: without it you time the *launch*, not the
#   kernel. (Benchmarks call `torch.cuda.synchronize()` before reading the clock.)
# * **Errors show up late**: a failing kernel is reported at the next synchronising call,
#   not at the line that launched it (`CUDA_LAUNCH_BLOCKING=1` makes launches synchronous
#   for debugging). minitorch's emulator always runs launches synchronously.
#
# ## The caching memory pool
#
# Allocating GPU memory with `cudaMalloc` is slow (it may synchronise the device) and
# training allocates and frees the same sizes every step (activations, gradients). So
# PyTorch never gives freed memory back to the driver: its **caching allocator** keeps
# freed blocks in pools by size and hands them out again. `torch.cuda.memory_allocated()`
# counts memory in live tensors; `memory_reserved()` also counts the cached blocks. CuPy,
# which minitorch's CUDA backend uses, has the same design (`cupy.get_default_memory_pool()`).
#
# A toy version shows the idea: round sizes up to a bucket, reuse a free block of the same
# bucket, and only "call the driver" when none is free.

# %%
class ToyCachingAllocator:
    def __init__(self):
        self.free = {}            # bucket size -> list of free blocks
        self.driver_calls = 0
        self.reserved = 0

    @staticmethod
    def bucket(size):
        return 512 * math.ceil(size / 512)     # PyTorch rounds small sizes to 512 bytes too

    def malloc(self, size):
        bucket = self.bucket(size)
        if self.free.get(bucket):
            return self.free[bucket].pop()       # reuse: no driver call
        self.driver_calls += 1                   # the slow path: cudaMalloc
        self.reserved += bucket
        return bytearray(bucket)

    def release(self, block):                    # called when a tensor's refcount hits 0
        self.free.setdefault(len(block), []).append(block)


pool = ToyCachingAllocator()
for step in range(100):                          # 100 training steps, same sizes each time
    activations = [pool.malloc(4 * 1000), pool.malloc(4 * 250), pool.malloc(4 * 10)]
    for block in activations:
        pool.release(block)
print(f"300 allocations, {pool.driver_calls} driver calls, {pool.reserved} bytes reserved")

# %% [markdown]
# This connects to chapter 1: tensors are freed by **reference counting** the moment the
# last reference disappears, and on the GPU "freed" means "returned to the pool", ready for
# the next step. Fragmentation and a cache that looks like a leak (`nvidia-smi` shows the
# *reserved* memory) are the price; `torch.cuda.empty_cache()` gives cached blocks back.
#
# ## minitorch on `device="cuda"`
#
# The setup cell chose the device: `"cuda"` with a real GPU (Colab: *Runtime → Change
# runtime type → GPU*), or on the CPU emulator of minitorch's CUDA kernels when that is
# installed; otherwise `"cpu"`. The same PyTorch-style code runs either way, and the
# dispatch trace shows which backend ran it:

# %%
x = minitorch.randn(64, 32, device=device)
w = minitorch.randn(32, 16, device=device)
with minitorch.dispatch.trace() as calls:
    y = (x @ w).relu().sum()
print("device:", device, "| result:", round(y.item(), 3))
print("backends used:", sorted({call.backend for call in calls}))
if device == "cpu":
    print("(no GPU and no CUDA emulator here: the same code ran on the CPU backend)")

# %% [markdown]
# ## Summary
#
# * A GPU kernel is the **body of a loop**, run by one thread per element; each thread
#   finds its element from `blockIdx`, `blockDim`, `threadIdx`, and must **bounds-check**
#   because the last block overhangs.
# * **Shared memory** lets a block cooperate; the **tiled matmul** loads each value once
#   per tile and reuses it `T` times, with **`__syncthreads()`** after loading *and* after
#   using a tile. Missing barriers give order-dependent results.
# * **Launches are asynchronous**: Python queues work and runs ahead; it waits only for
#   results (`.item()`, printing) or `synchronize()`. Time GPU code after synchronising.
# * A **caching allocator** reuses freed blocks instead of calling the driver; freeing
#   happens by **reference counting**.
#
# Exercises: `exercises/06_gpu_kernels.ipynb`. Next: **7 · Modules and training**.
