"""Activation functions: ``relu``, ``leaky_relu``, ``gelu``, ``softmax``, ...

Each is a short formula in existing differentiable ops, so its derivative comes for free
from autograd (``relu``, ``tanh``, ``sigmoid`` and ``erf`` are ops of their own, with
their derivatives in ``minitorch/ops/unary.py``).
"""

from __future__ import annotations

import math
from typing import Any

from minitorch._tensor import Tensor
from minitorch.ops import softmax as softmax_ops
from minitorch.ops import unary
from minitorch.ops.common import require_tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 (PyTorch's name)
    """``max(x, 0)``."""
    require_tensor("relu", input)
    return input.relu_() if inplace else input.relu()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x`` where ``x > 0``, else ``negative_slope * x``."""
    require_tensor("leaky_relu", input)
    result = input.where(input > 0, input * negative_slope)
    return input.copy_(result) if inplace else result


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return unary.tanh(input)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return unary.sigmoid(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * sigmoid(x)`` (also called swish)."""
    require_tensor("silu", input)
    return input * unary.sigmoid(input)


SQRT_HALF = math.sqrt(0.5)
SQRT_TWO_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """Gaussian Error Linear Unit: ``x * Phi(x)``, where ``Phi`` is the standard normal
    distribution function, ``Phi(x) = (1 + erf(x / sqrt 2)) / 2``.

    ``approximate="tanh"`` uses ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``,
    the approximation GPT-2 was trained with.
    """
    if approximate == "none":
        return input * ((input * SQRT_HALF).erf() + 1) * 0.5
    if approximate == "tanh":
        inner = (input + input * input * input * 0.044715) * SQRT_TWO_OVER_PI
        return input * (inner.tanh() + 1) * 0.5
    raise ValueError(f"approximate argument must be either none or tanh, got {approximate!r}")


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """``exp(x) / sum(exp(x))`` along ``dim`` (give ``dim``: there is no good default)."""
    return softmax_ops.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """``log(softmax(x))`` along ``dim``, computed stably."""
    return softmax_ops.log_softmax(input, dim, dtype)
