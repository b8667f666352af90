// where.cu -- out[i] = a[i] if cond[i] else b[i]                (reference.where)
//
// Specialised by the loader, which defines IN_T (the type of a and b), OUT_T and
// KERNEL(where). The condition is always a bool tensor.
//
// Thread mapping
// --------------
// As in map.cu: one thread per output element in a grid-stride loop, with a contiguous
// fast path chosen by Python. Each thread reads only the operand it needs. No shared
// memory, no barrier.

extern "C" __global__ void KERNEL(where)(OUT_T* out, const bool* cond, const IN_T* a,
                                         const IN_T* b, const MtLayout out_layout,
                                         const MtLayout cond_layout, const MtLayout a_layout,
                                         const MtLayout b_layout, const long long numel,
                                         const int contiguous)
{
    const long long grid_size = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += grid_size) {
        long long cond_position = cond_layout.offset + i;  // the contiguous fast path
        long long a_position = a_layout.offset + i;
        long long b_position = b_layout.offset + i;
        long long out_position = out_layout.offset + i;
        if (!contiguous) {  // one digit of the ordinal per dimension, as in map.cu
            cond_position = cond_layout.offset;
            a_position = a_layout.offset;
            b_position = b_layout.offset;
            out_position = out_layout.offset;
            long long rest = i;
            for (int d = (int)out_layout.ndim - 1; d >= 0; --d) {
                const long long index = rest % out_layout.shape[d];
                rest /= out_layout.shape[d];
                cond_position += index * cond_layout.strides[d];
                a_position += index * a_layout.strides[d];
                b_position += index * b_layout.strides[d];
                out_position += index * out_layout.strides[d];
            }
        }
        const IN_T value = cond[cond_position] ? a[a_position] : b[b_position];
        out[out_position] = (OUT_T)value;
    }
}
