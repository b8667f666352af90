"""minitorch.distributed's collectives and messages on 2 and 3 real MPI ranks, against
NumPy (tests/distributed/programs/collectives.py holds the checks; one launch each)."""

from __future__ import annotations

import pytest

from tests.distributed.mpi_launch import explain, requires_mpi, run_ranks

pytestmark = requires_mpi


@pytest.mark.parametrize("n", [2, 3])
def test_every_collective_equals_numpy(n):
    done = run_ranks("collectives.py", n)
    assert done.returncode == 0, explain(done)
    assert done.stdout.count("checks passed") == n, explain(done)  # (ranks' lines may interleave)


def test_gathers_scatters_objects_and_groups_equal_numpy():
    done = run_ranks("gathers.py", 3)
    assert done.returncode == 0, explain(done)
    assert done.stdout.count("checks passed") == 3, explain(done)


def test_device_tensors_are_staged_through_the_host():
    done = run_ranks("devices.py", 2, env={"MINITORCH_CUDA": "emulator"})
    assert done.returncode == 0, explain(done)
    assert done.stdout.count("device checks passed") == 2, explain(done)
