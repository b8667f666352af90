// arg_reduce.cu -- out[.., 0, ..] = the index j of the first largest (argmax) or smallest
//                  (argmin) a[.., j, ..]; NaN counts as larger and smaller than
//                  everything.                                    (reference.arg_reduce)
//
// Specialised by the loader, which defines IN_T (the type stored in a), WANT_MAX (1 for
// argmax, 0 for argmin) and KERNEL(arg_reduce). The output is always int64.
//
// Thread mapping
// --------------
// The same as reduce.cu (read it first): one row of a 256-thread block per output cell,
// a private pass over a strided slice of the line, a tree in shared memory down to 32,
// then warp shuffles. What travels is a pair (value, index), combined by mt_arg_wins
// (strided.cuh), which prefers the smaller index among equals, so the result does not
// depend on which thread looked at what first.
//
// Shared memory: two static arrays of 256 entries, one for values and one for indices
// (Python always launches 256 threads per block for this kernel).

#define MT_ARG_BLOCK 256

extern "C" __global__ void KERNEL(arg_reduce)(long long* out, const IN_T* a,
                                              const MtLayout out_layout, const MtLayout a_layout,
                                              const long long reduce_size,
                                              const long long reduce_stride, const long long n_out)
{
    __shared__ IN_T best_values[MT_ARG_BLOCK];
    __shared__ long long best_indices[MT_ARG_BLOCK];
    const unsigned int slot = threadIdx.y * blockDim.x + threadIdx.x;  // this thread's entry

    const long long outputs_per_round = (long long)gridDim.x * blockDim.y;
    for (long long first = (long long)blockIdx.x * blockDim.y; first < n_out; first += outputs_per_round) {
        const long long out_ordinal = first + threadIdx.y;
        const bool has_output = out_ordinal < n_out;

        // 1. private pass: j = threadIdx.x, threadIdx.x + threads_x, ...
        IN_T best = (IN_T)0;
        long long best_index = -1;  // -1: no candidate yet
        if (has_output) {
            const long long line_start = mt_position(out_ordinal, a_layout);
            for (long long j = threadIdx.x; j < reduce_size; j += blockDim.x) {
                const IN_T value = a[line_start + j * reduce_stride];
                if (mt_arg_wins(value, j, best, best_index, WANT_MAX)) {
                    best = value;
                    best_index = j;
                }
            }
        }

        // 2. tree in shared memory, down to 32 candidates per row
        best_values[slot] = best;
        best_indices[slot] = best_index;
        __syncthreads();  // every candidate is stored before anyone reads a neighbour's
        for (unsigned int half = blockDim.x / 2; half >= 32; half /= 2) {
            if (threadIdx.x < half) {
                const IN_T value = best_values[slot + half];
                const long long index = best_indices[slot + half];
                if (mt_arg_wins(value, index, best_values[slot], best_indices[slot], WANT_MAX)) {
                    best_values[slot] = value;
                    best_indices[slot] = index;
                }
            }
            __syncthreads();  // this level is complete before the next one reads it
        }

        // 3. the row's first warp finishes with shuffles of both halves of the pair
        if (threadIdx.x < 32) {
            best = best_values[slot];
            best_index = best_indices[slot];
            for (int offset = 16; offset > 0; offset /= 2) {
                const IN_T value = mt_shfl_down(best, offset);
                const long long index = mt_shfl_down(best_index, offset);
                if (mt_arg_wins(value, index, best, best_index, WANT_MAX)) {
                    best = value;
                    best_index = index;
                }
            }
            // 4. lane 0 writes the winner's index
            if (threadIdx.x == 0 && has_output) out[mt_position(out_ordinal, out_layout)] = best_index;
        }
        __syncthreads();  // the warp has read the arrays before the next round overwrites them
    }
}
