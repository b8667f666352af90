"""``minitorch.data``: ``minitorch.utils.data`` (``Dataset``, ``TensorDataset``,
``DataLoader``...) plus datasets that need no download.

| file             | datasets                                                     |
| ---------------- | ------------------------------------------------------------ |
| ``playground.py``| Playground's ``circle``, ``xor``, ``gauss``, ``spiral``, ``reg_plane``, ``reg_gauss`` |
| ``simple.py``    | MiniTorch's ``simple``, ``diag``, ``split``                  |
| ``digits.py``    | ``Digits``: 8x8 handwritten digits (through scikit-learn)    |
| ``mnist.py``     | ``MNIST``: the IDX files from a local folder, ``read_idx``   |
"""

from minitorch.data.digits import Digits
from minitorch.data.mnist import MNIST, read_idx
from minitorch.data.playground import (
    CLASSIFICATION,
    REGRESSION,
    circle,
    gauss,
    reg_gauss,
    reg_plane,
    spiral,
    xor,
)
from minitorch.data.simple import diag, simple, split
from minitorch.utils.data import (
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    default_collate,
    get_worker_info,
    random_split,
)

__all__ = [
    "CLASSIFICATION", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "Digits",
    "IterableDataset", "MNIST", "REGRESSION", "Subset", "TensorDataset", "circle",
    "default_collate", "diag", "gauss", "get_worker_info", "random_split",
    "read_idx", "reg_gauss", "reg_plane", "simple", "spiral", "split", "xor",
]  # fmt: skip
