// gather_scatter.cu -- indexing along one dimension `dim`
//
//   gather:      out[i][j][k] = a[i][index[i][j][k]][k]            (reference.gather)
//   scatter_add: out[i][index[i][j][k]][k] += src[i][j][k]         (reference.scatter_add)
//   (shown for dim == 1)
//
// Specialised by the loader, which defines T (the element type; the index is always
// int64) and KERNEL(name). Python has checked that every index value is in range.
//
// Thread mapping
// --------------
// One thread per element of the *index* tensor, in a grid-stride loop. The thread peels
// the digits of its ordinal (like mt_position) to get its multi-index, and accumulates
// three positions at once: in the index tensor, in the tensor it walks (out for gather,
// src for scatter_add), and in the other tensor, for which the coordinate along `dim` is
// replaced by the index value.
//
// gather writes every output cell exactly once. scatter_add may send many sources to one
// cell; atomicAdd (mt_atomic_add in strided.cuh) makes each addition indivisible, so no
// update is lost. Float sums then come out in an unpredictable order (tiny rounding
// differences between runs), as with PyTorch's scatter_add_ on a GPU.

extern "C" __global__ void KERNEL(gather)(T* out, const T* a, const long long* index,
                                          const MtLayout out_layout, const MtLayout a_layout,
                                          const MtLayout index_layout, const long long dim,
                                          const long long numel)
{
    const long long grid_size = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += grid_size) {
        long long rest = i;
        long long out_position = out_layout.offset;
        long long index_position = index_layout.offset;
        long long a_position = a_layout.offset;
        for (int d = (int)out_layout.ndim - 1; d >= 0; --d) {
            const long long coordinate = rest % out_layout.shape[d];
            rest /= out_layout.shape[d];
            out_position += coordinate * out_layout.strides[d];
            index_position += coordinate * index_layout.strides[d];
            if (d != dim) a_position += coordinate * a_layout.strides[d];
        }
        a_position += index[index_position] * a_layout.strides[dim];
        out[out_position] = a[a_position];
    }
}

extern "C" __global__ void KERNEL(scatter_add)(T* out, const T* src, const long long* index,
                                               const MtLayout out_layout, const MtLayout src_layout,
                                               const MtLayout index_layout, const long long dim,
                                               const long long numel)
{
    const long long grid_size = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += grid_size) {
        long long rest = i;
        long long src_position = src_layout.offset;
        long long index_position = index_layout.offset;
        long long out_position = out_layout.offset;
        for (int d = (int)src_layout.ndim - 1; d >= 0; --d) {
            const long long coordinate = rest % src_layout.shape[d];
            rest /= src_layout.shape[d];
            src_position += coordinate * src_layout.strides[d];
            index_position += coordinate * index_layout.strides[d];
            if (d != dim) out_position += coordinate * out_layout.strides[d];
        }
        out_position += index[index_position] * out_layout.strides[dim];
        mt_atomic_add(out + out_position, src[src_position]);
    }
}
