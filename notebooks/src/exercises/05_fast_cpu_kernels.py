# %% [markdown]
# # Exercises 5 · Fast CPU kernels
#
# **Goal:** write two compiled kernels with Numba: a parallel strided `map`, and a matrix
# multiplication. The checks run them on transposed, sliced and broadcast inputs and odd
# sizes, against the reference backend and NumPy. (The first run of each check compiles
# your kernel, which takes a few seconds.)

# %% setup(backend="numba")

# %%
import numba
import numpy as np

from minitorch.layout import index_to_position, ordinal_to_index
from minitorch.course.numba_checks import check_numba_map, check_numba_matmul

# Numba compiles the library's own index helpers: call these inside your kernels.
index_to_position_jit = numba.njit(index_to_position)
ordinal_to_index_jit = numba.njit(ordinal_to_index)

# %% [markdown]
# ## Exercise 1: a parallel map kernel
#
# `make_map(f)` receives a compiled scalar function `f` and returns a kernel
#
# ```python
# # not runnable: the signature of the kernel you write below
# kernel(out, out_shape, out_strides, out_offset, a, a_shape, a_strides, a_offset)
# ```
#
# that computes `out[i] = f(a[i])` for every element (`a` has `out`'s shape). Storages
# are flat NumPy arrays; shapes and strides are int64 arrays. Decorate the kernel with
# `@numba.njit(parallel=True)` and loop over the ordinals with `numba.prange`. Each
# iteration needs its *own* index array (create it inside the loop with
# `np.empty(len(out_shape), np.int64)`), otherwise threads overwrite each other's.

# %% exercise=numba_map
def make_map(f):
    raise NotImplementedError  # your code here: define a @numba.njit kernel and return it

# %%
check_numba_map(make_map)

# %% [markdown]
# ## Exercise 2: matmul
#
# Write `matmul(out, a, b)` for 2-D NumPy arrays (`a` is `n×k`, `b` is `k×m`, `out` is
# `n×m` and preallocated, its contents undefined). Make it `@numba.njit(parallel=True)`
# and parallelise over rows with `prange`. Then try loop orders: which inner loop walks
# memory contiguously? Time your versions with `%timeit` on 256×256 inputs.

# %% exercise=numba_matmul
def matmul(out, a, b):
    raise NotImplementedError  # your code here (and add the decorator)

# %%
check_numba_matmul(matmul)
