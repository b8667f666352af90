"""Dropout of whole channels (``dropout1d/2d/3d``) and alpha dropout (for SELU networks).

**Channel dropout.** In a convolutional network neighbouring elements of one channel are
strongly correlated, so zeroing single elements hardly regularises: the neighbours carry
the same information. ``dropout2d`` zeroes whole channels instead: one keep-or-drop draw
per ``(sample, channel)``, a noise tensor of shape ``[N, C, 1, 1]`` broadcast over the
plane, scaled by ``1 / (1 - p)`` like ``dropout``.

**Alpha dropout.** SELU keeps activations at mean 0 and variance 1; zeroing elements
would break that. Alpha dropout sets a dropped element to SELU's negative saturation
``-alpha'`` (``alpha' = 1.7580993408473766``, SELU's ``scale * alpha``) and then applies
``a * x + b``, with ``a = 1 / sqrt((alpha'^2 p + 1)(1 - p))`` and ``b = a alpha' p`` for a
kept element, ``a alpha' (p - 1)`` for a dropped one, chosen so the mean and variance stay
0 and 1. In a formula, with the keep mask ``m``: ``x * (a m) + a alpha' (m - 1 + p)``.

The masks are drawn as PyTorch draws them (``bernoulli_(1 - p)`` of the noise's shape, one
float64 uniform per element from the global generator), so the same seed gives PyTorch's
masks on CPUs where PyTorch does not use MKL for that draw. Every function is the identity
when not ``training`` (``alpha_dropout``'s ``training`` defaults to ``False``, as PyTorch's).
"""

from __future__ import annotations

import math
import warnings

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor

SELU_ALPHA = 1.7580993408473766  # SELU's scale * alpha: the value a dropped element gets


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _drop(input: Tensor, p: float, training: bool, inplace: bool, feature: bool, alpha: bool) -> Tensor:  # noqa: A002
    """The shared loop: draw the keep mask (per element, or per ``[N, C]`` for ``feature``),
    then scale (``dropout``) or shift and scale (``alpha``)."""
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if p == 1.0:
        result = input * 0
    else:
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
        keep = creation.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
        if alpha:
            a = 1.0 / math.sqrt((SELU_ALPHA * SELU_ALPHA * p + 1) * (1 - p))
            shift = (keep - 1) * (SELU_ALPHA * a) + SELU_ALPHA * a * p
            result = input * (keep * a) + shift
        else:
            result = input * (keep / (1.0 - p))
    return input.copy_(result) if inplace else result


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool) -> Tensor:  # noqa: A002
    """Channel dropout of a batched input (an unbatched one gets a batch of 1 first)."""
    x = input if batched else input.unsqueeze(0)
    out = _drop(x, p, training, False, feature=True, alpha=False)
    out = out if batched else out.squeeze(0)
    return input.copy_(out) if inplace and out is not input else out


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero whole channels of ``[N, C, L]`` (or ``[C, L]``) with probability ``p``."""
    require_tensor("dropout1d", input)
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
            "a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _channel_dropout(input, p, training, inplace, input.ndim == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero whole channels of ``[N, C, H, W]`` with probability ``p``. A 3-D input is read
    as ``[N, C, L]`` (PyTorch's historical behaviour, with its warning)."""
    require_tensor("dropout2d", input)
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead.", stacklevel=2)  # fmt: skip
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. To maintain the 1D channel-wise dropout behavior, please switch to "
            "using dropout1d instead.", stacklevel=2)  # fmt: skip
    return _channel_dropout(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero whole channels of ``[N, C, D, H, W]`` (or ``[C, D, H, W]``) with probability ``p``."""
    require_tensor("dropout3d", input)
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead.", stacklevel=2)  # fmt: skip
    return _channel_dropout(input, p, training, inplace, input.ndim == 5)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:  # noqa: A002
    """Alpha dropout of single elements (keeps SELU's mean 0 and variance 1)."""
    require_tensor("alpha_dropout", input)
    _check_p(p)
    return _drop(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                          inplace: bool = False) -> Tensor:  # fmt: skip
    """Alpha dropout of whole channels (one draw per ``(sample, channel)``)."""
    require_tensor("feature_alpha_dropout", input)
    _check_p(p)
    return _drop(input, p, training, inplace, feature=True, alpha=True)
