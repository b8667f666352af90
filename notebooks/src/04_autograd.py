# %% [markdown]
# # 4 · Autograd: the graph that builds itself
#
# **Goal (about 40 minutes):** understand reverse-mode automatic differentiation the way
# PyTorch does it. You will watch the **dynamic graph** being recorded as code runs
# (*define-by-run*), compare it with **TensorFlow's static graphs**, **step through
# backward** node by node by hand, write a **custom `autograd.Function`**, verify it with
# **gradcheck**, and see **why the graph is freed** after `backward()`.
#
# Exercises: `exercises/04_autograd.ipynb` (a `Softplus` and a `Hypot` Function, and the
# backward engine's `topological_order`).

# %% setup(backend="reference")

# %%
import gc
import weakref

import minitorch
from minitorch.autograd import Function, gradcheck
from minitorch.course.show import show_graph

# %% [markdown]
# ## The graph is recorded while the code runs
#
# A tensor created with `requires_grad=True` is a **leaf**. Every operation on it runs its
# kernel *and* leaves a node behind: the result's `grad_fn`. Each node knows the nodes
# of its inputs through `next_functions`. Following those pointers from the loss down to
# the leaves *is* the graph; there is no other graph object.

# %%
x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()
z = (y * y).sum()
print("x.is_leaf:", x.is_leaf, "| x.grad_fn:", x.grad_fn)
print("y.grad_fn:", y.grad_fn)
print("z.grad_fn:", z.grad_fn, "->", z.grad_fn.next_functions)
show_graph(z)

# %% [markdown]
# Two details to notice. `MulBackward0` has *two* edges to the same `ExpBackward0`,
# because `y` is used twice: gradients along both edges will be **added** (fan-out means
# summation). And the leaf `x` ends in an `AccumulateGrad` node, whose job is to add the
# arriving gradient into `x.grad`.
#
# ### Define-by-run: a new graph every time
#
# Because nodes are created by running Python, the graph follows your control flow. A
# loop whose length depends on the data, or an `if` on a value, simply produces a
# different graph on each run:

# %%
def f(t):
    steps = 0
    while t.abs().sum().item() < 10:   # data-dependent loop: ordinary Python
        t = t * 2
        steps += 1
    return t.sum(), steps


for start in [0.5, 3.0]:
    leaf = minitorch.tensor([start], requires_grad=True)
    out, steps = f(leaf)
    out.backward()
    print(f"start {start}: {steps} doublings, gradient {leaf.grad.item()} (= 2**{steps})")

# %% [markdown]
# ### How TensorFlow's static graphs differ
#
# TensorFlow 1 (and `tf.function` in TensorFlow 2) works the other way round: you first
# **describe** the whole computation as a graph, a data structure, and then **run** it,
# many times, on different inputs. Python runs once, to build; the runtime executes the
# graph without Python. Roughly:
#
# ```python
# # not runnable: TensorFlow 1 code, shown for comparison
# # TensorFlow 1 style: build first ...
# x = tf.placeholder(tf.float32, [None, 3])
# loss = tf.reduce_sum(tf.exp(x) ** 2)
# grad = tf.gradients(loss, x)           # ... the backward graph is built symbolically too
# # ... then run, feeding data
# with tf.Session() as s: s.run(grad, feed_dict={x: data})
# ```
#
# A data-dependent `while` like `f` above cannot be a Python loop there: Python would run
# it once, while *building*, when no data exists. It must be written as a graph op
# (`tf.while_loop`, `tf.cond`). In exchange, a static graph can be optimised as a whole
# before it runs: operations fused, memory planned in advance, the graph shipped to a
# device or a phone without Python. PyTorch gets some of that back with `torch.compile`,
# which *captures* a graph from running code. The trade-off in one line: **define-by-run
# is easy to write and debug; define-then-run is easy to optimise.**
#
# Here is the static idea in miniature: a graph as plain data, and an interpreter that
# runs it. Nothing is computed until `run` is called.

# %%
static_graph = [            # (output name, op, input names): built once, before any data
    ("y", "exp", ("x",)),
    ("y2", "mul", ("y", "y")),
    ("loss", "sum", ("y2",)),
]
ops = {"exp": lambda a: a.exp(), "mul": lambda a, b: a * b, "sum": lambda a: a.sum()}


def run(graph, feed):
    values = dict(feed)
    for name, op, inputs in graph:
        values[name] = ops[op](*(values[i] for i in inputs))
    return values


print(run(static_graph, {"x": minitorch.tensor([1.0, 2.0, 3.0])})["loss"])
print(run(static_graph, {"x": minitorch.tensor([0.0])})["loss"])

# %% [markdown]
# ## Stepping through backward by hand
#
# `backward()` walks the graph from the output, calling each node's backward with the
# gradient of its output and passing the results along `next_functions`. Let us do the
# walk ourselves for `z = sum(exp(x) * exp(x))`. Each node's `apply` takes the list of
# gradients of its outputs and returns the gradients for its inputs. (We run it under
# `no_grad` so that our manual walk does not itself record a graph.)

# %%
with minitorch.no_grad():
    sum_node = z.grad_fn
    (grad_y2,) = sum_node.apply([minitorch.tensor(1.0)])        # d z / d y2 = 1 everywhere
    print("SumBackward0 ->", grad_y2)

    mul_node = sum_node.next_functions[0][0]
    grad_a, grad_b = mul_node.apply([grad_y2])                  # y2 = a * b: (grad*b, grad*a)
    print("MulBackward0 ->", grad_a, grad_b)

    exp_node = mul_node.next_functions[0][0]
    grad_y = grad_a + grad_b                                    # fan-out: the two edges add up
    (grad_x,) = exp_node.apply([grad_y])                        # d exp(x)/dx = exp(x)
    print("ExpBackward0 ->", grad_x)

print("expected 2 * exp(2x):", (2 * (2 * x.detach()).exp()))

# %% [markdown]
# The real engine (`minitorch/autograd/engine.py`, about 180 lines) does exactly this in
# general:
#
# 1. **count dependencies**: how many edges arrive at each node, so a node runs only once
#    *all* its gradients have arrived (`ExpBackward0` above had to wait for both);
# 2. run nodes in **topological order**, adding gradients that meet at a node;
# 3. **un-broadcast**: a gradient arriving for an input that was broadcast is summed back
#    to the input's shape (chapter 2);
# 4. **free** each node's saved tensors once it has run.
#
# You will write step 2's ordering yourself in the exercises.

# %%
z.backward()
print("x.grad after backward():", x.grad)

# %% [markdown]
# The same graph drawn the way micrograd's lecture and torchviz draw it: data flowing left
# to right, each leaf and output with its values and gradient, an ellipse per op. It is a
# Graphviz picture (`pip install 'minitorch[viz]'` and Graphviz's `dot`); without them,
# `draw_graph` opens the graph viewer instead.

# %%
import minitorch.viz

minitorch.viz.draw_graph(z, params={"x": x, "z": z})

# %% [markdown]
# Gradients **accumulate** into `.grad`: a second backward (of a new graph) adds to it.
# That is deliberate (it lets you sum gradients over several losses or micro-batches), and
# it is why training loops call `optimizer.zero_grad()` every step.

# %%
(x * 10).sum().backward()
print("after another backward:", x.grad, " (added 10 to each)")
x.grad = None     # what zero_grad(set_to_none=True) does

# %% [markdown]
# ## Writing your own `autograd.Function`
#
# Every differentiable op in minitorch is a `Function` with PyTorch's interface: a static
# `forward(ctx, ...)` that computes the result (no graph is recorded inside it), saving
# whatever backward will need on `ctx`; and a static `backward(ctx, grad)` that receives
# the gradient of the output and returns one gradient per input, by the chain rule:
# *input gradient = grad × local derivative*.
#
# Here is $\text{cube}(x) = x^3$, with $\frac{d}{dx} x^3 = 3x^2$:

# %%
class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)      # backward needs x
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x       # chain rule: grad times the local derivative


t = minitorch.tensor([1.0, 2.0, -1.0], requires_grad=True)
out = Cube.apply(t)
print(out, out.grad_fn)
out.sum().backward()
print(t.grad)

# %% [markdown]
# Compare with `minitorch/ops/unary.py`: each built-in op is written exactly like this,
# its derivative right beside its forward. Because `backward` uses tensor operations, the
# backward pass is itself recorded when you ask for it (`create_graph=True`), which is how
# second derivatives work.
#
# ## gradcheck: trust, but verify
#
# How do you know a backward formula is right? Compare it with **finite differences**:
# nudge each input element by ±ε and watch the output move,
# $\frac{\partial f}{\partial x_i} \approx \frac{f(x + \varepsilon e_i) - f(x - \varepsilon e_i)}{2\varepsilon}$.
# `gradcheck` does this for every input element and compares with the backward pass. Use
# `float64`: in `float32`, rounding errors of the difference quotient are larger than the
# tolerance.

# %%
t64 = minitorch.randn(4, dtype=minitorch.float64, requires_grad=True)
print("Cube passes gradcheck:", gradcheck(Cube.apply, (t64,)))


class BrokenCube(Cube):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x           # oops: forgot a factor x


try:
    gradcheck(BrokenCube.apply, (t64,))
except RuntimeError as error:
    print("BrokenCube:", str(error)[:300])

# %% [markdown]
# ## no_grad: computing without recording
#
# Recording costs memory (each node keeps the tensors its backward needs). When you only
# evaluate a model, or update parameters in an optimizer, wrap the code in
# `with minitorch.no_grad():`: results have no `grad_fn`, and nothing is kept.

# %%
w = minitorch.randn(3, requires_grad=True)
with minitorch.no_grad():
    prediction = w * 2
print("requires_grad inside no_grad:", prediction.requires_grad, "| grad_fn:", prediction.grad_fn)

# %% [markdown]
# ## Why the graph is freed
#
# To compute `exp`'s gradient, `ExpBackward0` keeps its *output* alive; `MulBackward0`
# keeps both inputs. For a deep network those **saved tensors** are most of the memory of a
# training step: every layer's activations. So as soon as `backward()` has used a node, it
# releases what the node saved. A second backward through the same graph then has nothing
# to work with, and says so:

# %%
a = minitorch.tensor([1.0, 2.0], requires_grad=True)
loss = (a.exp() * a).sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as error:
    print(str(error)[:160], "...")

# %% [markdown]
# Pass `retain_graph=True` to the first backward if you really need two. The nodes
# themselves are freed by **reference counting**: the only references to them are the
# `grad_fn` of the tensors they produced and the edges of later nodes. When the loss and
# intermediate tensors go out of scope (as they do at the end of each training step), the
# whole graph is released immediately:

# %%
loss = (a.exp() * a).sum()
node = weakref.ref(loss.grad_fn)
print("graph alive while `loss` exists:", node() is not None)
del loss
gc.collect()
print("after `del loss`:", node() is not None)

# %% [markdown]
# ### In-place changes to saved tensors are caught
#
# If you modify in place a tensor that a node saved, its backward would silently use the
# wrong values. The **version counter** of chapter 2 prevents that: a node remembers the
# version of each tensor it saved and checks it in backward.

# %%
a = minitorch.tensor([1.0, 2.0], requires_grad=True)
s = a.sigmoid()            # SigmoidBackward0 saves its output s
s.add_(1)                  # ... which we now modify in place
try:
    s.sum().backward()
except RuntimeError as error:
    print(str(error)[:230], "...")

# %% [markdown]
# ## Summary
#
# * Autograd records a **graph of nodes** while the code runs (`grad_fn`,
#   `next_functions`); leaves end in `AccumulateGrad`. It is rebuilt on every run, so
#   Python control flow just works (**define-by-run**). TensorFlow's **static graphs** are
#   built first and run later: harder to write, easier to optimise as a whole.
# * `backward()` runs nodes in **topological order**, adds gradients that meet
#   (fan-out), un-broadcasts, and **accumulates** into `.grad` (hence `zero_grad`).
# * A custom **`Function`**: `forward(ctx, ...)` saves what it needs,
#   `backward(ctx, grad)` returns *grad × local derivative* for each input.
# * **`gradcheck`** compares backward with finite differences (use float64).
# * **`no_grad`** records nothing. The graph's saved tensors are **freed** by backward
#   and the nodes by reference counting; the **version counter** catches in-place edits.
#
# Exercises: `exercises/04_autograd.ipynb`. Next: **5 · Fast CPU kernels**.
