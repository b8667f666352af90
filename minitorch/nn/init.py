"""Weight initialisation (``minitorch.nn.init``): fill a tensor in place with random or
constant values. Each function works under ``no_grad`` (it is not part of the model's
computation) and returns the tensor.

Why the scale matters: a layer ``y = W x`` with ``fan_in`` inputs multiplies the variance
of its input by ``fan_in * Var(W)``. Choosing ``Var(W) ~ 1 / fan_in`` keeps activations
from growing or vanishing with depth: that is Kaiming (He) initialisation (with a ``gain``
for the nonlinearity), and Xavier (Glorot) averages ``fan_in`` and ``fan_out``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from minitorch import creation, random_factories
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor by which a nonlinearity shrinks the standard deviation, undone by init."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")  # fmt: skip
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``fan_in`` = inputs feeding one output unit (``in_features``, or ``C * kh * kw``
    for a convolution); ``fan_out`` = outputs one input feeds."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for size in tensor.shape[2:]:
        receptive_field *= size
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _is_empty(tensor: Tensor) -> bool:
    """A tensor with no elements has nothing to fill (and a fan of 0, which the Kaiming
    bound would divide by): warn and leave it, like PyTorch (``nn.Linear(0, 3)`` works)."""
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor: Tensor, values: Tensor) -> Tensor:
    with no_grad():
        tensor.copy_(values)
    return tensor


def _like(tensor: Tensor) -> dict[str, Any]:
    return {"dtype": tensor.dtype, "device": tensor.device}


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Values drawn uniformly from ``[a, b)``."""
    return _fill(tensor, random_factories.uniform_values(tensor, a, b, generator))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Values drawn from the normal distribution ``N(mean, std^2)``."""
    return _fill(tensor, random_factories.normal_values(tensor, mean, std, generator))


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (a 2-D tensor)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, creation.eye(*tensor.shape, **_like(tensor)))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Uniform in ``[-a, a]`` with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Normal with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:  # fmt: skip
    """Uniform in ``[-bound, bound]`` with ``bound = gain * sqrt(3 / fan)``."""
    if _is_empty(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:  # fmt: skip
    """Normal with ``std = gain / sqrt(fan)``."""
    if _is_empty(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


# The structured initialisations live in their own file; the deprecated names without the
# underscore (``nn.init.uniform``, ...) warn and call the functions above.
from minitorch.nn.init_structured import (  # noqa: E402
    deprecated_alias,
    dirac_,
    orthogonal_,
    sparse_,
    trunc_normal_,  # noqa: F401 (re-exported: nn.init.trunc_normal_)
)

uniform = deprecated_alias(uniform_)
normal = deprecated_alias(normal_)
constant = deprecated_alias(constant_)
eye = deprecated_alias(eye_)
dirac = deprecated_alias(dirac_)
xavier_uniform = deprecated_alias(xavier_uniform_)
xavier_normal = deprecated_alias(xavier_normal_)
kaiming_uniform = deprecated_alias(kaiming_uniform_)
kaiming_normal = deprecated_alias(kaiming_normal_)
orthogonal = deprecated_alias(orthogonal_)
sparse = deprecated_alias(sparse_)
