"""``Linear`` (a fully connected layer), ``Identity`` and ``Flatten``."""

from __future__ import annotations

import math
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.module import Module, Parameter


class Identity(Module):
    """Returns its input (a placeholder, e.g. to remove a layer from a network)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input


class Linear(Module):
    """``y = x W^T + b``, with ``weight`` of shape ``[out_features, in_features]`` and
    ``bias`` of shape ``[out_features]``, like PyTorch.

    Initialisation is PyTorch's: both are uniform in ``[-1/sqrt(in), 1/sqrt(in)]`` (the
    weight through ``kaiming_uniform_(a=sqrt(5))``, which works out to that bound).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(creation.empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.ndim == 0 or input.shape[-1] != self.in_features:
            got = input.shape[-1] if input.ndim else "no"
            raise RuntimeError(
                f"{self!r} expects inputs with {self.in_features} features in the last "
                f"dimension, but got input of shape {list(input.shape)} ({got} features)"
            )
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
        )


class Flatten(Module):
    """Flattens dimensions ``start_dim..end_dim`` into one (by default all but the batch
    dimension: ``[N, C, H, W] -> [N, C*H*W]``)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dimension ``dim`` into ``unflattened_size``."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
