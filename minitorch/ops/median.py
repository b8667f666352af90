"""``median``: the middle value, read off a sort.

Sort the values; the median of ``n`` of them is the one at position ``(n - 1) // 2``
(for an even ``n`` the lower of the two middle ones, as PyTorch picks, not their mean).
NaN sorts last, and a line holding a NaN has median NaN, as in PyTorch. The gradient
flows through ``sort`` to the element that was picked.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.dtypes import bool_
from minitorch.layout import normalize_dim
from minitorch.ops import return_types
from minitorch.ops.common import require_tensor
from minitorch.ops.sort import sort


def median(x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """Without ``dim``: the median of every element (a 0-d tensor; NaN when empty).
    With ``dim``: ``(values, indices)``, the median of each line along ``dim`` and
    where it was (for several equal values, one of their positions)."""
    require_tensor("median", x)
    if x.dtype is bool_:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool' (as in PyTorch)")
    if dim is None:
        flat = x.reshape(-1)
        if flat.numel() == 0:
            return x.new_full((), float("nan"))
        values = sort(flat).values
        middle = values[(flat.numel() - 1) // 2]
        return values[-1] if x.dtype.is_floating_point and bool(values[-1].isnan()) else middle
    d = normalize_dim(dim, x.ndim)
    size = x.shape[d] if x.ndim else 1
    if size == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    line = x if x.ndim else x.reshape(1)
    values, indices = sort(line, d)
    pick = (size - 1) // 2
    if x.dtype.is_floating_point:  # a line with a NaN: its first NaN
        has_nan = values.narrow(d, size - 1, 1).isnan()
        first_nan = (~values.isnan()).sum(d, keepdim=True)
        last = first_nan.clamp(max=size - 1)
        position = has_nan.long() * last + (~has_nan).long() * pick
        chosen_values, chosen_indices = values.gather(d, position), indices.gather(d, position)
    else:
        chosen_values, chosen_indices = values.narrow(d, pick, 1), indices.narrow(d, pick, 1)
    if not keepdim or not x.ndim:
        chosen_values, chosen_indices = chosen_values.squeeze(d), chosen_indices.squeeze(d)
    return return_types.median(chosen_values, chosen_indices)
