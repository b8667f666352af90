# %% [markdown]
# # Exercises 1 · Tensors, storage and strides
#
# **Goal:** write the three functions of `minitorch/layout.py` that every kernel depends
# on. Each exercise is a cell with a function whose body is
# `raise NotImplementedError`: replace that line with your code, run the cell, then run
# the check cell below it. The check runs your function against minitorch's own on
# hundreds of cases (including transposed views, slices with an offset and broadcast
# views with stride 0) and explains the first case it gets wrong.
#
# Use plain Python: loops, `+`, `*`, `%`, `//`. No NumPy needed. (These functions must
# also compile with Numba later, so avoid building new lists when you can.)

# %% setup(backend="reference")

# %%
from minitorch.course import check_contiguous_strides, check_index_to_position, check_ordinal_to_index

# %% [markdown]
# ## Exercise 1: `index_to_position`
#
# Given a multi-index `index` (a tuple or list of ints), the tensor's `strides` and its
# `offset`, return the storage position of that element:
# `offset + index[0] * strides[0] + index[1] * strides[1] + ...`
#
# Example: in a tensor with strides `(3, 1)` and offset `2`, index `(1, 2)` is at
# `2 + 1*3 + 2*1 = 7`.

# %% exercise=index_to_position
def index_to_position(index, strides, offset):
    """Storage position of the element at `index`."""
    raise NotImplementedError  # your code here

# %%
check_index_to_position(index_to_position)

# %% [markdown]
# ## Exercise 2: `ordinal_to_index`
#
# Elements are numbered `0, 1, ..., numel - 1` in row-major order (the last dimension
# changes fastest). Write into the list `out_index` the multi-index of element number
# `ordinal` in a tensor of shape `shape`. Return nothing.
#
# Example: shape `(2, 3)`, ordinal `4` -> `out_index` becomes `[1, 1]`;
# shape `(2, 3, 4)`, ordinal `13` -> `[1, 0, 1]`.
#
# Hint: peel off the last dimension first, `ordinal % shape[-1]`, then divide.

# %% exercise=ordinal_to_index
def ordinal_to_index(ordinal, shape, out_index):
    """Write the row-major multi-index of element number `ordinal` into `out_index`."""
    raise NotImplementedError  # your code here

# %%
check_ordinal_to_index(ordinal_to_index)

# %% [markdown]
# ## Exercise 3: `contiguous_strides`
#
# Return (as a tuple) the strides of a fresh, contiguous tensor of shape `shape`:
# the last dimension has stride 1 and each earlier one is the product of all later sizes.
#
# Examples: `(2, 3, 4) -> (12, 4, 1)`, `(5,) -> (1,)`, `() -> ()`.
# (PyTorch's rule for size-0 dimensions: treat a size 0 as 1 when multiplying.)

# %% exercise=contiguous_strides
def contiguous_strides(shape):
    """Row-major strides of `shape`."""
    raise NotImplementedError  # your code here

# %%
check_contiguous_strides(contiguous_strides)

# %% [markdown]
# ## Going further
#
# * Compare your functions with `minitorch/layout.py`. The library's version of
#   `ordinal_to_index` also writes into a list: why is that better for a compiled kernel
#   than returning a new tuple?
# * Use your two functions to print the storage positions a transposed tensor visits in
#   row-major order: `x = minitorch.arange(6).view(2, 3).t()`.
