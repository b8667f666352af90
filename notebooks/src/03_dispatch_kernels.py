# %% [markdown]
# # 3 · Dispatch and kernels
#
# **Goal (about 35 minutes):** follow one operation from Python down to the loop that
# computes it. You will meet the **scalar-op table** (each elementwise op written once),
# the handful of **primitive kernels** every op reduces to, the **reference backend**
# (kernels as plain Python loops), the **dispatcher** that picks a kernel for the tensor's
# device and dtype, **type promotion**, and the checks that must happen *before* a kernel
# runs. This is the same structure as PyTorch's dispatcher and ATen kernels, in a few
# hundred readable lines.
#
# Exercises: `exercises/03_dispatch_kernels.ipynb` (`map_kernel`, `zip_kernel`,
# `sum_kernel`).

# %% setup(backend="reference")

# %%
import inspect

import minitorch
from minitorch import dispatch
from minitorch.backends import Strided
from minitorch.backends import reference
from minitorch.scalar_ops import MAP_OPS, REDUCE_OPS, ZIP_OPS
from minitorch.course.show import show_trace

# %% [markdown]
# ## Few kernels, many ops
#
# PyTorch has thousands of operators. Writing each one for every device and dtype would
# be hopeless, so frameworks factor them. minitorch takes this to the extreme: a backend
# implements only these **primitives**:
#
# | primitive | loop | used by |
# | --- | --- | --- |
# | `map(op, out, a)` | `out[i] = f(a[i])` | `exp`, `neg`, `relu`, casts, copies... |
# | `zip(op, out, a, b)` | `out[i] = f(a[i], b[i])` | `+ - * /`, comparisons, `maximum`... |
# | `where(out, c, a, b)` | `out[i] = a[i] if c[i] else b[i]` | `where`, masking |
# | `reduce(op, out, a, dim)` | fold one dimension | `sum`, `prod`, `max`, `mean`... |
# | `arg_reduce`, `gather`, `scatter_add` | the few that need their own loop | `argmax`, indexing |
# | `matmul(out, a, b)` | `out[z,i,j] = Σ_k a[z,i,k]·b[z,k,j]` | `@`, `nn.Linear`, convolution |
# | `scan`, `softmax`, `log_softmax_backward`, `sort` | one whole line at a time | `cumsum`, `softmax`, `cross_entropy`, `sort` |
#
# (and the matrix factorisations `lu_factor`, `lu_solve`, `svd`; `docs/architecture.md`
# lists every one.) Composite ops are *built* from these: `mean` is a `sum` and a division.
# `softmax` could be built too, from a `max`, a subtraction, an `exp`, a `sum` and a
# division: five passes over the tensor. But each line's outputs need only that line, so
# one kernel can take a line at a time and read it while it is still in the cache: it is
# a primitive of its own (so is the gradient of `log_softmax`). Let the trace prove it:

# %%
x = minitorch.randn(2, 5)
with dispatch.trace() as calls:
    y = x.softmax(dim=1)
show_trace(calls)

# %% [markdown]
# ## The scalar-op table
#
# Which function does `map` apply? `minitorch/scalar_ops.py` writes each elementwise
# operation **once**, as a row holding its Python scalar function (used by the reference
# and Numba backends) *and* its CUDA C expression (pasted into the GPU kernels). Adding an
# elementwise op to minitorch means adding one row, plus its derivative: no backend
# changes at all.

# %%
for name in ["exp", "relu", "sigmoid"]:
    row = MAP_OPS[name]
    print(f"{name:>8}: Python {inspect.getsource(row.fn).splitlines()[1].strip():<40} CUDA: {row.cuda}")
for name in ["add", "maximum"]:
    print(f"{name:>8}: CUDA: {ZIP_OPS[name].cuda}")
print(f"\n{len(MAP_OPS)} map ops, {len(ZIP_OPS)} zip ops, reductions: {list(REDUCE_OPS)}")

# %% [markdown]
# ## Reading the reference backend
#
# `minitorch/backends/reference.py` is the **executable specification**: the simplest loop
# that is obviously right, for every primitive. The fast backends (Numba, CUDA) are tested
# against it. Here is `map`, in full:

# %%
print(inspect.getsource(reference.map))

# %% [markdown]
# A kernel never sees a `Tensor`. It sees `Strided` operands: the flat storage and the
# layout `(shape, strides, offset)` from chapter 1. The loop is the one you met there:
# ordinal → index → position, for each operand with *its own* strides.
#
# You can call a kernel yourself. Here `out` is the transpose of a fresh tensor, so the
# kernel writes into storage in a jumping order, and the input is a broadcast view:

# %%
a = minitorch.tensor([1.0, 2.0, 3.0]).expand(2, 3)     # strides (0, 1)
out = minitorch.zeros(3, 2).t()                         # shape (2, 3), strides (1, 2)


def strided(t):
    return Strided(t._storage, tuple(t.shape), t.stride(), t.storage_offset())


reference.map("neg", strided(out), strided(a))
print(out)
print("out's storage:", out._storage)

# %% [markdown]
# And `reduce`, which folds one dimension. Note how the output keeps the reduced
# dimension with size 1 (`keepdim`); the op layer squeezes it afterwards if you asked
# for `keepdim=False`:

# %%
print(inspect.getsource(reference.reduce))

# %% [markdown]
# ## The dispatcher
#
# Between the op and the kernel sits `minitorch/dispatch/`, the only package that knows
# backends exist. For every call it:
#
# 1. checks that all tensors are on one device;
# 2. picks the backend registered for that device (`set_backend`, or `with backend(...)`);
# 3. hands the kernel `Strided` operands;
# 4. when tracing, records the call (op, primitive, backend, dtype, shapes, strides, time).
#
# PyTorch's dispatcher does the same with more keys: besides the device (CPU, CUDA, ...)
# it dispatches on autograd, tracing, batching and more, each a "dispatch key" in a table.
# Here is a forward *and* backward pass of a tiny layer; the `phase` column tells them
# apart, and the `path` column says whether every operand was contiguous:

# %%
w = minitorch.randn(3, 4, requires_grad=True)
b = minitorch.zeros(4, requires_grad=True)
inputs = minitorch.randn(8, 3)
with dispatch.trace() as calls:
    loss = (inputs @ w + b).relu().mean()
    loss.backward()
show_trace(calls)

# %% [markdown]
# Notice that the backward pass is made of ordinary ops too (`Mul`, `Sum`, `Matmul` after
# `ReluBackward0`): each backward formula is a tensor expression, dispatched like any
# other. The totals per primitive:

# %%
for primitive, (count, seconds) in calls.totals("primitive").items():
    print(f"{primitive:>8}: {count} calls, {seconds * 1e3:.2f} ms")

# %% [markdown]
# `MINITORCH_DEBUG=1` (an environment variable) prints every call as it happens, like
# tinygrad's `DEBUG`; `minitorch.dispatch.set_debug(1)` does the same from Python.
#
# Switching the CPU backend is one line. The same program then runs on other kernels:

# %%
print("current CPU backend:", minitorch.get_backend("cpu"))
print("backends minitorch knows:", list(dispatch.BACKENDS))
with minitorch.backend("reference"):
    print((minitorch.ones(3) * 2).tolist())

# %% [markdown]
# ## Type promotion: which dtype does the result have?
#
# `int_tensor * 2.5` cannot stay an integer. PyTorch's rules, which minitorch follows
# (`minitorch/dtypes.py`):
#
# 1. categories are ordered bool < integer < floating point;
# 2. tensors with dimensions decide first; a Python number (or a 0-d tensor) only wins if
#    it is of a **higher category**, so `float32_tensor * 2.5` stays `float32`: a scalar
#    does not upcast;
# 3. a Python float counts as the default dtype (`float32`), a Python int as `int64`.
#
# The op converts operands to the result dtype *before* the kernel runs (a `map("copy")`
# when needed), so every kernel sees inputs of one dtype.

# %%
i = minitorch.tensor([1, 2, 3])                      # int64
f32 = minitorch.ones(3)                              # float32
f64 = minitorch.ones(3, dtype=minitorch.float64)
cases = {
    "int64 * 2.5": i * 2.5,
    "int64 * 2": i * 2,
    "float32 * 2.5": f32 * 2.5,
    "float32 * float64": f32 * f64,
    "float32 * 0-d float64": f32 * minitorch.tensor(2.0, dtype=minitorch.float64),
    "bool + int64": minitorch.tensor([True, False]) + minitorch.tensor([1, 1]),
    "int64 / int64": i / i,
}
for name, result in cases.items():
    print(f"{name:>24} -> {result.dtype}")

# %% [markdown]
# ## What must be checked before a kernel runs
#
# Fast kernels do **no** bounds checks: a Numba loop or a CUDA thread reading index 7 of a
# 5-element array silently reads whatever memory is there (or crashes the process). So
# every check happens in Python, in the op layer and dispatcher, *before* the kernel:
# shapes broadcast, devices match, indices are in range, integer division is not by zero.
# The error is PyTorch's type with a message that names the fix:

# %%
checks = {
    "shapes": lambda: minitorch.ones(3) + minitorch.ones(4),
    "index": lambda: minitorch.arange(5)[minitorch.tensor([7])],
    "gather index": lambda: minitorch.gather(minitorch.ones(2, 2), 1, minitorch.tensor([[0, 5], [0, 0]])),
    "integer division": lambda: minitorch.tensor([1, 2]) // minitorch.tensor([0, 1]),
    "matmul shapes": lambda: minitorch.ones(2, 3) @ minitorch.ones(2, 3),
}
for what, bad in checks.items():
    try:
        bad()
    except (RuntimeError, IndexError, ZeroDivisionError, ValueError) as error:
        print(f"{what:>16}: {type(error).__name__}: {str(error)[:110]}")

# %% [markdown]
# ## Python control flow, kernel data flow
#
# Look at what actually happens when Python runs a training step: the interpreter walks
# your code line by line (loops, `if`s, function calls) and every tensor operation
# *launches a kernel*. Python never touches the numbers itself; kernels do. A Python
# loop of 5 iterations issues 5 × (its ops) kernel launches:

# %%
h = minitorch.randn(4, 4)
with dispatch.trace() as calls:
    for step in range(5):
        h = (h * 0.5).tanh()
print(len(calls), "kernel calls:", [c.kernel for c in calls][:6], "...")

# %% [markdown]
# This split explains several PyTorch habits:
#
# * **Per-op overhead matters.** Each launch costs Python and dispatch time (microseconds)
#   no matter how small the tensor, so many tiny ops are slow; fusing them into one kernel
#   is a classic optimisation (that is what `torch.compile` does).
# * **Reading a value back is a synchronisation point.** `if loss.item() > 1:` makes Python
#   wait for the number. On a GPU, where kernels run asynchronously (chapter 6), this stalls
#   the pipeline; keep decisions on tensors (`torch.where`) inside the data flow instead.
# * **Data-dependent control flow is free to write.** Because the graph of operations is
#   just what Python happened to execute, a loop whose length depends on the data is
#   ordinary Python. Chapter 4 contrasts this with TensorFlow's static graphs.
#
# ## Summary
#
# * Every op reduces to a few **primitive kernels**; elementwise ops are rows of the
#   **scalar-op table** with a Python and a CUDA spelling.
# * The **reference backend** is the spec: ordinal → index → position, per operand.
# * **Dispatch** checks devices, picks the backend for the device, hands kernels
#   `Strided` operands, and can trace every call.
# * **Type promotion** decides the result dtype before the kernel runs; a Python scalar
#   never upcasts a tensor.
# * All validity checks happen **before** kernels, which never bounds-check.
# * Python is the **control flow**, kernels are the **data flow**.
#
# Exercises: `exercises/03_dispatch_kernels.ipynb`. Next: **4 · Autograd**.
