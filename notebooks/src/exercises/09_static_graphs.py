# %% [markdown]
# # Exercises 9 · Static graphs
#
# **Goal:** read a captured graph with your own code, then write a small compiler pass
# of your own: fuse `zip:add` followed by `map:tanh` into one kernel, and measure it.
# Chapter 9 shows the pieces: `minitorch.compile`, `fn.graph`, its `buffers` and
# `nodes`.

# %% setup(backend="numba")

# %%
import time

import numpy as np

import minitorch
from minitorch.compiler import Node  # Node, flatten_outputs, as_array, np: for your pass
from minitorch.compiler.replay import flatten_outputs
from minitorch.course.static_graph_checks import as_array, check_buffer_bytes, check_fuse_add_tanh

# %% [markdown]
# ## Exercise 1: `buffer_bytes`
#
# Return `{kind: bytes}`: for each kind of buffer in `graph.buffers` ("input",
# "variable", "constant", "temp", "state"), the bytes all buffers of that kind take.
# A `Buffer` has `kind`, `count` (its number of **elements**) and `dtype` (a NumPy dtype:
# `dtype.itemsize` is bytes per element).

# %% exercise=buffer_bytes
def buffer_bytes(graph):
    raise NotImplementedError  # your code here

# %%
check_buffer_bytes(buffer_bytes)

# %% [markdown]
# ## Exercise 2: a fusion pass, `fuse_add_tanh`
#
# A pass is a function `graph -> graph`. Yours looks for a node `zip:add` (primitive
# `"zip"`, `node.kernel == "add"`, `node.args == ("add", out, a, b)`) directly followed
# by a `map:tanh` (`("tanh", out2, out)`) that reads the add's result, and replaces the
# two by **one** node:
#
#     Node("fused", (out2, a, b), node.device_type, op="Add, Tanh", phase=..., code=add_tanh_kernel)
#
# A replay calls `node.code(out2, a, b)` with each operand as a `Strided` (storage,
# shape, strides, offset); `as_array(s)` gives the NumPy view a strided operand points at.
#
# Fuse only when that is safe: the add's result must be a **temp**
# (`graph.buffers[i].kind`), read by nothing but the tanh (count the `node.reads` of every
# node), and not returned (`flatten_outputs(graph.outputs)` gives the returned specs,
# each with an `.operand`). Otherwise the buffer would never be written. End with
# `graph.nodes = ...` and `return graph.renumber()`.

# %% exercise=fuse_add_tanh
def add_tanh_kernel(out, a, b):
    raise NotImplementedError  # your code here


def fuse_add_tanh(graph):
    raise NotImplementedError  # your code here

# %%
check_fuse_add_tanh(fuse_add_tanh)

# %% [markdown]
# ## Measure it
#
# Compile the same function with and without your pass, warm both up, then take the best
# of a few repeats (the machine is shared: the best run is the least disturbed one).
# Your kernel is NumPy: it still makes the `a + b` temporary inside NumPy, so do not expect
# miracles; the library's `fuse_elementwise` pass generates one Numba loop instead.

# %%
def block(x, y):
    return (x + y).tanh() * 0.5


x, y = minitorch.randn(300, 300), minitorch.randn(300, 300)
plain = minitorch.compile(block, passes=["dead_code"])
fused = minitorch.compile(block, passes=["dead_code", fuse_add_tanh])


def best_time(fn, repeats=5, calls=20):
    for _ in range(3):  # warm-up, capture, first replay
        fn(x, y)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(x, y)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


try:
    print(f"without the pass: {best_time(plain) * 1e6:7.0f} µs per call, {len(plain.graph.nodes)} nodes")
    print(f"with the pass:    {best_time(fused) * 1e6:7.0f} µs per call, {len(fused.graph.nodes)} nodes")
except NotImplementedError:
    print("write fuse_add_tanh first")
