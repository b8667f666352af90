# %% [markdown]
# # 9 · Static graphs: capture once, replay many times
#
# **Goal (about 40 minutes):** understand what a framework gains and loses when it runs
# a **static graph** instead of executing each line as it comes (**define-by-run**). You
# will build a TensorFlow 1 style graph by hand (placeholders, then a session that runs
# it), capture a real training step with `minitorch.compile`, see what tracing **bakes
# in** (Python control flow, shapes, Python numbers), watch the **guards** decide when a
# graph must be captured again, **inspect** a graph node by node, and **time** eager
# against replayed execution.
#
# Exercises: `exercises/09_static_graphs.ipynb` (read a graph's buffers; write and time a
# fusion pass of your own).

# %% setup(backend="numba")

# %%
import time

import minitorch
from minitorch import widgets
from minitorch.compiler import CaptureError

# %% [markdown]
# ## Define-by-run versus build-then-run
#
# Everything so far was **define-by-run** (eager): each line runs its kernels at once,
# and the autograd graph of chapter 4 is recorded as a side effect. TensorFlow 1 worked
# the other way round. You first **built** a graph of symbolic nodes, with
# `tf.placeholder` standing for data that did not exist yet, and then asked a
# `tf.Session` to **run** it with real values fed in:
#
#     x = tf.placeholder(tf.float32, [None, 2])      # no data: a promise of data
#     h = tf.tanh(tf.matmul(x, w) + b)               # no arithmetic happens here
#     with tf.Session() as session:
#         print(session.run(h, feed_dict={x: batch}))  # now it runs, as a whole
#
# TensorFlow is not needed to see the idea: a symbolic node is a small Python object that
# remembers an op and its inputs, and the "session" walks the nodes and evaluates them.

# %%
class Symbol:
    """A node of a graph being built: an op and its input symbols; no values yet."""

    def __init__(self, op, *inputs, name=""):
        self.op, self.inputs, self.name = op, inputs, name

    def __add__(self, other):
        return Symbol("add", self, other)

    def __matmul__(self, other):
        return Symbol("matmul", self, other)

    def tanh(self):
        return Symbol("tanh", self)

    def __repr__(self):
        return self.name or f"{self.op}({', '.join(map(repr, self.inputs))})"


def placeholder(name):
    return Symbol("placeholder", name=name)


class Session:
    """Runs a built graph: evaluate each node once its inputs have values (deferred
    execution: nothing ran while the graph was built)."""

    KERNELS = {"add": lambda a, b: a + b, "matmul": lambda a, b: a @ b, "tanh": lambda a: a.tanh()}

    def run(self, output, feed_dict):
        values = dict(feed_dict)  # symbol -> tensor

        def evaluate(symbol):
            if symbol not in values:
                values[symbol] = self.KERNELS[symbol.op](*map(evaluate, symbol.inputs))
            return values[symbol]

        return evaluate(output)


minitorch.manual_seed(0)
w, b = minitorch.randn(2, 3), minitorch.randn(3)
x_in, w_in, b_in = placeholder("x"), placeholder("w"), placeholder("b")
h = (x_in @ w_in + b_in).tanh()                      # build: no arithmetic yet
print("built:", h)
batch = minitorch.randn(4, 2)
static_result = Session().run(h, {x_in: batch, w_in: w, b_in: b})   # run
eager_result = (batch @ w + b).tanh()                # define-by-run: runs as it goes
print("same values:", bool((static_result == eager_result).all()))

# %% [markdown]
# The build-then-run style has a cost: the program is not Python any more. A Python `if`
# on a value cannot go into the graph (TensorFlow 1 needed `tf.cond` and `tf.while_loop`),
# and debugging means inspecting symbols, not numbers. Its gain: the whole computation is
# known **before** it runs, so the framework can optimise it as a whole (fuse kernels,
# drop dead code, plan memory), run it without any Python op logic, and ship it to
# another runtime.
#
# Modern frameworks get both: you write eager code, and a compiler **traces** one run into
# a graph (`torch.compile`, `tf.function`, `jax.jit`). minitorch's is `minitorch.compile`.

# %% [markdown]
# ## `minitorch.compile`: trace an eager function into a graph
#
# `minitorch.compile(fn)` runs the first call eagerly (a **warm-up**: `p.grad` and
# optimizer state now exist), runs the second call eagerly too while recording every
# **kernel call** dispatch makes (chapter 3), and from then on **replays** that recording:
# the kernels run, and no op logic, autograd or Python of `fn`'s body does.

# %%
minitorch.manual_seed(0)
model = minitorch.nn.Sequential(minitorch.nn.Linear(2, 16), minitorch.nn.Tanh(), minitorch.nn.Linear(16, 2))
optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)
x, y = minitorch.randn(64, 2), (minitorch.rand(64) * 2).long()


def train_step(x, y):
    optimizer.zero_grad()
    loss = minitorch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


step = minitorch.compile(train_step)
for i in range(4):
    loss = step(x, y)
    print(f"call {i}: loss {loss.item():.4f}", "(eager warm-up)" if i == 0 else
          "(eager, captured)" if i == 1 else "(replayed)")  # fmt: skip

# %% [markdown]
# ## Inspecting a graph
#
# `step.graph` is a `Graph`: a list of **buffers** (flat storages) and a list of
# **nodes** (kernel calls, each with its `primitive`, its `args` with `Operand`s
# `b3[16, 2]@(1, 2)` (buffer, shape, strides) in place of tensors, the user-facing `op`
# that launched it, and its `phase`). A buffer's **kind** says who owns it:
#
# | kind | what it is |
# |---|---|
# | `input` | the storage of an argument: a replay uses the new argument's storage |
# | `variable` | a storage that existed before the capture (parameters, optimizer state), updated in place |
# | `constant` | made from host data during the capture (`x * 0.5`'s 0.5, the ones that seed `backward`) |
# | `temp` | allocated by the computation: every intermediate result, the graph's own |
# | `state` | a temp still referenced after the function returned (`p.grad`) |

# %%
print(step.graph)

# %%
graph = step.graph
kinds = {}
for buffer in graph.buffers:
    kinds[buffer.kind] = kinds.get(buffer.kind, 0) + 1
print("buffers by kind:", kinds)
phases = {}
for node in graph.nodes:
    phases[node.phase] = phases.get(node.phase, 0) + 1
print("nodes by phase:", phases)
first = graph.nodes[0]
print(f"{first.name}: primitive={first.primitive!r} op={first.op!r} phase={first.phase!r}")
print("  writes", first.writes)
print("  reads ", first.reads)

# %% [markdown]
# The graph viewer draws it as dataflow, in forward, backward and optimizer bands, beside
# the autograd graph an eager call builds (`autograd=`: here, the loss of one eager
# forward).

# %%
eager_loss = minitorch.nn.functional.cross_entropy(model(x), y)
widgets.graph(step, autograd=eager_loss)

# %% [markdown]
# ## What tracing bakes in
#
# A trace records **what happened** on one call. Every Python decision taken during that
# call is frozen into the graph: the branch of an `if`, the number of loop iterations,
# every shape, every Python number. Two consequences.
#
# **Decisions made from tensor values cannot be traced.** `loss.item() > 1` needs the
# value on the host, and a replay would silently repeat this call's choice. minitorch
# refuses with a `CaptureError` that points at the line:

# %%
def clipped(x):
    loss = (x * x).mean()
    if loss.item() > 1:          # a Python decision from a value
        loss = loss / loss.item()
    return loss


try:
    risky = minitorch.compile(clipped)
    for _ in range(2):
        risky(x)
except CaptureError as error:
    print("CaptureError:", str(error)[:260], "...")

# %% [markdown]
# The fixes: compute on tensors instead of branching (`loss / loss.clamp(min=1)`), or
# read the value outside the compiled function.
#
# **Python values become guards.** A Python number argument is part of the graph (it was
# baked into a kernel's arguments), so a new value means a new graph:
# `fn.recaptures` records each re-capture with its reason.

# %%
def scaled_sum(x, k):
    return (x * k).sum()


scaled = minitorch.compile(scaled_sum)
for k in (1.0, 1.0, 1.0, 2.0, 2.0):
    scaled(x, k)
print(scaled.recaptures)

# %% [markdown]
# ## Guards and re-capture
#
# Before replaying, a compiled function checks the call's **guard key**: the shapes,
# dtypes and devices of the tensor arguments, the Python arguments, grad mode and the
# backend. A graph is kept per key (up to 8), like `torch.compile`'s cache, so switching
# back to an old shape replays its graph again. A smaller last batch is the classic case:

# %%
for n in (64, 64, 32, 32, 32, 64):
    step(minitorch.randn(n, 2), (minitorch.rand(n) * 2).long())
print(step.explain())
for kept in step.graphs.values():  # one graph per guard key
    print("graph for", kept.buffers_of("input")[0], "-", len(kept.nodes), "nodes")

# %% [markdown]
# ## Replay speed
#
# What does skipping the op logic buy? Time the same training step eagerly and replayed.
# Measuring honestly takes care:
#
# * **warm up** first: the first calls compile Numba kernels and capture the graph;
# * **repeat** and take the **best** of several runs: other programs on the machine only
#   ever make a run slower, so the minimum is the least disturbed measurement;
# * compare **within one run**, interleaved, not against a number from yesterday.

# %%
def best_of(fn, repeats=5, calls=20):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(x, y)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


for _ in range(3):  # warm-up: kernels compiled, graph captured for this shape
    step(x, y)
    train_step(x, y)
eager_time, replay_time = best_of(train_step), best_of(step)
print(f"eager:    {eager_time * 1e6:6.0f} µs per step")
print(f"replayed: {replay_time * 1e6:6.0f} µs per step  ({eager_time / replay_time:.1f}x faster)")

# %% [markdown]
# For a small model nearly all of an eager step is Python: building autograd nodes,
# checking arguments, choosing kernels. A replay keeps only the kernel calls, which is why
# static graphs matter most for small, fast steps.
#
# ## Passes: optimising the graph as a whole
#
# Between capture and replay, **passes** rewrite the graph (`graph -> graph`, one file
# each in `minitorch/compiler/passes/`). `minitorch.compiler.PASSES` lists them;
# `minitorch.compile(fn, passes=[...])` picks some, and the graph's listing names those
# that ran. The training step above ran the default ones: `constant_folding` (compute at
# capture time what depends only on constants), `common_subexpressions` (one kernel call
# for two identical ones), `dead_code` (drop calls whose results nobody uses) and
# `plan_memory` (temps whose lifetimes do not overlap share storage: the "temp memory"
# line of the listing, `graph.memory`). `fuse_elementwise` is opt-in:

# %%
print("passes:", list(minitorch.compiler.PASSES))
print("run by default:", minitorch.compiler.DEFAULT_PASSES)


def block(x, y):
    return ((x + y).tanh() * 2).exp()


a, c = minitorch.randn(4, 3), minitorch.randn(4, 3)
fused = minitorch.compile(block, passes=["dead_code", "fuse_elementwise"])
for _ in range(3):
    fused(a, c)
print(fused.graph)
fused_node = next(node for node in fused.graph.nodes if node.primitive == "fused")
print(fused.graph.source(fused_node))

# %% [markdown]
# `fuse_elementwise` turned four kernels (each reading and writing a whole tensor) into
# one generated Numba loop that keeps the intermediates in registers. In the exercises you
# write a small fusion pass yourself and time it.
#
# ## Summary
#
# * **Build-then-run** (TensorFlow 1: placeholders, a session) knows the whole program
#   before running it; **define-by-run** (eager) runs each line as it comes and is plain
#   Python to write and debug.
# * `minitorch.compile(fn)` **traces** an eager function: warm-up call, captured call,
#   then replays of the recorded kernel calls with no op logic.
# * Tracing **bakes in** Python control flow, shapes and Python numbers. Reading a value
#   (`.item()`) inside is refused with a `CaptureError`; new shapes or numbers fail the
#   **guards** and cause a re-capture (`fn.recaptures`, `fn.explain()`).
# * A `Graph` is buffers (input, variable, constant, state, temp) and nodes (kernel
#   calls): print it, walk `graph.nodes`, draw it with `minitorch.widgets.graph(fn)`.
# * Measure with warm-up and the best of repeats; a replay saves the per-op Python cost.
# * **Passes** optimise the graph as a whole: dead code, fusion and more.
#
# Exercises: `exercises/09_static_graphs.ipynb`.
