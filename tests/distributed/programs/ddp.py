"""DistributedDataParallel on n ranks, checked against one process that trains the same
model on the ranks' concatenated batch (every rank knows the whole global batch, since it
is drawn from a fixed seed, and computes that reference itself).

Each check raises AssertionError on failure; the last line each rank prints is
"rank R: ddp checks passed". Run as: mpiexec -n 3 python tests/distributed/programs/ddp.py
"""

import minitorch as torch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
PER_RANK = 4


def net():
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 8), nn.Tanh(),
                         nn.Linear(8, 3))  # fmt: skip


def global_batch(step):
    """The step's whole batch (every rank draws the same), and this rank's share."""
    g = torch.Generator().manual_seed(100 + step)
    x = torch.randn(world * PER_RANK, 1, 6, 6, generator=g)
    y = torch.randint(0, 3, (world * PER_RANK,), generator=g)
    mine = slice(rank * PER_RANK, (rank + 1) * PER_RANK)
    return (x, y), (x[mine], y[mine])


def reference_model():
    torch.manual_seed(0)  # the weights rank 0 makes, which DDP broadcasts
    return net()


def assert_close(a, b, what, tol=1e-5):
    err = (a - b).abs().max().item() if a.numel() else 0.0
    assert err <= tol * (1 + b.abs().max().item()), f"rank {rank}: {what} differs by {err}"


def check_parameters_broadcast_at_construction():
    torch.manual_seed(rank)  # every rank makes different weights...
    model = DDP(net())
    for mine, ref in zip(model.module.parameters(), reference_model().parameters()):
        assert torch.equal(mine, ref), "parameters were not broadcast from rank 0"  # ...and gets rank 0's
    norm = nn.BatchNorm1d(3)
    norm.running_mean.fill_(float(rank))  # buffers too, at construction and before each forward
    wrapped = DDP(nn.Sequential(nn.Linear(2, 3), norm))
    assert norm.running_mean.tolist() == [0.0, 0.0, 0.0], norm.running_mean
    norm.running_var.fill_(float(rank + 1))
    wrapped(torch.ones(4, 2))
    assert torch.allclose(norm.running_var, torch.full((3,), 0.9)), norm.running_var  # rank 0's 1.0, updated


def check_sampler_reads_the_process_group():
    from minitorch.utils.data import DistributedSampler

    sampler = DistributedSampler(range(10), seed=4)
    assert (sampler.num_replicas, sampler.rank) == (world, rank)
    assert list(sampler) == list(DistributedSampler(range(10), world, rank, seed=4))


def train(bucket_cap_mb, steps=3, overlap=True):
    """DDP and the reference, each ``steps`` steps of SGD with momentum: parameters equal."""
    torch.manual_seed(rank)
    model = DDP(net(), bucket_cap_mb=bucket_cap_mb, overlap=overlap)
    ref = reference_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        (x, y), (xr, yr) = global_batch(step)
        opt.zero_grad()
        loss_fn(model(xr), yr).backward()
        ref_opt.zero_grad()
        loss_fn(ref(x), y).backward()
        for (name, p), q in zip(model.module.named_parameters(), ref.parameters()):
            assert_close(p.grad, q.grad, f"step {step} gradient of {name} (bucket_cap_mb={bucket_cap_mb})")
        opt.step()
        ref_opt.step()
    for (name, p), q in zip(model.module.named_parameters(), ref.parameters()):
        assert_close(p.detach(), q.detach(), f"parameter {name} after training")
    return model


def check_training_equals_one_process_on_the_whole_batch():
    default = train(None)
    assert len(default.reducer.buckets) == 1
    tiny = train(1e-6)  # a few bytes: every parameter is a bucket of its own
    assert len(tiny.reducer.buckets) == 6
    assert [b.params[0] for b in tiny.reducer.buckets] == list(reversed(list(tiny.module.parameters())))
    steps = 3
    reduces = [e for e in tiny.timeline.events if e["kind"] == "allreduce"]
    assert len(reduces) == 6 * steps, tiny.timeline.events
    assert sum(e["kind"] == "backward" for e in tiny.timeline.events) == steps
    backward_end = [e["end"] for e in tiny.timeline.events if e["kind"] == "backward"][0]
    first_launch = min(e["start"] for e in reduces[:6])
    assert first_launch < backward_end, "with overlap, no all-reduce started while backward ran"
    after = train(1e-6, steps=1, overlap=False)
    backward_end = [e["end"] for e in after.timeline.events if e["kind"] == "backward"][0]
    assert all(e["start"] >= backward_end for e in after.timeline.events if e["kind"] == "allreduce")


def check_no_sync_accumulates_then_averages_once():
    torch.manual_seed(rank)
    model = DDP(net())
    ref = reference_model()
    loss_fn = nn.CrossEntropyLoss()
    local = reference_model()  # what this rank alone accumulates
    with model.no_sync():
        for step in range(2):
            (x, y), (xr, yr) = global_batch(step)
            loss_fn(model(xr), yr).backward()
            loss_fn(local(xr), yr).backward()
            loss_fn(ref(x), y).backward()
    for p, q in zip(model.module.parameters(), local.parameters()):
        assert_close(p.grad, q.grad, "a gradient under no_sync (not averaged yet)")
    (x, y), (xr, yr) = global_batch(2)
    loss_fn(model(xr), yr).backward()
    loss_fn(ref(x), y).backward()
    for p, q in zip(model.module.parameters(), ref.parameters()):
        assert_close(p.grad, q.grad, "the gradient accumulated over no_sync and averaged once")


class Branches(nn.Module):
    """``unused`` takes part on no rank; ``only_rank0`` only on rank 0."""

    def __init__(self):
        super().__init__()
        self.trunk, self.only_rank0, self.unused = nn.Linear(5, 3), nn.Linear(5, 3), nn.Linear(5, 3)

    def forward(self, x, use_branch):
        out = self.trunk(x)
        return out + self.only_rank0(x) if use_branch else out


def check_find_unused_parameters():
    torch.manual_seed(0)
    model = DDP(Branches(), find_unused_parameters=True)
    g = torch.Generator().manual_seed(7)
    xs = [torch.randn(4, 5, generator=g) for _ in range(world)]
    model(xs[rank], rank == 0).pow(2).mean().backward()
    torch.manual_seed(0)
    ref = Branches()
    for r in range(world):  # the mean over ranks of each rank's gradient
        (ref(xs[r], r == 0).pow(2).mean() / world).backward()
    for name in ("trunk.weight", "trunk.bias", "only_rank0.weight", "only_rank0.bias"):
        mine, theirs = dict(model.module.named_parameters())[name], dict(ref.named_parameters())[name]
        assert_close(mine.grad, theirs.grad, f"{name} with find_unused_parameters")
    assert model.module.unused.weight.grad is None, "a parameter no rank used got a gradient"
    strict = DDP(Branches())
    try:
        strict(xs[rank], True).sum().backward()
    except RuntimeError as error:
        assert "find_unused_parameters=True" in str(error), error
    else:
        raise AssertionError("an unused parameter without find_unused_parameters did not raise")


def check_timeline_gathers_every_rank():
    torch.manual_seed(0)
    model = DDP(net(), bucket_cap_mb=1e-6)
    (_, _), (xr, yr) = global_batch(0)
    nn.CrossEntropyLoss()(model(xr), yr).backward()
    events = model.timeline.gather()
    assert sorted({e["rank"] for e in events}) == list(range(world))
    assert all(set(e) == {"rank", "kind", "name", "start", "end"} and e["end"] >= e["start"] for e in events)


check_parameters_broadcast_at_construction()
check_sampler_reads_the_process_group()
check_training_equals_one_process_on_the_whole_batch()
check_no_sync_accumulates_then_averages_once()
check_find_unused_parameters()
check_timeline_gathers_every_rank()
dist.barrier()
print(f"rank {rank}: ddp checks passed", flush=True)
dist.destroy_process_group()
