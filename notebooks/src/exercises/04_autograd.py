# %% [markdown]
# # Exercises 4 · Autograd
#
# **Goal:** write two differentiable operations as `autograd.Function`s, then the
# ordering step of the backward engine. The checks compare your Functions with the same
# formula written in built-in ops: forward values *and* gradients, on non-contiguous and
# broadcast inputs, with a random incoming gradient (so a forgotten chain rule shows).

# %% setup(backend="reference")

# %%
import minitorch
from minitorch.autograd import Function
from minitorch.course import check_function, check_topological_order

# %% [markdown]
# ## Exercise 1: `Softplus`
#
# $\text{softplus}(x) = \log(1 + e^x)$, a smooth version of ReLU. Its derivative is
# $\frac{d}{dx}\text{softplus}(x) = \frac{e^x}{1 + e^x} = \sigma(x)$, the sigmoid.
# In `forward`, compute with tensor ops (`x.exp()`, `.log1p()`, ...) and save what
# `backward` needs with `ctx.save_for_backward`. In `backward`, return
# `grad * local derivative`.

# %% exercise=softplus
class Softplus(Function):
    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError  # your code here

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError  # your code here

# %%
check_function(Softplus, lambda x: x.exp().log1p(), name="Softplus")

# %% [markdown]
# ## Exercise 2: `Hypot`, a function of two inputs
#
# $h(a, b) = \sqrt{a^2 + b^2}$, with $\frac{\partial h}{\partial a} = \frac{a}{h}$ and
# $\frac{\partial h}{\partial b} = \frac{b}{h}$. `backward` returns a tuple
# `(grad_a, grad_b)`, in the order of `forward`'s arguments.
#
# The inputs may have different shapes that broadcast (e.g. `(3, 4)` and `(4,)`). You do
# **not** need to handle that in `backward`: return gradients of the output's shape, and
# the engine sums each one back to its input's shape (un-broadcasting).

# %% exercise=hypot
class Hypot(Function):
    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError  # your code here

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError  # your code here

# %%
check_function(Hypot, lambda a, b: (a * a + b * b).sqrt(), name="Hypot", arity=2, positive=True)

# %% [markdown]
# ## Exercise 3: `topological_order`
#
# The backward engine may only run a node once every node that sends it a gradient has
# run. Write `topological_order(root)`: given the output's `grad_fn`, return a list of
# all nodes reachable through `next_functions` (each exactly once; skip `None` entries),
# such that every node comes **before** all the nodes in its `next_functions`.
#
# Each node has `node.next_functions`, a tuple of `(next_node, output_number)` pairs.
# Nodes are hashable, so you can keep them in a `set`. Hint: a depth-first search that
# appends a node *after* visiting all its children produces the exact reverse of what you
# need. (Beware of recursion on very long chains; a loop with an explicit stack is
# safest.)

# %% exercise=topological_order
def topological_order(root):
    """All nodes reachable from `root`, each before the nodes it sends gradients to."""
    raise NotImplementedError  # your code here

# %%
check_topological_order(topological_order)

# %% [markdown]
# ## Going further
#
# * Use your `topological_order` to run backward yourself: keep a dict of gradients per
#   node, call `node.apply([grad])` in order, add results into the next nodes' entries
#   (under `minitorch.no_grad()`), and compare with `.backward()`.
# * Check your `Softplus` with `minitorch.autograd.gradcheck` on a float64 input.
