"""Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop against torch.optim.

The same start, the same losses, many steps: parameters and every state tensor must
agree (float64 to rounding; float32 to a few ulps, since a different rounding in one
step can carry on). Also: parameter groups, a state_dict round trip, loading the
state_dict torch.optim saved, and the option checks PyTorch makes.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

STEPS = 25

CASES = [
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1, "initial_accumulator_value": 0.3,
                 "eps": 1e-6}),
    ("Adagrad", {"lr": 0.1, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-3, "weight_decay": 0.1}),
    ("Adadelta", {"maximize": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.01, "betas": (0.8, 0.9), "eps": 1e-4, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.01, "maximize": True}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "momentum_decay": 0.1, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.01, "betas": (0.5, 0.9), "maximize": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1}),  # rectified from step 6
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01, "maximize": True}),
    ("ASGD", {"lr": 0.01}),
    ("ASGD", {"lr": 0.01, "t0": 5, "lambd": 0.01, "alpha": 0.5, "weight_decay": 0.1}),  # averages from 6
    ("ASGD", {"lr": 0.01, "t0": 3, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05)}),
    ("Rprop", {"lr": 0.01, "maximize": True}),
]


def _starts(dtype: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal(5).astype(dtype)]


def _loss(params: list, step: int):
    """A bounded loss whose gradients change size and sign from step to step."""
    first, second = params
    return (((first.sum(0) - 1) ** 2).sum() * (1 + step % 3) + (second.sin() ** 2).sum()
            + (first * first).sum() * 0.1)  # fmt: skip


def _train(optimizer, params: list, steps: range) -> None:
    for step in steps:
        optimizer.zero_grad()
        _loss(params, step).backward()
        optimizer.step()


def _pair(name: str, settings: dict, dtype: str, groups: bool = False):
    ours = [minitorch.tensor(a, requires_grad=True) for a in _starts(dtype)]
    theirs = [torch.tensor(a, requires_grad=True) for a in _starts(dtype)]

    def make(library, params):
        if groups:  # the second tensor in a group of its own, with its own lr and weight decay
            params = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.003, "weight_decay": 0.2}]
        return getattr(library.optim, name)(params, **settings)

    return ours, make(minitorch, ours), theirs, make(torch, theirs)


def _tolerance(dtype: str) -> dict:
    return {"rtol": 1e-10, "atol": 1e-12} if dtype == "float64" else {"rtol": 2e-5, "atol": 2e-6}


def _assert_same(ours, ours_opt, theirs, theirs_opt, dtype: str) -> None:
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine.detach().numpy(), reference.detach().numpy(), **_tolerance(dtype))
        my_state, their_state = ours_opt.state[mine], theirs_opt.state[reference]
        assert sorted(my_state) == sorted(their_state)
        for key, value in their_state.items():
            assert my_state[key].dtype.name == str(value.dtype).removeprefix("torch."), key
            np.testing.assert_allclose(my_state[key].numpy(), value.numpy(), err_msg=key, **_tolerance(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "settings"), CASES, ids=[f"{n}{s}" for n, s in CASES])
def test_optimizer_matches_torch(name: str, settings: dict, dtype: str) -> None:
    ours, ours_opt, theirs, theirs_opt = _pair(name, settings, dtype)
    _train(ours_opt, ours, range(STEPS))
    _train(theirs_opt, theirs, range(STEPS))
    _assert_same(ours, ours_opt, theirs, theirs_opt, dtype)


NAMES = sorted({name for name, _ in CASES})


@pytest.mark.parametrize("name", NAMES)
def test_parameter_groups_keep_their_own_settings(name: str) -> None:
    ours, ours_opt, theirs, theirs_opt = _pair(name, {}, "float64", groups=True)
    assert ours_opt.param_groups[1]["lr"] == theirs_opt.param_groups[1]["lr"] == 0.003
    _train(ours_opt, ours, range(10))
    _train(theirs_opt, theirs, range(10))
    _assert_same(ours, ours_opt, theirs, theirs_opt, "float64")
    assert sorted(ours_opt.param_groups[0]) == sorted(theirs_opt.param_groups[0])


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_round_trip_and_torch_layout(name: str) -> None:
    """Stop after 8 steps, save, restore into a new optimizer, go on: the same as not
    stopping. And a state_dict torch.optim saved loads, and training goes on as torch's."""
    ours, ours_opt, theirs, theirs_opt = _pair(name, {}, "float64")
    _train(ours_opt, ours, range(8))
    _train(theirs_opt, theirs, range(8))
    saved = ours_opt.state_dict()
    assert sorted(saved["state"]) == sorted(theirs_opt.state_dict()["state"]) == [0, 1]
    resumed = getattr(minitorch.optim, name)(ours)
    resumed.load_state_dict(saved)
    theirs_opt.load_state_dict(theirs_opt.state_dict())  # (loading casts ASGD's eta and mu as ours)
    _train(resumed, ours, range(8, 16))
    _train(theirs_opt, theirs, range(8, 16))
    _assert_same(ours, resumed, theirs, theirs_opt, "float64")
    # torch's own state_dict, its tensors handed over as minitorch tensors
    from_torch = getattr(minitorch.optim, name)(ours)
    from_torch.load_state_dict(_to_minitorch(theirs_opt.state_dict()))
    theirs_opt.load_state_dict(theirs_opt.state_dict())
    _train(from_torch, ours, range(16, 20))
    _train(theirs_opt, theirs, range(16, 20))
    _assert_same(ours, from_torch, theirs, theirs_opt, "float64")


def _to_minitorch(value):
    if isinstance(value, torch.Tensor):
        return minitorch.tensor(value.numpy())
    if isinstance(value, dict):
        return {key: _to_minitorch(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_to_minitorch(item) for item in value]
    return value


BAD_SETTINGS = [
    ("Adagrad", {"lr": -1}), ("Adagrad", {"lr_decay": -1}), ("Adagrad", {"initial_accumulator_value": -1}),
    ("Adagrad", {"eps": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1}),
    ("Adamax", {"betas": (1.0, 0.9)}), ("Adamax", {"weight_decay": -1}), ("NAdam", {"momentum_decay": -1}),
    ("NAdam", {"betas": (0.9, -0.1)}), ("RAdam", {"eps": -1}), ("ASGD", {"weight_decay": -1}),
    ("Rprop", {"etas": (1.2, 0.5)}), ("LBFGS", {"lr": -1}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "settings"), BAD_SETTINGS, ids=[f"{n}{s}" for n, s in BAD_SETTINGS])
def test_bad_settings_raise_what_torch_raises(name: str, settings: dict) -> None:
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **settings)
    with pytest.raises(ValueError) as ours:
        getattr(minitorch.optim, name)([minitorch.ones(2, requires_grad=True)], **settings)
    assert str(ours.value) == str(theirs.value)


def test_parameters_without_gradient_are_left_alone() -> None:
    for name in NAMES:
        p, q = minitorch.ones(2, requires_grad=True), minitorch.ones(2, requires_grad=True)
        optimizer = getattr(minitorch.optim, name)([p, q])
        (q * 3).sum().backward()
        optimizer.step()
        assert minitorch.equal(p.detach(), minitorch.ones(2))
        assert not minitorch.equal(q.detach(), minitorch.ones(2))
        assert p not in optimizer.state or name == "Adagrad"  # Adagrad makes its state at once
