"""A few random numbers are made from the tempered table, one at a time in Python; many by
the compiled loop and NumPy. Both read the one stream: these tests interleave small and
large draws and compare every number with PyTorch's CPU generator, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch
from minitorch.mersenne_twister import (
    WORDS,
    MersenneTwister,
    draw,
    seeded_table,
    temper,
    temper_table,
    twist,
    twist_table,
)


def loop_words(seed: int, count: int) -> np.ndarray:
    """The reference: every word through the compiled loop, from a fresh seed."""
    out = np.empty(count, dtype=np.uint32)
    draw(seeded_table(seed), np.array([1, 0], dtype=np.int64), out)
    return out


@pytest.mark.parametrize("seed", [0, 5489, 2**64 - 1])
def test_the_numpy_twist_and_temper_are_the_loops(seed) -> None:
    loop, sliced = seeded_table(seed), seeded_table(seed)
    for _ in range(3):
        twist(loop)
        twist_table(sliced)
        np.testing.assert_array_equal(sliced, loop)
    assert temper_table(loop).tolist() == [int(temper(np.int64(word))) for word in loop]


def test_small_and_large_reads_continue_one_stream() -> None:
    engine = MersenneTwister(7)
    counts = [0, 1, 5, WORDS - 1, 2, WORDS, 3, 2 * WORDS + 5, 623, 1, 700, 17]
    pieces = []
    for k, count in enumerate(counts):  # take, words (both of its paths) and take64 in turn
        if k % 3 == 0:
            pieces.append(np.array(engine.take(count), dtype=np.uint32))
        elif k % 3 == 1:
            pieces.append(engine.words(count))
        else:
            pairs = np.array(engine.take64((count + 1) // 2), dtype=np.uint64)
            pieces.append(np.stack([pairs >> np.uint64(32), pairs & np.uint64(0xFFFFFFFF)], 1).reshape(-1))
    drawn = np.concatenate(pieces).astype(np.uint32)
    np.testing.assert_array_equal(drawn, loop_words(7, drawn.size))


def same(ours: minitorch.Tensor, theirs: torch.Tensor) -> None:
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch."), (ours.dtype, theirs.dtype)
    if ours.dtype.is_floating_point:  # every float (bfloat16 too) holds exactly in float64
        ours, theirs = ours.double(), theirs.double()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_small_normal_and_uniform_fills_round_as_pytorch(name) -> None:
    """(Halves are compared on the normal's one-at-a-time sizes only: from 16 elements on
    PyTorch computes their blocks of 16, and their uniforms, in half precision, which
    minitorch does not follow yet.)"""
    ours_dtype, torch_dtype = getattr(minitorch, name), getattr(torch, name)
    g, tg = minitorch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    # (mean, std): one step exact (std 1 or mean 0, a -0.0 among them) and neither exact
    for mean, std in [(0.0, 1.0), (0.25, 1.0), (-0.0, 2.5), (0.0, 0.0), (-1.5, 0.3)]:
        for shape in [(), (1,), (3, 3), (15,)] + ([(4, 5)] if name in ("float32", "float64") else []):
            ours = minitorch.empty(shape, dtype=ours_dtype).normal_(mean, std, generator=g)
            same(ours, torch.empty(shape, dtype=torch_dtype).normal_(mean, std, generator=tg))
    if name not in ("float32", "float64"):
        return
    for low, high in [(0.0, 1.0), (-0.0, 1.0), (0.0, 3.0), (2.0, 3.0), (-1.0, 0.5)]:
        for shape in [(), (2,), (3, 3), (70,)]:
            ours = minitorch.empty(shape, dtype=ours_dtype).uniform_(low, high, generator=g)
            same(ours, torch.empty(shape, dtype=torch_dtype).uniform_(low, high, generator=tg))


def test_small_normal_of_a_transposed_tensor_and_the_cached_value() -> None:
    g, tg = minitorch.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    for n in [1, 3, 2, 7]:  # odd counts leave a cached value for the next call
        same(
            minitorch.randn(n, generator=g, dtype=minitorch.float64),
            torch.randn(n, generator=tg, dtype=torch.float64),
        )
    ours = minitorch.empty(5, 4).t().normal_(generator=g)  # not contiguous: one at a time at any size
    same(ours, torch.empty(5, 4).t().normal_(generator=tg))
    np.testing.assert_array_equal(g.get_state().numpy(), tg.get_state().numpy())


@pytest.mark.parametrize("seed", [0, 2147483647])
def test_small_integers_and_permutations(seed) -> None:
    g, tg = minitorch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    for size in [(), (0,), (1,), (3, 4), (63,), (64,), (200,)]:
        for low, high in [(0, 27), (-5, 3), (-(2**40), 2**40), (0, 2**28)]:
            same(
                minitorch.randint(low, high, size, generator=g), torch.randint(low, high, size, generator=tg)
            )
    for n in [0, 1, 2, 27, 63, 64, 625, 1300]:
        same(minitorch.randperm(n, generator=g), torch.randperm(n, generator=tg))


def test_a_state_whose_position_disagrees_with_its_count_is_refused() -> None:
    state = torch.Generator().manual_seed(1)
    torch.rand(5, generator=state)
    good = minitorch.tensor(state.get_state().numpy(), dtype=minitorch.uint8)
    assert minitorch.equal(minitorch.Generator().set_state(good).get_state(), good)
    cells = good.numpy().copy()
    cells[16:24] = np.frombuffer(np.uint64(3).tobytes(), np.uint8)  # ``next``, now not 624 - left + 1
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        minitorch.Generator().set_state(minitorch.tensor(cells, dtype=minitorch.uint8))
