"""``minitorch.utils.data`` (also ``minitorch.data``): datasets and the ``DataLoader``."""

from minitorch.utils.data.dataloader import DataLoader, default_collate
from minitorch.utils.data.dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split

__all__ = ["ConcatDataset", "DataLoader", "Dataset", "Subset", "TensorDataset", "default_collate",
           "random_split"]  # fmt: skip
