"""Snapshots: copies of the weights taken while training, to scrub back through.

Keeping every epoch would grow without end, so ``Snapshots`` keeps at most ``limit``
copies: it starts by saving every epoch, and each time the list is full it drops every
other snapshot and doubles the interval. After 10,000 epochs it still holds about 100
snapshots spread evenly over the whole run (the first one, epoch 0, is always kept).

A snapshot is a ``{name: NumPy array}`` copy of the model's ``state_dict``, so training
on does not change it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.autograd.grad_mode import no_grad
from minitorch.creation import tensor


class Snapshots:
    """Evenly thinned copies of a model's weights, oldest first."""

    def __init__(self, limit: int = 100) -> None:
        self.limit = limit
        self.clear()

    def clear(self) -> None:
        self.interval = 1
        self.saved: list[tuple[int, dict[str, np.ndarray]]] = []

    @property
    def epochs(self) -> list[int]:
        return [epoch for epoch, _ in self.saved]

    def add(self, epoch: int, model: Any) -> None:
        """Save the weights of ``model`` as the snapshot of ``epoch``."""
        weights = {name: value.detach().cpu().numpy().copy() for name, value in model.state_dict().items()}
        self.saved = [item for item in self.saved if item[0] != epoch]
        self.saved.append((epoch, weights))
        if len(self.saved) > self.limit:
            self.interval *= 2
            self.saved = [item for item in self.saved if item[0] % self.interval == 0]

    def maybe_add(self, epoch: int, model: Any) -> None:
        """Save a snapshot if ``epoch`` falls on the current interval."""
        if epoch % self.interval == 0:
            self.add(epoch, model)

    def forget_after(self, epoch: int) -> None:
        """Drop snapshots later than ``epoch`` (training resumed from an earlier one)."""
        self.saved = [item for item in self.saved if item[0] <= epoch]

    def load(self, index: int, model: Any) -> int:
        """Copy snapshot ``index`` back into ``model``; returns its epoch."""
        epoch, weights = self.saved[index]
        parameters = model.state_dict()
        with no_grad():
            for name, value in weights.items():
                parameters[name].copy_(tensor(value, device=parameters[name].device))
        return epoch
