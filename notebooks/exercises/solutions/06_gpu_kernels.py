"""Reference solutions for exercises/06_gpu_kernels.ipynb."""

# %% exercise=saxpy
SAXPY = r"""
extern "C" __global__ void saxpy(float alpha, const float* x, const float* y,
                                 float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = alpha * x[i] + y[i];
}
"""

# %% exercise=tiled_matmul
TILED_MATMUL = r"""
#define TILE 4

extern "C" __global__ void tiled_matmul(const float* a, const float* b, float* out,
                                        int n, int k, int m) {
    __shared__ float tile_a[TILE][TILE];
    __shared__ float tile_b[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float total = 0.0f;
    for (int start = 0; start < k; start += TILE) {
        tile_a[ty][tx] = (row < n && start + tx < k) ? a[row * k + start + tx] : 0.0f;
        tile_b[ty][tx] = (start + ty < k && col < m) ? b[(start + ty) * m + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < TILE; ++q) total += tile_a[ty][q] * tile_b[q][tx];
        __syncthreads();
    }
    if (row < n && col < m) out[row * m + col] = total;
}
"""
