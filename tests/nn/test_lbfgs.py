"""LBFGS against torch.optim.LBFGS: the same iterates, losses and evaluation counts.

float64 on a non-convex problem (Rosenbrock's valley and a sine layer), where every
branch of the iteration and of the strong Wolfe line search is taken, for 4 steps of up
to 20 iterations; float32 on a well-conditioned one for one step of up to 6 iterations
(float32 losses differ from PyTorch's in the last bits, and near the minimum of a float32
loss, which line-search branch a trial takes is decided by that noise).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch
from minitorch import no_grad
from minitorch.optim.line_search import cubic_minimum

SETTINGS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"history_size": 3, "max_iter": 7, "lr": 0.5},
    {"line_search_fn": "strong_wolfe", "history_size": 2, "max_eval": 9},
    {"tolerance_grad": 1e-3, "tolerance_change": 1e-4},
]


def _run(library, dtype: str, hard: bool, settings: dict) -> tuple:
    rng = np.random.default_rng(1)
    a = library.tensor(rng.standard_normal((4, 3)).astype(dtype))
    x = library.tensor(rng.standard_normal(3).astype(dtype), requires_grad=True)
    w = library.tensor(rng.standard_normal(2).astype(dtype), requires_grad=True)
    optimizer = library.optim.LBFGS([x, w], **settings)

    def closure():
        optimizer.zero_grad()
        if hard:
            rosenbrock = 100 * (w[1] - w[0] ** 2) ** 2 + (1 - w[0]) ** 2
            loss = ((a @ x).sin() ** 2).sum() + rosenbrock + (x**4).sum() * 0.1
        else:
            loss = ((a @ x - 1) ** 2).sum() + ((w - 2) ** 2 * library.tensor([1.0, 3.0], dtype=w.dtype)).sum()
        loss.backward()
        return loss

    losses = [optimizer.step(closure).item() for _ in range(4 if hard else 1)]
    state = optimizer.state[x]
    return losses, x.detach().numpy(), w.detach().numpy(), state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize(("dtype", "hard"), [("float64", True), ("float32", False)])
def test_lbfgs_matches_torch(settings: dict, dtype: str, hard: bool) -> None:
    if not hard:
        settings = {**settings, "max_iter": min(settings.get("max_iter", 20), 6)}
    ours, theirs = _run(minitorch, dtype, hard, settings), _run(torch, dtype, hard, settings)
    assert ours[3:] == theirs[3:]  # the same number of evaluations and iterations
    # (Rosenbrock's valley amplifies rounding: after 4 steps of up to 20 iterations the
    # iterates differ by up to 1e-9, relative 3e-8, with the same path)
    tolerance = {"rtol": 1e-6, "atol": 1e-8} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    for mine, reference in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(mine, reference, **tolerance)


def test_lbfgs_state_keeps_torch_names_and_refuses_what_torch_refuses() -> None:
    p = minitorch.tensor([1.0, -2.0], requires_grad=True)
    optimizer = minitorch.optim.LBFGS([p], history_size=5)

    def closure():
        optimizer.zero_grad()
        loss = (p**2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    names = ["func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
             "prev_loss", "al"]  # fmt: skip
    assert sorted(optimizer.state[p]) == sorted(names)
    with pytest.raises(ValueError, match="parameter groups"):
        minitorch.optim.LBFGS([{"params": [p]}, {"params": [minitorch.ones(1, requires_grad=True)]}])
    with no_grad():
        p.copy_(minitorch.tensor([1.0, -2.0]))
    optimizer = minitorch.optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        optimizer.step(closure)


@pytest.mark.parametrize("seed", range(20))
def test_cubic_minimum_is_the_minimum_of_the_matching_cubic(seed: int) -> None:
    """Against NumPy: fit the cubic through both ends (values and slopes), take its
    critical point with positive curvature; outside the bounds, the nearer bound."""
    rng = np.random.default_rng(seed)
    x1, x2 = sorted(rng.uniform(-2, 2, 2))
    f1, f2, g1, g2 = rng.standard_normal(4)
    ours = float(cubic_minimum(x1, f1, minitorch.tensor(g1, dtype=minitorch.float64), x2, f2,
                               minitorch.tensor(g2, dtype=minitorch.float64)))  # fmt: skip
    matrix = np.array([[x**3, x**2, x, 1] for x in (x1, x2)] + [[3 * x**2, 2 * x, 1, 0] for x in (x1, x2)])
    c = np.linalg.solve(matrix, [f1, f2, g1, g2])
    roots = np.roots([3 * c[0], 2 * c[1], c[2]])
    minima = [r.real for r in roots if abs(r.imag) < 1e-12 and 6 * c[0] * r.real + 2 * c[1] > 0]
    if not minima:
        assert ours == pytest.approx((x1 + x2) / 2)
    else:
        assert ours == pytest.approx(min(max(minima[0], x1), x2), rel=1e-9, abs=1e-12)
