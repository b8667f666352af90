# %% [markdown]
# # Exercises 10 · Memory and asynchrony
#
# **Goal:** predict what the caching allocator does, byte for byte; give each DataLoader
# worker its own share of a stream of data; and make one CUDA stream wait for another
# without making Python wait. Chapter 10 shows every piece. Each check measures the real
# thing (the allocator, worker processes, the emulator's streams) and compares.

# %% setup(backend="numba", gpu=False, emulate_cuda=True)

# %%
import minitorch
from minitorch.course.memory_checks import (
    RangeStream,
    check_block_bytes,
    check_predicted_bytes,
    check_produce_and_consume,
    check_split_range,
)
from minitorch.utils.data import DataLoader, get_worker_info

# %% [markdown]
# ## Exercise 1: `block_bytes`
#
# Return the bytes the CPU allocator takes for `minitorch.empty(shape, dtype=dtype)`:
# the bytes asked for (elements times `dtype.itemsize`, the bytes per element) rounded up
# to a multiple of 512. A tensor with no elements holds no block. A 0-d tensor (`shape ==
# ()`) has one element.

# %% exercise=block_bytes
def block_bytes(shape, dtype):
    raise NotImplementedError  # your code here

# %%
check_block_bytes(block_bytes)

# %% [markdown]
# ## Exercise 2: predict the bytes
#
# These lines run one after another, and every name stays alive. For each line, predict
# the bytes it leaves allocated (`memory_allocated()` after minus before) **without running
# them**: replace each `None` by a number. Then run the check, which runs the lines and
# explains the first wrong prediction. (A view costs 0; every block is a multiple of 512 B.)

# %% exercise=predicted_bytes
def predicted_bytes():
    raise NotImplementedError  # delete this line, then fill in the dict below
    return {
        "x = minitorch.randn(100, 30)": None,
        "xt = x.t()": None,
        "row = x[0]": None,
        "v = x.view(30, 100)": None,
        "c = xt.contiguous()": None,
        "r = xt.reshape(-1)": None,
        "d = x.double()": None,
        "i = x.argmax(1)": None,
        "m = x @ xt": None,
        "s = (x + x).sum()": None,
    }

# %%
check_predicted_bytes(predicted_bytes)

# %% [markdown]
# ## Exercise 3: split a stream between workers
#
# An `IterableDataset` has no indices to hand out: each DataLoader worker gets a **copy**
# of the dataset and iterates it, so with two workers every number of `RangeStream(0, 10)`
# comes twice:

# %%
print(sorted(int(n) for n in DataLoader(RangeStream(0, 10), batch_size=None, num_workers=2)))

# %% [markdown]
# Write `split_range(worker_id)`, a `worker_init_fn`: it runs once in each worker before
# the worker starts iterating. Use `get_worker_info()` (its `dataset` is this worker's copy,
# `num_workers` how many there are) to narrow the copy's `start` and `end` to this worker's
# share, so that the shares cover the range exactly once. Mind a length that does not
# divide by the number of workers, and a worker whose share is empty.

# %% exercise=split_range
def split_range(worker_id):
    raise NotImplementedError  # your code here

# %%
check_split_range(split_range)

# %% [markdown]
# ## Exercise 4: a producer and a consumer on two streams
#
# Write `produce_and_consume(x, producer, consumer)`: compute `y = x * 2` on the
# `producer` stream, then `z = y + 1` on the `consumer` stream, and return `z`. The two
# streams have no order between them unless you give them one, and the host must not
# wait (no `synchronize()`, no `.item()`): the check holds the producer shut for a moment
# and watches what the consumer does meanwhile.

# %% exercise=produce_and_consume
def produce_and_consume(x, producer, consumer):
    raise NotImplementedError  # your code here

# %%
check_produce_and_consume(produce_and_consume)
