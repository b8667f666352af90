"""The Playground's data: which points exist, which are for training, and their labels.

A ``PlaygroundData`` holds points in the square ``[-6, 6]²``, their labels, and the
train/test split. Labels follow TensorFlow Playground:

* two classes: ``-1`` (orange) and ``+1`` (blue);
* more classes (beyond Playground): ``0, 1, 2, ...``;
* regression: a number in ``[-1, 1]``.

``make_dataset(config)`` draws the points of a named dataset with the config's noise and
seed (the six Playground sets come from ``minitorch.data``; the multi-class ones are
drawn here), already shuffled, and puts the first ``train_ratio`` percent in the
training set, as Playground does. Points a user clicks in, and whole datasets passed from Python
(``pg.dataset = (points, labels)``), are added with ``with_points``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from minitorch import data
from minitorch._tensor import Tensor
from minitorch.creation import tensor
from minitorch.widgets.playground.config import (
    MULTICLASS_DATASETS,
    REGRESSION_DATASETS,
    PlaygroundConfig,
)

DOMAIN = 6.0  # points live in [-DOMAIN, DOMAIN]²


@dataclass
class PlaygroundData:
    """Points, labels and the train/test split (NumPy arrays, float32).

    ``points``: ``[N, 2]``; ``labels``: ``[N]``; ``is_train``: ``[N]`` booleans.
    ``num_classes`` is 2 or more for classification and 0 for regression.
    """

    name: str
    points: np.ndarray
    labels: np.ndarray
    is_train: np.ndarray
    num_classes: int

    @property
    def problem(self) -> str:
        return "regression" if self.num_classes == 0 else "classification"

    def split(self, train: bool) -> tuple[np.ndarray, np.ndarray]:
        mask = self.is_train if train else ~self.is_train
        return self.points[mask], self.labels[mask]

    @property
    def train_points(self) -> Tensor:
        return tensor(self.split(True)[0])

    @property
    def train_labels(self) -> Tensor:
        return tensor(self.split(True)[1])

    @property
    def test_points(self) -> Tensor:
        return tensor(self.split(False)[0])

    @property
    def test_labels(self) -> Tensor:
        return tensor(self.split(False)[1])

    def class_index(self, labels: np.ndarray) -> np.ndarray:
        """Labels as class numbers 0..K-1 (two classes: -1 -> 0 and +1 -> 1)."""
        if self.num_classes == 2:
            return (labels > 0).astype(np.int64)
        return labels.astype(np.int64)

    def with_points(self, points: np.ndarray, labels: np.ndarray, train: bool = True) -> PlaygroundData:
        """A copy with extra points added (to the training set unless ``train=False``)."""
        points = np.asarray(points, dtype=np.float32).reshape(-1, 2)
        labels = np.asarray(labels, dtype=np.float32).reshape(-1)
        return PlaygroundData(
            self.name,
            np.concatenate([self.points, points]),
            np.concatenate([self.labels, labels]),
            np.concatenate([self.is_train, np.full(len(points), train)]),
            self.num_classes,
        )

    def __repr__(self) -> str:
        kind = "regression" if self.num_classes == 0 else f"{self.num_classes} classes"
        return (f"PlaygroundData({self.name!r}, {len(self.points)} points, "
                f"{int(self.is_train.sum())} for training, {kind})")  # fmt: skip


# ----- the multi-class datasets (beyond Playground) -------------------------------------


def _blobs(count: int, noise: float, rng: np.random.Generator, classes: int = 3) -> tuple:
    """``classes`` round clouds on a circle of radius 3.5; noise widens them."""
    spread = 0.5 + 3.5 * noise  # noise 0 -> 0.5, noise 0.5 -> 2.25
    labels = np.arange(count) % classes
    angle = 2 * math.pi * labels / classes + math.pi / 2
    centres = 3.5 * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    return centres + rng.normal(0, spread, size=(count, 2)), labels


def _spiral(count: int, noise: float, rng: np.random.Generator, classes: int = 3) -> tuple:
    """``classes`` interleaved arms; point ``i`` of an arm sits at radius ``5 i / n``."""
    labels = np.arange(count) % classes
    step = np.arange(count) // classes / max(count // classes, 1)  # 0..1 along the arm
    radius = 5 * step
    angle = 1.75 * 2 * math.pi * step + 2 * math.pi * labels / classes
    points = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1)
    return points + rng.uniform(-1, 1, size=(count, 2)) * noise, labels


MULTICLASS_MAKERS = {"blobs": _blobs, "spiral3": _spiral}


def _draw(name: str, count: int, noise: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Shuffled points, labels and class count of dataset ``name`` (noise in percent)."""
    if name in MULTICLASS_MAKERS:
        rng = np.random.default_rng(seed)
        points, labels = MULTICLASS_MAKERS[name](count, noise / 100, rng)
        order = rng.permutation(count)
        return points[order], labels[order], 3
    if name in REGRESSION_DATASETS:
        points, labels = data.REGRESSION[name](n=count, noise=noise, seed=seed)
        return points.numpy(), labels.numpy(), 0
    points, labels = data.CLASSIFICATION[name](n=count, noise=noise, seed=seed, labels="sign")
    return points.numpy(), labels.numpy(), 2


def make_dataset(config: PlaygroundConfig) -> PlaygroundData:
    """Draw ``config.dataset`` and split it into training and test points."""
    points, labels, classes = _draw(config.dataset, config.sample_count, config.noise, config.seed)
    points = np.asarray(points, dtype=np.float32)
    labels = np.asarray(labels, dtype=np.float32)
    train_count = int(len(points) * config.train_ratio / 100)
    is_train = np.arange(len(points)) < train_count
    return PlaygroundData(config.dataset, points, labels, is_train, classes)


def custom_dataset(points: object, labels: object, train_ratio: int, seed: int) -> PlaygroundData:
    """Your own points (``[N, 2]``) and labels (``[N]``), as tensors, arrays or lists.

    Labels that are all ``-1``/``+1`` (or ``0``/``1``) make two classes; other whole
    numbers ``0..K-1`` make ``K`` classes; anything else is regression. Raises
    ``ValueError`` with the reason when the data cannot be used (the widget shows it).
    """
    points_array = np.asarray(points, dtype=np.float32)
    labels_array = np.asarray(labels, dtype=np.float32).reshape(-1)
    if points_array.ndim != 2 or points_array.shape[1] != 2:
        raise ValueError(f"points must have shape [N, 2], not {list(points_array.shape)}")
    if len(points_array) != len(labels_array) or len(points_array) < 2:
        raise ValueError(f"need one label per point and at least 2 points (got "
                         f"{len(points_array)} points, {len(labels_array)} labels)")  # fmt: skip
    if not (np.isfinite(points_array).all() and np.isfinite(labels_array).all()):
        raise ValueError("points and labels must be finite numbers (found NaN or inf)")
    values = set(np.unique(labels_array).tolist())
    if values <= {-1.0, 1.0} or values <= {0.0, 1.0}:
        classes = 2
        labels_array = np.where(labels_array > 0, 1.0, -1.0).astype(np.float32)
    elif all(float(v).is_integer() and 0 <= v < 10 for v in values):
        classes = int(max(values)) + 1
    else:
        classes = 0
    order = np.random.default_rng(seed + 1).permutation(len(points_array))
    is_train = np.zeros(len(points_array), dtype=bool)
    is_train[order[: max(1, int(len(points_array) * train_ratio / 100))]] = True
    return PlaygroundData("custom", points_array, labels_array, is_train, classes)


def preview(name: str, count: int = 120) -> list[list[float]]:
    """A few points of dataset ``name`` for its thumbnail: ``[[x1, x2, label], ...]``."""
    points, labels, classes = _draw(name, count, 0, 7)
    if classes == 2:
        labels = np.where(np.asarray(labels) > 0, 1, -1)
    return [[round(float(x), 2), round(float(y), 2), round(float(v), 2)]
            for (x, y), v in zip(points, labels)]  # fmt: skip


__all__ = ["MULTICLASS_DATASETS", "PlaygroundData", "custom_dataset", "make_dataset", "preview"]
