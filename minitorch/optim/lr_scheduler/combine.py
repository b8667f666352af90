"""Schedules made of schedules: ``SequentialLR`` (one after another) and
``ChainedScheduler`` (all at once).

The usual warm-up::

    warmup = LinearLR(optimizer, start_factor=0.1, total_iters=5)
    decay = CosineAnnealingLR(optimizer, T_max=95)
    scheduler = SequentialLR(optimizer, [warmup, decay], milestones=[5])

``SequentialLR`` hands each step to the scheduler whose stretch of epochs it is in; at
a milestone the next scheduler starts from its epoch 0 (its closed form at 0, from the
initial rates). ``ChainedScheduler`` steps every scheduler each time, so their
chainable factors multiply (``ExponentialLR`` and a ``ConstantLR`` warm-up together).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from minitorch.optim.lr_scheduler.base import LRScheduler
from minitorch.optim.lr_scheduler.plateau import ReduceLROnPlateau
from minitorch.optim.optimizer import Optimizer


def _check_schedulers(kind: str, optimizer: Optimizer, schedulers: Sequence[LRScheduler]) -> None:
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{kind} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires "
                             "additional kwargs to be specified when calling `step`, but got one at "
                             f"index {index} in the given schedulers sequence.")  # fmt: skip
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{kind} expects all schedulers to belong to the same optimizer, but got "
                             f"scheduler {type(scheduler).__name__} at index {index} has "
                             f"{scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")  # fmt: skip


class _Composite(LRScheduler):
    """Saves and restores its schedulers' states with its own, PyTorch's layout."""

    _schedulers: list[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, scheduler_state in zip(self._schedulers, saved):
            scheduler.load_state_dict(scheduler_state)


class SequentialLR(_Composite):
    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler], milestones: Sequence[int],
                 last_epoch: int = -1) -> None:  # fmt: skip
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        _check_schedulers("SequentialLR", optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more "
                             "than the number of milestone points, but got number of schedulers "
                             f"{len(schedulers)} and the number of milestones to be equal to "
                             f"{len(milestones)}")  # fmt: skip
        self._schedulers, self._milestones = list(schedulers), list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Every scheduler's constructor already took its step 0: undo that, and take
        # step 0 again for the first one only.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._undo_step(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def _undo_step(self, scheduler: Any) -> None:
        """Take one epoch off every scheduler inside (nested ones included)."""
        if hasattr(scheduler, "_schedulers"):
            for inner in scheduler._schedulers:
                self._undo_step(inner)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def recursive_undo(self, sched: Any = None) -> None:
        """PyTorch's name for ``_undo_step``."""
        self._undo_step(self if sched is None else sched)

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)  # a new stretch: its scheduler's epoch 0, in closed form
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but got no "
                             "scheduler.")  # fmt: skip
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", optimizer, schedulers)
        self._schedulers, self.optimizer = list(schedulers), optimizer
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]
