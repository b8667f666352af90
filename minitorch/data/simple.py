"""MiniTorch's first datasets: points uniform in the unit square, labelled by a simple
rule, for a student's first classifier. Each returns ``(X, y)``: ``X`` float32 ``[n, 2]``
in ``[0, 1)^2``, ``y`` int64 class indices (0 or 1).

* ``simple``: class 1 left of ``x1 = 0.5`` (one straight boundary);
* ``diag``:   class 1 below the diagonal ``x1 + x2 = 0.5``;
* ``split``:  class 1 in the two outer bands ``x1 < 0.2`` or ``x1 > 0.8`` (not linearly
  separable: needs a hidden layer).
"""

from __future__ import annotations

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.data.playground import _rng
from minitorch.dtypes import float32, int64


def _points(n: int, seed: int | None) -> np.ndarray:
    return _rng(seed).random((n, 2))


def _pack(points: np.ndarray, label: np.ndarray) -> tuple[Tensor, Tensor]:
    return (creation.tensor(points.astype(np.float32), dtype=float32),
            creation.tensor(label.astype(np.int64), dtype=int64))  # fmt: skip


def simple(n: int = 50, seed: int | None = None) -> tuple[Tensor, Tensor]:
    points = _points(n, seed)
    return _pack(points, points[:, 0] < 0.5)


def diag(n: int = 50, seed: int | None = None) -> tuple[Tensor, Tensor]:
    points = _points(n, seed)
    return _pack(points, points[:, 0] + points[:, 1] < 0.5)


def split(n: int = 50, seed: int | None = None) -> tuple[Tensor, Tensor]:
    points = _points(n, seed)
    return _pack(points, (points[:, 0] < 0.2) | (points[:, 0] > 0.8))
