# %% [markdown]
# # 2 · Views and broadcasting
#
# **Goal (about 30 minutes):** see that most "shape" operations (`permute`, slicing,
# `narrow`, `unsqueeze`, `expand`, `view`) are *pure layout arithmetic* on
# `(shape, strides, offset)`; learn when `view` is impossible and `reshape` must copy; and
# understand **broadcasting** as a view with **stride 0**, which is how `x + b` adds a bias
# to every row without ever copying it.
#
# Exercises: `exercises/02_views_broadcasting.ipynb` (`permute`, `narrow`, `expand`,
# `broadcast_shapes`).

# %% setup(backend="reference")

# %%
import minitorch
from minitorch import layout
from minitorch.course.show import show_layout


def describe(name, t):
    print(f"{name:>22}: shape {tuple(t.shape)}, strides {t.stride()}, offset {t.storage_offset()},"
          f" contiguous {t.is_contiguous()}")

# %% [markdown]
# ## Every view is a function on three tuples
#
# `minitorch/layout.py` holds the view rules as pure functions: they take
# `(shape, strides, offset)` and return a new triple. The tensor methods call them and
# wrap the result around the *same* storage. Here are the rules at work on a 2×3×4
# tensor:

# %%
x = minitorch.arange(24).view(2, 3, 4)
describe("x", x)
describe("x.permute(2, 0, 1)", x.permute(2, 0, 1))   # reorder sizes *and* strides
describe("x.transpose(0, 2)", x.transpose(0, 2))
describe("x[1]", x[1])                               # select: drop a dim, move the offset
describe("x[:, 1:, ::2]", x[:, 1:, ::2])             # slice: offset moves, stride * step
describe("x.narrow(2, 1, 2)", x.narrow(2, 1, 2))
describe("x.unsqueeze(1)", x.unsqueeze(1))           # a new dim of size 1
describe("x.view(6, 4)", x.view(6, 4))               # regroup contiguous dims

# %% [markdown]
# Check one by hand. `x[:, 1:, ::2]` starts at element `x[0, 1, 0]`, so the offset is
# `0*12 + 1*4 + 0*1 = 4`; stepping by 2 along the last dimension jumps `2*1 = 2` cells.
# And the layout functions give the same answers without any tensor at all:

# %%
shape, strides, offset = (2, 3, 4), (12, 4, 1), 0
print(layout.permute(shape, strides, offset, (2, 0, 1)))
print(layout.slice_dim(shape, strides, offset, 1, 1, 3, 1))   # dim 1, start 1, stop 3, step 1
print(layout.select(shape, strides, offset, 0, 1))            # x[1]

# %% [markdown]
# All of these share storage with `x`: writing through one is visible in all. PyTorch
# tracks this with a **version counter** shared by all views of a storage, bumped by every
# in-place write. Autograd uses it (chapter 4) to notice that a tensor it saved for the
# backward pass was modified in the meantime.

# %%
v = x[1, :, ::2]
print("version before:", x._version)
v.fill_(-1)
print("version after: ", x._version)
print(x)

# %% [markdown]
# ## `view` versus `reshape`: when a copy is unavoidable
#
# `view(new_shape)` must read *the same elements in the same order* through new strides.
# That is possible when the dimensions being merged are laid out one after another in
# storage. After a transpose they are not: the row-major order of `x.t()` visits storage
# positions 0, 4, 8, 1, 5, 9, ... and no single stride can describe that as one flat
# dimension.

# %%
m = minitorch.arange(12).view(3, 4)
m_t = m.t()
show_layout(m_t, "m.t()")
try:
    m_t.view(12)
except RuntimeError as error:
    print("\nview failed:", error)

flat = m_t.reshape(12)    # reshape = view when possible, else contiguous() + view
print("reshape copies:", flat._storage is not m._storage, flat.tolist())

# %% [markdown]
# `layout.view_strides` implements PyTorch's rule: it splits the old dimensions into
# *chunks* that are contiguous among themselves; new dimensions may split or merge freely
# inside a chunk, never across two. It returns `None` when no strides exist:

# %%
print(layout.view_strides((3, 4), (4, 1), (2, 6)))     # contiguous: fine
print(layout.view_strides((4, 3), (1, 4), (12,)))      # transposed: impossible -> None
print(layout.view_strides((4, 3), (1, 4), (2, 2, 3)))  # splitting one dim is fine

# %% [markdown]
# `.contiguous()` is the explicit copy: it returns the tensor itself when it is already
# contiguous, otherwise a fresh row-major copy.
#
# ## `as_strided`: any layout you like
#
# `as_strided(size, stride, offset)` sets the layout directly. It is the most powerful
# view and the most dangerous one: a stride smaller than the row length makes windows
# that *overlap*. Here, sliding windows of length 3 over `0..7`, with no copy:

# %%
signal = minitorch.arange(8.0)
windows = signal.as_strided((6, 3), (1, 1))
print(windows)

# %% [markdown]
# Chapter 8 uses exactly this trick to turn a convolution into a matrix product. Before
# any kernel runs, minitorch checks that the requested layout stays inside the storage
# (`layout.check_as_strided`): kernels never bounds-check, so this check is what stands
# between a typo and reading random memory.

# %%
try:
    signal.as_strided((6, 3), (2, 1))   # the last window would need cells 10..12
except RuntimeError as error:
    print(error)

# %% [markdown]
# ## Broadcasting
#
# Adding a bias vector to every row of a matrix, or an image to a batch of images, is
# **broadcasting**. The rule (NumPy's and PyTorch's):
#
# 1. align the shapes **from the right**; a missing dimension counts as size 1;
# 2. in each position the sizes must be equal, or one of them 1;
# 3. the result takes the larger size.
#
# ```
#   (4, 1, 3)           (2, 3)          (3,)
#   (   2, 1)           (3, 2)  error   (4, 3)
#   ---------                           ------
#   (4, 2, 3)                           (4, 3)
# ```

# %%
print(layout.broadcast_shapes((4, 1, 3), (2, 1)))
print(layout.broadcast_shapes((3,), (4, 3)))
try:
    layout.broadcast_shapes((2, 3), (3, 2))
except RuntimeError as error:
    print(error)

# %% [markdown]
# ### Broadcasting is a view with stride 0
#
# How does a kernel add a `(3,)` vector to a `(4, 3)` matrix without copying the vector
# four times? `expand` gives the vector shape `(4, 3)` with stride **0** along the new
# dimension: moving down a row jumps zero cells, so every row reads the same three
# numbers.

# %%
bias = minitorch.tensor([10.0, 20.0, 30.0])
stretched = bias.expand(4, 3)
describe("bias.expand(4, 3)", stretched)
show_layout(stretched, "stretched")

# %% [markdown]
# When you write `matrix + bias`, the binary op computes the broadcast shape, views both
# operands at that shape (stride-0 views, no data copied) and hands them to the `zip`
# kernel, which simply does `out[i] = a[i] + b[i]` for every index. The dispatch trace
# shows the stride-0 operand that reached the kernel:

# %%
matrix = minitorch.ones(4, 3)
with minitorch.dispatch.trace() as calls:
    out = matrix + bias
call = calls[0]
print("shapes  (out, a, b):", call.shapes)
print("strides (out, a, b):", call.strides)
print(out)

# %% [markdown]
# Broadcasting hides a trap for autograd: `bias` was *used* 4 times, so its gradient
# must be the **sum** over the stretched dimension. minitorch's backward engine does this
# "un-broadcasting" (chapter 4):

# %%
bias = minitorch.tensor([10.0, 20.0, 30.0], requires_grad=True)
(minitorch.ones(4, 3) * bias).sum().backward()
print(bias.grad)    # each entry was used 4 times

# %% [markdown]
# One more consequence of stride 0: several elements of an expanded tensor are the *same*
# storage cell. Writing into such a view in place would write one cell several times,
# which is why PyTorch refuses in-place ops on expanded tensors; make a `.clone()` first
# if you need a writable copy.
#
# ## Summary
#
# * Views are arithmetic on `(shape, strides, offset)`: `permute` reorders, slicing moves
#   the offset and multiplies strides, `unsqueeze` inserts a size-1 dim, `view` regroups.
# * All views share storage (and a version counter); writes are visible everywhere.
# * `view` needs compatible strides; `reshape` copies when it must; `contiguous()` is the
#   explicit copy.
# * `as_strided` can express overlapping windows; bounds are checked before kernels run.
# * Broadcasting aligns shapes from the right; it is implemented as **stride-0 views**,
#   so no data is copied, and gradients of broadcast inputs are summed back.
#
# Exercises: `exercises/02_views_broadcasting.ipynb`. Next: **3 · Dispatch and kernels**.
