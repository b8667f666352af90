// zip.cu -- out[i] = f(a[i], b[i]) for every element i        (reference.zip)
//
// Specialised by the loader, which defines IN_T (the type of a and b), OUT_T, T (the
// type f computes in), OP(a, b) (the scalar op's CUDA C expression) and KERNEL(zip).
//
// Broadcasting costs nothing here: a broadcast operand arrives as a view with stride 0
// along each stretched dimension, so the index arithmetic simply re-reads the same cell.
//
// Thread mapping
// --------------
// As in map.cu (read it first): one thread per output element in a grid-stride loop
// (thread t handles ordinals t, t + G, t + 2G, ... with G threads in the grid); the digits
// of the ordinal give every operand's position, with a no-division fast path when Python
// merged the tensors down to one dimension. No shared memory, no barrier.

extern "C" __global__ void KERNEL(zip)(OUT_T* out, const IN_T* a, const IN_T* b,
                                       const MtLayout out_layout, const MtLayout a_layout,
                                       const MtLayout b_layout, const long long numel)
{
    const long long grid_size = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += grid_size) {
        long long a_position, b_position, out_position;
        if (out_layout.ndim <= 1) {  // the fast path
            a_position = a_layout.offset + i * a_layout.strides[0];
            b_position = b_layout.offset + i * b_layout.strides[0];
            out_position = out_layout.offset + i * out_layout.strides[0];
        } else {
            a_position = a_layout.offset;
            b_position = b_layout.offset;
            out_position = out_layout.offset;
            long long rest = i;
            for (int d = (int)out_layout.ndim - 1; d >= 0; --d) {
                const long long index = rest % out_layout.shape[d];
                rest /= out_layout.shape[d];
                a_position += index * a_layout.strides[d];
                b_position += index * b_layout.strides[d];
                out_position += index * out_layout.strides[d];
            }
        }
        const T x = (T)a[a_position];
        const T y = (T)b[b_position];
        out[out_position] = (OUT_T)(OP(x, y));
    }
}
