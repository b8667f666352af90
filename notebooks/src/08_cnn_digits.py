# %% [markdown]
# # 8 · Convolutional networks on digits
#
# **Goal (about 35 minutes):** build a convolution from two things you already know, a
# **strided view** (chapter 2) and a **matrix multiplication** (chapter 5), add **max
# pooling** as a view plus a reduction, and train a small CNN that reads handwritten
# digits. No new kernel is needed: that is the design of minitorch (and the classic
# "im2col" strategy that made early GPU CNN libraries fast).
#
# Exercises: `exercises/08_cnn_digits.ipynb` (`conv2d` from `as_strided` and `@`).

# %% setup(backend="numba")

# %%
import math

import numpy as np
from sklearn.datasets import load_digits

import minitorch
from minitorch.testing.training_checks import accuracy, cross_entropy

# %% [markdown]
# ## The data
#
# scikit-learn ships 1,797 handwritten digits of 8×8 pixels (a small cousin of MNIST's
# 28×28), so nothing is downloaded. Each image becomes a tensor `[1, 8, 8]` (one channel).

# %%
digits = load_digits()
images = minitorch.tensor((digits.images / 16.0).astype(np.float32)).unsqueeze(1)   # [N, 1, 8, 8]
labels = minitorch.tensor(digits.target.astype(np.int64))
x_train, y_train = images[:1400], labels[:1400]
x_test, y_test = images[1400:], labels[1400:]
print(images.shape, "first labels:", labels[:10].tolist())
for row in digits.images[0]:
    print("".join(" .:-=+*#%@"[min(9, int(v) * 10 // 17)] for v in row))

# %% [markdown]
# ## Convolution = sliding windows + matmul
#
# A 2-D convolution slides a `kh×kw` filter over the image; at each position it takes the
# dot product of the filter with the window under it:
# $\text{out}[n, o, i, j] = b_o + \sum_{c,p,q} x[n, c, i+p, j+q]\, w[o, c, p, q]$.
#
# **Step 1: all windows at once, without copying.** With `as_strided`, we view `x` as a
# 6-D tensor `[N, OH, OW, C, kh, kw]`: moving one output position right moves the window
# by one pixel (stride of `W`'s dimension), and inside the window we also step by pixels.
# The two new dimensions *reuse* the strides of `H` and `W`: windows overlap in memory.

# %%
x = minitorch.arange(16.0).view(1, 1, 4, 4)
kh = kw = 3
N, C, H, W = x.shape
OH, OW = H - kh + 1, W - kw + 1
sN, sC, sH, sW = x.stride()
windows = x.as_strided((N, OH, OW, C, kh, kw), (sN, sH, sW, sC, sH, sW))
print("x:\n", x[0, 0])
print("window at output (0, 1):\n", windows[0, 0, 1, 0])
print("strides of the window view:", windows.stride(), "| same storage:", windows._storage is x._storage)

# %% [markdown]
# **Step 2: one matmul.** Flatten each window into a row (`C*kh*kw` numbers) and each
# filter into a column: the convolution is `[N*OH*OW, C*kh*kw] @ [C*kh*kw, O]`. The
# `reshape` copies here (overlapping windows cannot be flattened as a view: this copy *is*
# the classic im2col buffer); gradients flow back through `reshape`, the strided view and
# the matmul, summing where windows overlap.

# %%
def conv2d(x, weight, bias):
    x = x.contiguous()
    N, C, H, W = x.shape
    O, _, kh, kw = weight.shape
    OH, OW = H - kh + 1, W - kw + 1
    sN, sC, sH, sW = x.stride()
    windows = x.as_strided((N, OH, OW, C, kh, kw), (sN, sH, sW, sC, sH, sW))
    rows = windows.reshape(N * OH * OW, C * kh * kw)
    out = rows @ weight.reshape(O, C * kh * kw).t() + bias
    return out.view(N, OH, OW, O).permute(0, 3, 1, 2)   # back to [N, O, OH, OW]


edge = minitorch.tensor([[[[1.0, 0.0, -1.0]] * 3]])      # a vertical-edge filter [1, 1, 3, 3]
print(conv2d(x, edge, minitorch.zeros(1)))
with minitorch.dispatch.trace() as calls:
    conv2d(x_train[:32], minitorch.randn(8, 1, 3, 3), minitorch.zeros(8))
print("primitives used:", sorted({c.primitive for c in calls}))

# %% [markdown]
# ## Max pooling = a view + a reduction
#
# 2×2 max pooling keeps the largest value of each 2×2 block. Splitting `H` into
# `(H/2, 2)` and `W` into `(W/2, 2)` is a plain `view`, and the max over the two small
# dimensions is one `reduce` kernel. Its gradient flows only to the maximum of each
# block.

# %%
def max_pool2d(x):
    N, C, H, W = x.shape
    return x.reshape(N, C, H // 2, 2, W // 2, 2).amax(dim=(3, 5))


print(max_pool2d(minitorch.arange(16.0).view(1, 1, 4, 4)))

# %% [markdown]
# ## A small CNN
#
# conv 3×3 (1 → 8 channels) → ReLU → 2×2 max pool → flatten → linear (8·3·3 → 10). The
# 8×8 image becomes 6×6 after the convolution and 3×3 after pooling.

# %%
class TinyCNN:
    def __init__(self, channels=8):
        minitorch.manual_seed(0)
        self.conv_w = (minitorch.randn(channels, 1, 3, 3) * (1 / 3)).requires_grad_()
        self.conv_b = minitorch.zeros(channels, requires_grad=True)
        features = channels * 3 * 3
        self.fc_w = (minitorch.randn(features, 10) * (1 / math.sqrt(features))).requires_grad_()
        self.fc_b = minitorch.zeros(10, requires_grad=True)

    def parameters(self):
        return [self.conv_w, self.conv_b, self.fc_w, self.fc_b]

    def __call__(self, x):
        h = max_pool2d(conv2d(x, self.conv_w, self.conv_b).relu())
        return h.flatten(1) @ self.fc_w + self.fc_b


model = TinyCNN()
print("before training, test accuracy:", f"{accuracy(model, x_test, y_test):.1%}")
lr = 0.5
for epoch in range(4):
    order = minitorch.randperm(len(x_train))
    for start in range(0, len(x_train), 50):
        index = order[start:start + 50]
        loss = cross_entropy(model(x_train.index_select(0, index)), y_train.index_select(0, index))
        for p in model.parameters():
            p.grad = None
        loss.backward()
        with minitorch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
    print(f"epoch {epoch}: loss {loss.item():.3f}, test accuracy {accuracy(model, x_test, y_test):.1%}")

# %% [markdown]
# A few epochs on a CPU reach roughly 85-95% test accuracy on these small digits (more
# epochs or channels push it higher). Look at
# what the filters learned: each is a 3×3 pattern the network found useful (edges,
# strokes, corners).

# %%
for o in range(3):
    filter_ = model.conv_w[o, 0].detach().numpy()
    print(f"filter {o}:\n", np.array2string(filter_, precision=2, suppress_small=True))

# %% [markdown]
# With the full library the same network reads like PyTorch:
# `nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(72, 10))`;
# `minitorch/nn/conv.py` implements `Conv2d` with exactly the view-plus-matmul idea above
# (plus stride and padding).
#
# ## Summary
#
# * A **convolution** is an `as_strided` view of all windows (no copy, overlapping
#   windows share memory) followed by **one matmul** with the flattened filters; the
#   flatten is the im2col copy. Autograd differentiates it with no new code.
# * **Max pooling** is a `view` that splits each spatial dimension plus a `max` reduction.
# * A tiny CNN (conv, ReLU, pool, linear) learns 8×8 digits in a few CPU epochs, and
#   every kernel it ran was one of the primitives of chapter 3.
#
# That completes the course: you have seen every layer of a deep-learning framework, from
# strides to a trained CNN. Exercises: `exercises/08_cnn_digits.ipynb`.
