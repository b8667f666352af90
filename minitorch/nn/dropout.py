"""``Dropout``: during training, zero each element with probability ``p`` (and scale the
others up by ``1 / (1 - p)``); in ``eval()`` mode, do nothing."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
