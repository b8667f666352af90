"""Reference solutions for exercises/05_fast_cpu_kernels.ipynb."""

import numba
import numpy as np

from minitorch.layout import index_to_position, ordinal_to_index

index_to_position_jit = numba.njit(index_to_position)
ordinal_to_index_jit = numba.njit(ordinal_to_index)


# %% exercise=numba_map
def make_map(f):
    @numba.njit(parallel=True)
    def kernel(out, out_shape, out_strides, out_offset, a, a_shape, a_strides, a_offset):
        size = 1
        for s in out_shape:
            size *= s
        for ordinal in numba.prange(size):
            index = np.empty(len(out_shape), np.int64)
            ordinal_to_index_jit(ordinal, out_shape, index)
            value = a[index_to_position_jit(index, a_strides, a_offset)]
            out[index_to_position_jit(index, out_strides, out_offset)] = f(value)

    return kernel


# %% exercise=numba_matmul
@numba.njit(parallel=True)
def matmul(out, a, b):
    n, inner = a.shape
    m = b.shape[1]
    for i in numba.prange(n):
        for j in range(m):
            out[i, j] = 0.0
        for k in range(inner):
            a_ik = a[i, k]
            for j in range(m):
                out[i, j] += a_ik * b[k, j]
