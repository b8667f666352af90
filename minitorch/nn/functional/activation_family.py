"""The rest of PyTorch's activation functions, each a formula in existing ops.

They fall into a few families (``x`` is the input, every formula is elementwise unless
it says otherwise):

* **clamps**: ``hardtanh(x) = clamp(x, min_val, max_val)``, ``relu6 = hardtanh(x, 0, 6)``,
  ``threshold(x) = x if x > threshold else value``;
* **exponential units**, smooth below 0:
  ``elu(x) = x if x > 0 else alpha (e^x - 1)``, ``celu`` the same with ``e^(x/alpha)``,
  ``selu(x) = scale * elu(x, alpha)`` with the constants that keep activations near mean
  0 and variance 1 through deep stacks (Klambauer et al., 2017);
* **soft versions of relu**: ``softplus(x) = log(1 + e^(beta x)) / beta`` (back to ``x``
  where ``beta x > threshold``, where the two agree to float precision and the exponential
  would overflow), ``logsigmoid(x) = -softplus(-x)``, ``mish(x) = x tanh(softplus(x))``;
* **hard (piecewise linear) versions of sigmoid and swish**, cheap on phones:
  ``hardsigmoid(x) = relu6(x + 3) / 6``, ``hardswish(x) = x hardsigmoid(x)``;
* **shrinkage** (sets small values to zero): ``hardshrink``, ``softshrink``,
  ``tanhshrink(x) = x - tanh(x)``; and ``softsign(x) = x / (1 + |x|)``;
* **learned or random slopes**: ``prelu`` (a learned slope per channel), ``rrelu``
  (a random slope in ``[lower, upper]`` while training, their mean otherwise);
* **along a dimension**: ``glu`` (half the features gate the other half:
  ``a * sigmoid(b)``), ``softmin(x) = softmax(-x)``.

Autograd differentiates every formula; ``where`` sends the gradient down the branch it
picked, so a kink gets the derivative of the side PyTorch picks. (``hardshrink`` and
``prelu`` are ``Tensor`` methods too, so their formulas live in ``ops/method_forms.py``.)
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.ops import softmax as softmax_ops
from minitorch.ops.common import require_tensor
from minitorch.ops.method_forms import hardshrink, prelu  # noqa: F401 (Tensor methods too: ops/)


def _result(input: Tensor, result: Tensor, inplace: bool) -> Tensor:  # noqa: A002
    """``result``, or written into ``input`` when the caller asked for ``inplace``."""
    return input.copy_(result) if inplace else result


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``clamp(x, min_val, max_val)``."""
    require_tensor("hardtanh", input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _result(input, input.clamp(min_val, max_val), inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``min(max(x, 0), 6)``."""
    require_tensor("relu6", input)
    return hardtanh(input, 0.0, 6.0, inplace)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x`` where ``x > threshold``, else ``value``."""
    require_tensor("threshold", input)
    return _result(input, input.where(input > threshold, value), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x`` for ``x > 0``, else ``alpha (e^x - 1)``."""
    require_tensor("elu", input)
    negative = (input.clamp(max=0).exp() - 1) * alpha
    return _result(input, input.where(input > 0, negative), inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x`` for ``x > 0``, else ``alpha (e^(x / alpha) - 1)`` (continuously differentiable
    at 0 for every ``alpha``)."""
    require_tensor("celu", input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu's alpha must not be 0")
    negative = ((input.clamp(max=0) / alpha).exp() - 1) * alpha
    return _result(input, input.where(input > 0, negative), inplace)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``scale * elu(x, alpha)`` with the self-normalizing constants."""
    require_tensor("selu", input)
    return _result(input, elu(input, SELU_ALPHA) * SELU_SCALE, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """``log(1 + e^(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``.
    The exponential reads ``beta x`` clamped at ``threshold``, so the unused branch never
    overflows (an ``inf`` there would turn the gradient into ``nan``)."""
    require_tensor("softplus", input)
    scaled = input * beta
    smooth = scaled.clamp(max=threshold).exp().log1p() / beta
    return input.where(scaled > threshold, smooth)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """``log(sigmoid(x)) = -softplus(-x)``, without forming the sigmoid (which is 0
    for very negative ``x``, whose log is ``-inf``)."""
    require_tensor("logsigmoid", input)
    m = (-input).clamp(min=0)  # log(1 + e^-x) = m + log(e^-m + e^(-x-m)), no overflow
    return -(m + ((-m).exp() + (-input - m).exp()).log())


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x tanh(softplus(x))``."""
    require_tensor("mish", input)
    return _result(input, input * softplus(input).tanh(), inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, a line between."""
    require_tensor("hardsigmoid", input)
    return _result(input, (input + 3).clamp(0, 6) / 6, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * relu6(x + 3) / 6`` (MobileNetV3's swish)."""
    require_tensor("hardswish", input)
    return _result(input, input * (input + 3).clamp(0, 6) / 6, inplace)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    require_tensor("softshrink", input)
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return input - input.clamp(-lambd, lambd)


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    """``x - tanh(x)``."""
    require_tensor("tanhshrink", input)
    return input - input.tanh()


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """``x / (1 + |x|)``."""
    require_tensor("softsign", input)
    return input / (input.abs() + 1)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,  # noqa: A002
          inplace: bool = False) -> Tensor:  # fmt: skip
    """Leaky relu with a random slope per element drawn from ``U(lower, upper)`` while
    ``training``; in evaluation the fixed slope ``(lower + upper) / 2``."""
    require_tensor("rrelu", input)
    if training:
        with no_grad():
            slope = creation.empty(tuple(input.shape), dtype=input.dtype, device=input.device)
            slope.uniform_(lower, upper)
    else:
        slope = (lower + upper) / 2
    return _result(input, input.where(input >= 0, input * slope), inplace)


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    """Gated linear unit: split ``dim`` in halves ``a, b``; ``a * sigmoid(b)``."""
    require_tensor("glu", input)
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} is size {size}")
    a, b = input.split(size // 2, dim)
    return a * b.sigmoid()


def softmin(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    """``softmax(-x)`` along ``dim``: the smallest entries get the most weight."""
    require_tensor("softmin", input)
    return softmax_ops.softmax(-input, dim, dtype)
