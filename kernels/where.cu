// where.cu -- out[i] = a[i] if cond[i] else b[i]                (reference.where)
//
// Specialised by the loader, which defines IN_T (the type of a and b), OUT_T and
// KERNEL(where). The condition is always a bool tensor.
//
// Thread mapping
// --------------
// As in map.cu (read it first): one thread per output element in a grid-stride loop,
// positions from the digits of the ordinal, a no-division fast path for tensors Python
// merged down to one dimension. Each thread reads only the operand it needs. No shared
// memory, no barrier.

extern "C" __global__ void KERNEL(where)(OUT_T* out, const bool* cond, const IN_T* a,
                                         const IN_T* b, const MtLayout out_layout,
                                         const MtLayout cond_layout, const MtLayout a_layout,
                                         const MtLayout b_layout, const long long numel)
{
    const long long grid_size = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += grid_size) {
        long long cond_position, a_position, b_position, out_position;
        if (out_layout.ndim <= 1) {  // the fast path
            cond_position = cond_layout.offset + i * cond_layout.strides[0];
            a_position = a_layout.offset + i * a_layout.strides[0];
            b_position = b_layout.offset + i * b_layout.strides[0];
            out_position = out_layout.offset + i * out_layout.strides[0];
        } else {
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
