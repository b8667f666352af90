"""The GPipe pipeline (minitorch/distributed/pipelining.py): two ranks, each holding half
of an MLP, and three ranks, each a third, give one process's outputs, losses and
parameters after three SGD steps, for 1 to 4 micro-batches; the bubble formula against
the simulated schedule; bad arguments."""

from __future__ import annotations

import pytest

import minitorch
from minitorch import nn
from minitorch.distributed.pipelining import PipelineStage, ScheduleGPipe, bubble_fraction, simulate_gpipe
from tests.distributed.mpi_programs import needs_mpi, run_ranks


@needs_mpi
@pytest.mark.parametrize("stages, micro", [(2, ("1", "4")), (3, ("3",))])
def test_pipeline_trains_as_one_process(stages, micro) -> None:
    results = run_ranks(stages, "pipeline_stages.py", *micro)
    expected = [(k, int(m)) for k in range(stages) for m in micro]
    assert sorted((r["rank"], r["micro"]) for r in results) == expected
    for r in results:
        assert r["max_param_diff"] < 1e-5 and r["max_loss_diff"] < 1e-5, r
        assert r["kinds"] == ["backward", "forward", "send", "wait"]
        assert r["theory"] == pytest.approx((stages - 1) / (r["micro"] + stages - 1))
        # measured on a shared machine, where a rank can lose its core mid-kernel: some idle
        # time on both stages (a stage waits for the other at least once per step), not all
        assert 0.0 < r["bubble"] < 1.0


@pytest.mark.parametrize("stages, micro", [(1, 1), (2, 1), (2, 4), (3, 5), (4, 8)])
def test_bubble_fraction_is_the_idle_share_of_the_simulated_schedule(stages, micro) -> None:
    events = simulate_gpipe(stages, micro, forward=1.0, backward=2.0)
    span = max(e["end"] for e in events) - min(e["start"] for e in events)
    for s in range(stages):
        mine = sorted((e["start"], e["end"]) for e in events if e["rank"] == s)
        assert all(a[1] <= b[0] for a, b in zip(mine, mine[1:]))  # a stage runs one thing at a time
        busy = sum(end - start for start, end in mine)
        assert 1 - busy / span == pytest.approx(bubble_fraction(stages, micro))
    assert span == pytest.approx((micro + stages - 1) * 3.0)


def test_bad_arguments_raise_pytorch_style_errors() -> None:
    with pytest.raises(TypeError):
        bubble_fraction(None, 2)
    with pytest.raises(TypeError):
        bubble_fraction(2, "4")
    with pytest.raises(ValueError):
        bubble_fraction(2, 0)
    with pytest.raises(TypeError):
        PipelineStage(None, 0, 2)
    with pytest.raises(ValueError):
        PipelineStage(nn.Linear(2, 2), 2, 2)
    stage = PipelineStage(nn.Linear(2, 2), 1, 2)
    with pytest.raises(TypeError):
        ScheduleGPipe(None, 2)
    with pytest.raises(ValueError, match="loss_fn"):
        ScheduleGPipe(stage, 2)
    schedule = ScheduleGPipe(PipelineStage(nn.Linear(2, 2), 0, 2), 2)
    with pytest.raises(TypeError):
        schedule.step(None)
    with pytest.raises(ValueError, match="equal micro-batches"):
        schedule.step(minitorch.randn(3, 2))
    with pytest.raises(RuntimeError):
        schedule.measured_bubble()
