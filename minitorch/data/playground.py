"""The 2-D datasets of TensorFlow Playground, generated as its source does.

Classification: ``circle``, ``xor``, ``gauss``, ``spiral`` (two classes; 500 points by
default). Regression: ``reg_plane`` and ``reg_gauss`` (a value in ``[-1, 1]`` per point;
1200 points by default). Points lie in about ``[-6, 6]^2``.

Every function takes ``n`` (number of points), ``noise`` in the Playground slider's units
(0 to 50, percent) and ``seed`` (the same seed gives the same points; ``None`` draws from
minitorch's global generator, so ``minitorch.manual_seed`` makes it repeatable). The
points come shuffled, so ``X[:k]`` is a fair training split. Each returns ``(X, y)``:

* ``X``: float32 ``[n, 2]``;
* ``y`` for classification: int64 class indices, 1 for Playground's positive (+1) points
  and 0 for its negative (-1) ones; with ``labels="sign"``: float32 +1/-1 as in
  Playground (for a tanh output and squared error);
* ``y`` for regression: float32 ``[n]`` in ``[-1, 1]``.

The random numbers differ from the browser's (another generator); the distributions are
the same.
"""

from __future__ import annotations

import math

import numpy as np

from minitorch import creation, random_factories
from minitorch._tensor import Tensor
from minitorch.dtypes import float32, int64


def _rng(seed: int | None) -> np.random.Generator:
    if seed is None:
        seed = int(random_factories.randint(0, 2**63 - 1, ()))
    return np.random.default_rng(seed)


def _noise_fraction(noise: float) -> float:
    if not 0 <= noise <= 100:
        raise ValueError(f"noise is in percent, like Playground's slider (0 to 50); got {noise}")
    return noise / 100.0


def _finish(points: np.ndarray, labels: np.ndarray, rng: np.random.Generator,
            labels_as: str | None) -> tuple[Tensor, Tensor]:  # fmt: skip
    order = rng.permutation(len(points))
    points, labels = points[order], labels[order]
    X = creation.tensor(points.astype(np.float32), dtype=float32)
    if labels_as is None:  # regression
        return X, creation.tensor(labels.astype(np.float32), dtype=float32)
    if labels_as == "class":
        return X, creation.tensor((labels > 0).astype(np.int64), dtype=int64)
    if labels_as == "sign":
        return X, creation.tensor(labels.astype(np.float32), dtype=float32)
    raise ValueError(f"labels must be 'class' (0/1 indices) or 'sign' (+1/-1), got {labels_as!r}")


def circle(n: int = 500, noise: float = 0, seed: int | None = None,
           labels: str = "class") -> tuple[Tensor, Tensor]:  # fmt: skip
    """Class 1 inside a disc of radius 2.5, class 0 in a ring from 3.5 to 5. Noise moves
    the point used to decide the label, so noisy points may land on the wrong side."""
    rng, fraction, radius = _rng(seed), _noise_fraction(noise), 5.0
    half = n // 2
    points, signs = [], []
    for count, (low, high) in ((half, (0, radius * 0.5)), (n - half, (radius * 0.7, radius))):
        r = rng.uniform(low, high, count)
        angle = rng.uniform(0, 2 * math.pi, count)
        xy = np.stack([r * np.sin(angle), r * np.cos(angle)], axis=1)
        jitter = rng.uniform(-radius, radius, (count, 2)) * fraction
        inside = np.linalg.norm(xy + jitter, axis=1) < radius * 0.5
        points.append(xy)
        signs.append(np.where(inside, 1.0, -1.0))
    return _finish(np.concatenate(points), np.concatenate(signs), rng, labels)


def xor(n: int = 500, noise: float = 0, seed: int | None = None,
        labels: str = "class") -> tuple[Tensor, Tensor]:  # fmt: skip
    """Class 1 where ``x1 * x2 >= 0`` (first and third quadrants), points kept 0.3 away
    from the axes."""
    rng, fraction = _rng(seed), _noise_fraction(noise)
    xy = rng.uniform(-5, 5, (n, 2))
    xy += np.where(xy > 0, 0.3, -0.3)  # padding away from the axes
    jitter = rng.uniform(-5, 5, (n, 2)) * fraction
    moved = xy + jitter
    return _finish(xy, np.where(moved[:, 0] * moved[:, 1] >= 0, 1.0, -1.0), rng, labels)


def gauss(n: int = 500, noise: float = 0, seed: int | None = None,
          labels: str = "class") -> tuple[Tensor, Tensor]:  # fmt: skip
    """Two Gaussian blobs, class 1 around (2, 2) and class 0 around (-2, -2); noise
    widens them (variance from 0.5 to 4)."""
    rng, fraction = _rng(seed), _noise_fraction(noise)
    variance = 0.5 + fraction / 0.5 * 3.5
    half = n // 2
    positive = rng.normal(2.0, math.sqrt(variance), (half, 2))
    negative = rng.normal(-2.0, math.sqrt(variance), (n - half, 2))
    signs = np.concatenate([np.ones(half), -np.ones(n - half)])
    return _finish(np.concatenate([positive, negative]), signs, rng, labels)


def spiral(n: int = 500, noise: float = 0, seed: int | None = None,
           labels: str = "class") -> tuple[Tensor, Tensor]:  # fmt: skip
    """Two interleaved spirals (class 1 and class 0, half a turn apart)."""
    rng, fraction = _rng(seed), _noise_fraction(noise)
    points, signs = [], []
    for count, delta, sign in ((n // 2, 0.0, 1.0), (n - n // 2, math.pi, -1.0)):
        i = np.arange(count)
        r = i / count * 5
        t = 1.75 * i / count * 2 * math.pi + delta
        x = r * np.sin(t) + rng.uniform(-1, 1, count) * fraction
        y = r * np.cos(t) + rng.uniform(-1, 1, count) * fraction
        points.append(np.stack([x, y], axis=1))
        signs.append(np.full(count, sign))
    return _finish(np.concatenate(points), np.concatenate(signs), rng, labels)


def reg_plane(n: int = 1200, noise: float = 0, seed: int | None = None) -> tuple[Tensor, Tensor]:
    """Regression: the value is ``(x1 + x2) / 10`` (noise moves the point it is read at)."""
    rng, fraction, radius = _rng(seed), _noise_fraction(noise), 6.0
    xy = rng.uniform(-radius, radius, (n, 2))
    moved = xy + rng.uniform(-radius, radius, (n, 2)) * fraction
    return _finish(xy, moved.sum(axis=1) / 10.0, rng, None)


GAUSSIANS = ((-4, 2.5, 1), (0, 2.5, -1), (4, 2.5, 1), (-4, -2.5, -1), (0, -2.5, 1), (4, -2.5, -1))


def reg_gauss(n: int = 1200, noise: float = 0, seed: int | None = None) -> tuple[Tensor, Tensor]:
    """Regression: six bumps of height +1 or -1; the value is the bump with the largest
    magnitude at the point, ``sign * clamp(1 - distance / 2, 0, 1)``."""
    rng, fraction, radius = _rng(seed), _noise_fraction(noise), 6.0
    xy = rng.uniform(-radius, radius, (n, 2))
    moved = xy + rng.uniform(-radius, radius, (n, 2)) * fraction
    best = np.zeros(n)
    for cx, cy, sign in GAUSSIANS:
        distance = np.hypot(moved[:, 0] - cx, moved[:, 1] - cy)
        value = sign * np.clip(1 - distance / 2, 0, 1)
        best = np.where(np.abs(value) > np.abs(best), value, best)
    return _finish(xy, best, rng, None)


# Names as Playground's dataset picker has them.
CLASSIFICATION = {"circle": circle, "xor": xor, "gauss": gauss, "spiral": spiral}
REGRESSION = {"reg_plane": reg_plane, "reg_gauss": reg_gauss}
