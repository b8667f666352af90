# %% [markdown]
# # Exercises 3 · Kernels
#
# **Goal:** write three primitive kernels of the reference backend yourself: `map`, `zip`
# and a `sum` reduction. Each takes `Strided` operands (`.storage`, `.shape`, `.strides`,
# `.offset`). The checks call your kernels on transposed inputs, sliced inputs with
# offsets, broadcast inputs with stride 0, and *non-contiguous outputs*, and compare the
# result with `minitorch/backends/reference.py`.
#
# You may use the layout helpers from chapter 1 (import them from `minitorch.layout`, or
# paste your own from exercise 1).

# %% setup(backend="reference")

# %%
from minitorch.layout import index_to_position, numel, ordinal_to_index
from minitorch.course import check_map_kernel, check_sum_kernel, check_zip_kernel

# %% [markdown]
# ## Exercise 1: `map_kernel`
#
# `out[i] = f(a[i])` for every element, where `a` already has `out`'s shape. Loop over the
# ordinals of `out`, turn each into an index, read `a` at *its* position and write `out`
# at *its* position.

# %% exercise=map_kernel
def map_kernel(f, out, a):
    """for every index i of out: out[i] = f(a[i])"""
    raise NotImplementedError  # your code here

# %%
check_map_kernel(map_kernel)

# %% [markdown]
# ## Exercise 2: `zip_kernel`
#
# `out[i] = f(a[i], b[i])`. `a` and `b` already have `out`'s shape: a broadcast input
# arrives as a view with stride 0, so your kernel needs no special case for it.

# %% exercise=zip_kernel
def zip_kernel(f, out, a, b):
    """for every index i of out: out[i] = f(a[i], b[i])"""
    raise NotImplementedError  # your code here

# %%
check_zip_kernel(zip_kernel)

# %% [markdown]
# ## Exercise 3: `sum_kernel`
#
# Sum dimension `dim` of `a` into `out`, which has `a`'s shape except a size 1 at `dim`.
# For every index `o` of `out`: `out[o] = sum over j of a[o with o[dim] = j]`.
# Do not assume that `out` holds zeros before your kernel runs.

# %% exercise=sum_kernel
def sum_kernel(out, a, dim):
    """out[..., 0, ...] = sum over j of a[..., j, ...] (j along dim)"""
    raise NotImplementedError  # your code here

# %%
check_sum_kernel(sum_kernel)

# %% [markdown]
# ## Going further
#
# * Your `map_kernel` calls `index_to_position` twice per element. When `a` and `out` are
#   both contiguous, what simpler loop computes the same thing? (Chapter 5 measures how
#   much faster that "contiguous fast path" is.)
# * Make `sum_kernel` work for any `REDUCE_OPS` row from `minitorch.scalar_ops`: start
#   from `identity`, combine with `combine.fn`.
