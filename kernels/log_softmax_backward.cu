// log_softmax_backward.cu -- the gradient of y = log_softmax(x), each line along one
// dimension (reference.log_softmax_backward):
//     s = sum_j g[.., j, ..]
//     out[.., j, ..] = g[.., j, ..] - exp(y[.., j, ..]) * s
// where g is the gradient arriving at y, and exp(y) is the softmax. Specialised by the
// loader, which defines T (the float type of every operand) and KERNEL(name).
//
// Python splits the tensors as for softmax.cu: the line's dimension (`length` elements,
// `out_step`, `g_step` and `y_step` apart) and the "lines", one per index of the other
// dimensions; the three layouts have the lines' shape, and their positions are the
// first element of a line.
//
// Thread mapping
// --------------
//   One thread per line, as in softmax.cu: it walks its line twice (the sum of g, then
//   the outputs), keeping s in a register. Lines are independent: no shared memory, no
//   barrier. Threads step through the lines with a grid-stride loop.

extern "C" __global__ void KERNEL(log_softmax_backward)(
    T* out, const T* g, const T* y, const MtLayout out_layout, const MtLayout g_layout,
    const MtLayout y_layout, const long long length, const long long out_step,
    const long long g_step, const long long y_step, const long long n_lines)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long line = (long long)blockIdx.x * blockDim.x + threadIdx.x; line < n_lines;
         line += stride) {
        const long long out_start = mt_position(line, out_layout);
        const long long g_start = mt_position(line, g_layout);
        const long long y_start = mt_position(line, y_layout);
        T total = (T)0;
        for (long long j = 0; j < length; ++j) total += g[g_start + j * g_step];
        for (long long j = 0; j < length; ++j) {
            const T softmax_j = exp(y[y_start + j * y_step]);
            out[out_start + j * out_step] = g[g_start + j * g_step] - softmax_j * total;
        }
    }
}
