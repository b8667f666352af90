"""Layers for the activations of ``functional/activation_family.py``: each keeps its
arguments and calls the function (``PReLU`` also holds its learned slopes)."""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn.functional import activation_family as A
from minitorch.nn.module import Module, Parameter


def _inplace(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return A.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return A.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace(self.inplace)}"


class _AlphaUnit(Module):
    """``ELU`` and ``CELU``: an ``alpha`` and ``inplace``."""

    function = staticmethod(A.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.function(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace(self.inplace)}"


class ELU(_AlphaUnit):
    """``x`` for ``x > 0``, else ``alpha (e^x - 1)``."""

    function = staticmethod(A.elu)


class CELU(_AlphaUnit):
    """``x`` for ``x > 0``, else ``alpha (e^(x / alpha) - 1)``."""

    function = staticmethod(A.celu)


class _InplaceUnit(Module):
    """An activation whose only argument is ``inplace``."""

    function = staticmethod(A.selu)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.function(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SELU(_InplaceUnit):
    """``scale * elu(x, alpha)``, self-normalizing."""

    function = staticmethod(A.selu)


class Mish(_InplaceUnit):
    """``x tanh(softplus(x))``."""

    function = staticmethod(A.mish)


class Hardsigmoid(_InplaceUnit):
    """``relu6(x + 3) / 6``."""

    function = staticmethod(A.hardsigmoid)


class Hardswish(_InplaceUnit):
    """``x relu6(x + 3) / 6``."""

    function = staticmethod(A.hardswish)


class _PlainUnit(Module):
    """An activation with no arguments."""

    function = staticmethod(A.softsign)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.function(input)


class Softsign(_PlainUnit):
    """``x / (1 + |x|)``."""

    function = staticmethod(A.softsign)


class Tanhshrink(_PlainUnit):
    """``x - tanh(x)``."""

    function = staticmethod(A.tanhshrink)


class LogSigmoid(_PlainUnit):
    """``log(sigmoid(x))``, computed stably."""

    function = staticmethod(A.logsigmoid)


class Softplus(Module):
    """``log(1 + e^(beta x)) / beta`` (``x`` where ``beta x > threshold``)."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return A.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _Shrink(Module):
    """``Hardshrink`` and ``Softshrink``: a width ``lambd``."""

    function = staticmethod(A.hardshrink)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self.function(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """``x`` where ``|x| > lambd``, else 0."""

    function = staticmethod(A.hardshrink)


class Softshrink(_Shrink):
    """``x`` moved ``lambd`` toward 0, and 0 within ``lambd`` of it."""

    function = staticmethod(A.softshrink)


class PReLU(Module):
    """Leaky relu with a learned slope: one shared (``num_parameters=1``) or one per
    channel, all starting at ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        self.weight.data.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return A.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Leaky relu with a random slope in ``[lower, upper]`` while training (their mean
    in evaluation)."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return A.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace(self.inplace)}"


class GLU(Module):
    """Gated linear unit along ``dim``: ``a * sigmoid(b)`` of its two halves."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return A.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x)`` along ``dim``."""

    def __init__(self, dim: Any = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return A.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels of every pixel: dim -3 of ``[N, C, H, W]`` or ``[C, H, W]``."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return input.softmax(-3)
