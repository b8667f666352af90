"""Optimizers and schedules against PyTorch: the same model, data and settings give the
same parameters after every one of 20 steps."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import nn, optim
from tests.nn.twins import assert_close, copy_weights

rng = np.random.default_rng(0)
X = rng.standard_normal((16, 3))
Y = rng.standard_normal((16, 2))


def model(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)).double()


def run_both(make_ours, make_theirs, steps: int = 20, schedule=None, groups: bool = False, tol: float = 1e-9):
    """Train twin models for ``steps`` steps, comparing every parameter after each."""
    ours_model, theirs_model = model(mt), model(torch)
    copy_weights(ours_model, theirs_model)
    if groups:  # the two layers in separate parameter groups, the second with its own lr
        ours_params = [
            {"params": ours_model[0].parameters()},
            {"params": ours_model[2].parameters(), "lr": 0.05},
        ]
        theirs_params = [{"params": theirs_model[0].parameters()},
                         {"params": theirs_model[2].parameters(), "lr": 0.05}]  # fmt: skip
    else:
        ours_params, theirs_params = ours_model.parameters(), theirs_model.parameters()
    ours_opt, theirs_opt = make_ours(ours_params), make_theirs(theirs_params)
    if schedule:
        ours_sched, theirs_sched = schedule(mt, ours_opt), schedule(torch, theirs_opt)
    x, y, tx, ty = mt.tensor(X), mt.tensor(Y), torch.tensor(X), torch.tensor(Y)
    for step in range(steps):
        ours_opt.zero_grad()
        theirs_opt.zero_grad()
        ((ours_model(x) - y) ** 2).mean().backward()
        ((theirs_model(tx) - ty) ** 2).mean().backward()
        ours_opt.step()
        theirs_opt.step()
        if schedule:
            ours_sched.step()
            theirs_sched.step()
            assert ours_sched.get_last_lr() == pytest.approx(theirs_sched.get_last_lr(), rel=1e-12)
        for (name, theirs_param), ours_param in zip(theirs_model.named_parameters(), ours_model.parameters()):
            assert_close(ours_param, theirs_param, tol, f"{name} after step {step + 1}")
    return ours_opt, theirs_opt


SGD_OPTIONS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.1, momentum=0.9, dampening=0.5),
    dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.1, momentum=0.5, weight_decay=0.01),
    dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True),
]


@pytest.mark.parametrize("options", SGD_OPTIONS, ids=str)
def test_sgd_trajectory(options):
    run_both(lambda p: optim.SGD(p, **options), lambda p: torch.optim.SGD(p, **options))


ADAM_OPTIONS = [
    dict(),
    dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.01, maximize=True),
]


@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=str)
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_trajectory(name, options):
    run_both(lambda p: getattr(optim, name)(p, **options),
             lambda p: getattr(torch.optim, name)(p, **options))  # fmt: skip


def test_parameter_groups():
    run_both(lambda p: optim.SGD(p, lr=0.1, momentum=0.9), lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
             groups=True)  # fmt: skip
    run_both(lambda p: optim.Adam(p, lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01), groups=True)


def test_adam_float32_trajectory():
    ours_model, theirs_model = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    copy_weights(ours_model, theirs_model)
    ours, theirs = (
        optim.Adam(ours_model.parameters(), lr=0.01),
        torch.optim.Adam(theirs_model.parameters(), lr=0.01),
    )
    x = X.astype(np.float32)
    for _ in range(20):
        ours.zero_grad()
        theirs.zero_grad()
        ours_model(mt.tensor(x)).pow(2).mean().backward()
        theirs_model(torch.tensor(x)).pow(2).mean().backward()
        ours.step()
        theirs.step()
    assert_close(ours_model.weight, theirs_model.weight, 1e-5)


SCHEDULES = {
    "StepLR": lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5),
    "CosineAnnealingLR": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=7, eta_min=0.001
    ),
    "CosineAnnealingLR past T_max": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4),
    "LambdaLR": lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.9**epoch),
}


@pytest.mark.parametrize("name", SCHEDULES)
def test_schedules(name):
    run_both(lambda p: optim.SGD(p, lr=0.1, momentum=0.9), lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
             schedule=SCHEDULES[name], groups=True)  # fmt: skip


def test_cosine_reaches_eta_min():
    opt = optim.SGD([nn.Parameter(mt.zeros(1))], lr=1.0)
    schedule = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.1)
    lrs = []
    for _ in range(10):
        opt.step()
        schedule.step()
        lrs.append(schedule.get_last_lr()[0])
    assert lrs[-1] == pytest.approx(0.1)
    assert lrs[4] == pytest.approx(0.1 + 0.9 * (1 + math.cos(math.pi / 2)) / 2)


def test_optimizer_state_dict_round_trip():
    ours, theirs = run_both(lambda p: optim.Adam(p, lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01), steps=3)
    ours_state, theirs_state = ours.state_dict(), theirs.state_dict()
    assert sorted(ours_state["state"]) == sorted(theirs_state["state"])
    assert sorted(ours_state["state"][0]) == sorted(theirs_state["state"][0])
    for key in ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "params"):
        assert ours_state["param_groups"][0][key] == theirs_state["param_groups"][0][key], key
    assert_close(ours_state["state"][1]["exp_avg"], theirs_state["state"][1]["exp_avg"])
    assert float(ours_state["state"][0]["step"]) == 3
    # a fresh optimizer over another copy of the model continues exactly where this one was
    clone_model = model(mt)
    clone = optim.Adam(clone_model.parameters(), lr=0.5)
    clone.load_state_dict(ours_state)
    assert clone.param_groups[0]["lr"] == 0.01
    assert_close(
        clone.state[clone_model[0].weight]["exp_avg_sq"],
        ours.state[ours.param_groups[0]["params"][0]]["exp_avg_sq"],
    )


def test_optimizer_load_state_dict_mismatch():
    opt = optim.SGD(model(mt).parameters(), lr=0.1)
    other = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(other.state_dict())


def test_scheduler_state_dict():
    opt = optim.SGD([nn.Parameter(mt.zeros(1))], lr=1.0)
    schedule = optim.lr_scheduler.StepLR(opt, step_size=2)
    for _ in range(3):
        schedule.step()
    state = schedule.state_dict()
    assert state["last_epoch"] == 3 and "optimizer" not in state
    fresh = optim.lr_scheduler.StepLR(optim.SGD([nn.Parameter(mt.zeros(1))], lr=1.0), step_size=2)
    fresh.load_state_dict(state)
    assert fresh.last_epoch == 3


def test_updates_are_in_place_and_leave_no_graph():
    layer = nn.Linear(2, 1)
    weight = layer.weight
    opt = optim.SGD(layer.parameters(), lr=0.1, momentum=0.9)
    layer(mt.randn(3, 2)).sum().backward()
    opt.step()
    assert layer.weight is weight and weight.is_leaf and weight.grad_fn is None
    opt.zero_grad()
    assert weight.grad is None
    layer(mt.randn(3, 2)).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert weight.grad is not None and not weight.grad.numpy().any()


def test_closure_is_called_and_its_loss_returned():
    layer = nn.Linear(2, 1)
    opt = optim.SGD(layer.parameters(), lr=0.1)

    def closure():
        opt.zero_grad()
        loss = layer(mt.ones(1, 2)).sum()
        loss.backward()
        return loss

    assert isinstance(opt.step(closure), mt.Tensor)


def test_invalid_hyperparameters():
    params = [nn.Parameter(mt.zeros(1))]
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD(params, lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD(params, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam(params, betas=(0.9, 1.0))
