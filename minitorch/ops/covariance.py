"""How variables vary together: ``cov`` and ``corrcoef``; and the trapezoid rule,
``trapezoid`` (``trapz``) and ``cumulative_trapezoid``.

``cov`` takes a matrix whose rows are variables and whose columns are observations::

    C[i][j] = sum_k w_k (x[i][k] - m_i) (x[j][k] - m_j) / (sum_k w_k - correction)

with ``m_i`` the (weighted) mean of row ``i``: centre the rows, then one matrix product.
``corrcoef`` divides it by the standard deviations, ``C[i][j] / sqrt(C[i][i] C[j][j])``.
The trapezoid rule sums ``(x[k+1] - x[k]) * (y[k] + y[k+1]) / 2`` along a dim.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.layout import normalize_dim
from minitorch.ops.common import is_number, require_tensor
from minitorch.ops.linalg import mm


def cov(input: Tensor, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Tensor:  # noqa: A002
    """The covariance matrix of the rows of ``input`` (a vector: one variable, a 0-d
    result). ``fweights`` repeat observations (integer counts), ``aweights`` weigh them;
    with ``aweights`` the divisor is ``sum w - correction * sum(w * aweights) / sum w``."""
    require_tensor("cov", input)
    if input.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    rows = input.reshape(1, -1) if input.ndim < 2 else input
    if not rows.dtype.is_floating_point:
        rows = rows.float()
    weights = None
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is None:
            continue
        require_tensor("cov", w, name)
        if w.ndim > 1 or w.numel() != rows.shape[1]:
            raise RuntimeError(
                f"cov(): expected {name} to have one dimension and the same number of elements as "
                f"observations, but got {list(w.shape)}"
            )
        if name == "fweights" and w.dtype.is_floating_point:
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        weights = w if weights is None else weights * w
    if weights is None:
        total = rows.new_tensor(float(rows.shape[1]))
        mean = rows.mean(1, keepdim=True)
        centred = rows - mean
        divisor = total - correction
        product = mm(centred, centred.t())
    else:
        weights = weights.to(rows.dtype)
        total = weights.sum()
        mean = (rows * weights).sum(1, keepdim=True) / total
        centred = rows - mean
        if aweights is None:
            divisor = total - correction
        else:
            divisor = total - correction * (weights * aweights.to(rows.dtype)).sum() / total
        product = mm(centred * weights, centred.t())
    result = product / divisor.clamp(min=0)
    return result.squeeze() if input.ndim < 2 else result


def corrcoef(input: Tensor) -> Tensor:  # noqa: A002
    """Pearson's correlation of the rows: ``cov`` scaled to ``[-1, 1]`` (clipped there,
    as rounding can step just outside)."""
    require_tensor("corrcoef", input)
    c = cov(input)
    if c.ndim == 0:
        return c / c
    spread = c.diagonal().sqrt()
    return (c / spread.unsqueeze(1) / spread.unsqueeze(0)).clamp(-1, 1)


def _trapezoid_parts(function: str, y: Tensor, x: Any, dx: Any, dim: int) -> tuple[Tensor, Any, int]:
    require_tensor(function, y, "y")
    if y.ndim == 0:
        raise IndexError(f"{function}: Dimension specified as {dim} but tensor has no dimensions")
    d = normalize_dim(dim, y.ndim)
    n = y.shape[d]
    pair_sums = y.narrow(d, 1, max(n - 1, 0)) + y.narrow(d, 0, max(n - 1, 0))
    if isinstance(x, Tensor):
        if x.ndim == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"{function}: There must be one `x` value for each sample point")
            steps = x[1:] - x[:-1]
            widths = steps.reshape([steps.shape[0] if k == d else 1 for k in range(y.ndim)])
        else:
            m = x.shape[normalize_dim(dim, x.ndim)]
            xd = normalize_dim(dim, x.ndim)
            widths = x.narrow(xd, 1, max(m - 1, 0)) - x.narrow(xd, 0, max(m - 1, 0))
        return pair_sums, widths, d
    spacing = 1 if dx is None else dx
    if x is not None and is_number(x):
        spacing = x
    return pair_sums, spacing, d


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The integral of ``y`` along ``dim`` by the trapezoid rule, with sample points
    ``x`` (a tensor), or evenly spaced ``dx`` apart (default 1)."""
    pair_sums, widths, d = _trapezoid_parts("trapezoid", y, x, dx, dim)
    return (pair_sums * widths).sum(d) / 2


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """``trapezoid`` (NumPy's older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running integral: ``out[k]`` integrates ``y[0..k+1]`` (one element fewer than ``y``)."""
    pair_sums, widths, d = _trapezoid_parts("cumulative_trapezoid", y, x, dx, dim)
    return (pair_sums * widths / 2).cumsum(d)


METHODS = {"cov": cov, "corrcoef": corrcoef}
