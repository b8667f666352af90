"""The structured initialisations of ``nn.init``: ``orthogonal_``, ``trunc_normal_``,
``dirac_`` and ``sparse_``, and the deprecated names without the underscore
(``nn.init.uniform`` ...), which warn and call the new ones, as PyTorch's do.

Each draws from the generator exactly what PyTorch draws, in the same order, so the same
seed gives PyTorch's values (``orthogonal_`` to rounding: see below).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from minitorch import creation, random_factories
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.ops.choice import where
from minitorch.ops.shape import stack


def _orthonormal_columns(a: Tensor) -> Tensor:
    """``Q`` of ``A = Q R`` for a tall ``[m, n]`` matrix, with ``R``'s diagonal positive.

    Gram-Schmidt, column by column: remove from column ``k`` its projection on the
    columns already found (twice: the second pass removes what rounding left behind),
    then scale it to length 1. The diagonal of ``R`` is that length, always positive,
    which is the sign convention PyTorch imposes on LAPACK's Householder ``Q`` (it
    multiplies each column by ``sign(R_kk)``); the two ``Q`` are then the same matrix, and
    differ only by rounding (about 1e-7 in float32)."""
    columns: list[Tensor] = []
    for k in range(a.shape[1]):
        v = a[:, k]
        if columns:
            q = stack(columns, 1)
            for _ in range(2):
                v = v - q @ (q.t() @ v)
        columns.append(v / v.norm())
    return stack(columns, 1)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix, times ``gain``: the rows (or the columns, whichever are
    fewer) of ``tensor`` viewed as ``[rows, rest]`` are orthonormal. PyTorch's recipe:
    fill a ``[rows, rest]`` matrix with standard normals, take the ``Q`` of its QR
    decomposition (of its transpose when it is wide), signs fixed by ``R``'s diagonal."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = creation.empty(rows, cols, dtype=tensor.dtype, device=tensor.device)
        flat.copy_(random_factories.normal_values(flat, 0.0, 1.0, generator))
        tall = flat.t() if rows < cols else flat
        q = _orthonormal_columns(tall.double()).to(tensor.dtype)
        q = q.t() if rows < cols else q
        tensor.copy_(q.reshape(tensor.shape) * gain)
    return tensor


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:  # fmt: skip
    """Normal values ``N(mean, std^2)`` kept inside ``[a, b]`` (the truncated normal), by
    rejection sampling, as PyTorch does:

    - when ``[a, b]`` holds more than 30% of the normal's mass, draw normals and redraw
      (all of them, keeping the accepted ones) until every value lies in ``[a, b]``;
    - otherwise draw uniform candidates ``x`` in ``[a, b]`` and accept each with probability
      ``pdf(x) / pdf(peak)`` (a uniform ``u`` with ``log u <= log pdf(x) - log pdf(peak)``),
      redrawing the rejected ones.
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)  # fmt: skip
    mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
    with no_grad():
        if mass > 0.3:
            low = creation.tensor(a, dtype=tensor.dtype).item()  # the bounds as the tensor holds them
            high = creation.tensor(b, dtype=tensor.dtype).item()
            result = random_factories.normal_values(tensor, mean, std, generator)
            while True:
                outside = (result < low) | (result > high)
                if not outside.any():
                    break
                result = where(outside, random_factories.normal_values(tensor, mean, std, generator), result)
        else:
            peak = max(a, min(mean, b))
            log_peak = -0.5 * ((peak - mean) / std) ** 2

            def log_ratio(x: Tensor) -> Tensor:  # log pdf(x) - log pdf(peak), pdf unnormalised
                return ((x - mean) / std).pow(2) * -0.5 - log_peak

            def rejected(x: Tensor) -> Tensor:
                return random_factories.uniform_values(tensor, 0.0, 1.0, generator).log() > log_ratio(x)

            result = random_factories.uniform_values(tensor, a, b, generator)
            pending = rejected(result)
            while pending.any():
                candidates = random_factories.uniform_values(tensor, a, b, generator)
                result = where(pending, candidates, result)
                pending = where(pending, rejected(candidates), pending)
        tensor.copy_(result)
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity convolution: a ``[O, C, k...]`` weight with a 1 at the kernel's centre
    of output channel ``d`` and input channel ``d`` (in each of ``groups`` groups), so the
    convolution passes its first ``min(O / groups, C)`` channels through unchanged."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Normal values ``N(0, std^2)`` with a fraction ``sparsity`` of each column zeroed: the
    rows of a ``randperm`` per column (from the global generator, as in PyTorch)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.copy_(random_factories.normal_values(tensor, 0.0, std, generator))
        for col in range(cols):
            chosen = random_factories.randperm(rows)[:zeros]
            tensor[chosen, col] = 0
    return tensor


def deprecated_alias(function: Callable) -> Callable:
    """``nn.init.uniform`` for ``nn.init.uniform_``: warns (``FutureWarning``) and calls it."""
    new_name = function.__name__
    old_name = new_name[:-1]

    def deprecated(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)  # fmt: skip
        return function(*args, **kwargs)

    deprecated.__name__ = deprecated.__qualname__ = old_name
    deprecated.__doc__ = f"Deprecated: use ``nn.init.{new_name}``."
    return deprecated
