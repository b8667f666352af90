# %% [markdown]
# # Exercises 11 · Distributed training
#
# **Goal:** compute, from first principles, the three numbers chapter 11 measures: the
# bytes each rank sends in a ring all-reduce, the share of a pipeline's time lost to its
# bubble, and how stale an asynchronous parameter server's updates are. Each check runs
# the real thing (a ring all-reduce simulated message by message, the GPipe schedule,
# the server's version counter) and compares. No MPI is needed here.

# %% setup(backend="numba", gpu=False)

# %%
from minitorch.course.distributed_checks import check_bubble, check_ring_bytes, check_staleness

# %% [markdown]
# ## Exercise 1: the bytes of a ring all-reduce
#
# `n` ranks each hold `nbytes` bytes of gradients. The ring cuts them into `n` chunks;
# in each of `n - 1` reduce-scatter steps and `n - 1` all-gather steps, every rank sends
# one chunk to its neighbour. Return the bytes **one rank sends** in the whole
# all-reduce. (A world of one rank sends nothing.)

# %% exercise=ring_bytes
def ring_bytes(world_size, nbytes):
    raise NotImplementedError  # your code here

# %%
check_ring_bytes(ring_bytes)

# %% [markdown]
# ## Exercise 2: the pipeline's bubble
#
# A GPipe step on `num_stages` stages runs `n_microbatches` forwards, then as many
# backwards, each stage starting a micro-batch as soon as the stage before has sent it.
# With every stage equally fast, return the share of a stage's time spent idle
# (a number between 0 and 1). Hint: draw the wave for 2 stages and 4 micro-batches, and
# count the slots.

# %% exercise=bubble
def bubble(num_stages, n_microbatches):
    raise NotImplementedError  # your code here

# %%
check_bubble(bubble)

# %% [markdown]
# ## Exercise 3: stale gradients
#
# An asynchronous parameter server applies each push the moment it arrives: the
# parameters' version goes up by one, and the worker that pushed pulls the new version
# before it computes its next gradient. Every worker starts from version 0. `arrivals`
# lists the workers in the order their pushes arrive, e.g. `[1, 2, 1]`. Return the
# staleness of each update, `version when applied - version the worker pulled`: for
# `[1, 2, 1]` that is `[0, 1, 1]`.

# %% exercise=staleness
def staleness(arrivals):
    raise NotImplementedError  # your code here

# %%
check_staleness(staleness)
