"""DistributedDataParallel on 2 and 3 real MPI ranks (tests/distributed/programs/ddp.py
holds the checks, one launch each): training equals one process on the concatenated
batch to 1e-5, for one bucket and for a bucket per parameter; parameters broadcast from
rank 0 at construction; no_sync accumulation; find_unused_parameters; the timeline."""

from __future__ import annotations

import pytest

import minitorch
from minitorch.nn.parallel.reducer import assign_buckets
from minitorch.nn.parallel.timeline import Timeline, communication_time, exposed_communication
from tests.distributed.mpi_launch import explain, requires_mpi, run_ranks


@requires_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_ddp_equals_one_process_on_the_whole_batch(n):
    done = run_ranks("ddp.py", n, timeout=240)
    assert done.returncode == 0, explain(done)
    assert done.stdout.count("ddp checks passed") == n, explain(done)


def test_exposed_communication_is_what_compute_does_not_cover():
    events = [
        {"rank": 0, "kind": "forward", "name": "forward", "start": 0.0, "end": 1.0},
        {"rank": 0, "kind": "backward", "name": "backward", "start": 1.0, "end": 3.0},
        {"rank": 0, "kind": "allreduce", "name": "bucket 0", "start": 2.0, "end": 3.5},
        {"rank": 0, "kind": "allreduce", "name": "bucket 1", "start": 3.0, "end": 4.0},
        {"rank": 1, "kind": "allreduce", "name": "bucket 0", "start": 9.0, "end": 10.0},
    ]
    assert communication_time(events, rank=0) == pytest.approx(2.0)
    assert communication_time(events) == pytest.approx(3.0)
    assert exposed_communication(events, rank=0) == pytest.approx(1.0)
    assert exposed_communication(events, rank=1) == pytest.approx(1.0)


def test_buckets_fill_in_reverse_order_first_one_small_dtypes_apart():
    params = [minitorch.zeros(200_000), minitorch.zeros(200_000), minitorch.zeros(100),
              minitorch.zeros(3_000_000), minitorch.zeros(10, dtype=minitorch.float64)]  # fmt: skip
    sizes = [[p.numel() for p in b.params] for b in assign_buckets(params, 25 * 1024 * 1024)]
    assert sizes == [[200_000], [200_000, 100, 3_000_000], [10]]  # first bucket <= 1 MiB
    tiny = assign_buckets(params, 100)
    assert [b.params[0] for b in tiny] == params and [b.index for b in tiny] == [0, 1, 2, 3, 4]


def test_a_timeline_keeps_its_latest_events():
    timeline = Timeline(rank=1, limit=10)
    for i in range(25):
        timeline.record("forward", "forward", float(i), i + 0.5)
    assert 5 <= len(timeline.events) <= 10
    last = {"rank": 1, "kind": "forward", "name": "forward", "start": 24.0, "end": 24.5}
    assert timeline.events[-1] == last
    assert [e["start"] for e in timeline.events] == list(range(25 - len(timeline.events), 25))
