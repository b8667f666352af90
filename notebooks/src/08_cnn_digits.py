# %% [markdown]
# # 8 · Convolutional networks on digits
#
# **Goal (about 35 minutes):** build a convolution from two things you already know, a
# **strided view** (chapter 2) and a **matrix multiplication** (chapter 5), add **max
# pooling** as a view plus a reduction, and train a small CNN that reads handwritten
# digits. No new kernel is needed: that is the design of minitorch (and the classic
# "im2col" strategy that made early GPU CNN libraries fast). Having built them from
# scratch, we check them against the library's `nn.Conv2d` and `nn.MaxPool2d` (which use
# the same idea) and train the CNN with `nn`, `optim` and `DataLoader`.
#
# Exercises: `exercises/08_cnn_digits.ipynb` (`conv2d` from `as_strided` and `@`).

# %% setup(backend="numba")

# %%
import numpy as np

import minitorch
from minitorch import nn, optim
from minitorch.data import DataLoader, Digits

# %% [markdown]
# ## The data
#
# `minitorch.data.Digits` holds the 1,797 handwritten digits of 8×8 pixels that
# scikit-learn ships (a small cousin of MNIST's 28×28), so nothing is downloaded. Each
# image is a tensor `[1, 8, 8]` (one channel) with pixels in `[0, 1]`; a fixed split
# keeps 20% aside for testing.

# %%
train_set, test_set = Digits(train=True), Digits(train=False)
x_train, y_train = train_set.data, train_set.targets
x_test, y_test = test_set.data, test_set.targets
print(train_set, "|", test_set)
print("first labels:", y_train[:10].tolist())
for row in x_train[0, 0].numpy():
    print("".join(" .:-=+*#%@"[min(9, int(v * 10))] for v in row))

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
# ## The library's versions
#
# `nn.functional.conv2d` and `nn.Conv2d` (in `minitorch/nn/conv.py`) are the same
# view-plus-matmul, with stride, padding and dilation added; `nn.MaxPool2d` is a view
# plus a `max`. They agree with ours:

# %%
weight, bias = minitorch.randn(8, 1, 3, 3), minitorch.randn(8)
ours = conv2d(x_train[:16], weight, bias)
library = nn.functional.conv2d(x_train[:16], weight, bias)
print("conv2d:", tuple(ours.shape), "largest difference:", (ours - library).abs().max().item())
pooled = nn.MaxPool2d(2)(ours)
print("max pool:", tuple(pooled.shape), "equal:", bool((pooled == max_pool2d(ours)).all()))

# %% [markdown]
# ## A small CNN
#
# conv 3×3 (1 → 8 channels) → ReLU → 2×2 max pool → flatten → linear (8·3·3 → 10). The
# 8×8 image becomes 6×6 after the convolution and 3×3 after pooling. The training loop is
# chapter 7's, with Adam and mini-batches of 64.

# %%
minitorch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 8, kernel_size=3), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(8 * 3 * 3, 10),
)
print(model)


def accuracy(model, x, y):
    model.eval()
    with minitorch.no_grad():
        correct = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train()
    return correct


optimizer = optim.Adam(model.parameters(), lr=0.01)
loader = DataLoader(train_set, batch_size=64, shuffle=True)
print("before training, test accuracy:", f"{accuracy(model, x_test, y_test):.1%}")
for epoch in range(4):
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}, test accuracy {accuracy(model, x_test, y_test):.1%}")

# %% [markdown]
# Four epochs (a few seconds on a CPU) reach about 93% test accuracy; twenty epochs reach
# about 98-99% (change `range(4)` and see). Look at what the filters learned: each is a
# 3×3 pattern the network found useful (edges, strokes, corners).

# %%
conv = model[0]
for o in range(3):
    filter_ = conv.weight[o, 0].detach().numpy()
    print(f"filter {o}:\n", np.array2string(filter_, precision=2, suppress_small=True))

# %% [markdown]
# Save it like any model (chapter 7): `minitorch.save(model.state_dict(), "digits.safetensors")`.
#
# ## Summary
#
# * A **convolution** is an `as_strided` view of all windows (no copy, overlapping
#   windows share memory) followed by **one matmul** with the flattened filters; the
#   flatten is the im2col copy. Autograd differentiates it with no new code.
# * **Max pooling** is a `view` that splits each spatial dimension plus a `max` reduction.
# * `nn.Conv2d` and `nn.MaxPool2d` are these same two ideas. A tiny CNN (conv, ReLU,
#   pool, linear) learns 8×8 digits to about 93% in four CPU epochs (98-99% in twenty),
#   and every kernel it ran was one of the primitives of chapter 3.
#
# You have now seen every layer of a deep-learning framework, from strides to a trained
# CNN. Exercises: `exercises/08_cnn_digits.ipynb`. Next: **9 · Static graphs**, where the
# same kernel calls are captured once and replayed.
