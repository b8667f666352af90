# %% [markdown]
# # 11 · Distributed training: many processes, one model
#
# **Goal (about 45 minutes):** train one model with several processes, the way clusters
# do, with PyTorch's API (`torch.distributed`, `DistributedDataParallel`) running on a
# real distributed engine, MPI. You will see every rank's output, watch gradients being
# **all-reduced while the backward pass is still running**, work out what an all-reduce
# costs on paper and on a thousand simulated machines, and meet the designs that came
# before and beside data parallelism: TensorFlow 1's **parameter server** (synchronous and
# asynchronous, with stale gradients) and the **pipeline** of model parallelism (GPipe,
# with its bubble).
#
# Exercises: `exercises/11_distributed_training.ipynb` (the bytes of a ring all-reduce,
# the pipeline's bubble, the staleness of asynchronous updates).

# %% setup(backend="numba", gpu=False)

# %%
import numpy as np

import minitorch
from minitorch.course import mpi_engines
from minitorch.distributed.cost_model import ring_bytes_per_rank, scaling_table, simulate_ring_all_reduce
from minitorch.distributed.pipelining import bubble_fraction, simulate_gpipe
from minitorch.widgets.rank_timeline import overlap_summary, rank_timeline

# %% [markdown]
# ## One program, many processes
#
# Distributed training runs **the same program** in `n` processes. Each is a *rank*
# (`0 .. n-1`) of a *world* of size `n`; each reads its rank, takes its share of the work,
# and talks to the others through *collectives*: calls that every rank makes, in the same
# order, such as `all_reduce` (every rank ends with the sum of everyone's tensor). On one
# machine or on a thousand, the program is the same; only the launcher changes:
#
#     mpiexec -n 4 python train.py                      # 4 processes on this machine
#     mpiexec -n 64 -hostfile hosts python train.py     # 64 across the machines listed
#     srun -n 64 python train.py                        # a Slurm cluster
#     python -m minitorch.distributed.run -n 4 train.py # torchrun's style: calls mpiexec
#
# MPI (here MPICH from PyPI, through `mpi4py`) starts the processes and moves the bytes;
# `minitorch.distributed` gives it PyTorch's names. In a notebook, **ipyparallel** starts
# *engines*, kernels launched under `mpiexec`, so each engine is a real MPI rank:
#
#     import ipyparallel as ipp
#     cluster = ipp.Cluster(engines="mpi", n=3)
#     rc = cluster.start_and_connect_sync(activate=True)  # turns on %%px
#
# `mpi_engines.start` below does exactly that (with one Numba thread per rank, so three
# ranks share the cores instead of fighting over them). From then on, a cell that begins
# with `%%px` runs on **every** rank at once, and each rank's output comes back under its
# own `[stdout:k]` heading. (Without MPI installed, `%%px` cells say they were skipped:
# `pip install 'minitorch[distributed]'`.)

# %%
engines = mpi_engines.start(n=3)

# %% [markdown]
# Every rank now runs the same four lines. `init_process_group("mpi")` asks MPI who we
# are; nothing else is configured.

# %%
%%px
import time

import minitorch
import minitorch.distributed as dist
from minitorch import nn

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
print(f"rank {rank} of {world}")

# %% [markdown]
# ## Collectives
#
# `all_reduce` is the workhorse of data-parallel training: every rank passes a tensor and
# gets back, **in place**, the elementwise sum of all of them (or the product, min, max,
# mean: `ReduceOp`). `broadcast` copies rank 0's tensor to everyone. Predict the output
# before you run it.

# %%
%%px
x = minitorch.tensor([1.0, 10.0, 100.0]) * (rank + 1)
dist.all_reduce(x)                   # 1 + 2 + 3 = 6 times [1, 10, 100], on every rank
w = minitorch.full((2,), float(rank))
dist.broadcast(w, src=0)             # rank 0's zeros, everywhere
print(f"rank {rank}: sum {x.tolist()}, broadcast {w.tolist()}")

# %% [markdown]
# ## What an all-reduce costs, on paper
#
# How would you sum `B` bytes held by each of `n` ranks? Sending everything to one rank
# and back makes that rank's link carry `2 (n - 1) B` bytes: the more machines, the
# slower. The **ring all-reduce** puts the ranks in a circle and cuts each tensor into `n`
# chunks. In `n - 1` steps every rank passes one chunk to its right neighbour, which adds
# it to its own (*reduce-scatter*: afterwards each rank owns one fully summed chunk); in
# `n - 1` more steps the summed chunks travel round the ring (*all-gather*). Each step
# moves `B / n` bytes per rank, all links at once, so each rank sends
#
# $$\text{bytes per rank} = 2\,(n - 1)\,\frac{B}{n} \;\longrightarrow\; 2B,$$
#
# almost the same for 2 ranks as for 2,000. The simulation below runs the ring on NumPy
# arrays, message by message, and counts.

# %%
rng = np.random.default_rng(0)
for n in (2, 3, 4, 8):
    values = [rng.standard_normal(1200).astype(np.float32) for _ in range(n)]
    results, sent, steps = simulate_ring_all_reduce(values)
    assert all(np.allclose(r, sum(values), atol=1e-4) for r in results)
    print(f"n={n}: {steps} steps, each rank sent {sent[0]:,} of {values[0].nbytes:,} bytes "
          f"(2(n-1)/n * B = {ring_bytes_per_rank(n, values[0].nbytes):,.0f})")

# %% [markdown]
# ### Scaling to many machines
#
# Time is bytes over bandwidth plus a *latency* for every message (the alpha-beta model).
# For the gradients of a 25-million-parameter model (100 MB of float32) on links of
# 10 GB/s with 5 µs per message:

# %%
print(f"{'machines':>9} {'ring bytes/rank':>16} {'ring ms':>9} {'tree ms':>9} {'one server ms':>14}")
for row in scaling_table(100 * 10**6, [2, 4, 8, 64, 512, 4096]):
    print(f"{row['machines']:>9} {row['ring_bytes_per_rank'] / 1e6:>13.1f} MB {row['ring_ms']:>9.1f} "
          f"{row['tree_ms']:>9.1f} {row['server_ms']:>14.1f}")

# %% [markdown]
# The ring's time hardly moves from 8 machines to 4,096, while one server's grows with
# every machine: that is why data parallelism scales. Only the ring's latency term,
# `2 (n - 1)` messages, grows; for small messages on huge clusters a tree (`2 log2 n`
# rounds) wins, which is why NCCL and MPI switch algorithms by message size.

# %% [markdown]
# ## Data parallel: `DistributedDataParallel`
#
# Each rank holds a full copy of the model and trains on its own share of each batch
# (`DistributedSampler` deals the indices). After `loss.backward()` the ranks' gradients
# differ; DDP all-reduces them and divides by the world size, so every rank takes the
# same optimizer step, as one process would on the whole batch. Two tricks make it fast:
#
# * **buckets**: gradients are packed into buckets of a few MB, in the reverse order of the
#   forward pass (the order backward produces them), so one all-reduce moves many small
#   gradients;
# * **overlap**: a bucket's all-reduce starts (`async_op=True`) the moment its last
#   gradient is ready, **while backward is still computing** the earlier layers' gradients.
#
# Every rank trains on its third of the digits (chapter 8's data), 32 images per step, so
# each step learns from 96 images. Only one line differs from one-process training: the
# model is wrapped in `DDP`.

# %%
%%px
from minitorch.data import Digits
from minitorch.nn.parallel import DistributedDataParallel as DDP
from minitorch.utils.data import DataLoader
from minitorch.utils.data.distributed import DistributedSampler

train_set = Digits(train=True)


def digits_model():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


model = DDP(digits_model(), bucket_cap_mb=0.02)  # small buckets: a few per step
optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)
sampler = DistributedSampler(train_set, seed=0)  # this rank's share of a shuffled epoch
loader = DataLoader(train_set, batch_size=32, sampler=sampler)
for step, (x, y) in enumerate(loader):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()  # the buckets' all-reduces run inside
    optimizer.step()
print(f"rank {rank}: {step + 1} steps on {len(sampler)} images, last loss {loss.item():.3f} (its own batch)")

# %% [markdown]
# Each rank printed the loss of *its own* batch, but the models are the same on every
# rank. And the same as **one process** on the concatenated batches: every rank can check
# that, since `DistributedSampler` tells it the other ranks' indices too.

# %%
%%px
reference = digits_model()
reference_optimizer = minitorch.optim.SGD(reference.parameters(), lr=0.1)
shares = [list(DistributedSampler(train_set, num_replicas=world, rank=r, seed=0)) for r in range(world)]
for start in range(0, len(shares[0]), 32):
    batch = [i for share in shares for i in share[start:start + 32]]  # every rank's batch, end to end
    x, y = train_set.data[batch], train_set.targets[batch]
    reference_optimizer.zero_grad()
    nn.functional.cross_entropy(reference(x), y).backward()
    reference_optimizer.step()
worst = max(float((p - q).abs().max()) for p, q in zip(model.module.parameters(), reference.parameters()))
print(f"rank {rank}: largest difference from one process on 96-image batches: {worst:.1e}")

# %% [markdown]
# ### Watching the overlap
#
# DDP records when each rank computed and when each bucket travelled (`ddp.timeline`).
# We take one step of a wider model (so a backward takes a few milliseconds) twice: with
# overlap on, and with `overlap=False`, which starts every all-reduce after the backward.
# Ranks 0 and 1 do it in a group of their own (`new_group`: DDP averages over the group
# it is given), one rank per core; rank 2 watches. `timeline.gather(pair)` is a
# collective of that group: it brings both ranks' events to both.

# %%
%%px
pair = dist.new_group([0, 1])  # every rank calls new_group, even one left out


def wide_step_events(overlap):
    minitorch.manual_seed(0)
    wide = DDP(nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                             nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)),
               bucket_cap_mb=1, overlap=overlap, process_group=pair)  # about one layer per bucket
    x, y = train_set.data[:256].view(256, 64), train_set.targets[:256]
    for _ in range(3):  # the first steps compile kernels; keep the last one
        wide.timeline.clear()
        nn.functional.cross_entropy(wide(x), y).backward()
    return wide.timeline.gather(pair)


events_on = events_off = []
if rank < 2:
    events_on, events_off = wide_step_events(True), wide_step_events(False)
    print(f"rank {rank}: {len(events_on)} events of both ranks")

# %% [markdown]
# One row per rank, compute above, communication below, on one clock. With overlap on,
# the purple all-reduce bars start under the orange backward bar: the first buckets are
# handed to MPI while the earlier layers' gradients are still being computed. With
# overlap off they all queue up after it. The caption under each rank measures the
# communication hidden behind compute and the part left exposed. (Move the pointer over a
# bar for its name and time.)
#
# Look at the lengths too. A bar runs from the moment DDP handed the bucket to MPI to the
# moment it saw it done, and MPI moves a message's bytes only while some thread of the
# process is inside MPI: here that is the rank between two kernels of its backward, or
# waiting at the end. So an overlapped bucket takes longer from start to end, and whether
# the whole step gets shorter depends on the machine (two ranks on two busy cores leave
# little to hide behind). On a cluster, the network card and NCCL's or MPI's progress
# threads move the bytes on their own, and overlap is what keeps a GPU from waiting.

# %%
on, off = (engines.pull(name)[0] for name in ("events_on", "events_off")) if engines else ([], [])
timeline = rank_timeline({"overlap on": on, "overlap off": off}, title="DDP: one step on each rank")
for label, events in (("on", on), ("off", off)):
    for r, share in overlap_summary(events).items():
        print(f"overlap {label:>3}, rank {r}: {share['communication'] * 1e3:.2f} ms communicating, "
              f"{share['exposed'] * 1e3:.2f} ms of it exposed")
timeline

# %% [markdown]
# ## The parameter server
#
# Before all-reduce, TensorFlow 1 kept parameters on **parameter servers** (here rank 0)
# and let **workers** compute gradients: a worker *pulls* the parameters, computes a
# gradient on its batch, *pushes* it, and pulls again. Synchronously the server waits for
# every worker and applies their average (as DDP does, through one machine); asynchronously
# it applies each push at once. Then nobody waits, but a gradient may be **stale**:
# computed from parameters that other workers' pushes have changed since,
# `staleness = server version when applied - version pulled`.

# %%
%%px
from minitorch.distributed.parameter_server import ParameterServer


def regression_batch(step):
    minitorch.manual_seed(1000 * rank + step)
    x = minitorch.randn(16, 8)
    return x, x @ minitorch.linspace(-1, 1, 8).view(8, 1)


for mode in ("sync", "async"):
    minitorch.manual_seed(0)
    model = nn.Linear(8, 1)
    ps = ParameterServer(model, lambda params: minitorch.optim.SGD(params, lr=0.05), mode=mode)
    if ps.is_server:
        ps.serve()
        print(f"{mode}: {ps.version} updates, staleness of each: {ps.staleness()}")
    else:
        for step in range(5):
            start = time.monotonic()
            x, y = regression_batch(step)
            nn.functional.mse_loss(model(x), y).backward()
            time.sleep(0.002 * rank)  # rank 2 is a slower machine
            ps.timeline.append({"rank": rank, "kind": "backward", "name": f"gradient {step}",
                                "start": start, "end": time.monotonic()})  # for the picture below
            ps.push()
            ps.pull()
        ps.finish()
        print(f"{mode}: worker {rank} last pulled version {ps.version}")
ps_timeline = ps.timeline  # the asynchronous run's events

# %% [markdown]
# Synchronously there were 5 updates, each the average of both workers, never stale.
# Asynchronously each push is its own update and the slow worker's gradients arrive stale:
# it computed them before the fast worker's latest pushes. Real systems bound the
# staleness, or, as PyTorch does, give up on the server and all-reduce instead.
#
# The asynchronous run on one clock: the server (rank 0) waits for pushes and applies each
# one (green); each worker computes a gradient (orange), pushes it and waits for the new
# parameters. Nobody waits for the slower worker.

# %%
events = sum(engines.pull("ps_timeline") or [], [])
rank_timeline(events, title="asynchronous parameter server") if events else "(no engines)"

# %% [markdown]
# ## Model parallel: a pipeline
#
# When a model does not fit on one device, split its **layers**: the first half on rank
# 0, the second on rank 1. Rank 1 needs rank 0's activations before it can start, rank
# 0 needs rank 1's gradients before its backward: with one batch, one rank works at a
# time. **GPipe** cuts the batch into `M` micro-batches and sends each on as soon as it
# is done, so the stages work on different micro-batches at once. What is left idle at
# the start and end of the wave is the **bubble**: with `S` stages,
#
# $$\text{bubble} = \frac{S - 1}{M + S - 1}.$$
#
# First on paper (a forward takes 1, a backward 2 time units, messages are free):

# %%
for M in (1, 4, 16):
    print(f"S=2, M={M:>2}: bubble {bubble_fraction(2, M):.0%}")
rank_timeline({f"M={M}": simulate_gpipe(2, M, forward=1e-3, backward=2e-3) for M in (1, 4)},
              title="GPipe on paper: 2 stages")

# %% [markdown]
# Now for real, with `PipelineStage` and `ScheduleGPipe` (PyTorch's names, from
# `torch.distributed.pipelining`), on ranks 0 and 1 (rank 2 sits this one out). Each stage
# has two wide layers, so computing costs more than sending; we measure the share of the
# step each stage did not compute, and check the gradients against one process.

# %%
%%px
from minitorch.distributed.pipelining import PipelineStage, ScheduleGPipe, bubble_fraction


def wide_model():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                         nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, 10))


minitorch.manual_seed(1)
x, y = minitorch.randn(512, 256), minitorch.randn(512, 10)
pipeline_timeline = []
if rank < 2:
    for M in (1, 4, 8):
        model = wide_model()
        layers = list(model)
        stage = PipelineStage(nn.Sequential(*(layers[:4] if rank == 0 else layers[4:])), rank, 2)
        schedule = ScheduleGPipe(stage, n_microbatches=M, loss_fn=nn.functional.mse_loss)
        for _ in range(2):  # the first step compiles kernels: measure the second
            model.zero_grad()
            schedule.step(x) if rank == 0 else schedule.step(target=y)
        print(f"M={M}: measured bubble {schedule.measured_bubble():.0%}, theory {bubble_fraction(2, M):.0%}")
        if M == 4:
            pipeline_timeline = schedule.timeline
    oracle = wide_model()
    nn.functional.mse_loss(oracle(x), y).backward()
    mine = list(oracle)[:4] if rank == 0 else list(oracle)[4:]
    worst = max(float((p.grad - q.grad).abs().max())
                for p, q in zip(stage.submodule.parameters(), nn.Sequential(*mine).parameters()))
    print(f"largest gradient difference from one process: {worst:.1e}")

# %%
events = sum(engines.pull("pipeline_timeline") or [], [])
rank_timeline(events, title="GPipe, 2 stages, 4 micro-batches (measured)") if events else "(no engines)"

# %% [markdown]
# The measured bubble follows the theory only roughly: messages are not free (each
# micro-batch is one more), the two stages are not equally heavy, and the first stage's
# backward waits for the last one's. More micro-batches shrink the bubble until the
# messages dominate; each also keeps its activations alive until its backward, which is
# why later schedules (1F1B, interleaved) run backwards early.
#
# ## Stopping the engines
#
# The engines are processes of an MPI job: stop them when you are done.

# %%
%%px
dist.destroy_process_group()

# %%
engines.stop()

# %% [markdown]
# ## Summary
#
# * A distributed program is one program run as `n` ranks; collectives (`all_reduce`,
#   `broadcast`...) are calls every rank makes in the same order. `mpiexec`, a hostfile or
#   Slurm runs the same code on one machine or many; ipyparallel's MPI engines run it from
#   a notebook (`%%px`).
# * DDP keeps a copy of the model per rank, all-reduces the gradients in buckets while
#   backward runs, and equals one process on the whole batch. The rank timeline shows the
#   communication hidden behind computation, and what is left exposed without overlap.
# * A ring all-reduce sends `2 (n - 1) / n` of the gradient per rank: nearly flat in the
#   number of machines, unlike one server, whose link carries it all.
# * A parameter server applies pushes synchronously (an average, the slowest sets the
#   pace) or asynchronously (no waiting, stale gradients).
# * A pipeline splits layers across ranks; micro-batches fill it, and the bubble
#   `(S - 1) / (M + S - 1)` is what is left idle.
#
# Exercises: `exercises/11_distributed_training.ipynb`.
