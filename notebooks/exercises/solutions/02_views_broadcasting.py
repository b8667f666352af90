"""Reference solutions for exercises/02_views_broadcasting.ipynb."""

# %% exercise=permute
def permute(shape, strides, offset, dims):
    """The layout of `t.permute(*dims)`."""
    new_shape = tuple(shape[d] for d in dims)
    new_strides = tuple(strides[d] for d in dims)
    return new_shape, new_strides, offset


# %% exercise=narrow
def narrow(shape, strides, offset, dim, start, length):
    """The layout of `t.narrow(dim, start, length)`."""
    new_shape = shape[:dim] + (length,) + shape[dim + 1:]
    return new_shape, strides, offset + start * strides[dim]


# %% exercise=expand
def expand(shape, strides, offset, sizes):
    """The layout of `t.expand(*sizes)`."""
    extra = len(sizes) - len(shape)
    new_strides = []
    for d, size in enumerate(sizes):
        if d < extra:
            new_strides.append(0)  # a new leading dimension
        elif shape[d - extra] == size:
            new_strides.append(strides[d - extra])
        elif shape[d - extra] == 1:
            new_strides.append(0)  # stretched: every index reads the same cell
        else:
            raise RuntimeError(f"cannot expand size {shape[d - extra]} to {size}")
    return tuple(sizes), tuple(new_strides), offset


# %% exercise=broadcast_shapes
def broadcast_shapes(shape_a, shape_b):
    """The broadcast shape of `shape_a` and `shape_b`."""
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    result = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"shapes {shape_a} and {shape_b} do not broadcast")
        result.append(max(x, y) if x != 1 and y != 1 else x * y)
    return tuple(result)
