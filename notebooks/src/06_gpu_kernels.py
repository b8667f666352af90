# colab: gpu
# %% [markdown]
# # 6 · GPU kernels
#
# **Goal (about 35 minutes):** learn how a GPU kernel is written and launched: the
# **thread mapping** (which thread computes which element), **shared memory** and the
# **tiled matmul**, **asynchronous launches** and synchronisation, and why PyTorch keeps a
# **caching memory pool**. We write real **CUDA C** and launch it through the interface
# of `cupy.RawModule`. No GPU is needed: without one, the same CUDA C is compiled by the
# C++ compiler against minitorch's **CUDA emulator** (`minitorch/backends/cuda_emulator.py`),
# which runs every thread of a block on the CPU, in an order we choose, and reports
# mistakes a GPU would silently make. minitorch's own kernels (`kernels/*.cu`) run on it
# too: that is what `device="cuda"` means in this notebook when there is no GPU.
#
# Exercises: `exercises/06_gpu_kernels.ipynb` (`saxpy` with a bounds check, and a tiled
# matmul with barriers, both in CUDA C).

# %% setup(emulate_cuda=True)

# %%
import math
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import minitorch
from minitorch.course.gpu_checks import raw_module, thread_order, to_device, to_host

# %% [markdown]
# ## Thousands of threads, one function
#
# A CPU kernel is a loop: `for i in range(n): out[i] = a[i] + b[i]`. A GPU kernel is the
# **body** of that loop, run by one thread per element. Threads are grouped in **blocks**
# (up to 1024 threads, which can cooperate), blocks in a **grid**. Each thread computes
# its element from its coordinates. Here is a complete CUDA C kernel, as a Python string:

# %%
ADD = r"""
extern "C" __global__ void add(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // which element is mine?
    if (i < n) out[i] = a[i] + b[i];                 // the last block may overhang
}
"""

# %% [markdown]
# `raw_module(source)` compiles it: with a GPU it is exactly `cupy.RawModule(code=source)`
# (NVRTC compiles for the GPU); without one it is the emulator's `RawModule`, with the
# same interface (g++ compiles for the CPU in about a second; the result is cached on
# disk). A launch gives the grid and block sizes and the arguments as a tuple, like
# `add<<<grid, block>>>(...)` in CUDA C. Arrays must live on the device (`to_device` and
# `to_host` copy); scalars are NumPy scalars of the C type (`np.int32` for `int`), as in
# CuPy.

# %%
add = raw_module(ADD).get_function("add")

n = 10
a = to_device(np.arange(n, dtype=np.float32))
b = to_device(np.ones(n, dtype=np.float32))
out = to_device(np.zeros(n, dtype=np.float32))
block = 4
grid = math.ceil(n / block)          # 3 blocks of 4 threads = 12 threads for 10 elements
add((grid,), (block,), (a, b, out, np.int32(n)))
print(to_host(out))

# %% [markdown]
# The `if (i < n)` matters: 12 threads ran for 10 elements. Without it, threads 10 and 11
# write past the end of `out`. A GPU does not stop them: they silently overwrite whatever
# lives there. The emulator keeps guard bytes behind every array and checks them after
# each launch:

# %%
add_unguarded = raw_module(ADD.replace("if (i < n) out[i]", "out[i]")).get_function("add")
out = to_device(np.zeros(n, dtype=np.float32))
try:
    add_unguarded((grid,), (block,), (a, b, out, np.int32(n)))
    print("no error reported: on a real GPU nothing checks this")
except minitorch.cuda.EmulatorError as error:
    print("EmulatorError:", error)

# %% [markdown]
# This is why minitorch checks shapes, devices and indices in Python *before* launching
# (chapter 3): inside a kernel, nothing checks anything.
#
# ## 2-D grids and the tiled matmul
#
# For a matrix product, a natural mapping is one thread per output element, with a 2-D
# grid: `row = blockIdx.y * blockDim.y + threadIdx.y`, `col = blockIdx.x * ...`. Each
# thread then reads a whole row of `a` and column of `b` from **global memory** (the GPU's
# large, slow DRAM). Neighbouring threads read the same values again and again.
#
# **Tiling** fixes that. The threads of a `T×T` block cooperatively load a `T×T` tile of
# `a` and of `b` into **shared memory** (`__shared__`: fast, on-chip, visible to the
# block), wait until everyone has loaded (`__syncthreads()`), each accumulate `T`
# products from the tiles, wait again (so nobody overwrites the tiles while others still
# read them), and move to the next tiles. Every value loaded from global memory is now
# used `T` times.

# %%
TILED_MATMUL = r"""
#define TILE 4

extern "C" __global__ void tiled_matmul(const float* a, const float* b, float* out,
                                        int n, int k, int m) {
    __shared__ float tile_a[TILE][TILE];
    __shared__ float tile_b[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float total = 0.0f;
    for (int start = 0; start < k; start += TILE) {
        // each thread loads one element of each tile (0 outside the matrices)
        tile_a[ty][tx] = (row < n && start + tx < k) ? a[row * k + start + tx] : 0.0f;
        tile_b[ty][tx] = (start + ty < k && col < m) ? b[(start + ty) * m + col] : 0.0f;
        __syncthreads();  // the tiles are loaded
        for (int q = 0; q < TILE; ++q) total += tile_a[ty][q] * tile_b[q][tx];
        __syncthreads();  // everyone is done reading them
    }
    if (row < n && col < m) out[row * m + col] = total;
}
"""
TILE = 4


def run_matmul(source, A, B, order="forward"):
    kernel = raw_module(source).get_function("tiled_matmul")
    n, k = A.shape
    m = B.shape[1]
    out = to_device(np.zeros(n * m, dtype=np.float32))
    grid = (math.ceil(m / TILE), math.ceil(n / TILE))
    args = (to_device(A), to_device(B), out, np.int32(n), np.int32(k), np.int32(m))
    with thread_order(order):        # the order the emulator runs a block's threads in
        kernel(grid, (TILE, TILE), args)
    return to_host(out).reshape(n, m)


A = np.random.rand(6, 7).astype(np.float32)
B = np.random.rand(7, 5).astype(np.float32)
for order in ["forward", "reversed", "shuffled"]:
    print(order, np.allclose(run_matmul(TILED_MATMUL, A, B, order), A @ B, atol=1e-5))

# %% [markdown]
# Remove the second barrier, and the threads that run first start loading the next tile
# while others are still reading the current one. The answer is now wrong; on a real GPU
# it would be wrong only *sometimes*, depending on timing: the nastiest kind of bug. The
# emulator runs a block's threads one after another, switching only at barriers, so such
# a bug shows up reliably, and `thread_order` (or `MINITORCH_CUDA_ORDER=reversed`) tries
# other orders.

# %%
ONE_BARRIER = TILED_MATMUL.replace("__syncthreads();  // everyone is done reading them", "")
for order in ["forward", "reversed", "shuffled"]:
    print(order, np.allclose(run_matmul(ONE_BARRIER, A, B, order), A @ B, atol=1e-5))

# %% [markdown]
# ## minitorch's own kernels
#
# Every operation on a `device="cuda"` tensor ends in one of the kernels of `kernels/`,
# written the same way, only general: strided tensors of any shape and dtype. `map.cu`
# runs one thread per element in a *grid-stride loop* (a grid of bounded size covers any
# tensor), and turns each element's ordinal into a storage position per operand with the
# layout arithmetic of chapter 1. The elementwise op `OP(value)` is pasted in from the
# scalar-op table's `cuda` column (chapter 3):

# %%
from minitorch.backends import cuda_emulator  # noqa: E402

kernels = cuda_emulator.kernels_dir()
map_source = (kernels / "map.cu").read_text()
print(map_source[map_source.index('extern "C"'):])

# %% [markdown]
# `matmul.cu` is the tiled matmul above, for batched and strided matrices, with tiles of
# `16×16` (256 threads per block). Here are its shared tiles and its two barriers:

# %%
for line in (kernels / "matmul.cu").read_text().splitlines():
    if "__shared__" in line or "__syncthreads" in line or "#define MT_TILE" in line:
        print(line.strip())

# %% [markdown]
# ## minitorch on `device="cuda"`
#
# The setup cell chose the device: `"cuda"` with a real GPU (Colab: *Runtime → Change
# runtime type → GPU*), else the emulator (`minitorch.cuda.use_emulator()`, or start
# Python with `MINITORCH_CUDA=emulator`). The same PyTorch-style code runs either way;
# the dispatch trace shows which backend ran each primitive. (On the emulator the first
# use of each kernel compiles it, a second or two; compiled kernels are cached on disk.)

# %%
x = minitorch.randn(64, 32, device=device)
w = minitorch.randn(32, 16, device=device)
with minitorch.dispatch.trace() as calls:
    y = (x @ w).relu().sum()
print("device:", device, "| result:", round(y.item(), 3))
print("backends used:", sorted({call.backend for call in calls}))
if device == "cuda":
    print("runs on:", minitorch.cuda.get_device_name())
    on_cpu = (x.cpu() @ w.cpu()).relu().sum()
    print(f"the CPU backend gives {on_cpu.item():.3f}")
else:
    print("(no GPU and no CUDA emulator here: the same code ran on the CPU backend)")

# %% [markdown]
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
#   for debugging). minitorch's emulator queues its launches the same way, one worker
#   thread per stream: chapter 10 times a launch with and without `synchronize()` and
#   uses `minitorch.cuda.Stream` and `Event`.
#
# ## The caching memory pool
#
# Allocating GPU memory with `cudaMalloc` is slow (it may synchronise the device) and
# training allocates and frees the same sizes every step (activations, gradients). So
# PyTorch never gives freed memory back to the driver: its **caching allocator** keeps
# freed blocks in pools by size and hands them out again. `torch.cuda.memory_allocated()`
# counts memory in live tensors; `memory_reserved()` also counts the cached blocks. CuPy,
# which minitorch's CUDA backend uses, has the same design (`cupy.get_default_memory_pool()`),
# and so has minitorch's own allocator for the CPU and the emulator
# (`minitorch/backends/allocator.py`, watched at work in chapter 10).
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

# %% [markdown]
# ## Summary
#
# * A GPU kernel is the **body of a loop**, run by one thread per element; each thread
#   finds its element from `blockIdx`, `blockDim`, `threadIdx`, and must **bounds-check**
#   because the last block overhangs.
# * **Shared memory** lets a block cooperate; the **tiled matmul** loads each value once
#   per tile and reuses it `T` times, with **`__syncthreads()`** after loading *and* after
#   using a tile. Missing barriers give order-dependent results; the emulator runs
#   threads in forward, reversed or shuffled order to expose them.
# * We wrote kernels as **CUDA C strings** launched through the `RawModule` interface:
#   CuPy on a GPU, minitorch's emulator on the CPU. minitorch's own `kernels/*.cu` run the
#   same way behind every `device="cuda"` tensor.
# * **Launches are asynchronous**: Python queues work and runs ahead; it waits only for
#   results (`.item()`, printing) or `synchronize()`. Time GPU code after synchronising.
# * A **caching allocator** reuses freed blocks instead of calling the driver; freeing
#   happens by **reference counting**.
#
# Exercises: `exercises/06_gpu_kernels.ipynb`. Next: **7 · Modules and training**.
