"""Seeded random autograd graphs against PyTorch, with hostile leaves.

The programs of ``tests/autograd/test_random_graphs.py`` (elementwise ops, broadcasting,
views, reductions, matmul, fan-out, in-place writes through views), started from leaves
that are harder to get right: an empty tensor (a size 0), and non-contiguous views of the
leaves (transposed, sliced with a step, expanded) in the pool of operands. Every value
and every leaf gradient must equal PyTorch's. Seeds start at 10,000, apart from the ones
that test file uses.

Then the leak check: with the garbage collector off, dropping the program must free every
tensor of its graph by reference counting alone, as in PyTorch (a graph kept alive by a
reference cycle is memory that training loops lose every step).
"""

from __future__ import annotations

import gc
import weakref

import pytest
import torch

import minitorch as mt
from tests.autograd.test_random_graphs import Program

from .budget import fuzz_count

COUNT = fuzz_count(100)  # graphs per backend
LEAK_COUNT = fuzz_count(25)  # graphs per backend checked for leaks
STEPS = 20
EMPTY_SHAPES = [(0,), (0, 4), (3, 0), (2, 0, 4)]
VIEWS = {  # name: view of a leaf, for the leaf's number of dimensions
    "transposed": (2, lambda x: x.transpose(0, 1)),
    "sliced": (1, lambda x: x[::2]),
    "expanded": (0, lambda x: x.unsqueeze(0).expand(3, *x.shape)),
}


class HostileProgram(Program):
    """A ``Program`` whose pool also holds an empty leaf and views of the leaves."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        shape = self.rng.choice(EMPTY_SHAPES)
        m = mt.zeros(*shape, dtype=mt.float64, requires_grad=True)
        t = torch.zeros(*shape, dtype=torch.float64, requires_grad=True)
        self.leaves.append((m, t))
        self.pool.append((m, t))
        self.steps.append(f"leaf{len(self.leaves) - 1} {shape}")
        for i, (m, t) in enumerate(list(self.leaves)):
            name = self.rng.choice(list(VIEWS))
            min_dims, view = VIEWS[name]
            if t.dim() >= min_dims:
                self.pool.append((view(m), view(t)))
                self.steps.append(f"leaf{i}.{name}")


@pytest.mark.parametrize("seed", range(10_000, 10_000 + COUNT), ids=lambda seed: f"seed-{seed}-")
def test_fuzz_graph(backend, seed):
    program = HostileProgram(seed)
    for _ in range(STEPS):
        program.step()
    program.check_gradients()


@pytest.mark.parametrize("seed", range(10_000, 10_000 + LEAK_COUNT), ids=lambda seed: f"seed-{seed}-")
def test_fuzz_graph_is_freed_without_the_garbage_collector(backend, seed):
    gc.collect()
    gc.disable()
    try:
        program = HostileProgram(seed)
        for _ in range(STEPS):
            program.step()
        program.check_gradients()
        tensors = [weakref.ref(m) for m, _ in program.pool]
        steps = program.where()
        del program
        alive = sum(tensor() is not None for tensor in tensors)
    finally:
        gc.enable()
    assert alive == 0, f"{alive} of {len(tensors)} tensors outlive their graph: {steps}"
