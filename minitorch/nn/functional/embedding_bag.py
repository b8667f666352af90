"""``embedding_bag``: look up a *bag* of rows and reduce it to one vector (``sum``,
``mean`` or ``max``), without materializing one output per index.

A bag is a variable-length list of indices (the words of a sentence, the items a user
clicked). The indices of all bags are given as one flat tensor plus ``offsets``, where
bag ``b`` holds ``input[offsets[b] : offsets[b + 1]]`` (the last bag runs to the end,
unless ``include_last_offset`` says ``offsets`` also holds that end). A 2-D ``input``
``[B, L]`` is ``B`` bags of ``L`` indices each. For each bag::

    sum:   sum_i  w_i * weight[input[i]]      (w = per_sample_weights, or 1)
    mean:  sum_i  weight[input[i]] / count
    max:   max_i  weight[input[i]]            (per feature)

An empty bag gives zeros. Entries equal to ``padding_idx`` are left out of their bag
(and out of the mean's count). The lookups are one ``index_select`` and each bag is a
reduction over a slice of it, so autograd gives the backward (rows that appear in
several bags collect several gradients). The bag boundaries are read on the host: they
decide the shapes of the computation.
"""

from __future__ import annotations

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import int64
from minitorch.functional import stack
from minitorch.ops.common import require_tensor


def _bounds(input: Tensor, offsets: Tensor | None, include_last_offset: bool) -> tuple[np.ndarray, list]:  # noqa: A002
    """The flat indices and each bag's ``(start, end)``."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                             "mini-batch of fixed length sequences.")  # fmt: skip
        bags, length = input.shape
        return input.cpu().numpy().reshape(-1), [(b * length, (b + 1) * length) for b in range(bags)]
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    require_tensor("embedding_bag", offsets, "offsets", 3)
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    flat, starts = input.cpu().numpy(), [int(o) for o in offsets.cpu().numpy()]
    if starts and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
                           f"to start from position 0. However, got {starts[0]}")  # fmt: skip
    if any(b < a for a, b in zip(starts, starts[1:])) or (starts and starts[-1] > len(flat)):
        raise RuntimeError("offsets must be non-decreasing and at most the number of indices")
    ends = starts[1:] if include_last_offset else starts[1:] + [len(flat)]
    return flat, list(zip(starts, ends))


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,  # noqa: A002
                  max_norm: float | None = None, norm_type: float = 2, scale_grad_by_freq: bool = False,
                  mode: str = "mean", sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> Tensor:  # fmt: skip
    """One reduced row per bag: ``[bags, embedding_dim]``."""
    require_tensor("embedding_bag", input)
    require_tensor("embedding_bag", weight, "weight", 2)
    if input.dtype.is_floating_point:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got {input.dtype} instead")  # fmt: skip
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode!r}")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag's max_norm, scale_grad_by_freq and sparse are not "
                                  "supported by minitorch; see docs/api-coverage.md")  # fmt: skip
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}')."
            )
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) is "
                             f"not None, then it must have the same shape as the input "
                             f"({list(input.shape)})")  # fmt: skip
    rows, dim = weight.shape
    flat, bounds = _bounds(input, offsets, include_last_offset)
    if flat.size and (flat.min() < 0 or flat.max() >= rows):
        raise IndexError(f"index out of range in self: the indices must lie in [0, {rows})")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += rows
    picked = weight.index_select(0, creation.tensor(flat, dtype=int64, device=weight.device))
    if per_sample_weights is not None:
        picked = picked * per_sample_weights.reshape(-1, 1)
    bags = []
    for start, end in bounds:
        keep = [i for i in range(start, end) if flat[i] != padding_idx]
        if not keep:
            bags.append(weight.new_zeros((dim,)))
            continue
        members = picked.index_select(0, creation.tensor(keep, dtype=int64, device=weight.device))
        if mode == "sum":
            bags.append(members.sum(0))
        elif mode == "mean":
            bags.append(members.sum(0) / len(keep))
        else:
            bags.append(members.amax(0))
    if not bags:
        return weight.new_zeros((0, dim))
    return stack(bags)
