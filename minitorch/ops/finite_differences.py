"""``gradient``: the derivative of sampled values, estimated from their neighbours
(NumPy's ``np.gradient``), one tensor per dimension asked for.

Along a dimension with samples ``f[0], f[1], ...`` a step ``h`` apart, the interior
points use the *central difference*, exact for quadratics:

    g[i] = (f[i+1] - f[i-1]) / (2 h)

The two ends have a neighbour on one side only. With ``edge_order=1`` they take the
one-sided difference ``(f[1] - f[0]) / h``; with ``edge_order=2`` the one-sided
second-order formula ``(-3 f[0] + 4 f[1] - f[2]) / (2 h)`` (and its mirror at the end).

``spacing`` is one number (the same step on every dimension), one number per dimension,
or one 1-D tensor of coordinates per dimension. With coordinates the steps vary:
between ``x[i-1], x[i], x[i+1]`` they are ``hl = x[i] - x[i-1]`` and ``hr = x[i+1] - x[i]``,
and the central formula becomes the derivative of the parabola through the three points,

    g[i] = -hr / (hl (hl + hr)) f[i-1] + (hr - hl) / (hl hr) f[i] + hl / (hr (hl + hr)) f[i+1]

which is the uniform one when ``hl == hr``. Every formula is slicing, arithmetic and
``cat``, so autograd differentiates it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch._tensor import Tensor
from minitorch.layout import normalize_dim
from minitorch.ops.common import is_number, require_tensor
from minitorch.ops.shape import cat


def _piece(f: Tensor, dim: int, start: int, stop: int | None) -> Tensor:
    """``f[start:stop]`` along ``dim`` (negative ends count from the end)."""
    size = f.shape[dim]
    start = start % size if start < 0 else start
    stop = size if stop is None else (stop % size if stop < 0 else stop)
    return f.narrow(dim, start, stop - start)


def _uniform(f: Tensor, dim: int, h: float, edge_order: int) -> Tensor:
    """The derivative along ``dim`` of samples ``h`` apart."""
    center = (_piece(f, dim, 2, None) - _piece(f, dim, 0, -2)) / 2.0
    if edge_order == 1:
        first = _piece(f, dim, 1, 2) - _piece(f, dim, 0, 1)
        last = _piece(f, dim, -1, None) - _piece(f, dim, -2, -1)
    else:
        first = (4.0 * _piece(f, dim, 1, 2) - 3.0 * _piece(f, dim, 0, 1) - _piece(f, dim, 2, 3)) / 2.0
        last = (3.0 * _piece(f, dim, -1, None) - 4.0 * _piece(f, dim, -2, -1) + _piece(f, dim, -3, -2)) / 2.0
    return cat([first / h, center / h, last / h], dim)


def _along(weights: Tensor, dim: int, ndim: int) -> Tensor:
    """A 1-D tensor of weights laid along ``dim`` so that it broadcasts against ``f``."""
    shape = [1] * ndim
    shape[dim] = weights.numel()
    return weights.reshape(shape)


def _coordinates(f: Tensor, dim: int, x: Tensor, edge_order: int) -> Tensor:
    """The derivative along ``dim`` of samples taken at the coordinates ``x``."""
    dx = x[1:] - x[:-1]
    left, right = dx[:-1], dx[1:]
    a = _along(-right / (left * (left + right)), dim, f.ndim)
    b = _along((right - left) / (left * right), dim, f.ndim)
    c = _along(left / (right * (left + right)), dim, f.ndim)
    center = a * _piece(f, dim, 0, -2) + b * _piece(f, dim, 1, -1) + c * _piece(f, dim, 2, None)
    if edge_order == 1:
        first = (_piece(f, dim, 1, 2) - _piece(f, dim, 0, 1)) / dx[0]
        last = (_piece(f, dim, -1, None) - _piece(f, dim, -2, -1)) / dx[-1]
    else:  # the parabolas through the first three points and through the last three
        h0, h1, hm, hn = dx[0], dx[1], dx[-2], dx[-1]
        first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * _piece(f, dim, 0, 1)
                 + (h0 + h1) / (h0 * h1) * _piece(f, dim, 1, 2)
                 - h0 / (h1 * (h0 + h1)) * _piece(f, dim, 2, 3))  # fmt: skip
        last = (hn / (hm * (hn + hm)) * _piece(f, dim, -3, -2)
                - (hn + hm) / (hn * hm) * _piece(f, dim, -2, -1)
                + (2.0 * hn + hm) / (hn * (hn + hm)) * _piece(f, dim, -1, None))  # fmt: skip
    return cat([first, center, last], dim)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple[Tensor, ...]:  # noqa: A002
    """The derivative of ``input``'s samples along each dim of ``dim`` (all by default):
    central differences inside, one-sided ones of order ``edge_order`` (1 or 2) at the
    ends; ``spacing`` a step, a step per dim, or a coordinate tensor per dim."""
    require_tensor("gradient", input)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [normalize_dim(d, input.ndim) for d in dims]
    if len(set(dims)) != len(dims):
        repeated = next(d for d in dims if dims.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    steps = _steps(spacing, dims, input.ndim, dim is None)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    results = []
    for d, step in zip(dims, steps):
        if isinstance(step, Tensor):
            if step.ndim != 1 or step.shape[0] != input.shape[d]:
                raise RuntimeError(
                    f"torch.gradient expected each tensor to be on the same device and to have "
                    f"size {input.shape[d]} along dim {d}, got a tensor of shape {list(step.shape)}"
                )
            results.append(_coordinates(input, d, step, edge_order))
        else:
            results.append(_uniform(input, d, step, edge_order))
    return tuple(results)


def _steps(spacing: Any, dims: list[int], ndim: int, all_dims: bool) -> list[Any]:
    """One step (a number or a coordinate tensor) per dim of ``dims``."""
    if spacing is None:
        spacing = 1
    if is_number(spacing) or (isinstance(spacing, Tensor) and spacing.ndim == 0):
        return [float(spacing)] * len(dims)
    if not isinstance(spacing, Sequence):
        raise TypeError(f"gradient(): argument 'spacing' must be a number, or a list of numbers or tensors, "
                        f"not {type(spacing).__name__}")  # fmt: skip
    if len(spacing) != len(dims):
        if all_dims:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                f"equal to 'self.dim() = {ndim}', since dim argument was not given, but got a list "
                f"of length {len(spacing)}"
            )
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
            f"and a dim argument of length {len(dims)}."
        )
    return [s if isinstance(s, Tensor) and s.ndim == 1 else float(s) for s in spacing]


__all__ = ["gradient"]
