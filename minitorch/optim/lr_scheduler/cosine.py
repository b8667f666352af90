"""Cosine schedules: ``CosineAnnealingLR`` and ``CosineAnnealingWarmRestarts`` (SGDR).

Half a cosine takes the learning rate from ``lr_0`` down to ``eta_min``: slowly at
first, fastest in the middle, slowly again at the end::

    lr_t = eta_min + (lr_0 - eta_min) * (1 + cos(pi * t / T)) / 2

``CosineAnnealingLR`` runs it over ``T_max`` epochs (and past ``T_max`` the cosine
climbs back up: a period of ``2 T_max``). ``CosineAnnealingWarmRestarts`` (Loshchilov
and Hutter) jumps back to ``lr_0`` after ``T_0`` epochs and starts again, each cycle
``T_mult`` times longer than the last.

``CosineAnnealingLR.get_lr`` is PyTorch's *recursive* form: the distance to ``eta_min``
scaled by the ratio of this epoch's cosine to the last one's. It equals the closed form
in exact arithmetic, not always in floating point, and PyTorch's numbers are these.
"""

from __future__ import annotations

import math

from minitorch.optim.lr_scheduler.base import LRScheduler
from minitorch.optim.optimizer import Optimizer


class CosineAnnealingLR(LRScheduler):
    """Follow half a cosine from the initial learning rate down to ``eta_min`` over
    ``T_max`` epochs."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t, period, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:  # resumed: the closed form once
            return [low + (base - low) * (1 + math.cos(t * math.pi / period)) / 2 for base in self.base_lrs]
        if (t - 1 - period) % (2 * period) == 0:  # at the bottom the ratio below is 0 / 0
            return [lr + (base - low) * (1 - math.cos(math.pi / period)) / 2
                    for base, lr in zip(self.base_lrs, self._current())]  # fmt: skip
        ratio = (1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period))
        return [ratio * (lr - low) + low for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        cosine = math.cos(math.pi * self.last_epoch / self.T_max)
        return [self.eta_min + (base - self.eta_min) * (1 + cosine) / 2 for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing that restarts every cycle; cycle ``i`` lasts ``T_0 * T_mult**i``
    epochs. ``T_cur`` counts the epochs since the last restart (a fraction when
    ``step(epoch)`` is given one, for a schedule stepped within an epoch)."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:  # fmt: skip
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        cosine = math.cos(math.pi * self.T_cur / self.T_i)
        return [self.eta_min + (base - self.eta_min) * (1 + cosine) / 2 for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """One more epoch, or jump to ``epoch`` (which may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:  # restart
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                # the cycles so far: T_0 (1 + T_mult + ... + T_mult^(n-1)) <= epoch
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = self._current()
