# %% [markdown]
# # 7 · Modules and training
#
# **Goal (about 30 minutes):** see what `nn.Module`, an optimizer and a `DataLoader`
# really are by building small versions of each from tensors and autograd, then train a
# network with them. You will understand parameters and `state_dict`, `train()`/`eval()`,
# `zero_grad()`/`step()`, shuffling and batching, and saving a model.
#
# minitorch's full versions live in `minitorch/nn/`, `minitorch/optim/` and
# `minitorch/utils/data/` (with PyTorch's names: `nn.Linear`, `optim.SGD`, `DataLoader`),
# and the **Playground** widget (`minitorch.widgets.Playground`) trains such networks live
# in the notebook, TensorFlow-Playground style. This chapter builds everything from the
# core, so it runs on any installation; the last section uses the library's own classes
# when they are installed.
#
# Exercises: `exercises/07_modules_training.ipynb` (a training loop that must reach 90%
# test accuracy).

# %% setup(backend="numba")

# %%
import math

import numpy as np

import minitorch
from minitorch.testing.training_checks import accuracy, cross_entropy, two_moons

# %% [markdown]
# ## The data: two moons
#
# 2-D points in two interleaving half circles: a straight line cannot separate them, so the
# network must learn a curved boundary.

# %%
x_train, y_train = two_moons(256, seed=1)
x_test, y_test = two_moons(256, seed=2)
print(x_train.shape, y_train.shape, "labels:", y_train[:10].tolist())

# %% [markdown]
# ## A Module is a bag of parameters with a forward
#
# `nn.Module` does three things: it **registers** tensors that should be learned
# (parameters) and sub-modules, it **collects** them recursively (`parameters()`,
# `state_dict()`), and it calls your `forward` when you call the module. The
# `training` flag, switched by `train()` / `eval()`, tells layers like dropout and batch
# norm which behaviour to use.

# %%
class Module:
    def __init__(self):
        self.training = True

    def children(self):
        return [v for v in vars(self).values() if isinstance(v, Module)]

    def named_parameters(self, prefix=""):
        for name, value in vars(self).items():
            if isinstance(value, minitorch.Tensor) and value.requires_grad:
                yield prefix + name, value
            elif isinstance(value, Module):
                yield from value.named_parameters(prefix + name + ".")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def state_dict(self):
        return {name: p.detach().clone() for name, p in self.named_parameters()}

    def train(self, mode=True):
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def __call__(self, *args):
        return self.forward(*args)


class Linear(Module):
    """y = x @ W.T + b, with PyTorch's weight layout [out_features, in_features]."""

    def __init__(self, in_features, out_features):
        super().__init__()
        bound = 1 / math.sqrt(in_features)            # PyTorch's default init range
        self.weight = ((minitorch.rand(out_features, in_features) * 2 - 1) * bound).requires_grad_()
        self.bias = ((minitorch.rand(out_features) * 2 - 1) * bound).requires_grad_()

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class MLP(Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.layer1 = Linear(2, hidden)
        self.layer2 = Linear(hidden, 2)

    def forward(self, x):
        return self.layer2(self.layer1(x).tanh())


model = MLP()
for name, p in model.named_parameters():
    print(f"{name:>14}: {tuple(p.shape)}")

# %% [markdown]
# ## An optimizer updates parameters from their gradients
#
# `optim.SGD(params, lr)` keeps the list of parameters. `zero_grad()` clears their
# `.grad` (gradients accumulate, chapter 4); `step()` updates each one **in place**, under
# `no_grad` (the update itself must not be recorded in the graph, and the model must keep
# the *same* tensor objects). Momentum and Adam keep extra state per parameter.

# %%
class SGD:
    def __init__(self, params, lr, momentum=0.0):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.velocity = [None] * len(self.params)

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with minitorch.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:
                    continue
                update = p.grad
                if self.momentum:
                    previous = self.velocity[i]
                    update = update if previous is None else previous * self.momentum + update
                    self.velocity[i] = update
                p -= self.lr * update

# %% [markdown]
# ## A DataLoader shuffles and batches
#
# Each epoch visits the examples in a new random order, in mini-batches: a random
# permutation of indices, cut into slices, and `index_select` to gather each batch.

# %%
def batches(x, y, batch_size, shuffle=True):
    order = minitorch.randperm(len(x)) if shuffle else minitorch.arange(len(x))
    for start in range(0, len(x), batch_size):
        index = order[start:start + batch_size]
        yield x.index_select(0, index), y.index_select(0, index)

# %% [markdown]
# ## The training loop
#
# Every PyTorch training loop has the same five lines: forward, loss, `zero_grad`,
# `backward`, `step`. Evaluation runs under `no_grad` with the model in `eval()` mode.

# %%
minitorch.manual_seed(0)
model = MLP()
optimizer = SGD(model.parameters(), lr=0.5, momentum=0.9)
for epoch in range(8):
    model.train()
    for xb, yb in batches(x_train, y_train, batch_size=64):
        loss = cross_entropy(model(xb), yb)    # forward and loss
        optimizer.zero_grad()
        loss.backward()                        # gradients of every parameter
        optimizer.step()                       # update
    model.eval()
    print(f"epoch {epoch}: loss {loss.item():.3f}, test accuracy {accuracy(model, x_test, y_test):.1%}")

# %% [markdown]
# ## Saving and loading
#
# A trained model is its `state_dict`: a dict from parameter names to tensors. Saving
# writes those tensors; loading copies them into a freshly built model of the same shape.
# minitorch's `minitorch.save` / `minitorch.load` write the **safetensors** format (plain
# tensors, never `pickle`, which can run arbitrary code when loaded). With NumPy's `.npz`
# the idea fits in a few lines:

# %%
import os
import tempfile

path = os.path.join(tempfile.mkdtemp(), "moons.npz")
np.savez(path, **{name: t.numpy() for name, t in model.state_dict().items()})

fresh = MLP()
loaded = np.load(path)
with minitorch.no_grad():
    for name, p in fresh.named_parameters():
        p.copy_(minitorch.tensor(loaded[name]))
print("fresh model after loading:", f"{accuracy(fresh, x_test, y_test):.1%}")

# %% [markdown]
# ## The library's versions, and the Playground
#
# The same program with minitorch's `nn`, `optim` and data utilities reads exactly like
# PyTorch. The cell below runs it when those modules are installed in your minitorch
# (they are part of the full library), and otherwise says so.

# %%
try:
    from minitorch import nn, optim
    from minitorch.utils.data import DataLoader, TensorDataset
except ImportError as missing:
    print("minitorch.nn / optim / utils.data are not installed in this minitorch:", missing)
else:
    minitorch.manual_seed(0)
    net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True)
    for epoch in range(8):
        net.train()
        for xb, yb in loader:
            loss = nn.functional.cross_entropy(net(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    print(net)
    print(f"nn.Sequential test accuracy: {accuracy(net, x_test, y_test):.1%}")

# %% [markdown]
# The **Playground** (`minitorch.widgets.Playground()`) is TensorFlow Playground inside the
# notebook, on a real minitorch model: pick a dataset, features, layers, activation and
# learning rate, press play, and watch the decision boundary and the loss curve move. In
# JupyterLab or Colab, run `minitorch.widgets.Playground()` in a new cell to open it.
#
# ## Summary
#
# * A **Module** registers parameters and sub-modules, collects them recursively
#   (`parameters()`, `state_dict()`), and switches `train()`/`eval()` behaviour.
# * An **optimizer** clears gradients (`zero_grad`) and updates parameters **in place
#   under `no_grad`** (`step`), keeping per-parameter state for momentum or Adam.
# * A **DataLoader** shuffles indices each epoch and gathers mini-batches.
# * The training loop: forward, loss, `zero_grad`, `backward`, `step`; evaluate under
#   `no_grad` in `eval()` mode.
# * A model is saved as its `state_dict` (safetensors in minitorch, never pickle).
#
# Exercises: `exercises/07_modules_training.ipynb`. Next: **8 · CNNs on digits**.
