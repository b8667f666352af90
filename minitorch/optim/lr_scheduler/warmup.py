"""Warm-up schedules: ``ConstantLR`` and ``LinearLR``.

Large learning rates at the very start can wreck a network before its statistics settle
(Adam's second moments, batch norm's running averages), so training often starts low::

    ConstantLR(factor, total_iters)   lr_0 * factor for t < total_iters, then lr_0
    LinearLR(start_factor, end_factor, total_iters)
                                      lr_0 * (start + (end - start) * min(t, total_iters) / total_iters)

Combine one with a decay schedule through ``SequentialLR`` (warm-up, then cosine). The
chainable forms below multiply the current rate by the ratio of this epoch's factor to
the last one's, PyTorch's formula.
"""

from __future__ import annotations

from minitorch.optim.lr_scheduler.base import LRScheduler
from minitorch.optim.optimizer import Optimizer


class ConstantLR(LRScheduler):
    """Scale the learning rate by ``factor`` for the first ``total_iters`` epochs."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Move the learning rate's factor in a straight line from ``start_factor`` to
    ``end_factor`` over ``total_iters`` epochs."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:  # fmt: skip
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or "
                             "equal to 1.")  # fmt: skip
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [lr * ratio for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        progress = min(self.total_iters, self.last_epoch)
        change = self.end_factor - self.start_factor
        return [base * (self.start_factor + change * progress / self.total_iters) for base in self.base_lrs]
