"""Schedules that shrink the learning rate by a factor: ``StepLR``, ``MultiStepLR``,
``ExponentialLR``, ``PolynomialLR``.

With ``lr_0`` the initial rate and ``t`` the epoch (closed forms)::

    StepLR(step_size, gamma)        lr_0 * gamma ** (t // step_size)
    MultiStepLR(milestones, gamma)  lr_0 * gamma ** (number of milestones <= t)
    ExponentialLR(gamma)            lr_0 * gamma ** t
    PolynomialLR(total_iters, power) lr_0 * (1 - min(t, total_iters) / total_iters) ** power

``get_lr()`` computes each from the current rate instead (``lr * gamma`` at a step
boundary), as PyTorch does, so these compose with other schedulers.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable

from minitorch.optim.lr_scheduler.base import LRScheduler
from minitorch.optim.optimizer import Optimizer


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each epoch in ``milestones`` (a
    milestone given twice multiplies twice)."""

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the learning rate to 0 over ``total_iters`` epochs along a polynomial of
    degree ``power`` (``power=1``: a straight line); constant afterwards."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        t, total = self.last_epoch, self.total_iters
        factor = ((1.0 - t / total) / (1.0 - (t - 1) / total)) ** self.power  # this epoch's over the last's
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        fraction_left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * fraction_left**self.power for base in self.base_lrs]
