// scan.cu -- the running fold along one dimension (cumsum, cumprod):
//     out[.., j, ..] = a[.., 0, ..] (+) a[.., 1, ..] (+) ... (+) a[.., j, ..]     (reference.scan)
// Specialised by the loader, which defines IN_T (the type stored in a), OUT_T, T (the
// accumulator type, = OUT_T), OP(a, b) (the combine op: add for cumsum, mul for cumprod),
// IDENTITY (the value that changes nothing: 0 for a sum, 1 for a product) and KERNEL(scan).
//
// Python splits the tensors as for a reduction: the scanned dimension (`length` elements,
// `out_step` apart in out and `a_step` apart in a) and the "lines", one per index of the
// other dimensions. out_layout and a_layout both have the lines' shape; their positions
// are the first element of a line.
//
// Thread mapping
// --------------
//   One thread per line. It walks its line from the start, carrying the running value
//   in a register and writing every prefix: each element needs the one before it, so a
//   line is sequential work (a parallel scan within a line is possible -- Blelloch's --
//   but is a lesson of its own). Lines are independent: no shared memory, no barrier.
//   Threads step through the lines with a grid-stride loop, so any number works.

extern "C" __global__ void KERNEL(scan)(OUT_T* out, const IN_T* a, const MtLayout out_layout,
                                        const MtLayout a_layout, const long long length,
                                        const long long out_step, const long long a_step,
                                        const long long n_lines)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long line = (long long)blockIdx.x * blockDim.x + threadIdx.x; line < n_lines;
         line += stride) {
        const long long out_start = mt_position(line, out_layout);
        const long long a_start = mt_position(line, a_layout);
        T acc = IDENTITY;
        for (long long j = 0; j < length; ++j) {
            const T value = (T)a[a_start + j * a_step];
            acc = OP(acc, value);
            out[out_start + j * out_step] = (OUT_T)acc;
        }
    }
}
