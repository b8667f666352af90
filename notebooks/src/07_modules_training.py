# %% [markdown]
# # 7 · Modules and training
#
# **Goal (about 30 minutes):** see what `nn.Module`, an optimizer and a `DataLoader`
# really are by building small versions of each from tensors and autograd, then train a
# network with them. You will understand parameters and `state_dict`, `train()`/`eval()`,
# `zero_grad()`/`step()`, shuffling and batching, and saving a model.
#
# We first build small versions from tensors and autograd (a Module fits in 30 lines),
# then switch to minitorch's real ones, which have PyTorch's names and live in
# `minitorch/nn/`, `minitorch/optim/` and `minitorch/utils/data/` (`nn.Linear`,
# `optim.SGD`, `DataLoader`), save the model with `minitorch.save`, and finish with the
# **Playground** explorer (`minitorch.widgets.Playground`), TensorFlow Playground on a
# real minitorch model.
#
# Exercises: `exercises/07_modules_training.ipynb` (a training loop that must reach 90%
# test accuracy).

# %% setup(backend="numba")

# %%
import math

import numpy as np

import minitorch
from minitorch.course.training_checks import accuracy, cross_entropy, two_moons

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
# ## The library's versions
#
# minitorch's `nn`, `optim` and `utils.data` are these same ideas, complete: `nn.Module`
# also registers sub-modules in lists and dicts, has `load_state_dict`, `to(device)`,
# hooks; `optim` has SGD with momentum and weight decay, and Adam; `DataLoader` takes any
# `Dataset`. The program reads exactly like PyTorch (it runs with `import torch as
# minitorch`):

# %%
from minitorch import nn, optim  # noqa: E402
from minitorch.utils.data import DataLoader, TensorDataset  # noqa: E402

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
# `state_dict()` names every parameter by its path in the module tree (`0.weight` is the
# weight of the first layer of the `Sequential`). `minitorch.save` writes it as
# safetensors; `minitorch.load` reads it back, and `load_state_dict` copies it into a
# fresh model of the same shape:

# %%
print({name: tuple(t.shape) for name, t in net.state_dict().items()})
path = os.path.join(tempfile.mkdtemp(), "moons.safetensors")
minitorch.save(net.state_dict(), path)

fresh_net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
fresh_net.load_state_dict(minitorch.load(path))
fresh_net.eval()
print("fresh nn.Sequential after loading:", f"{accuracy(fresh_net, x_test, y_test):.1%}")

# %% [markdown]
# `minitorch.data` also has datasets that need no download: TensorFlow Playground's
# `circle`, `xor`, `gauss`, `spiral` (and two regression sets), MiniTorch's `simple`,
# `diag`, `split`, and the 8×8 handwritten `Digits` of chapter 8. Each Playground set is a
# pair of tensors, points and labels:

# %%
points, labels = minitorch.data.spiral(200, noise=0.1, seed=0)
print(points.shape, labels.shape, labels[:8].tolist())

# %% [markdown]
# ## The Playground
#
# `Playground(...)` is TensorFlow Playground inside the notebook, training a real
# minitorch `nn.Sequential`: pick a dataset, input features, layers, activation and
# learning rate, press play, and watch the decision boundary, every neuron's output and
# the loss curve move. Displayed as a cell's result (in JupyterLab or Colab), it is the
# interactive explorer; it can also be driven from code, which is what this cell does so
# that it also runs headless: `pg.step(epochs=...)` trains, `pg.history` holds the losses
# and accuracies after each epoch, and `pg.model` is the live model.

# %%
from minitorch.widgets.playground import Playground  # noqa: E402

pg = Playground(dataset="xor", hidden=[4, 2], learning_rate=0.03)
pg.step(epochs=20)
last = pg.history[-1]
print(f"after {last.epoch} epochs: train loss {last.train_loss:.3f}, "
      f"test loss {last.test_loss:.3f}, test accuracy {last.accuracy:.1%}")
print(pg.model)
pg

# %% [markdown]
# Try it: change `dataset` to `"spiral"` and watch a small network fail; then add
# neurons, a layer, or the features `sin x1`, `sin x2` in the widget, and press play.

# %% [markdown]
# A list of numbers is for reading; a curve is for looking. `pg.history.plot()` draws the
# history with matplotlib: the training and test loss against the epoch, and (dashed, on
# the right-hand axis) the accuracies. `Trainer.history`, the headless trainer's, is the
# same kind of list and plots the same way.

# %%
pg.step(epochs=80)
pg.history.plot();

# %% [markdown]
# ## Your PyTorch code runs here
#
# Everything in this chapter has PyTorch's names, so PyTorch's own tutorials run with
# only their import line changed, and print what PyTorch prints (`tensor(...)`,
# `torch.Size`, `grad_fn=<AddmmBackward0>`). Here is the polynomial fit of PyTorch's
# "Learning PyTorch with examples", as its authors wrote it apart from the import. The
# profiler at the end builds PyTorch's table from the same dispatch records the dispatch
# viewer of chapter 3 draws.

# %%
import math  # noqa: E402

import minitorch as torch  # noqa: E402  (the only change to PyTorch's tutorial)

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(2000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 500 == 499:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
      f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")
print(loss.grad_fn, loss.grad_fn.next_functions)

with torch.autograd.profiler.profile() as prof:
    loss_fn(model(xx), y).backward()
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8))

# %% [markdown]
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
