"""What an all-reduce costs, on paper and in a small simulation of many machines.

Data-parallel training ends every step with an all-reduce of the gradients: each of the
``n`` ranks holds ``B`` bytes, and every rank must end with the sum. Three ways to do it:

**Through one server** (a parameter server, or "reduce to rank 0, then broadcast")::

    the server receives (n - 1) * B bytes and sends (n - 1) * B bytes
    time ≈ 2 (n - 1) * (latency + B / bandwidth)        # grows with n: the server's link is the bottleneck

**Ring** (what NCCL and MPI use for big messages): the ranks stand in a ring, each
cuts its ``B`` bytes into ``n`` chunks, and in each of ``2 (n - 1)`` steps every rank
sends one chunk to its right neighbour and receives one from its left::

    reduce-scatter, steps 1 .. n-1:  add the received chunk to your own, pass it on
                                     (after n-1 steps rank r holds chunk r+1 summed over all ranks)
    all-gather,     steps n .. 2n-2: pass the summed chunks around until everyone has all of them
    bytes each rank sends = 2 (n - 1) * B / n            # -> 2 B: the same for 2 ranks or 2,000
    time ≈ 2 (n - 1) * (latency + B / (n * bandwidth))

So a ring's *bandwidth* cost hardly grows with the machines, every link is busy at once,
and only its *latency* term (``2 (n - 1)`` messages) grows: why large clusters add trees
and hierarchies for small messages. ``simulate_ring_all_reduce`` runs the ring on NumPy
arrays, message by message, so the formula is counted, not assumed; ``scaling_table``
puts the three designs side by side for as many machines as you like.
"""

from __future__ import annotations

import math

import numpy as np


def ring_bytes_per_rank(world_size: int, nbytes: int) -> float:
    """Bytes each rank sends in a ring all-reduce of ``nbytes``: ``2 (n - 1) / n * nbytes``."""
    _check(world_size, nbytes)
    return 2 * (world_size - 1) / world_size * nbytes


def simulate_ring_all_reduce(values: list[np.ndarray]) -> tuple[list[np.ndarray], list[int], int]:
    """Run a ring all-reduce on ``values`` (one equal-shaped array per rank), one message
    at a time. Returns ``(results, bytes_sent_per_rank, steps)``; every result is the sum.

    Rank ``r`` sends to ``(r + 1) % n``. In reduce-scatter step ``s`` rank ``r`` sends its
    chunk ``(r - s) % n``, which the receiver adds to its own; in all-gather step ``s`` it
    sends chunk ``(r + 1 - s) % n``, which the receiver keeps.
    """
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"values must be a list of arrays, one per rank, got {type(values).__name__}")
    if not values:
        raise ValueError("simulate_ring_all_reduce needs at least one rank's values")
    n = len(values)
    flat = [np.array(v, copy=True).reshape(-1) for v in values]
    if any(f.shape != flat[0].shape for f in flat):
        raise ValueError("every rank must hold the same number of elements")
    chunks = [np.array_split(f, n) for f in flat]  # chunks[r][c]: rank r's copy of chunk c
    sent = [0] * n
    steps = 0
    for phase in ("reduce-scatter", "all-gather"):
        for s in range(n - 1):
            messages = []
            for r in range(n):
                c = (r - s) % n if phase == "reduce-scatter" else (r + 1 - s) % n
                messages.append(((r + 1) % n, c, chunks[r][c].copy()))  # all ranks send at once
                sent[r] += chunks[r][c].nbytes
            for receiver, c, chunk in messages:
                chunks[receiver][c] = chunks[receiver][c] + chunk if phase == "reduce-scatter" else chunk
            steps += 1
    results = [np.concatenate(chunks[r]).reshape(np.shape(values[r])) for r in range(n)]
    return results, sent, steps


def all_reduce_seconds(algorithm: str, world_size: int, nbytes: int, bandwidth: float = 10e9,
                       latency: float = 5e-6) -> float:  # fmt: skip
    """Time of one all-reduce of ``nbytes`` on ``world_size`` machines whose links carry
    ``bandwidth`` bytes a second after ``latency`` seconds per message (the alpha-beta
    model): ``"ring"``, ``"server"`` (one parameter server) or ``"tree"`` (reduce up a
    binary tree, then broadcast down: ``2 log2(n)`` rounds of whole messages)."""
    _check(world_size, nbytes)
    n = world_size
    if n == 1:
        return 0.0
    if algorithm == "ring":
        return 2 * (n - 1) * (latency + nbytes / (n * bandwidth))
    if algorithm == "server":
        return 2 * (n - 1) * (latency + nbytes / bandwidth)
    if algorithm == "tree":
        return 2 * math.ceil(math.log2(n)) * (latency + nbytes / bandwidth)
    raise ValueError(f"algorithm must be 'ring', 'server' or 'tree', not {algorithm!r}")


def scaling_table(nbytes: int, world_sizes: list[int], bandwidth: float = 10e9,
                  latency: float = 5e-6) -> list[dict]:  # fmt: skip
    """One row per world size: the milliseconds of each design, and the ring's bytes per rank."""
    designs = ("ring", "tree", "server")
    return [
        {"machines": n, "ring_bytes_per_rank": ring_bytes_per_rank(n, nbytes),
         **{f"{a}_ms": 1e3 * all_reduce_seconds(a, n, nbytes, bandwidth, latency) for a in designs}}
        for n in world_sizes
    ]  # fmt: skip


def _check(world_size: int, nbytes: int) -> None:
    if isinstance(world_size, bool) or not isinstance(world_size, int):
        raise TypeError(f"world_size must be an int, got {type(world_size).__name__}")
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, float)):
        raise TypeError(f"nbytes must be a number, got {type(nbytes).__name__}")
    if world_size < 1 or nbytes < 0:
        raise ValueError(f"need world_size >= 1 and nbytes >= 0, got {world_size} and {nbytes}")
