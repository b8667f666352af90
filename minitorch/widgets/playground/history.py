"""``History``: the list of ``Epoch`` entries a ``Trainer`` appends to, and its plot.

A history is an ordinary list (``history[-1].test_loss``, ``len(history)``), plus
``plot()``, which draws it the way a person wants to look at it: the training and test
loss against the epoch, and for classification the accuracies beside them::

    pg.step(epochs=200)
    pg.history.plot()          # loss on the left, accuracy (%) on the right

matplotlib is imported when ``plot`` is first called, never by ``import minitorch``
(it takes about half a second to import, and the trainer does not need it).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from matplotlib.axes import Axes


class Epoch(NamedTuple):
    """One entry of ``history``: the losses and accuracies after an epoch of training.
    Accuracies are ``None`` for regression; ``accuracy`` is the test accuracy."""

    epoch: int
    train_loss: float
    test_loss: float
    train_accuracy: float | None
    test_accuracy: float | None

    @property
    def accuracy(self) -> float | None:
        return self.test_accuracy


# Playground's own colours: the test loss dark, the training loss grey (as its loss chart).
TEST_COLOUR, TRAIN_COLOUR = "#222222", "#999999"


class History(list):
    """One ``Epoch`` per epoch trained, oldest first; ``plot()`` draws them."""

    def plot(self, ax: Axes | None = None) -> Axes:
        """Loss curves (training and test) against the epoch on ``ax`` (a new figure if
        ``None``); for classification, the accuracies in % on a second y-axis on the
        right (``ax.accuracy_axes``, dashed). Returns the loss ``Axes``.

        A loss that is NaN (no test points, or training diverged) leaves a gap."""
        import matplotlib.pyplot as plt

        if ax is None:
            _figure, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
        epochs = [entry.epoch for entry in self]
        ax.plot(epochs, [_number(e.train_loss) for e in self], color=TRAIN_COLOUR, label="training loss")
        ax.plot(epochs, [_number(e.test_loss) for e in self], color=TEST_COLOUR, label="test loss")
        ax.set_xlabel("epoch")
        ax.set_ylabel("loss")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        lines = ax.get_lines()
        if any(entry.train_accuracy is not None for entry in self):
            accuracy = ax.twinx()
            accuracy.plot(epochs, [_percent(e.train_accuracy) for e in self], color=TRAIN_COLOUR,
                          linestyle="--", label="training accuracy")  # fmt: skip
            accuracy.plot(epochs, [_percent(e.test_accuracy) for e in self], color=TEST_COLOUR,
                          linestyle="--", label="test accuracy")  # fmt: skip
            accuracy.set_ylabel("accuracy (%)")
            accuracy.set_ylim(0, 100)
            lines = lines + accuracy.get_lines()
            ax.accuracy_axes = accuracy
        ax.legend(lines, [line.get_label() for line in lines], loc="center right", fontsize="small")
        ax.set_title(f"{len(self)} epoch{'' if len(self) == 1 else 's'} of training")
        return ax


def _number(value: float | None) -> float:
    """A loss as matplotlib draws it: NaN (a gap) for a missing or infinite value."""
    return value if value is not None and math.isfinite(value) else math.nan


def _percent(value: float | None) -> float:
    return math.nan if value is None else 100 * value
