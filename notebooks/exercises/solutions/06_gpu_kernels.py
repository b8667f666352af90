"""Reference solutions for exercises/06_gpu_kernels.ipynb."""


# %% exercise=saxpy
def saxpy(t, alpha, x, y, out, n):
    i = t.block[0] * t.block_dim[0] + t.thread[0]
    if i < n:
        out[i] = alpha * x[i] + y[i]


# %% exercise=tiled_matmul
TILE = 4


def tiled_matmul(t, a, b, out, n, k, m):
    tx, ty = t.thread
    row = t.block[1] * TILE + ty
    col = t.block[0] * TILE + tx
    tile_a, tile_b = t.shared["a"], t.shared["b"]
    total = 0.0
    for start in range(0, k, TILE):
        tile_a[ty * TILE + tx] = a[row * k + start + tx] if row < n and start + tx < k else 0.0
        tile_b[ty * TILE + tx] = b[(start + ty) * m + col] if start + ty < k and col < m else 0.0
        yield
        for q in range(TILE):
            total += tile_a[ty * TILE + q] * tile_b[q * TILE + tx]
        yield
    if row < n and col < m:
        out[row * m + col] = total
