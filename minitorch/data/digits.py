"""Handwritten digits, 8x8 pixels (1,797 images, from scikit-learn's bundled copy of the
UCI dataset: nothing is downloaded). Needs scikit-learn: ``pip install "minitorch[nn]"``.

    train = Digits(train=True)            # 1,437 images
    test = Digits(train=False)            # 360 images
    image, label = train[0]               # [1, 8, 8] float32 in [0, 1], int64 label

The split is a fixed random permutation (``seed``), the last ``test_size`` of it being
the test set, so train and test never overlap and are the same in every run.
"""

from __future__ import annotations

import math

import numpy as np

from minitorch import creation
from minitorch.dtypes import float32, int64
from minitorch.utils.data.dataset import TensorDataset


def load_digits_arrays() -> tuple[np.ndarray, np.ndarray]:
    """``(images [1797, 8, 8] float64 0..16, labels [1797])`` from scikit-learn."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as error:
        raise ModuleNotFoundError(
            "the digits dataset is loaded through scikit-learn, which is not installed: "
            'pip install "minitorch[nn]" (or pip install scikit-learn)'
        ) from error
    bunch = load_digits()
    return bunch.images, bunch.target


class Digits(TensorDataset):
    """The 8x8 digits as a dataset: ``data`` ``[n, 1, 8, 8]`` (or ``[n, 64]`` with
    ``flatten=True``) scaled to ``[0, 1]``, and ``targets`` ``[n]`` int64 (0-9)."""

    classes = list(range(10))

    def __init__(self, train: bool = True, test_size: float = 0.2, seed: int = 0,
                 flatten: bool = False) -> None:  # fmt: skip
        if not 0 < test_size < 1:
            raise ValueError(f"test_size is a fraction between 0 and 1, got {test_size}")
        images, labels = load_digits_arrays()
        order = np.random.default_rng(seed).permutation(len(images))
        cut = len(images) - math.ceil(len(images) * test_size)  # scikit-learn's rounding
        chosen = order[:cut] if train else order[cut:]
        pixels = (images[chosen] / 16.0).astype(np.float32)
        pixels = pixels.reshape(len(chosen), 64) if flatten else pixels.reshape(len(chosen), 1, 8, 8)
        self.data = creation.tensor(pixels, dtype=float32)
        self.targets = creation.tensor(labels[chosen].astype(np.int64), dtype=int64)
        self.train = train
        super().__init__(self.data, self.targets)

    def __repr__(self) -> str:
        split = "train" if self.train else "test"
        return f"Digits({split}: {len(self)} images of shape {list(self.data.shape[1:])})"
