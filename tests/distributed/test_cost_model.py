"""The all-reduce cost model (minitorch/distributed/cost_model.py): the simulated ring
sums like NumPy and sends, per rank, 2(n-1)/n of the bytes (exactly when n divides the
element count, on average otherwise); the alpha-beta times order the designs as the
module says, and bad arguments raise PyTorch-style errors."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.distributed.cost_model import (
    all_reduce_seconds,
    ring_bytes_per_rank,
    scaling_table,
    simulate_ring_all_reduce,
)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16])
@pytest.mark.parametrize("shape, dtype", [((12, 5), np.float32), ((1,), np.float64), ((33,), np.int64)])
def test_the_simulated_ring_sums_and_counts_its_bytes(n, shape, dtype) -> None:
    rng = np.random.default_rng(n)
    values = [(rng.standard_normal(shape) * 10).astype(dtype) for _ in range(n)]
    results, sent, steps = simulate_ring_all_reduce(values)
    expected = np.sum(values, axis=0)
    for result in results:
        assert result.shape == shape and result.dtype == dtype
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-4)
    assert steps == 2 * (n - 1)
    nbytes = values[0].nbytes
    assert np.mean(sent) == pytest.approx(ring_bytes_per_rank(n, nbytes))
    if int(np.prod(shape)) % n == 0:
        assert set(sent) == {ring_bytes_per_rank(n, nbytes)}


def test_ring_bandwidth_stays_flat_while_one_server_grows() -> None:
    rows = scaling_table(100 * 2**20, [2, 8, 64, 1024], latency=0.0)
    ring = [row["ring_ms"] for row in rows]
    server = [row["server_ms"] for row in rows]
    assert ring[-1] < 2 * ring[0]  # 2(n-1)/n < 2: a ring never costs more than twice 2 ranks
    assert server[-1] == pytest.approx(server[0] * 1023)  # (n-1): linear in the machines
    with_latency = all_reduce_seconds("ring", 1024, 1000, latency=1e-5)
    assert with_latency > all_reduce_seconds("tree", 1024, 1000, latency=1e-5)  # small messages: trees win
    assert all_reduce_seconds("ring", 1, 10**9) == 0.0


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        ring_bytes_per_rank(None, 8)
    with pytest.raises(TypeError):
        ring_bytes_per_rank(2, "8")
    with pytest.raises(ValueError):
        ring_bytes_per_rank(0, 8)
    with pytest.raises(ValueError):
        all_reduce_seconds("butterfly", 4, 8)
    with pytest.raises(ValueError):
        simulate_ring_all_reduce([np.zeros(3), np.zeros(4)])
    with pytest.raises(ValueError):
        simulate_ring_all_reduce([])
    with pytest.raises(TypeError):
        simulate_ring_all_reduce(None)
    with pytest.raises(TypeError):
        scaling_table(None, [2])
