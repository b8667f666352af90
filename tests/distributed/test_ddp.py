"""DistributedDataParallel on 2 and 3 real MPI ranks (tests/distributed/programs/ddp.py
holds the checks, one launch each): training equals one process on the concatenated
batch to 1e-5, for one bucket and for a bucket per parameter; parameters broadcast from
rank 0 at construction; no_sync accumulation; find_unused_parameters; the timeline."""

from __future__ import annotations

import pytest

from minitorch.nn.parallel.timeline import communication_time, exposed_communication
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
