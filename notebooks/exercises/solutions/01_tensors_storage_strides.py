"""Reference solutions for exercises/01_tensors_storage_strides.ipynb.

Each section replaces the exercise cell of the same name when CI runs the solution path.
"""

# %% exercise=index_to_position
def index_to_position(index, strides, offset):
    """Storage position of the element at `index`."""
    position = offset
    for d in range(len(index)):
        position += index[d] * strides[d]
    return position


# %% exercise=ordinal_to_index
def ordinal_to_index(ordinal, shape, out_index):
    """Write the row-major multi-index of element number `ordinal` into `out_index`."""
    remaining = ordinal
    for d in range(len(shape) - 1, -1, -1):
        out_index[d] = remaining % shape[d]
        remaining //= shape[d]


# %% exercise=contiguous_strides
def contiguous_strides(shape):
    """Row-major strides of `shape`."""
    strides = [0] * len(shape)
    step = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)
