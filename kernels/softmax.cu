// softmax.cu -- each line along one dimension made into probabilities, or their logs:
//     m = max_j a[.., j, ..];  s = sum_j exp(a[.., j, ..] - m)
//     out[.., j, ..] = exp(a[.., j, ..] - m) / s          (softmax)
//     out[.., j, ..] = (a[.., j, ..] - m) - log(s)        (log_softmax)     (reference.softmax)
// Specialised by the loader, which defines T (the float type of a and out), LOG_SOFTMAX
// (true or false) and KERNEL(softmax).
//
// Python splits the tensors as for a reduction: the line's dimension (`length` elements,
// `out_step` apart in out and `a_step` apart in a) and the "lines", one per index of the
// other dimensions. out_layout and a_layout both have the lines' shape; their positions
// are the first element of a line.
//
// Thread mapping
// --------------
//   One thread per line, as in scan.cu: it walks its line three times (the max, the sum
//   of the exponentials, the outputs), keeping m and s in registers. The max is taken
//   first so that no exp overflows; subtracting it changes no quotient. A NaN is not
//   picked as the max, but its exp is NaN, so the sum is, and every output of its line.
//   Lines are independent: no shared memory, no barrier. Threads step through the lines
//   with a grid-stride loop, so any number works.

extern "C" __global__ void KERNEL(softmax)(T* out, const T* a, const MtLayout out_layout,
                                           const MtLayout a_layout, const long long length,
                                           const long long out_step, const long long a_step,
                                           const long long n_lines)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long line = (long long)blockIdx.x * blockDim.x + threadIdx.x; line < n_lines;
         line += stride) {
        const long long out_start = mt_position(line, out_layout);
        const long long a_start = mt_position(line, a_layout);
        T top = a[a_start];
        for (long long j = 1; j < length; ++j) {
            const T value = a[a_start + j * a_step];
            if (value > top) top = value;
        }
        T total = (T)0;
        for (long long j = 0; j < length; ++j) total += exp(a[a_start + j * a_step] - top);
        const T log_total = log(total);
        for (long long j = 0; j < length; ++j) {
            const T shifted = a[a_start + j * a_step] - top;
            out[out_start + j * out_step] = LOG_SOFTMAX ? shifted - log_total : exp(shifted) / total;
        }
    }
}
