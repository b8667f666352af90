"""Random streams equal PyTorch's CPU generator bit for bit (issue 31): the Mersenne
Twister seeded as PyTorch seeds it, its saved state, and PyTorch's transformations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

SEEDS = [0, 1, 42, 2147483647, 67280421310721, 2**64 - 1, -5]
SIZES = list(range(1, 41)) + [100, 1000]
DTYPES = [(minitorch.float32, torch.float32), (minitorch.float64, torch.float64)]


def pair(seed: int) -> tuple[minitorch.Generator, torch.Generator]:
    return minitorch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)


def same(ours: minitorch.Tensor, theirs: torch.Tensor) -> None:
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch."), (ours.dtype, theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_the_lecture_example() -> None:
    g = minitorch.Generator().manual_seed(2147483647)
    p = minitorch.rand(3, generator=g)
    same(p, torch.rand(3, generator=torch.Generator().manual_seed(2147483647)))
    assert [round(v, 4) for v in (p / p.sum()).tolist()] == [0.6064, 0.3033, 0.0903]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtypes", DTYPES, ids=["float32", "float64"])
def test_rand_and_randn_every_size_around_the_16_boundary(seed, dtypes) -> None:
    ours_dtype, torch_dtype = dtypes
    g, tg = pair(seed)
    for n in SIZES:  # interleaved: each call continues the same stream
        same(minitorch.rand(n, generator=g, dtype=ours_dtype), torch.rand(n, generator=tg, dtype=torch_dtype))
        same(
            minitorch.randn(n, generator=g, dtype=ours_dtype), torch.randn(n, generator=tg, dtype=torch_dtype)
        )


@pytest.mark.parametrize("dtypes", DTYPES, ids=["float32", "float64"])
def test_in_place_fills_and_shapes(dtypes) -> None:
    ours_dtype, torch_dtype = dtypes
    g, tg = pair(7)
    for shape in [(3,), (4, 5), (2, 3, 7), (17,)]:
        same(minitorch.empty(*shape, dtype=ours_dtype).uniform_(-0.3, 2.5, generator=g),
             torch.empty(*shape, dtype=torch_dtype).uniform_(-0.3, 2.5, generator=tg))  # fmt: skip
        same(minitorch.empty(*shape, dtype=ours_dtype).normal_(0.5, 3.0, generator=g),
             torch.empty(*shape, dtype=torch_dtype).normal_(0.5, 3.0, generator=tg))  # fmt: skip
    minitorch.manual_seed(8)
    torch.manual_seed(8)
    same(
        minitorch.rand_like(minitorch.zeros(2, 9, dtype=ours_dtype)),
        torch.rand_like(torch.zeros(2, 9, dtype=torch_dtype)),
    )
    same(
        minitorch.randn_like(minitorch.zeros(19, dtype=ours_dtype)),
        torch.randn_like(torch.zeros(19, dtype=torch_dtype)),
    )


def test_the_global_generator_and_its_state() -> None:
    minitorch.manual_seed(3)
    torch.manual_seed(3)
    assert minitorch.initial_seed() == torch.initial_seed() == 3
    same(minitorch.randn(5), torch.randn(5))  # leaves a cached Box-Muller value in both
    state = minitorch.get_rng_state()
    theirs = torch.get_rng_state()
    assert state.shape == theirs.shape and state.dtype.name == "uint8"
    np.testing.assert_array_equal(state.numpy(), theirs.numpy())
    first = minitorch.randn(7)
    same(first, torch.randn(7))
    minitorch.set_rng_state(state)
    assert minitorch.equal(minitorch.randn(7), first)
    # PyTorch's state restores ours and ours restores PyTorch's
    minitorch.set_rng_state(minitorch.tensor(theirs.numpy(), dtype=minitorch.uint8))
    assert minitorch.equal(minitorch.randn(7), first)
    torch.set_rng_state(torch.from_numpy(state.numpy()))
    same(first, torch.randn(7))


def test_fork_rng_restores_the_stream() -> None:
    minitorch.manual_seed(11)
    torch.manual_seed(11)
    with minitorch.random.fork_rng():
        minitorch.rand(100)
    with torch.random.fork_rng():
        torch.rand(100)
    same(minitorch.rand(4), torch.rand(4))


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_integers_and_permutations(seed) -> None:
    g, tg = pair(seed)
    for n in [1, 2, 5, 17, 100, 1000]:
        for low, high in [(0, 10), (-5, 3), (0, 2**40)]:
            same(
                minitorch.randint(low, high, (n,), generator=g), torch.randint(low, high, (n,), generator=tg)
            )
        same(minitorch.randperm(n, generator=g), torch.randperm(n, generator=tg))


@pytest.mark.parametrize("dtypes", DTYPES, ids=["float32", "float64"])
def test_bernoulli_of_a_tensor_and_normal_overloads(dtypes) -> None:
    ours_dtype, torch_dtype = dtypes
    g, tg = pair(5)
    p = np.linspace(0, 1, 37)
    same(minitorch.bernoulli(minitorch.tensor(p, dtype=ours_dtype), generator=g),
         torch.bernoulli(torch.tensor(p, dtype=torch_dtype), generator=tg))  # fmt: skip
    same(minitorch.normal(2.0, 3.0, (4, 5), generator=g, dtype=ours_dtype),
         torch.normal(2.0, 3.0, (4, 5), generator=tg, dtype=torch_dtype))  # fmt: skip
    means, stds = np.arange(20.0), np.linspace(0.1, 2, 20)
    same(
        minitorch.normal(
            minitorch.tensor(means, dtype=ours_dtype), minitorch.tensor(stds, dtype=ours_dtype), generator=g
        ),
        torch.normal(
            torch.tensor(means, dtype=torch_dtype), torch.tensor(stds, dtype=torch_dtype), generator=tg
        ),
    )
    same(minitorch.normal(minitorch.tensor(means, dtype=ours_dtype), 2.0, generator=g),
         torch.normal(torch.tensor(means, dtype=torch_dtype), 2.0, generator=tg))  # fmt: skip


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial(replacement) -> None:
    g, tg = pair(2147483647)
    weights = np.random.default_rng(0).random((3, 27)).astype(np.float32)
    for samples in [1, 5, 20]:
        same(minitorch.multinomial(minitorch.tensor(weights), samples, replacement, generator=g),
             torch.multinomial(torch.tensor(weights), samples, replacement, generator=tg))  # fmt: skip


def test_layer_defaults_equal_pytorch_after_the_same_seed() -> None:
    minitorch.manual_seed(0)
    torch.manual_seed(0)
    for ours, theirs in [(minitorch.nn.Linear(3, 2), torch.nn.Linear(3, 2)),
                         (minitorch.nn.Linear(20, 30), torch.nn.Linear(20, 30)),
                         (minitorch.nn.Conv2d(3, 4, 3), torch.nn.Conv2d(3, 4, 3)),
                         (minitorch.nn.Embedding(10, 4), torch.nn.Embedding(10, 4))]:  # fmt: skip
        for name, parameter in theirs.named_parameters():
            same(getattr(ours, name).detach(), parameter.detach())
    for init in ["xavier_uniform_", "xavier_normal_", "kaiming_normal_", "kaiming_uniform_"]:
        same(
            getattr(minitorch.nn.init, init)(minitorch.empty(5, 7)),
            getattr(torch.nn.init, init)(torch.empty(5, 7)),
        )


def test_a_shuffled_dataloader_visits_pytorchs_order() -> None:
    data = np.arange(23.0)
    for generator in (None, 9):
        minitorch.manual_seed(4)
        torch.manual_seed(4)
        ours = minitorch.utils.data.DataLoader(
            minitorch.utils.data.TensorDataset(minitorch.tensor(data)),
            batch_size=5,
            shuffle=True,
            generator=None if generator is None else minitorch.Generator().manual_seed(generator),
        )
        theirs = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(torch.tensor(data)),
            batch_size=5,
            shuffle=True,
            generator=None if generator is None else torch.Generator().manual_seed(generator),
        )
        for _ in range(2):  # two epochs
            assert [b[0].tolist() for b in ours] == [b[0].tolist() for b in theirs]


def test_bad_input() -> None:
    with pytest.raises(RuntimeError):
        minitorch.manual_seed(2**64)
    with pytest.raises(RuntimeError):
        minitorch.multinomial(minitorch.tensor([0.5, 0.5]), 3)
    with pytest.raises(RuntimeError):
        minitorch.set_rng_state(minitorch.zeros(10, dtype=minitorch.uint8))
