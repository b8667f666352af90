"""Memory (issue 3, item 9): 10,000 forward/backward/SGD steps of a small MLP keep memory
flat -- the graph of each step is freed after backward, nothing accumulates.

Measured by counting live objects with ``gc`` (tensors, graph nodes, everything): the
counts after the warm-up and after the last step must be (almost) the same.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import minitorch as mt

STEPS = 10_000


def live_objects() -> tuple[int, int]:
    gc.collect()
    objects = gc.get_objects()
    tensors = sum(1 for o in objects if isinstance(o, mt.Tensor))
    return tensors, len(objects)


@pytest.mark.slow
def test_ten_thousand_training_steps_keep_memory_flat():
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((2, 2)), dtype=mt.float32)
    y = mt.tensor(rng.standard_normal((2, 1)), dtype=mt.float32)
    w1 = mt.tensor(rng.standard_normal((2, 3)) * 0.5, dtype=mt.float32, requires_grad=True)
    b1 = mt.zeros(3, requires_grad=True)
    w2 = mt.tensor(rng.standard_normal((3, 1)) * 0.5, dtype=mt.float32, requires_grad=True)
    params = [w1, b1, w2]

    def step() -> float:
        hidden = (x @ w1 + b1).tanh()
        loss = ((hidden @ w2 - y) ** 2).mean()
        loss.backward()
        with mt.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
        return loss.item()

    first = step()
    for _ in range(200):
        step()
    live_objects()  # the first scan may trigger lazy imports (isinstance on lazy modules)
    tensors_before, objects_before = live_objects()
    for _ in range(STEPS - 201):
        last = step()
    tensors_after, objects_after = live_objects()
    assert last < first, "training should reduce the loss"
    assert tensors_after <= tensors_before + 2, (
        f"live tensors grew from {tensors_before} to {tensors_after}: graphs kept alive?"
    )
    assert objects_after <= objects_before + 200, (
        f"live objects grew from {objects_before} to {objects_after}: something keeps "
        f"{(objects_after - objects_before) / (STEPS - 201):.2f} objects per step alive"
    )


def test_graph_is_freed_without_the_cycle_collector_after_backward():
    """After backward (which frees the saved tensors) and dropping the output, the whole
    graph is gone even with the cyclic garbage collector off: no reference cycles."""
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        before = sum(1 for o in gc.get_objects() if isinstance(o, mt.Tensor))
        for _ in range(50):
            y = ((x * 2).exp() + x).sum()
            y.backward()
            del y
        after = sum(1 for o in gc.get_objects() if isinstance(o, mt.Tensor))
    finally:
        gc.enable()
    # x.grad is one new tensor; anything else would be a leak through reference cycles
    assert after <= before + 2, f"{after - before} tensors survive 50 steps without gc"
