# %% [markdown]
# # 1 · Tensors, storage and strides
#
# **Goal (about 30 minutes):** understand what a tensor *is* in memory, in PyTorch and in
# minitorch: one flat **storage** plus a **layout** (shape, strides, offset). By the end
# you can compute by hand where any element lives, explain why a transpose costs nothing,
# and say when two tensors share memory and when that memory is freed.
#
# Exercises: `exercises/01_tensors_storage_strides.ipynb` (`index_to_position`,
# `ordinal_to_index`, `contiguous_strides`).

# %% setup(backend="reference")

# %% [markdown]
# ## Memory is flat
#
# Computer memory is one long row of numbered cells. A 2×3 matrix must therefore be laid
# out in that row somehow. The usual choice, **row-major** order (C, NumPy and PyTorch by
# default), writes row 0, then row 1:
#
# ```
#  matrix            storage (flat)
#  [[0, 1, 2],   ->  [0, 1, 2, 3, 4, 5]
#   [3, 4, 5]]        position 0 1 2 3 4 5
# ```
#
# A tensor keeps that flat array (its **storage**) and three small pieces of metadata:

# %%
import minitorch

x = minitorch.arange(6).view(2, 3)
print(x)
print("storage:", x._storage)          # the flat array (a NumPy array on the CPU)
print("shape:  ", x.shape)             # how many elements along each dimension
print("strides:", x.stride())          # cells to jump for one step along each dimension
print("offset: ", x.storage_offset())  # where element [0, 0] lives

# %% [markdown]
# **Strides** are the heart of it. `x.stride() == (3, 1)` says: to go one row down, jump
# 3 cells; to go one column right, jump 1 cell. So element `[i, j]` is at
#
# $$\text{position} = \text{offset} + i \cdot \text{strides}[0] + j \cdot \text{strides}[1]$$
#
# and in general, for an index $(i_0, i_1, \dots)$:
# $\text{position} = \text{offset} + \sum_d i_d \cdot \text{strides}[d]$.
#
# This one line is the function `index_to_position` in `minitorch/layout.py`. Every
# kernel in minitorch (and, in spirit, every kernel in PyTorch) calls it, or a faster
# equivalent, for every element it reads or writes.

# %%
from minitorch.layout import index_to_position

for index in [(0, 0), (0, 2), (1, 0), (1, 2)]:
    position = index_to_position(index, x.stride(), x.storage_offset())
    print(f"x{index} is at position {position}: storage holds {x._storage[position]}")

# %% [markdown]
# A picture helps. `show_layout` draws the stride visualizer when the widgets are
# installed (JupyterLab, Colab) and a text picture otherwise: each element, the arithmetic
# that finds it, and the storage cell it reads.

# %%
from minitorch.course.show import show_layout

show_layout(x, "x")

# %% [markdown]
# ## Contiguous strides
#
# For a fresh tensor of shape `(2, 3, 4)`, how far apart are consecutive elements along
# each dimension? The last dimension has stride 1. One step along dimension 1 skips a
# whole row of 4. One step along dimension 0 skips a whole 3×4 block, 12 cells. Strides are
# built **from the right**, each the product of the sizes after it:

# %%
t = minitorch.zeros(2, 3, 4)
print(t.stride())
from minitorch.layout import contiguous_strides

print(contiguous_strides((2, 3, 4)), contiguous_strides((5,)), contiguous_strides(()))

# %% [markdown]
# A tensor whose strides are exactly these is **contiguous**: its elements sit in storage
# in row-major order with no gaps. Contiguity matters for speed (chapter 5): a kernel can
# then walk storage with a simple `for position in range(n)`.
#
# ## The other direction: from "the k-th element" to an index
#
# A kernel usually loops over output elements with one counter, the **ordinal**
# `0, 1, 2, ..., numel-1`, and needs the multi-index of each. This is like writing a
# number in a mixed base whose digits are the sizes: for shape `(2, 3)`, ordinal 4 is
# "1 row of 3, plus 1", index `(1, 1)`. The last dimension is the fastest-changing
# digit, so we peel digits off from the right with `%` and `//`:

# %%
from minitorch.layout import ordinal_to_index

shape = (2, 3)
index = [0, 0]
for ordinal in range(6):
    ordinal_to_index(ordinal, shape, index)  # writes into `index` (no allocation: Numba likes that)
    print(ordinal, "->", tuple(index))

# %% [markdown]
# Put the two together and you have the loop at the heart of every kernel in
# `minitorch/backends/reference.py`:
#
# ```python
# # not runnable: the loop's outline; `a`, `out` and `f` stand for a kernel's arguments
# for ordinal in range(numel(out.shape)):
#     ordinal_to_index(ordinal, out.shape, index)          # which element
#     x = a.storage[index_to_position(index, a.strides, a.offset)]   # read it
#     out.storage[index_to_position(index, out.strides, out.offset)] = f(x)  # write
# ```
#
# ## Views: new layouts, same storage
#
# Because the layout is separate from the data, many operations only need a new layout.
# A **transpose** swaps two strides; nothing is copied:

# %%
xt = x.t()
print(xt)
print("strides", xt.stride(), "| contiguous:", xt.is_contiguous(),
      "| same storage:", xt._storage is x._storage)
show_layout(xt, "xt")

# %% [markdown]
# Reading `xt` in row-major order visits storage positions 0, 3, 1, 4, 2, 5: it jumps
# around, which is what "not contiguous" means. A **slice** moves the offset and
# multiplies a stride:

# %%
row = x[1]          # the second row: offset 3, strides (1,)
col = x[:, 2]       # the last column: offset 2, strides (3,)
every_other = minitorch.arange(10)[1::2]
for name, v in [("x[1]", row), ("x[:, 2]", col), ("arange(10)[1::2]", every_other)]:
    print(f"{name:>18}: {v.tolist()}  shape {tuple(v.shape)} strides {v.stride()} offset {v.storage_offset()}")

# %% [markdown]
# Since views share storage, **writing through a view changes the original**. This is
# the behaviour of PyTorch and NumPy, and a classic source of surprise:

# %%
y = minitorch.zeros(2, 3)
y_row = y[0]
y_row.fill_(7.0)       # in-place (the trailing underscore is PyTorch's naming convention)
print(y)
z = y.clone()          # clone() copies into a fresh storage: now independent
z.fill_(1.0)
print(y)

# %% [markdown]
# ## Dtypes: what one storage cell holds
#
# The storage is typed: every cell is a `float32` (the default), `float64`, `int64`,
# `int32` or `bool`. The size of a cell in bytes is `element_size()`; strides count
# *cells*, not bytes (NumPy counts bytes; PyTorch, like minitorch, counts elements).

# %%
for dtype in [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool]:
    t = minitorch.zeros(3, dtype=dtype)
    print(f"{str(dtype):>18}: {t.element_size()} bytes per element, numpy storage {t._storage.dtype}")

# %% [markdown]
# ## Who frees the memory? Reference counting
#
# PyTorch frees a tensor's memory the moment nothing refers to it any more. It does not
# wait for a garbage collector: CPython counts references to every object, and when the
# count of the last tensor using a storage drops to zero, the storage is released
# immediately (PyTorch's C++ side uses the same idea with `intrusive_ptr`). That is why
# `del activations` in a training loop frees memory right away.
#
# A view keeps its storage alive: the storage lives as long as *any* view of it does.
# We can watch this with a weak reference, which observes an object without keeping it
# alive:

# %%
import gc
import weakref

big = minitorch.zeros(1000, 1000)
watch = weakref.ref(big._storage)
corner = big[:2, :2]           # a tiny view of the big storage
del big
print("storage still alive after `del big`?", watch() is not None, "(the view keeps it)")
del corner
gc.collect()                    # not needed in CPython; makes the demo robust elsewhere
print("after `del corner`?", watch() is not None)

# %% [markdown]
# A practical consequence: keeping a small slice of a big tensor keeps the *whole*
# storage alive. `corner.clone()` copies just the slice and lets the rest go.
#
# ## Summary
#
# * A tensor = a flat **storage** + **shape**, **strides**, **offset** (+ dtype, device).
# * `position = offset + sum(index[d] * strides[d])`: this is `index_to_position`.
# * **Contiguous** strides are built from the right: `(2, 3, 4) -> (12, 4, 1)`.
# * Kernels loop over an **ordinal** and convert it to an index (`ordinal_to_index`).
# * Transpose and slicing are **views**: new layout, same storage, no copy; writes through
#   a view are visible in the original. `clone()` copies.
# * Storage is freed by **reference counting** as soon as no view uses it.
#
# Now do the exercises in `exercises/01_tensors_storage_strides.ipynb`. Next chapter:
# **2 · Views and broadcasting**.
