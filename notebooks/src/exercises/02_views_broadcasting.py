# %% [markdown]
# # Exercises 2 · Views and broadcasting
#
# **Goal:** write four view rules of `minitorch/layout.py` yourself. Each takes a layout
# `(shape, strides, offset)` (tuples and an int) and returns the new layout as a tuple
# `(new_shape, new_strides, new_offset)`: no tensors, no copying, just arithmetic.
# Replace each `raise NotImplementedError`, run the cell, then run its check.

# %% setup(backend="reference")

# %%
from minitorch.course import check_broadcast_shapes, check_expand, check_narrow, check_permute

# %% [markdown]
# ## Exercise 1: `permute`
#
# Dimension `d` of the result is dimension `dims[d]` of the input. Example: shape
# `(2, 3, 4)`, strides `(12, 4, 1)`, `dims = (2, 0, 1)` -> shape `(4, 2, 3)`, strides
# `(1, 12, 4)`, same offset.

# %% exercise=permute
def permute(shape, strides, offset, dims):
    """The layout of `t.permute(*dims)`."""
    raise NotImplementedError  # your code here

# %%
check_permute(permute)

# %% [markdown]
# ## Exercise 2: `narrow`
#
# `t.narrow(dim, start, length)` keeps elements `start, ..., start + length - 1` along
# `dim`. Which element does the view start at, and where is it in storage? Do the strides
# change?

# %% exercise=narrow
def narrow(shape, strides, offset, dim, start, length):
    """The layout of `t.narrow(dim, start, length)`."""
    raise NotImplementedError  # your code here

# %%
check_narrow(narrow)

# %% [markdown]
# ## Exercise 3: `expand`
#
# `t.expand(*sizes)` broadcasts `t` to `sizes` without copying. `sizes` may have more
# dimensions than `shape` (new ones go in front). Along a dimension where the size stays
# the same, keep the stride; where a size 1 is stretched, and along every new leading
# dimension, the stride must make every index read the same cell. If a size other than 1
# would have to change, raise `RuntimeError`. (You may assume `sizes` has no `-1`.)

# %% exercise=expand
def expand(shape, strides, offset, sizes):
    """The layout of `t.expand(*sizes)`."""
    raise NotImplementedError  # your code here

# %%
check_expand(expand)

# %% [markdown]
# ## Exercise 4: `broadcast_shapes`
#
# Return the shape (a tuple) two shapes broadcast to, or raise `RuntimeError` when they
# are incompatible. Align from the right; a missing dimension counts as 1; each pair of
# sizes must be equal or contain a 1. Examples: `(4, 1, 3), (2, 1) -> (4, 2, 3)`;
# `(), (2,) -> (2,)`; `(2, 3), (3, 2)` -> error.

# %% exercise=broadcast_shapes
def broadcast_shapes(shape_a, shape_b):
    """The broadcast shape of `shape_a` and `shape_b`."""
    raise NotImplementedError  # your code here

# %%
check_broadcast_shapes(broadcast_shapes)

# %% [markdown]
# ## Going further
#
# With `expand` and `broadcast_shapes` you have everything `a + b` needs: compute the
# common shape, expand both operands to it, and run a kernel that assumes equal shapes.
# Try it with minitorch: `minitorch.ones(4, 1) + minitorch.arange(3.0)`, and look at the
# strides in `minitorch.dispatch.trace()`.
