"""The in-place activations of ``nn.functional`` (``relu_``, ``elu_``, ...): each is its
activation with ``inplace=True``, writing the result into ``input`` and returning it.

In place saves the memory of a second tensor, but autograd must still be able to compute
the gradient: PyTorch (and minitorch) refuse it on a leaf that requires grad, and a
tensor changed in place after another operation saved it makes that operation's backward
an error (the version counter).
"""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn.functional.activation import leaky_relu, relu
from minitorch.nn.functional.activation_family import celu, elu, hardtanh, rrelu, selu
from minitorch.nn.functional.activation_family import threshold as threshold_function


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    return relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return elu(input, alpha, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return celu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    return selu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    return threshold_function(input, threshold, value, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:  # noqa: A002
    return rrelu(input, lower, upper, training, inplace=True)
