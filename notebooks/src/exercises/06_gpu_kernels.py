# colab: gpu
# %% [markdown]
# # Exercises 6 · GPU kernels
#
# **Goal:** write two kernels in CUDA style for the GPU simulator of chapter 6. A kernel
# is a Python function `kernel(t, *args)`; `t.block`, `t.thread`, `t.block_dim` and
# `t.grid_dim` are `(x, y)` pairs (CUDA's `blockIdx`, `threadIdx`, `blockDim`, `gridDim`),
# and `t.shared` holds the block's shared arrays. A kernel that needs `__syncthreads()`
# is a generator: write `yield` at each barrier. The checks launch your kernels with
# partial last blocks and with the threads in forward, reversed and shuffled order.

# %% setup(emulate_cuda=True)

# %%
from minitorch.testing.gpu_checks import check_saxpy_kernel, check_tiled_matmul

# %% [markdown]
# ## Exercise 1: `saxpy`
#
# `out[i] = alpha * x[i] + y[i]` with one thread per element, on a 1-D grid of 1-D
# blocks. Compute `i` from the block and thread coordinates, and make sure threads with
# `i >= n` do nothing (the check looks for writes past the end).

# %% exercise=saxpy
def saxpy(t, alpha, x, y, out, n):
    raise NotImplementedError  # your code here

# %%
check_saxpy_kernel(saxpy)

# %% [markdown]
# ## Exercise 2: tiled matmul
#
# `a` (`n×k`), `b` (`k×m`) and `out` (`n×m`) are flat, row-major arrays. The launch uses
# `TILE×TILE` blocks (`TILE = 4`), a grid of `(ceil(m/TILE), ceil(n/TILE))` blocks, and
# two shared arrays `t.shared["a"]` and `t.shared["b"]` of `TILE*TILE` cells. Thread
# `(tx, ty)` of block `(bx, by)` computes `out[row, col]` with `row = by*TILE + ty`,
# `col = bx*TILE + tx`. Loop over the tiles of the `k` dimension: load one element of
# each tile (0 when outside the matrix), barrier, accumulate, barrier. Write the result
# only when `row < n and col < m`.

# %% exercise=tiled_matmul
TILE = 4


def tiled_matmul(t, a, b, out, n, k, m):
    raise NotImplementedError  # your code here (a generator: `yield` at each barrier)

# %%
check_tiled_matmul(tiled_matmul, tile=TILE)

# %% [markdown]
# ## Going further
#
# Read `kernels/matmul.cu` in the repository: it is the same algorithm in real CUDA C,
# which minitorch runs through CuPy on a GPU or on its C++ emulator without one.
