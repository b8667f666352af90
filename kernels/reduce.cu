// reduce.cu -- fold one dimension: out[.., 0, ..] = a[.., 0, ..] (+) a[.., 1, ..] (+) ...
//                                                                 (reference.reduce)
// Specialised by the loader, which defines IN_T (the type stored in a), OUT_T, T (the
// accumulator type, = OUT_T), OP(a, b) (the combine op: add for sum, maximum for max...),
// IDENTITY (the value that changes nothing: 0 for sum, -inf for max...) and KERNEL(reduce).
//
// Python splits `a` into the reduced dimension (`reduce_size` elements, `reduce_stride`
// apart in storage) and the "outer" elements, one per output cell. a_layout and
// out_layout both have the outer shape; a_layout's position is the first element of a
// reduced line of `a`, out_layout's is the output cell.
//
// Thread mapping
// --------------
//   block = (threads_x, threads_y) with threads_x * threads_y == 256 and threads_x a
//   multiple of 32 (Python picks threads_x from the reduced size). One ROW of a block
//   (the threads with one threadIdx.y) reduces one output cell, in four steps:
//     1. each thread folds elements j = threadIdx.x, threadIdx.x + threads_x, ... of the
//        line privately, in a register;
//     2. the row's threads_x partial results meet in shared memory and are halved in a
//        tree, threads_x -> threads_x / 2 -> ... -> 32, with one barrier per level;
//     3. the last 32 partial results sit in one warp, which finishes with register
//        shuffles (__shfl_down_sync): 32 -> 16 -> ... -> 1, no shared memory, no barrier;
//     4. lane 0 of the row writes the output cell.
//   Blocks step through the outputs threads_y at a time (a grid-stride loop), so any
//   number of outputs works with a bounded grid. Every thread runs every loop iteration
//   and reaches every barrier, even when its row has no output left (`has_output`):
//   returning early would leave the others waiting at __syncthreads forever.
//
// Shared memory: `scratch` holds one T per thread; its size (256 * sizeof(T) bytes) is
// given at launch time, hence `extern __shared__` with no size.

extern "C" __global__ void KERNEL(reduce)(OUT_T* out, const IN_T* a, const MtLayout out_layout,
                                          const MtLayout a_layout, const long long reduce_size,
                                          const long long reduce_stride, const long long n_out)
{
    extern __shared__ T scratch[];
    T* const row = scratch + threadIdx.y * blockDim.x;  // this row's blockDim.x slots

    const long long outputs_per_round = (long long)gridDim.x * blockDim.y;
    for (long long first = (long long)blockIdx.x * blockDim.y; first < n_out; first += outputs_per_round) {
        const long long out_ordinal = first + threadIdx.y;
        const bool has_output = out_ordinal < n_out;

        // 1. private fold over a strided slice of the line
        T acc = IDENTITY;
        if (has_output) {
            const long long line_start = mt_position(out_ordinal, a_layout);
            for (long long j = threadIdx.x; j < reduce_size; j += blockDim.x) {
                const T value = (T)a[line_start + j * reduce_stride];
                acc = OP(acc, value);
            }
        }

        // 2. tree in shared memory, down to 32 partial results per row
        row[threadIdx.x] = acc;
        __syncthreads();  // every partial result is stored before anyone reads a neighbour's
        for (unsigned int half = blockDim.x / 2; half >= 32; half /= 2) {
            if (threadIdx.x < half) {
                const T other = row[threadIdx.x + half];
                row[threadIdx.x] = OP(row[threadIdx.x], other);
            }
            __syncthreads();  // this level is complete before the next one reads it
        }

        // 3. the first warp of the row finishes in registers. threads_x is a multiple of
        //    32, so "threadIdx.x < 32" is a whole warp: all 32 lanes shuffle together.
        if (threadIdx.x < 32) {
            acc = row[threadIdx.x];
            for (int offset = 16; offset > 0; offset /= 2) {
                const T other = mt_shfl_down(acc, offset);  // a temporary: OP may use b twice
                acc = OP(acc, other);
            }
            // 4. lane 0 holds the whole row's result
            if (threadIdx.x == 0 && has_output) out[mt_position(out_ordinal, out_layout)] = (OUT_T)acc;
        }
        __syncthreads();  // the warp has read `row` before the next round overwrites it
    }
}
