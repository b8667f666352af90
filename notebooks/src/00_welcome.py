# %% [markdown]
# # 0 · Welcome: what happens when you write `y = x @ w`
#
# **Goal of this notebook (about 20 minutes):** get minitorch running, meet the five
# layers that every deep-learning framework (PyTorch included) is made of, and see each
# of them at work in one tiny computation. Nothing here is hard; the rest of the course
# opens each layer in turn.
#
# minitorch has **PyTorch's API**: `minitorch.tensor`, `x.view`, `loss.backward()`,
# `nn.Linear`, `optim.SGD`... What you learn here transfers to PyTorch both ways, and
# simple PyTorch code runs with `import minitorch as torch`. The difference is that every
# file of minitorch is short enough to read in one sitting, and the library can *show* you
# what it does while it runs.
#
# **How to use these notebooks.** Run the cells from top to bottom (Shift+Enter). Each
# chapter has a companion exercise notebook in `exercises/` where you write a piece of the
# library yourself; a check cell after each exercise runs your code against minitorch's
# own on hundreds of cases and tells you, in plain words, the first thing that is wrong.

# %% setup(backend="reference")

# %% [markdown]
# The cell above printed which **backend** runs the kernels on the CPU and which
# **device** this notebook will use. On Colab with a GPU runtime you will see
# `device = 'cuda'`; everywhere else `'cpu'`. Every notebook in the course runs on a
# plain CPU: the GPU chapter uses an emulator of the GPU when there is no real one.
#
# ## A first computation
#
# Let us do one small piece of a neural network: multiply a batch of inputs by a weight
# matrix, apply a non-linearity, and reduce to a single number we could minimise.

# %%
import minitorch

minitorch.manual_seed(0)
x = minitorch.randn(4, 3)                      # a batch of 4 inputs with 3 features
w = minitorch.randn(3, 2, requires_grad=True)  # weights we want to learn
y = (x @ w).relu()
loss = y.sum()
print(y)
print(loss)

# %% [markdown]
# If you know PyTorch, nothing here is new. Now let us look *underneath*. The same
# computation passes through five layers:
#
# | layer | question it answers | where in minitorch | chapter |
# | --- | --- | --- | --- |
# | **tensor = storage + layout** | where are the numbers, and how do I read them? | `layout.py`, `_tensor.py` | 1, 2 |
# | **dispatch** | which kernel runs this op, for this device and dtype? | `dispatch/` | 3 |
# | **kernels** | the loops that actually compute | `backends/` | 3, 5, 6 |
# | **autograd** | how do gradients flow back? | `autograd/` | 4 |
# | **nn / optim / data** | layers, losses, optimizers, data loading | `nn/`, `optim/`, `data/` | 7, 8 |
#
# ### Layer 1: a tensor is a flat storage plus a layout
#
# `x` looks like a 4×3 grid, but its numbers live in one flat, 1-D block of memory (the
# *storage*). Three small tuples say how to read it: the **shape**, the **strides** (how
# many cells to jump to move one step along each dimension) and the **offset** (where
# element `[0, 0]` sits).

# %%
print("shape  ", x.shape)
print("strides", x.stride())
print("offset ", x.storage_offset())
print("storage", x._storage[:6], "...")   # PyTorch: x.untyped_storage()

# %% [markdown]
# Element `x[i, j]` lives at `offset + i * 3 + j * 1`. Transposing does not move a single
# number: it only swaps the strides. That is why `x.t()` is instant even on a huge tensor.

# %%
xt = x.t()
print("strides of x.t():", xt.stride(), "  same storage:", xt._storage is x._storage)

# %% [markdown]
# ### Layers 2 and 3: dispatch picks a kernel, the kernel loops
#
# Every operation ends in a handful of *primitive kernels*: `map` (one input), `zip` (two
# inputs), `reduce`, `matmul`, and a few more. `minitorch.dispatch.trace()` records each
# kernel call, the way PyTorch's profiler does.

# %%
from minitorch.course.show import show_trace

with minitorch.dispatch.trace() as calls:
    y = (x @ w).relu()
    loss = y.sum()
show_trace(calls)

# %% [markdown]
# Read the table: `@` became a `matmul` kernel, `relu` a `map` kernel, `sum` a `reduce`
# kernel. The *backend* column says which implementation ran: `reference` is minitorch's
# plain-Python one, written to be read; chapter 5 adds a compiled one (Numba) and chapter 6
# a GPU one (CUDA). **Python decides what to compute; kernels do the computing.** This
# separation of *control flow* (Python: loops, ifs, which op comes next) from *data flow*
# (kernels: the arithmetic on many numbers) is the central idea of PyTorch's design.
#
# ### Layer 4: autograd recorded a graph while we computed
#
# Because `w` requires a gradient, each operation left a node behind: `loss.grad_fn`
# points to the node that made `loss`, which points to the nodes that made *its* inputs,
# and so on down to `w`. PyTorch calls this **define-by-run**: the graph is built by
# running ordinary Python code, anew on every run.

# %%
from minitorch.course.show import show_graph

show_graph(loss)

# %%
loss.backward()
print("d loss / d w =")
print(w.grad)

# %% [markdown]
# `backward()` walked that graph from `loss` back to `w`, multiplying local derivatives
# (the chain rule). Chapter 4 steps through it node by node.
#
# ### Layer 5: nn, optim and data
#
# Real models are built from `nn.Module`s (layers that own their parameters), trained by
# optimizers that update parameters from their `.grad`, and fed by a `DataLoader`.
# Chapters 7 and 8 train real networks with them, including a CNN that reads handwritten
# digits.
#
# ## minitorch speaks PyTorch
#
# The names, arguments and error messages follow PyTorch, so this works:

# %%
import minitorch as torch

a = torch.arange(6, dtype=torch.float32).view(2, 3)
b = torch.ones(3)
print(a + b)           # broadcasting, as in PyTorch
print(a.sum(dim=1))    # reductions take dim and keepdim
try:
    a @ a              # shapes (2, 3) @ (2, 3) do not match
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown]
# Errors are raised *before* any kernel runs, with a message that names the fix: fast
# kernels never check bounds, so nothing invalid may reach them (chapter 3).
#
# ## The course
#
# | # | notebook | you will see |
# | --- | --- | --- |
# | 1 | tensors, storage and strides | index arithmetic; why views are free |
# | 2 | views and broadcasting | transpose, slicing, `expand` with stride 0, when `view` must copy |
# | 3 | dispatch and kernels | the scalar-op table, the primitives, the reference kernels, type promotion |
# | 4 | autograd | the dynamic graph, stepping through backward, custom `Function`s, gradcheck |
# | 5 | fast CPU kernels | Numba, parallel loops, contiguous fast paths, matmul measured live |
# | 6 | GPU kernels | threads and blocks, tiled matmul, asynchronous launches, the memory pool |
# | 7 | modules and training | `nn.Module`, optimizers, `DataLoader`, train/eval, save/load, the Playground |
# | 8 | CNNs on digits | convolution as a strided view plus matmul, pooling, a CNN that trains |
# | 9 | static graphs | `minitorch.compile`: capture once, replay; guards, passes, replay speed |
# | 10 | memory and asynchrony | views versus copies in bytes, the caching allocator, `del` and reference counts, shared memory, DataLoader workers, streams and events |
# | 11 | distributed training | MPI ranks behind the notebook, `all_reduce`, `DistributedDataParallel` and its overlap on a rank timeline, the ring all-reduce's cost, a parameter server, a pipeline and its bubble |
#
# Each chapter's exercises live in `exercises/` with the same number.
#
# ## Summary
#
# * A tensor is a flat **storage** read through a **layout** (shape, strides, offset).
# * Every operation becomes a few **primitive kernels**, chosen by **dispatch** for the
#   tensor's device and dtype; Python only decides *what* runs next.
# * **Autograd** records a graph while the code runs and walks it backwards.
# * minitorch has PyTorch's API, so everything you learn here is how PyTorch works too.
#
# Next: **1 · Tensors, storage and strides**.
