"""``LRScheduler``: the base class of every learning-rate schedule.

A scheduler changes each parameter group's ``lr`` as training goes on. Call
``scheduler.step()`` once per epoch (or per batch, for schedules counted in batches),
*after* ``optimizer.step()``::

    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    for epoch in range(30):
        train_one_epoch()
        scheduler.step()          # lr halves after epochs 10 and 20

It keeps ``base_lrs`` (each group's ``initial_lr``, stored in the group so that a resumed
scheduler finds it) and ``last_epoch`` (how many steps it has taken; the constructor
takes step 0). Each step asks the subclass's ``get_lr()`` for the next rates.

Two forms of each schedule: ``get_lr()`` is *chainable*, it computes the new rate from
the group's current one (``lr * gamma``), so several schedulers can act on one optimizer
(``ChainedScheduler``); ``_get_closed_form_lr()``, where a schedule has one, computes it
from ``base_lrs`` and the epoch alone, for PyTorch's deprecated ``step(epoch)``. The two
can round differently, exactly as in PyTorch: each file follows PyTorch's formulas
operation by operation, so the rates are the same floating-point numbers.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch.optim.optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


class LRScheduler:
    _is_initial: bool = False  # True while the constructor takes step 0

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when "
                                   "resuming scheduler with last_epoch >= 0.")  # fmt: skip
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        """Step 0, taken by the constructor (and again by ``SequentialLR``)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The next learning rates, one per group (the chainable form)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated in PyTorch) and set each
        group's ``lr``."""
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._current()

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer (PyTorch's layout: the scheduler's ``__dict__``)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def _current(self) -> list[float]:
        """Each group's learning rate now."""
        return [group["lr"] for group in self.optimizer.param_groups]


class _LRScheduler(LRScheduler):
    """PyTorch's old name of ``LRScheduler``, kept for code that still subclasses it."""


def per_group(name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    """``value`` once per parameter group: a list or tuple as given (its length checked),
    a single value repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                             f"{len(value)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")  # fmt: skip
        return list(value)
    return [value] * len(optimizer.param_groups)
