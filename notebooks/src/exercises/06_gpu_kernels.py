# colab: gpu
# %% [markdown]
# # Exercises 6 · GPU kernels
#
# **Goal:** write two kernels in real CUDA C. Each exercise is a Python string holding
# the kernel's source; the check compiles it with the interface of `cupy.RawModule`
# (through CuPy on a GPU, on minitorch's CPU emulator of CUDA otherwise) and launches it
# on many sizes, with partial last blocks and with the threads of each block in forward
# and in reversed order. The emulator reports a write past the end of an array and a
# read of shared memory nobody has written yet.
#
# Inside a kernel: `blockIdx`, `threadIdx`, `blockDim`, `gridDim` (fields `.x`, `.y`),
# `__shared__` arrays, `__syncthreads()`. Start every kernel with `extern "C"` so that
# its name is not mangled.

# %% setup(emulate_cuda=True)

# %%
from minitorch.course.gpu_checks import check_saxpy_kernel, check_tiled_matmul

# %% [markdown]
# ## Exercise 1: `saxpy`
#
# `out[i] = alpha * x[i] + y[i]` with one thread per element, on a 1-D grid of 1-D
# blocks of 32 threads. Compute `i` from the block and thread coordinates, and make sure
# threads with `i >= n` do nothing (the emulator catches writes past the end).

# %% exercise=saxpy
SAXPY = r"""
extern "C" __global__ void saxpy(float alpha, const float* x, const float* y,
                                 float* out, int n) {
    // your code here
}
"""

# %%
check_saxpy_kernel(SAXPY)

# %% [markdown]
# ## Exercise 2: tiled matmul
#
# `a` (`n×k`), `b` (`k×m`) and `out` (`n×m`) are flat, row-major arrays. The launch uses
# `TILE×TILE` blocks (`TILE = 4`) on a grid of `(ceil(m/TILE), ceil(n/TILE))` blocks.
# Thread `(tx, ty)` of block `(bx, by)` computes `out[row * m + col]` with
# `row = by*TILE + ty`, `col = bx*TILE + tx`. Declare two `__shared__ float` tiles of
# `TILE×TILE`. Loop over the tiles of the `k` dimension: each thread loads one element of
# each tile (0 when outside the matrix), barrier, accumulate `TILE` products, barrier.
# Write the result only when `row < n && col < m`.

# %% exercise=tiled_matmul
TILED_MATMUL = r"""
#define TILE 4

extern "C" __global__ void tiled_matmul(const float* a, const float* b, float* out,
                                        int n, int k, int m) {
    // your code here
}
"""

# %%
check_tiled_matmul(TILED_MATMUL, tile=4)

# %% [markdown]
# ## Going further
#
# * Take a `__syncthreads()` out of your tiled matmul and run the check again: which
#   thread order catches it, and what does the message say?
# * Compare with `kernels/matmul.cu` in the repository: the same algorithm, for strided
#   and batched tensors of any dtype, the one `a @ b` runs on `device="cuda"`.
