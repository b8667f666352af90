"""Statistics of a tensor's values: ``nansum``, ``nanmean``, ``var_mean``, ``std_mean``,
``aminmax``, ``cummax``, ``cummin``, ``logcumsumexp``, ``kthvalue``, ``mode``,
``nanmedian``, ``quantile``, ``nanquantile``, ``cov``, ``corrcoef``, ``trapezoid``
(``trapz``), ``cumulative_trapezoid``.

Most are read off a ``sort``: the ``k``-th smallest value of a line is its ``k - 1``-th
after sorting, a quantile interpolates between two neighbours of the sorted line. The
running maximum ``cummax`` compares each position with every earlier one (an
``n x n`` triangle), which is short to write and fine at the sizes used here. Values
that must carry a gradient are picked with ``gather`` at the chosen indices, so the
gradient lands on the element PyTorch's would.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.dtypes import bool_, int64
from minitorch.layout import normalize_dim
from minitorch.ops import return_types
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor
from minitorch.ops.reduce import mean
from minitorch.ops.sort import sort
from minitorch.ops.variance import std, var


def _no_nans(x: Tensor) -> Tensor:
    return where(x.isnan(), 0, x) if x.dtype.is_floating_point else x


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``sum`` with every NaN counted as 0."""
    require_tensor("nansum", input)
    return _no_nans(input).sum(dim, keepdim, dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """The mean of the values that are not NaN: ``nansum / (how many are not NaN)``."""
    require_tensor("nanmean", input)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype.name}"
        )
    counted = (~input.isnan()).sum(dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / counted


def _mean_dim(dim: Any) -> Any:
    return None if isinstance(dim, bool) else dim  # var(x, True): a bool first is unbiased


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(var, mean)`` over ``dim``, with ``var``'s arguments."""
    require_tensor("var_mean", input)
    spread = var(input, dim, unbiased, keepdim, correction=correction)
    return spread, mean(input, _mean_dim(dim), keepdim)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,  # noqa: A002
             correction: Any = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(std, mean)`` over ``dim``, with ``std``'s arguments."""
    require_tensor("std_mean", input)
    spread = std(input, dim, unbiased, keepdim, correction=correction)
    return spread, mean(input, _mean_dim(dim), keepdim)


def aminmax(input: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    """``(min, max)`` of all elements, or of each line along ``dim``."""
    require_tensor("aminmax", input)
    if input.numel() == 0 and dim is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    dims = () if dim is None else dim
    return return_types.aminmax(input.amin(dims, keepdim), input.amax(dims, keepdim))


def _running_extreme(name: str, x: Tensor, dim: int, larger: bool) -> Any:
    """``cummax``/``cummin``: at each position ``i`` along ``dim``, the extreme of
    positions ``0..i`` and the last position ``j <= i`` holding it (PyTorch's loop takes
    a new index on ties and at every NaN, and a NaN stays the extreme once seen).

    The triangle ``earlier[j, i] = (j <= i)`` limits column ``i`` to the prefix; the
    values are then gathered at the indices, so the gradient goes where PyTorch's does."""
    require_tensor(name, x)
    d = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        return getattr(return_types, name)(x.clone(), x.new_zeros((), dtype=int64))
    n = x.shape[d]
    moved = x.detach().movedim(d, -1)  # (..., n)
    if moved.dtype is bool_:
        moved = moved.long()
    positions = moved.new_tensor(list(range(n)), dtype=int64)
    earlier = positions.unsqueeze(1) <= positions.unsqueeze(0)  # [j, i]: j <= i
    rows = moved.unsqueeze(-1)  # [.., j, 1] = x[j]
    if moved.dtype.is_floating_point:
        outside = float("-inf") if larger else float("inf")
    elif moved.numel():
        outside = int(moved.min()) if larger else int(moved.max())
    else:
        outside = 0
    prefix = where(earlier, rows, outside)  # [.., j, i]
    extreme = (prefix.amax(-2) if larger else prefix.amin(-2)).unsqueeze(-2)  # [.., 1, i]
    same = rows == extreme
    if moved.dtype.is_floating_point:
        same = same | (rows.isnan() & extreme.isnan())
    last = where(same & earlier, positions.unsqueeze(1), -1).amax(-2)  # [.., i]
    indices = last.movedim(-1, d).contiguous()
    return getattr(return_types, name)(x.gather(d, indices), indices)


def cummax(input: Tensor, dim: int) -> Any:  # noqa: A002
    """``(values, indices)``: the largest value so far along ``dim``, and where it was."""
    return _running_extreme("cummax", input, dim, larger=True)


def cummin(input: Tensor, dim: int) -> Any:  # noqa: A002
    """``(values, indices)``: the smallest value so far along ``dim``, and where it was."""
    return _running_extreme("cummin", input, dim, larger=False)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """``log(cumsum(exp(input)))`` without overflow: at each ``i``, the ``logsumexp`` of
    positions ``0..i`` (the others masked to ``-inf``, which adds nothing)."""
    require_tensor("logcumsumexp", input)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"\"logcumsumexp_out_cpu\" not implemented for '{input.dtype.name}'")
    d = normalize_dim(dim, input.ndim)
    if input.ndim == 0:
        return input.clone()
    n = input.shape[d]
    moved = input.movedim(d, -1)
    positions = moved.new_tensor(list(range(n)), dtype=int64)
    earlier = positions.unsqueeze(1) <= positions.unsqueeze(0)  # [j, i]
    masked = where(earlier, moved.unsqueeze(-1), float("-inf"))  # [.., j, i]
    return masked.logsumexp(-2).movedim(-1, d)


def _picked(name: str, x: Tensor, values: Tensor, indices: Tensor, position: Tensor, d: int,
            keepdim: bool) -> Any:  # fmt: skip
    chosen_indices = indices.gather(d, position)
    chosen_values = x.gather(d, chosen_indices)
    if not keepdim:
        chosen_values, chosen_indices = chosen_values.squeeze(d), chosen_indices.squeeze(d)
    return getattr(return_types, name)(chosen_values, chosen_indices)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    """``(values, indices)``: the ``k``-th smallest value of each line along ``dim``
    (``k = 1`` the minimum), and where it was."""
    require_tensor("kthvalue", input)
    d = normalize_dim(dim, input.ndim)
    line = input if input.ndim else input.reshape(1)
    size = line.shape[d]
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = sort(line.detach(), d, stable=True)
    position = indices.narrow(d, 0, 1).new_full(tuple(indices.narrow(d, 0, 1).shape), k - 1)
    out = _picked("kthvalue", line, values, indices, position, d, keepdim or not input.ndim)
    return out if input.ndim else return_types.kthvalue(out.values.reshape(()), out.indices.reshape(()))


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    """``(values, indices)``: the most frequent value of each line (of several, the
    smallest) and the last position where it occurs. After sorting, equal values sit in
    runs; the length of the run ending at ``i`` is ``i + 1 - (start of its run)``."""
    require_tensor("mode", input)
    d = normalize_dim(dim, input.ndim)
    line = input if input.ndim else input.reshape(1)
    n = line.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    values, indices = sort(line.detach(), d, stable=True)
    moved = values.movedim(d, -1)
    positions = moved.new_tensor(list(range(n)), dtype=int64).expand(moved.shape)
    starts = moved.new_ones(moved.shape, dtype=bool_)
    if n > 1:
        starts[..., 1:] = moved[..., 1:] != moved[..., :-1]
    run_start = cummax(where(starts, positions, 0), -1).values
    run_length = positions - run_start + 1
    end = run_length.argmax(-1, keepdim=True)  # the end of the first longest run: the smallest value
    sorted_indices = indices.movedim(d, -1)
    same = moved == moved.gather(-1, end)
    last = where(same, sorted_indices, -1).amax(-1, keepdim=True)
    chosen_indices = last.movedim(-1, d)
    chosen_values = line.gather(d, chosen_indices)
    if not keepdim or not input.ndim:
        chosen_values, chosen_indices = chosen_values.squeeze(d), chosen_indices.squeeze(d)
    return return_types.mode(chosen_values, chosen_indices)


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    """``median`` of the values that are not NaN (NaN only where a line is all NaN)."""
    require_tensor("nanmedian", input)
    if not input.dtype.is_floating_point:
        from minitorch.ops.median import median

        return median(input, dim, keepdim) if dim is not None else median(input)
    if dim is None:
        flat = input.reshape(-1)
        kept = flat[~flat.isnan()]
        if kept.numel() == 0:
            return input.new_full((), float("nan"))
        return sort(kept).values[(kept.numel() - 1) // 2]
    d = normalize_dim(dim, input.ndim)
    line = input if input.ndim else input.reshape(1)
    if line.shape[d] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    values, indices = sort(line.detach(), d)
    counted = (~line.isnan()).sum(d, keepdim=True)
    position = ((counted - 1).clamp(min=0)) // 2
    out = _picked("nanmedian", line, values, indices, position, d, keepdim or not input.ndim)
    if input.ndim:
        return out
    return return_types.nanmedian(out.values.reshape(()), out.indices.reshape(()))


QUANTILE_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, x: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:  # fmt: skip
    """Sort each line; the quantile ``q`` sits at rank ``q * (n - 1)`` between the values
    at ``floor`` and ``ceil`` of it, mixed by ``interpolation``. ``n`` counts the values
    that are not NaN for ``nanquantile``; for ``quantile`` a line with a NaN reads its last
    sorted value, the NaN."""
    require_tensor(name, x)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in QUANTILE_INTERPOLATIONS:
        raise ValueError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
            f"Got {interpolation}"
        )
    scalar_q = not isinstance(q, Tensor)
    qs = x.new_tensor([float(q)]) if scalar_q else q.reshape(-1).to(x.dtype)
    if not scalar_q and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if qs.numel() and (float(qs.min()) < 0 or float(qs.max()) > 1):
        raise RuntimeError(f"{name}() q {'values ' if not scalar_q else ''}must be in the range [0, 1]"
                           + ("" if not scalar_q else f" but got {float(q)}"))  # fmt: skip
    if dim is None:
        line, d = x.reshape(-1), 0
    else:
        d = normalize_dim(dim, x.ndim)
        line = x if x.ndim else x.reshape(1)
    n = line.shape[d]
    if n == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    values = sort(line, d).values.movedim(d, -1).unsqueeze(-2)  # (..., 1, n), NaN last
    nans = values.isnan().sum(-1, keepdim=True)  # (..., 1, 1)
    count = (n - nans) if ignore_nan else nans.new_full(tuple(nans.shape), n)
    rank = qs.reshape(-1, 1) * (count - 1).clamp(min=0).to(x.dtype)  # (..., m, 1)
    if interpolation == "lower":
        rank = rank.floor()
    elif interpolation == "higher":
        rank = rank.ceil()
    elif interpolation == "nearest":
        rank = rank.round()
    if not ignore_nan:  # a line with a NaN: its last sorted value, a NaN (and its gradient)
        rank = where(nans > 0, float(n - 1), rank)
    below, above = rank.floor().long(), rank.ceil().long()
    expanded = values.expand(*values.shape[:-2], rank.shape[-2], n)
    low, high = expanded.gather(-1, below), expanded.gather(-1, above)
    if interpolation == "midpoint":
        result = where(below == above, low, (low + high) / 2)
    else:
        result = low + (high - low) * (rank - below.to(x.dtype))
    result = result.squeeze(-1).movedim(-1, 0)  # (m, ...): an all-NaN line read a NaN
    if keepdim:
        result = result.unsqueeze(d + 1) if dim is not None else result.reshape(-1, *([1] * x.ndim))
    return result.squeeze(0) if scalar_q else result


def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
             interpolation: str = "linear") -> Tensor:  # fmt: skip
    """The ``q``-th quantiles of each line along ``dim`` (all elements by default); a
    1-D ``q`` adds a leading dimension with one quantile each."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                interpolation: str = "linear") -> Tensor:  # fmt: skip
    """``quantile`` of the values that are not NaN."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)


METHODS = {
    "nansum": nansum, "nanmean": nanmean, "aminmax": aminmax, "cummax": cummax,
    "cummin": cummin, "logcumsumexp": logcumsumexp, "kthvalue": kthvalue, "mode": mode,
    "nanmedian": nanmedian, "quantile": quantile, "nanquantile": nanquantile,
}  # fmt: skip
