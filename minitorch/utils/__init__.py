"""``minitorch.utils``: ``utils.data`` (datasets and the ``DataLoader``), as in PyTorch."""

from minitorch.utils import data

__all__ = ["data"]
