"""``Embedding``: a table of learned vectors, looked up by integer index (word ids...)."""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.module import Module, Parameter


class Embedding(Module):
    """``weight`` has shape ``[num_embeddings, embedding_dim]`` (standard normal at
    start); ``embedding(idx)`` returns ``weight[idx]``. The ``padding_idx`` row starts at
    zero and never receives a gradient."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 _weight: Tensor | None = None, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, device=device, dtype=dtype))
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        return text + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None) -> Embedding:  # fmt: skip
        rows, cols = embeddings.shape
        module = cls(rows, cols, padding_idx=padding_idx, _weight=embeddings.detach().clone())
        module.weight.requires_grad = not freeze
        return module
