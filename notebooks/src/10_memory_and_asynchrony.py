# %% [markdown]
# # 10 · Memory and asynchrony: where bytes live, and when work really happens
#
# **Goal (about 40 minutes):** see four mechanisms that make PyTorch fast and that are
# invisible in everyday code. Where a tensor's **memory** comes from and when it goes back
# (views cost nothing, copies cost bytes, a **caching allocator** keeps freed blocks, and
# **reference counting** frees a storage the moment its last view dies); how a tensor
# crosses into **another process** without being copied; how a `DataLoader` feeds a model
# from **worker processes**; and why a GPU call **returns before its work is done**
# (streams and events).
#
# Exercises: `exercises/10_memory_and_asynchrony.ipynb` (predict allocations, compute the
# allocator's block sizes, split a stream of data between workers, order two streams).

# %% setup(backend="numba", emulate_cuda=True)

# %%
import gc
import sys
import time
import weakref

import numpy as np

import minitorch
import minitorch.multiprocessing as mp
from minitorch import memory, widgets
from minitorch.utils.data import DataLoader, Dataset, get_worker_info

# %% [markdown]
# ## Views cost nothing, copies cost bytes
#
# Chapter 1 showed that a tensor is a flat **storage** read through shape, strides and an
# offset. Now count the bytes. `minitorch.memory.memory_allocated()` says how many bytes
# tensors hold right now (PyTorch has this only for the GPU, as
# `torch.cuda.memory_allocated()`; minitorch gives the CPU the same allocator so you can
# watch it anywhere). We measure each line as a difference, because the notebook already
# holds a few tensors.

# %%
def allocated_by(line, namespace):
    """Run one line of code and return the bytes it left allocated."""
    before = memory.memory_allocated()
    exec(line, namespace)
    return memory.memory_allocated() - before


namespace = {"minitorch": minitorch}
for line in ["x = minitorch.randn(256, 256)",   # 256 * 256 * 4 bytes
             "xt = x.t()",                      # a view: new strides, same storage
             "row = x[3]",                      # a view at an offset
             "c = xt.contiguous()",             # a copy in the transposed order
             "y = x + x"]:                      # a new result
    print(f"{line:34} {allocated_by(line, namespace):>8,} bytes")
x, xt, c = namespace["x"], namespace["xt"], namespace["c"]
print("strides: x", x.stride(), "| xt", xt.stride(), "| c", c.stride())
print("xt shares x's storage:", xt._storage is x._storage, "| c does not:", c._storage is not x._storage)

# %% [markdown]
# A view is a new *header* (shape, strides, offset) over the same storage: 0 bytes.
# `.contiguous()` of a transposed tensor must move every element into row-major order, so
# it costs a full copy. Every op's result is new storage too, which is why in-place ops
# (`x.add_(1)`) and views matter when memory is tight.
#
# ## The caching allocator
#
# Asking the operating system for memory is slow (on a GPU, `cudaMalloc` can take a
# millisecond and waits for the device), and a training step allocates and frees the same
# few sizes thousands of times. So PyTorch's GPU allocator, and minitorch's for every
# device (`minitorch/backends/allocator.py`), asks for big **segments** once and carves
# tensors out of them as **blocks**:
#
# * **rounding**: a request is rounded up to a multiple of 512 bytes, so sizes fall into
#   few classes and a freed block fits the next request of a similar size;
# * **two pools**: blocks up to 1 MiB come from 2 MiB segments of the *small pool*, bigger
#   ones from the *large pool*;
# * **caching**: a freed block is not given back to the system; it stays **reserved** for
#   the next tensor. Only `empty_cache()` returns whole free segments.
#
# Two numbers tell the story: **allocated** (bytes in blocks tensors hold) and
# **reserved** (bytes of all segments: allocated plus the cache).

# %%
del namespace, x, xt, c
memory.empty_cache()
base_allocated, base_reserved = memory.memory_allocated(), memory.memory_reserved()


def show(what):
    allocated = memory.memory_allocated() - base_allocated
    reserved = memory.memory_reserved() - base_reserved
    print(f"{what:44} allocated {allocated:>9,}   reserved {reserved:>9,}")


a = minitorch.empty(1000)                  # 4,000 bytes asked for
show("a = empty(1000): 4,000 B, rounded up")
address_of_a = a._storage.ctypes.data      # where a's block starts in memory
b = minitorch.empty(100_000)               # 400,000 bytes
show("b = empty(100_000)")
del a
show("del a: allocated drops, reserved stays")
a2 = minitorch.empty(900)                  # 3,600 B: rounds to the same 4,096 B block
show("a2 = empty(900) reuses a's cached block")
print("a2 starts where a started:", a2._storage.ctypes.data == address_of_a)
del a2, b
show("del a2, b: everything cached")
memory.empty_cache()
show("empty_cache(): segments go back")

# %% [markdown]
# `minitorch.memory.memory_summary()` prints the full table PyTorch's
# `torch.cuda.memory_summary()` prints: current and peak bytes, per pool, with the number
# of allocations and segments.

# %%
print(memory.memory_summary())

# %% [markdown]
# ## Watching a training step
#
# The memory viewer draws each pool as a strip of blocks, each labelled with the tensors
# holding it by the names this notebook gave them. Inside `with mem.record():` it takes a
# frame at every allocation and free; afterwards drag its slider. Watch the
# **activations**: the forward pass allocates them (each layer's output is saved for
# backward), and the backward pass frees them one by one as it no longer needs them.
# (Shown on its own, the viewer also redraws live while a cell runs. A block made by the
# running cell then reads *new: named when the cell ends*: finding a new tensor's name
# means asking Python's garbage collector, which only the notebook's own thread may do
# safely, so the viewer names it when the cell ends.)

# %%
minitorch.manual_seed(0)
model = minitorch.nn.Sequential(minitorch.nn.Linear(32, 64), minitorch.nn.Tanh(),
                                minitorch.nn.Linear(64, 64), minitorch.nn.Tanh(),
                                minitorch.nn.Linear(64, 4))  # fmt: skip
inputs, targets = minitorch.randn(128, 32), (minitorch.rand(128) * 4).long()
loss_fn = minitorch.nn.functional.cross_entropy
loss_fn(model(inputs), targets).backward()   # a first step: gradients now exist
model.zero_grad(set_to_none=False)

mem = widgets.memory()
with mem.record():
    loss = loss_fn(model(inputs), targets)
    loss.backward()
mem

# %% [markdown]
# The same frames as numbers: the bytes allocated after each event. Allocated memory
# climbs through the forward pass; backward allocates gradients (the peak is usually
# early in backward, when activations and the first gradients coexist) and frees the
# activations.

# %%
allocated = [frame["allocated"] for frame in mem.frames]
end_of_forward = max(i for i, frame in enumerate(mem.frames) if frame["phase"] == "forward")
peak_frame = int(np.argmax(allocated))
print(f"{len(allocated)} frames; start {allocated[0]:,} B")
print(f"end of forward (frame {end_of_forward}): {allocated[end_of_forward]:,} B")
print(f"peak (frame {peak_frame}): {allocated[peak_frame]:,} B, {mem.frames[peak_frame]['event']}")
print(f"end of backward: {allocated[-1]:,} B")

# %% [markdown]
# What is still held after `backward()`? What was there before (parameters, inputs,
# gradients, now updated in place) and the 0-d loss; the activations are gone. Backward
# drops each node's saved tensors once it has used them, and the graph's nodes die with
# `loss` by **reference counting**: a node refers to its inputs' nodes, never back to the
# tensors that refer to it, so there is no cycle to wait for.
#
# ### `torch.no_grad()` changes the picture
#
# In evaluation nobody will call backward, so nothing needs saving. Measure what a forward
# pass leaves allocated while its output is alive, with and without grad mode:

# %%
def held_by_forward():
    before = memory.memory_allocated()
    output = model(inputs)
    held = memory.memory_allocated() - before
    del output
    return held


with_grad = held_by_forward()
with minitorch.no_grad():
    without_grad = held_by_forward()
print(f"forward with grad:   {with_grad:>7,} B held (output + activations saved for backward)")
print(f"forward in no_grad:  {without_grad:>7,} B held (the output only)")

# %% [markdown]
# ## Reference counts and `del`
#
# CPython frees an object the moment its **reference count** drops to zero. A tensor's
# storage is such an object; every tensor and view over it holds a reference. So `del x`
# frees memory only when `x` was the *last* reference: a view keeps the whole storage
# alive, even a one-element view of a big tensor.

# %%
big = minitorch.randn(512, 512)               # 1 MiB
print("references to big:", sys.getrefcount(big) - 1)   # (-1: getrefcount's own argument)
corner = big[0, :2]                          # 8 bytes worth of view
alive = weakref.ref(big._storage)            # watch the storage without keeping it
block = big._storage.ctypes.data             # where its block starts
viewer = widgets.memory()                    # it holds tensors only weakly


def holders():
    """The labels the memory viewer gives the tensors holding big's block."""
    viewer.refresh()
    return [holder["label"] for segment in viewer.state["segments"]
            for b in segment["blocks"] if b["address"] == block and b["allocated"]
            for holder in b["holders"]]  # fmt: skip


before = memory.memory_allocated()
print("before del:       held by", holders())
del big
print("after del big:    held by", holders(), "| storage alive?", alive() is not None,
      "| freed", before - memory.memory_allocated(), "B")  # fmt: skip
del corner
print("after del corner: held by", holders(), "| storage alive?", alive() is not None,
      "| freed", before - memory.memory_allocated(), "B")  # fmt: skip

# %% [markdown]
# After `del big` the name is gone, but the tensor object is not: the view remembers its
# base (`corner._base`), and the block stays. Only when the last view goes does the
# storage die, and the allocator gets its block back at that very moment. To keep a small
# piece of a big tensor and let the rest go, copy it:
# `corner = big[0, :2].clone()`.
#
# The one thing reference counting cannot free is a **cycle**: objects that refer to each
# other keep each other's counts above zero after the last outside reference is gone.
# Python's **garbage collector** finds them later (every so many allocations), or now with
# `gc.collect()`. We switch the automatic collector off for a moment so the demonstration
# does not depend on when it happens to run.

# %%
gc.disable()
before = memory.memory_allocated()
node = {"tensor": minitorch.randn(512, 512)}
node["myself"] = node                         # a cycle: the dict refers to itself
del node
print("after del:        still allocated", memory.memory_allocated() - before, "B")
gc.collect()
print("after gc.collect: still allocated", memory.memory_allocated() - before, "B")
gc.enable()

# %% [markdown]
# This is why frameworks avoid cycles in their own structures: the autograd graph above
# was freed at once, without the collector. A cycle of yours (a model that stores a
# reference to its own loss, say) keeps its memory until the collector runs.
#
# ## Sharing memory between processes
#
# A process cannot see another's memory, so a tensor sent to a child would normally be
# **copied** (pickled, written through a pipe, unpickled). `t.share_memory_()` moves the
# storage, in place, into a named **shared-memory segment** that several processes can
# map at once; then a child's in-place write is seen by the parent.
#
# The cells below start processes with `fork`, Linux's default (and Colab's): the child
# starts as a copy of this notebook's process, so it knows the functions defined here. On
# macOS and Windows processes start with `spawn`, a fresh interpreter that can only import
# code: put the children's functions and the datasets of the next section in a `.py` file.

# %%
def add_ten(t):
    t.add_(10)                                 # in place, in the child process


fork = mp.get_context("fork")
private, shared = minitorch.zeros(3), minitorch.zeros(3).share_memory_()
for t in (private, shared):
    child = fork.Process(target=add_ten, args=(t,))
    child.start()
    child.join()
print("not shared:", private, "| shared:", shared, "is_shared:", shared.is_shared())

# %% [markdown]
# The child forked with a *copy-on-write* copy of the parent's memory: its write to
# `private` changed its own copy. The write to `shared` went to the one shared segment.
#
# `minitorch.multiprocessing` is Python's `multiprocessing` with one change (as
# `torch.multiprocessing`): a tensor put on a `Queue` or sent through a `Pipe` moves to
# shared memory and only the segment's name and the layout cross the pipe, whatever the
# size. Nothing leaks: a segment is removed when no process holds it any more.

# %%
def fill_with_sevens(queue):
    received = queue.get()
    received.fill_(7)


queue = fork.Queue()
sent = minitorch.zeros(2, 3)
child = fork.Process(target=fill_with_sevens, args=(queue,))
child.start()
queue.put(sent)                                # sent as a name and a layout, not values
child.join()
print(sent, "| moved to shared memory:", sent.is_shared())

# %% [markdown]
# ## A DataLoader with worker processes
#
# A training loop waits whenever the next batch is not ready. With `num_workers=N` the
# `DataLoader` starts N worker processes that load and transform samples in parallel with
# training (and each other), and send the collated batches through shared memory. The
# batches still arrive in order.
#
# Our dataset's `__getitem__` is slow: it waits 10 ms, as if reading an image from disk.
# `get_worker_info()` tells the code which worker it runs in (`None` in the main process).

# %%
class SlowDataset(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, index):
        time.sleep(0.01)                      # "reading the file"
        info = get_worker_info()
        worker = -1 if info is None else info.id
        return minitorch.full((4,), float(index)), worker


for workers in (0, 2):
    loader = DataLoader(SlowDataset(), batch_size=4, num_workers=workers,
                        persistent_workers=workers > 0)  # fmt: skip
    for epoch in range(2):
        start = time.perf_counter()
        made_by = [batch_workers.tolist()[0] for _, batch_workers in loader]
        seconds = time.perf_counter() - start
        print(f"num_workers={workers} epoch {epoch}: {32 / seconds:5.0f} samples/s, "
              f"batches made by workers {made_by}")
    del loader                                # ends its persistent workers

# %% [markdown]
# Two workers load about twice as fast as the main process alone. The first epoch also
# pays for starting the workers; `persistent_workers=True` keeps them for the next epoch.
# Batches alternate between workers (worker 0 makes batches 0, 2, 4, ...) and arrive in
# order. For a CPU-heavy transform the gain depends on free cores: on a 2-core machine
# with nothing else running, 2 workers give about 1.7-2x (`benchmarks/dataloader_workers.py`).
#
# A worker that raises does not die silently: the main process re-raises the same
# exception type, with the worker's traceback in the message.

# %%
class BrokenDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        if index == 5:
            raise ValueError(f"sample {index} is corrupt")
        return minitorch.tensor([float(index)])


try:
    for batch in DataLoader(BrokenDataset(), batch_size=2, num_workers=2):
        pass
except ValueError as error:
    message = str(error).splitlines()
    print(message[0])
    print(f"    ({len(message) - 2} lines of the worker's own traceback)")
    print(message[-1])

# %% [markdown]
# ## Asynchronous launches: streams and events
#
# A GPU runs work from **streams**: queues whose items (kernels, copies) run in order.
# Launching a kernel only puts it on the current stream and returns; Python runs ahead
# while the device works. Reading a value (`.item()`, `.cpu()`, printing) or
# `minitorch.cuda.synchronize()` waits. Without a GPU, the emulator behaves the same way:
# each stream is a queue run by its own worker thread.
#
# The classic bug: timing GPU code with the host clock alone measures the *launch*, not
# the kernel.

# %%
x = minitorch.randn(48, 48).to(device)
(x @ x).sum().item()                          # warm-up: load and compile the kernels
minitorch.cuda.synchronize()

start = time.perf_counter()
y = x @ x
wrong = time.perf_counter() - start           # only the launch
minitorch.cuda.synchronize()
right = time.perf_counter() - start           # the launch and the kernel
print(f"without synchronize: {wrong * 1e3:6.2f} ms  <- the time to queue the kernel")
print(f"with synchronize:    {right * 1e3:6.2f} ms  <- the kernel ran too")

# %% [markdown]
# **Events** measure on the device itself: an event marks a point in a stream's queue and
# takes the time when the stream reaches it. `start.elapsed_time(end)` is the time between
# two events in milliseconds, once `end` has completed (`end.synchronize()`).

# %%
start_event = minitorch.cuda.Event(enable_timing=True)
end_event = minitorch.cuda.Event(enable_timing=True)
start_event.record()
y = x @ x
end_event.record()
end_event.synchronize()
print(f"matmul on the device: {start_event.elapsed_time(end_event):.2f} ms")

# %% [markdown]
# ### Two streams and `wait_stream`
#
# Work on one stream runs in order; work on two streams has **no order** between them
# until you give it one. `consumer.wait_stream(producer)` makes later work on `consumer`
# wait until `producer` has run what is queued on it now. The host does not wait.
#
# Reading a result on the default stream needs the same care: a kernel launched there
# (`z.sum()`) would otherwise race with the stream still writing `z`.

# %%
producer, consumer = minitorch.cuda.Stream(), minitorch.cuda.Stream()
with minitorch.dispatch.trace() as calls:
    with minitorch.cuda.stream(producer):
        y = x * 2                             # on the producer stream
    consumer.wait_stream(producer)            # the consumer waits for y
    with minitorch.cuda.stream(consumer):
        z = y + 1                             # on the consumer stream
    with minitorch.cuda.stream(producer):
        w = x.tanh()                          # more producer work, free to overlap
    minitorch.cuda.current_stream().wait_stream(consumer)
    total = z.sum()                           # default stream, after the consumer
print("z.sum() =", round(total.item(), 2), "| expected", round((x * 2 + 1).sum().item(), 2))

# %% [markdown]
# The dispatch viewer draws the **host** row (when Python issued each call: thin bars,
# launches return at once) and **one row per stream** (when each kernel really ran), on one
# clock. On the emulator one kernel runs at a time, so kernels of two streams take turns;
# on a GPU they may run side by side.

# %%
viewer = widgets.dispatch_trace(list(calls))
timeline = viewer.runs[0]["timeline"]
print("rows:", ["host"] + [name for name, _ in timeline["streams"]])
viewer

# %% [markdown]
# Two emulator rules to keep in mind. A host read here waits for *every* stream (PyTorch
# waits for the current one only, so there a read of a tensor another stream is still
# writing is a race). And an error inside a kernel is raised at the next synchronizing
# call, not at the line that launched it: the launching line has long returned.
#
# ## Summary
#
# * A **view** is a new header over the same storage and costs 0 bytes; `.contiguous()`
#   of a transpose, and every op's result, costs new storage.
# * The **caching allocator** rounds requests up to 512 B, serves small and large blocks
#   from separate pools, and keeps freed blocks **reserved** for reuse;
#   `memory_allocated()` versus `memory_reserved()`, `memory_summary()`, `empty_cache()`.
# * In a training step, **activations** are allocated in forward and freed during
#   backward; `no_grad()` saves none of them.
# * **Reference counting** frees a storage when its last tensor or view goes: `del x`
#   frees nothing while a view lives. A **cycle** waits for the garbage collector
#   (`gc.collect()`).
# * `share_memory_()` puts a storage in **shared memory**: another process's in-place
#   writes are seen; `minitorch.multiprocessing` sends tensors by name, not by value.
# * `DataLoader(num_workers=N)` loads in **worker processes**: batches in order,
#   `get_worker_info()` inside a worker, a worker's exception re-raised in the main process.
# * **Launches are asynchronous**: time with `synchronize()` or **events**; order two
#   **streams** with `wait_stream`, including the default stream before you use a result.
#
# Exercises: `exercises/10_memory_and_asynchrony.ipynb`.
