"""Reference solutions for exercises/03_dispatch_kernels.ipynb."""

from minitorch.layout import index_to_position, numel, ordinal_to_index


# %% exercise=map_kernel
def map_kernel(f, out, a):
    """for every index i of out: out[i] = f(a[i])"""
    index = [0] * len(out.shape)
    for ordinal in range(numel(out.shape)):
        ordinal_to_index(ordinal, out.shape, index)
        value = a.storage[index_to_position(index, a.strides, a.offset)]
        out.storage[index_to_position(index, out.strides, out.offset)] = f(value)


# %% exercise=zip_kernel
def zip_kernel(f, out, a, b):
    """for every index i of out: out[i] = f(a[i], b[i])"""
    index = [0] * len(out.shape)
    for ordinal in range(numel(out.shape)):
        ordinal_to_index(ordinal, out.shape, index)
        x = a.storage[index_to_position(index, a.strides, a.offset)]
        y = b.storage[index_to_position(index, b.strides, b.offset)]
        out.storage[index_to_position(index, out.strides, out.offset)] = f(x, y)


# %% exercise=sum_kernel
def sum_kernel(out, a, dim):
    """out[..., 0, ...] = sum over j of a[..., j, ...] (j along dim)"""
    index = [0] * len(out.shape)
    for ordinal in range(numel(out.shape)):
        ordinal_to_index(ordinal, out.shape, index)
        total = 0.0
        for j in range(a.shape[dim]):
            index[dim] = j
            total += a.storage[index_to_position(index, a.strides, a.offset)]
        index[dim] = 0
        out.storage[index_to_position(index, out.strides, out.offset)] = total
