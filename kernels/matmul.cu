// matmul.cu -- batched matrix product out[z] = a[z] @ b[z]      (reference.matmul)
//
//     out[z, i, j] = sum over k of a[z, i, k] * b[z, k, j]
//
// a is [batch, rows, inner], b is [batch, inner, cols], out is [batch, rows, cols], each
// with its own strides (a transposed operand is just other strides; a broadcast batch
// has stride 0). Specialised by the loader, which defines T and KERNEL(matmul).
//
// Thread mapping: shared-memory tiling
// ------------------------------------
//   block = (MT_TILE, MT_TILE) threads; thread (tx, ty) of block (bx, by, bz) computes
//   out[z, by * MT_TILE + ty, bx * MT_TILE + tx]: one output element per thread, one
//   MT_TILE x MT_TILE tile of the output per block.
//
// The naive kernel reads a whole row of a and a whole column of b from global memory for
// every output element: each input element is fetched `rows` or `cols` times. Tiling
// cuts that by MT_TILE: the block walks along k in steps of MT_TILE; at each step every
// thread loads ONE element of a's tile and ONE of b's tile into shared memory, the block
// waits, and then every thread reads MT_TILE values of each tile from fast shared memory.
//
//            b_tile (k0..k0+15 x columns)
//   a_tile   out tile += a_tile @ b_tile,   for k0 = 0, 16, 32, ...
//
// Sizes that are not multiples of the tile: threads outside the matrices load zeros
// (which add nothing) and skip the final store, but they still take part in loading and
// in every barrier. Blocks step over row tiles (y) and batches (z) in grid-stride loops,
// because gridDim.y and gridDim.z are limited to 65535 on a GPU. These loops depend only
// on blockIdx, so all threads of a block run them the same number of times.

#define MT_TILE 16

extern "C" __global__ void KERNEL(matmul)(T* out, const T* a, const T* b,
                                          const MtLayout out_layout, const MtLayout a_layout,
                                          const MtLayout b_layout)
{
    __shared__ T a_tile[MT_TILE][MT_TILE];
    __shared__ T b_tile[MT_TILE][MT_TILE];

    const long long batch = out_layout.shape[0];
    const long long rows = out_layout.shape[1];
    const long long cols = out_layout.shape[2];
    const long long inner = a_layout.shape[2];
    const int tx = threadIdx.x;  // column inside the tile
    const int ty = threadIdx.y;  // row inside the tile
    const long long col = (long long)blockIdx.x * MT_TILE + tx;

    for (long long z = blockIdx.z; z < batch; z += gridDim.z) {
        for (long long row_tile = blockIdx.y; row_tile * MT_TILE < rows; row_tile += gridDim.y) {
            const long long row = row_tile * MT_TILE + ty;
            T acc = (T)0;
            for (long long k0 = 0; k0 < inner; k0 += MT_TILE) {
                // Each thread fetches a[z, row, k0 + tx] and b[z, k0 + ty, col].
                const long long a_k = k0 + tx;
                const long long b_k = k0 + ty;
                a_tile[ty][tx] = (row < rows && a_k < inner) ? a[mt_position3(a_layout, z, row, a_k)] : (T)0;
                b_tile[ty][tx] = (b_k < inner && col < cols) ? b[mt_position3(b_layout, z, b_k, col)] : (T)0;
                __syncthreads();  // both tiles are complete before anyone multiplies

                for (int k = 0; k < MT_TILE; ++k) {
                    acc = (T)(acc + a_tile[ty][k] * b_tile[k][tx]);
                }
                __syncthreads();  // everyone is done reading the tiles before they are refilled
            }
            if (row < rows && col < cols) out[mt_position3(out_layout, z, row, col)] = acc;
        }
    }
}
