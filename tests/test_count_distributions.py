"""torch.poisson and torch.binomial give PyTorch's CPU counts bit for bit after the same seed
(both sampling paths of each, float32 and float64, transposed and broadcast inputs, the
generator left where PyTorch leaves it), and refuse bad input as PyTorch does."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def both(values, dtype):
    """The same values as a torch tensor and a minitorch tensor."""
    return (torch.tensor(values, dtype=getattr(torch, dtype)),
            minitorch.tensor(values, dtype=getattr(minitorch, dtype)))  # fmt: skip


def same_stream(seed, torch_call, minitorch_call):
    torch.manual_seed(seed)
    minitorch.manual_seed(seed)
    expected, actual = torch_call(), minitorch_call()
    assert actual.dtype == getattr(minitorch, str(expected.dtype).removeprefix("torch."))
    assert np.array_equal(actual.numpy(), expected.numpy()), seed
    assert np.array_equal(minitorch.rand(3).numpy(), torch.rand(3).numpy()), seed  # same draws consumed


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    for seed in range(6):  # rates below 10 (multiplied uniforms) and above (rejection), and 0
        rates = rng.choice([0.0, 0.3, 4.0, 9.99, 10.0, 35.5, 1e4], (5, 4))
        t, m = both(rates, dtype)
        same_stream(seed, lambda t=t: torch.poisson(t.t()), lambda m=m: minitorch.poisson(m.t()))
    g, tg = minitorch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    t, m = both([2.0, 50.0], dtype)
    assert np.array_equal(minitorch.poisson(m, g).numpy(), torch.poisson(t, tg).numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    for seed in range(6):  # count * p below 10 (geometric jumps) and above (BTRS), p on both sides of 1/2
        counts = rng.integers(0, [[5], [60], [2000], [100000]], (4, 6)).astype(float)
        chances = rng.choice([0.0, 0.001, 0.2, 0.5, 0.7, 0.9999, 1.0], (4, 6))
        (tc, mc), (tp, mp) = both(counts, dtype), both(chances, dtype)
        same_stream(seed, lambda tc=tc, tp=tp: torch.binomial(tc.t(), tp.t()),
                    lambda mc=mc, mp=mp: minitorch.binomial(mc.t(), mp.t()))  # fmt: skip
    (tc, mc), (tp, mp) = both([[30.0], [7.0]], dtype), both([[0.5, 0.1, 0.95]] * 2, dtype)  # count broadcast
    same_stream(9, lambda: torch.binomial(tc.expand(2, 3), tp), lambda: minitorch.binomial(mc, mp))


def test_bad_input_raises_torchs_exception():
    cases = [
        (lambda lib: lib.poisson(lib.tensor([-1.0])), RuntimeError),
        (lambda lib: lib.poisson(lib.tensor([float("nan")])), RuntimeError),
        (lambda lib: lib.poisson(lib.tensor([1])), NotImplementedError),
        (lambda lib: lib.poisson([1.0]), TypeError),
        (lambda lib: lib.binomial(lib.tensor([3]), lib.tensor([0.5])), ValueError),
        (lambda lib: lib.binomial(lib.tensor([3.0]), lib.tensor([0.5], dtype=lib.float64)), RuntimeError),
    ]
    for call, error in cases:
        with pytest.raises(error):
            call(torch)
        with pytest.raises(error):
            call(minitorch)
