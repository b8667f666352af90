// map.cu -- out[i] = f(a[i]) for every element i             (reference.map)
//
// Specialised by the loader (minitorch/backends/cuda.py), which defines before pasting:
//   IN_T        the element type stored in `a`          e.g. float
//   OUT_T       the element type stored in `out`        e.g. bool for logical_not
//   T           the type f computes in (IN_T, or double for exp/log/... of integers)
//   OP(a)       the scalar op's CUDA C expression from minitorch/scalar_ops.py
//   KERNEL(map) the kernel's specialised name, e.g. map_exp_float32_float32
//
// Thread mapping
// --------------
// One thread per output element, in a "grid-stride loop": thread t of the grid handles
// ordinals t, t + G, t + 2G, ... where G = gridDim.x * blockDim.x is the number of threads
// in the grid. Any tensor size works with a grid of bounded size, and consecutive threads
// touch consecutive ordinals (coalesced memory access when the tensor is contiguous).
//
// Each ordinal becomes a storage position per operand: the digits of the ordinal are
// the multi-index (the last dimension changes fastest), and index * stride summed over
// the dimensions is the position -- one division per dimension, shared by all operands.
// Python merged every dimension it could first, so a contiguous tensor (or a scalar
// broadcast with stride 0) arrives 1-D, and then the position is simply
// offset + ordinal * stride: this fast path does no division at all. The test is the
// same for every thread, so it costs nothing on a GPU (no divergence).
// No shared memory, no barrier.

extern "C" __global__ void KERNEL(map)(OUT_T* out, const IN_T* a, const MtLayout out_layout,
                                       const MtLayout a_layout, const long long numel)
{
    const long long grid_size = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += grid_size) {
        long long a_position, out_position;
        if (out_layout.ndim <= 1) {  // the fast path (a 0-d tensor has i == 0, stride 0)
            a_position = a_layout.offset + i * a_layout.strides[0];
            out_position = out_layout.offset + i * out_layout.strides[0];
        } else {
            a_position = a_layout.offset;
            out_position = out_layout.offset;
            long long rest = i;
            for (int d = (int)out_layout.ndim - 1; d >= 0; --d) {
                const long long index = rest % out_layout.shape[d];
                rest /= out_layout.shape[d];
                a_position += index * a_layout.strides[d];
                out_position += index * out_layout.strides[d];
            }
        }
        const T value = (T)a[a_position];
        out[out_position] = (OUT_T)(OP(value));
    }
}
