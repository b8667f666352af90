"""Checks for the distributed-training exercises (chapter 11): the bytes a ring all-reduce
sends per rank, the pipeline's bubble, and the staleness of asynchronous updates.

Each check compares with the thing itself rather than with a formula: the ring is run
message by message on NumPy arrays and its bytes counted
(``minitorch.distributed.cost_model.simulate_ring_all_reduce``), the bubble is measured
on the simulated GPipe schedule (``minitorch.distributed.pipelining.simulate_gpipe``),
and staleness is replayed through a parameter server's version counter, pull by push.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from minitorch.course.report import call_student, checker, fail
from minitorch.distributed.cost_model import simulate_ring_all_reduce
from minitorch.distributed.pipelining import simulate_gpipe

# ----- exercise 1: ring_bytes ---------------------------------------------------------------

RING_CASES = [(3, 12), (2, 64), (4, 4096), (8, 800), (1, 40), (16, 1600), (5, 5), (64, 64 * 25)]


def counted_ring_bytes(world_size: int, numel: int) -> int:
    """Bytes rank 0 sends in a simulated ring all-reduce of ``numel`` float32 per rank."""
    values = [np.ones(numel, dtype=np.float32) for _ in range(world_size)]
    _, sent, _ = simulate_ring_all_reduce(values)
    return sent[0]


@checker
def check_ring_bytes(ring_bytes: Callable) -> str:
    """``ring_bytes(world_size, nbytes)`` must equal what the simulated ring sends per rank."""
    __tracebackhide__ = True
    for n, numel in RING_CASES:
        nbytes = 4 * numel
        case = f"ring_bytes({n}, {nbytes})  # {n} ranks, {numel} float32 each"
        got = call_student("ring_bytes", ring_bytes, n, nbytes, case=case)
        expected = counted_ring_bytes(n, numel)
        if got is None or not np.isclose(got, expected):
            if got is not None and np.isclose(got, (n - 1) * nbytes / n):
                hint = "that is the reduce-scatter alone: the all-gather sends as much again"
            elif got is not None and np.isclose(got, 2 * (n - 1) * nbytes):
                hint = "that is what one server sends; a ring rank sends one chunk (nbytes / n) per step"
            elif got is not None and np.isclose(got, 2 * nbytes):
                hint = "2 * nbytes is the limit for many ranks; count the 2 (n - 1) steps of nbytes / n"
            else:
                hint = "2 (n - 1) steps, each sending one of the n chunks: 2 * (n - 1) * nbytes / n"
            raise fail("ring_bytes(world_size, nbytes)", case, expected, got, hint)
    return f"ring_bytes agrees with the simulated ring on {len(RING_CASES)} worlds (1 to 64 ranks)"


# ----- exercise 2: bubble -------------------------------------------------------------------

BUBBLE_CASES = [(1, 1), (1, 4), (2, 1), (2, 4), (3, 2), (4, 4), (4, 16), (8, 3)]


def measured_bubble(num_stages: int, n_microbatches: int) -> float:
    """The idle share of stage 0 in the simulated GPipe schedule (all stages share it)."""
    events = simulate_gpipe(num_stages, n_microbatches, forward=1.0, backward=2.0)
    span = max(e["end"] for e in events) - min(e["start"] for e in events)
    busy = sum(e["end"] - e["start"] for e in events if e["rank"] == 0)
    return 1 - busy / span


@checker
def check_bubble(bubble: Callable) -> str:
    """``bubble(num_stages, n_microbatches)`` must equal the idle share of the simulated schedule."""
    __tracebackhide__ = True
    for stages, micro in BUBBLE_CASES:
        case = f"bubble({stages}, {micro})  # {stages} stages, {micro} micro-batches"
        got = call_student("bubble", bubble, stages, micro, case=case)
        expected = measured_bubble(stages, micro)
        if got is None or not np.isclose(got, expected):
            if got is not None and np.isclose(got, (stages - 1) / micro):
                hint = "a stage works M slots of the M + S - 1 the wave takes: divide by M + S - 1"
            elif got is not None and np.isclose(got, (stages - 1) / (micro + stages)):
                hint = "the wave takes M + S - 1 slots (the last stage starts S - 1 slots late)"
            else:
                hint = "idle slots over all slots: (S - 1) / (M + S - 1)"
            raise fail("bubble(num_stages, n_microbatches)", case, expected, got, hint)
    return f"bubble agrees with the simulated GPipe schedule in {len(BUBBLE_CASES)} cases"


# ----- exercise 3: staleness ----------------------------------------------------------------

STALENESS_CASES = [
    [1, 2],
    [1, 1, 1],
    [1, 2, 1, 1, 2],
    [2, 2, 1, 3, 3, 1, 2],
    [3, 1, 2, 3, 1, 2, 3, 1, 2],
    [1],
    [],
]


def replayed_staleness(arrivals: list[int]) -> list[int]:
    """Run the asynchronous server's version counter over ``arrivals`` (worker ids in the
    order their pushes arrive): every worker first pulls version 0, and pulls the new
    version right after each of its pushes is applied."""
    version = 0
    pulled: dict[int, int] = {}
    out = []
    for worker in arrivals:
        out.append(version - pulled.get(worker, 0))
        version += 1
        pulled[worker] = version
    return out


@checker
def check_staleness(staleness: Callable) -> str:
    """``staleness(arrivals)`` must give each update's staleness as the server records it."""
    __tracebackhide__ = True
    for arrivals in STALENESS_CASES:
        case = f"staleness({arrivals})"
        got = call_student("staleness", staleness, list(arrivals), case=case)
        expected = replayed_staleness(arrivals)
        if got is None or list(got) != expected:
            if got is not None and len(got) == len(expected) and all(g == 0 for g in got):
                hint = "a worker computed its gradient from the version it pulled, not the server's latest"
            elif got is not None and list(got) == list(range(len(arrivals))):
                hint = "a worker pulls again after each push: remember the version it got then"
            else:
                hint = "staleness = the server's version now - the version this worker last pulled"
            raise fail("staleness(arrivals)", case, expected, got, hint)
    return f"staleness agrees with the server's version counter on {len(STALENESS_CASES)} orders of arrival"
