"""The parameter server (minitorch/distributed/parameter_server.py), one server and two
workers under mpiexec: synchronous training equals one process on the concatenated
batches; asynchronous training equals a one-process replay of the server's log, each
gradient taken at the version its worker pulled, with the staleness the log records."""

from __future__ import annotations

import pytest

from minitorch import nn
from minitorch.distributed.parameter_server import ParameterServer
from tests.distributed.mpi_programs import needs_mpi, run_ranks


@needs_mpi
def test_synchronous_updates_equal_one_process_on_the_concatenated_batch() -> None:
    results = {r["rank"]: r for r in run_ranks(3, "parameter_server_training.py", "sync")}
    server = results[0]
    assert server["max_param_diff"] < 1e-5, server
    assert server["version"] == 4 and server["updates"] == 8  # 4 steps, 2 workers each
    assert server["staleness"] == [0] * 8
    assert results[1]["version"] == results[2]["version"] == 4
    assert server["timeline_kinds"] == ["optimizer", "wait"]


@needs_mpi
def test_asynchronous_updates_replay_in_one_process_and_show_staleness() -> None:
    results = {r["rank"]: r for r in run_ranks(3, "parameter_server_training.py", "async")}
    server = results[0]
    assert server["max_param_diff"] < 1e-5, server
    assert server["version"] == server["updates"] == 8  # every push is its own update
    staleness = server["staleness"]
    assert staleness[0] == 0  # the first push meets the version it pulled
    # only one of the two first pushes can meet version 0, which both pulled; and between a
    # worker's pull and its push come at most the other worker's 4 pushes
    assert sum(staleness) > 0 and all(0 <= s <= 4 for s in staleness)
    assert max(results[1]["version"], results[2]["version"]) == 8


def test_refuses_bad_arguments_before_any_message() -> None:
    with pytest.raises(TypeError):
        ParameterServer(None, lambda p: None)
    with pytest.raises(TypeError):
        ParameterServer(nn.Linear(2, 2), None)
    with pytest.raises(ValueError, match="mode"):
        ParameterServer(nn.Linear(2, 2), lambda p: None, mode="hogwild")
    with pytest.raises(RuntimeError, match="init_process_group"):
        ParameterServer(nn.Linear(2, 2), lambda p: None)
