"""Every learning-rate schedule against torch.optim.lr_scheduler: the same numbers.

Each schedule runs 60 steps over an optimizer with two parameter groups; the learning
rates (and, for the cyclic ones, the momentum or beta1 they move) must be *equal* to
torch's, not close: the files follow PyTorch's formulas operation by operation. Also the
closed forms (``step(epoch)``), resuming from ``state_dict``, and the errors.
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch

import minitorch

STEPS = 60

# name -> (optimizer kind, scheduler over (library, optimizer))
SCHEDULES = {
    "StepLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, step_size=7, gamma=0.3)),
    "MultiStepLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.MultiStepLR(opt, [5, 12, 12, 40], 0.5)),
    "ExponentialLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.93)),
    "PolynomialLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.PolynomialLR(opt, 37, power=1.7)),
    "CosineAnnealingLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingLR(opt, 17, 0.001)),
    "CosineAnnealingWarmRestarts": ("sgd", lambda lib, opt: (
        lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=0.002))),
    "CosineAnnealingWarmRestarts T_mult=1": ("sgd", lambda lib, opt: (
        lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=7))),
    "LambdaLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(
        opt, [lambda e: 0.97**e, lambda e: 1 / (e + 1)])),
    "MultiplicativeLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.9)),
    "ConstantLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt, factor=0.3, total_iters=9)),
    "LinearLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.LinearLR(opt, 0.1, 0.9, total_iters=23)),
    "CyclicLR triangular": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(
        opt, base_lr=[0.01, 0.001], max_lr=0.1, step_size_up=7, step_size_down=4)),
    "CyclicLR triangular2 Adam": ("adam", lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(
        opt, 0.001, 0.01, step_size_up=5, mode="triangular2")),
    "CyclicLR exp_range": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(
        opt, 0.01, 0.1, step_size_up=6, mode="exp_range", gamma=0.97, cycle_momentum=False)),
    "OneCycleLR": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, [0.3, 0.1], 70)),
    "OneCycleLR linear three_phase Adam": ("adam", lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(
        opt, 0.01, epochs=7, steps_per_epoch=10, anneal_strategy="linear", three_phase=True, pct_start=0.25)),
    "SequentialLR warmup then cosine": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.LinearLR(opt, 0.2, total_iters=6),
              lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30)], milestones=[6])),
    "SequentialLR three": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.ConstantLR(opt, 0.5, total_iters=4),
              lib.optim.lr_scheduler.ExponentialLR(opt, 0.9),
              lib.optim.lr_scheduler.StepLR(opt, 5, 0.5)], milestones=[10, 25])),
    "ChainedScheduler": ("sgd", lambda lib, opt: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ConstantLR(opt, 0.1, total_iters=3),
         lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)])),
}  # fmt: skip


def _optimizer(library, kind: str):
    groups = [{"params": [library.zeros(2, requires_grad=True)]},
              {"params": [library.zeros(3, requires_grad=True)], "lr": 0.01}]  # fmt: skip
    if kind == "adam":
        return library.optim.Adam(groups, lr=0.1)
    return library.optim.SGD(groups, lr=0.1, momentum=0.9)


def _momenta(optimizer) -> list:
    return [group["betas"][0] if "betas" in group else group["momentum"] for group in optimizer.param_groups]


def _run(library, name: str, steps: int = STEPS) -> tuple:
    kind, make = SCHEDULES[name]
    optimizer = _optimizer(library, kind)
    scheduler = make(library, optimizer)
    lrs, momenta = [scheduler.get_last_lr()], [_momenta(optimizer)]
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
        momenta.append(_momenta(optimizer))
    return lrs, momenta, optimizer, scheduler


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedule_equals_torch(name: str) -> None:
    ours, theirs = _run(minitorch, name), _run(torch, name)
    assert ours[0] == theirs[0]  # bit for bit, every step
    assert ours[1] == theirs[1]
    assert [g["lr"] for g in ours[2].param_groups] == [g["lr"] for g in theirs[2].param_groups]


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_resuming_from_state_dict_continues_the_schedule(name: str) -> None:
    """Save after 20 steps, load into a fresh scheduler (the optimizer's groups restored
    too, as a checkpoint would), take 20 more: the same as 40 in one go."""
    kind, make = SCHEDULES[name]
    uninterrupted = _run(minitorch, name, 40)[0]
    _, _, optimizer, scheduler = _run(minitorch, name, 20)
    saved_groups = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
    saved = scheduler.state_dict()
    fresh_optimizer = _optimizer(minitorch, kind)
    fresh = make(minitorch, fresh_optimizer)
    for group, values in zip(fresh_optimizer.param_groups, saved_groups):
        group.update(values)
    fresh.load_state_dict(saved)
    resumed = []
    for _ in range(20):
        fresh_optimizer.step()
        fresh.step()
        resumed.append(fresh.get_last_lr())
    assert resumed == uninterrupted[21:]


CLOSED_FORMS = ["StepLR", "MultiStepLR", "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "ConstantLR",
                "LinearLR", "CosineAnnealingWarmRestarts",
                "CosineAnnealingWarmRestarts T_mult=1"]  # fmt: skip


@pytest.mark.parametrize("name", CLOSED_FORMS)
def test_step_with_an_epoch_uses_the_closed_form_as_torch(name: str) -> None:
    epochs = [3, 9, 1, 25, 25, 60, 0, 14, 44, 7.5] if "Warm" in name else [3, 9, 1, 25, 25, 60, 0, 14, 44]
    results = []
    for library in (minitorch, torch):
        kind, make = SCHEDULES[name]
        scheduler = make(library, _optimizer(library, kind))
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in epochs:
                scheduler.step(epoch)
                seen.append(scheduler.get_last_lr())
        results.append(seen)
    assert results[0] == results[1]


PLATEAU = [
    {},
    {"mode": "max", "factor": 0.5, "patience": 2, "threshold": 0.05, "threshold_mode": "abs", "cooldown": 3},
    {"patience": 1, "min_lr": [0.02, 0.0005], "eps": 1e-3},
    {"patience": 0, "threshold_mode": "abs", "threshold": 0.0},
]


@pytest.mark.parametrize("settings", PLATEAU, ids=str)
def test_reduce_lr_on_plateau_equals_torch(settings: dict) -> None:
    metrics = [1 / (1 + i) + 0.3 * math.sin(i) ** 2 for i in range(80)]
    results = []
    for library in (minitorch, torch):
        optimizer = _optimizer(library, "sgd")
        scheduler = library.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **settings)
        seen = []
        for value in metrics:
            scheduler.step(library.tensor(value) if len(seen) % 2 else value)
            seen.append((scheduler.get_last_lr(), scheduler.num_bad_epochs, scheduler.best))
        results.append(seen)
    assert results[0] == results[1]


ERRORS = [
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt, factor=1.5)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.LinearLR(opt, start_factor=0)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=0)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="up")),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode="square")),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(opt, [0.1], 1.0)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, 0.1)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=10, pct_start=2.0)),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, 10, anneal_strategy="exp")),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(opt, [], milestones=[])),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.StepLR(opt, 2)], milestones=[3])),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.StepLR(opt, 2), lib.optim.lr_scheduler.ReduceLROnPlateau(opt)], [3])),
    (ValueError, lambda lib, opt: lib.optim.lr_scheduler.ChainedScheduler([])),
    (TypeError, lambda lib, opt: lib.optim.lr_scheduler.StepLR(None, 3)),
    (TypeError, lambda lib, opt: lib.optim.lr_scheduler.MultiplicativeLR(opt, 0.9)),
    (KeyError, lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, 3, last_epoch=4)),
]  # fmt: skip


@pytest.mark.parametrize(("error", "make"), ERRORS)
def test_bad_arguments_raise_what_torch_raises(error: type, make) -> None:
    with pytest.raises(error) as theirs:
        make(torch, _optimizer(torch, "sgd"))
    with pytest.raises(error) as ours:
        make(minitorch, _optimizer(minitorch, "sgd"))
    if error is not KeyError:
        assert str(ours.value) == str(theirs.value)


def test_one_cycle_refuses_a_step_past_its_end() -> None:
    optimizer = _optimizer(minitorch, "sgd")
    scheduler = minitorch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=3)
    for _ in range(3):
        scheduler.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        scheduler.step()
