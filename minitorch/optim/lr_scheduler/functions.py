"""Schedules given by a function of the epoch: ``LambdaLR`` and ``MultiplicativeLR``.

    LambdaLR(lr_lambda)           lr = lr_0 * lr_lambda(t)        (the factor from the start)
    MultiplicativeLR(lr_lambda)   lr = lr * lr_lambda(t)          (one more factor each epoch)

``lr_lambda`` is one function for every group, or a list with one per group. A
function object's own attributes (a callable class's ``__dict__``) are saved in
``state_dict()``; plain functions and lambdas are not (they cannot be pickled), as in
PyTorch.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from minitorch.optim.lr_scheduler.base import LRScheduler
from minitorch.optim.optimizer import Optimizer


class _FunctionSchedule(LRScheduler):
    """Holds ``lr_lambdas``, and saves and restores them as PyTorch does."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list,
                 last_epoch: int = -1) -> None:  # fmt: skip
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]  # fmt: skip
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:
                fn.__dict__.update(attributes)


class LambdaLR(_FunctionSchedule):
    """``lr = initial_lr * lr_lambda(epoch)`` (one function, or one per group)."""

    def get_lr(self) -> list[float]:
        return [base * fn(self.last_epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]


class MultiplicativeLR(_FunctionSchedule):
    """``lr = lr * lr_lambda(epoch)`` every epoch but the first."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list,
                 last_epoch: int = -1) -> None:  # fmt: skip
        for fn in lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current()
        return [lr * fn(self.last_epoch) for lr, fn in zip(self._current(), self.lr_lambdas)]
