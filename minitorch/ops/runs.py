"""Runs of elements: ``repeat_interleave`` makes them, ``unique_consecutive`` finds them;
and windows over a dim: ``unfold``, with ``narrow_copy`` and ``sum_to_size``.

``repeat_interleave(x, r)`` writes element ``i`` ``r[i]`` times in a row; it is
``index_select`` with the index ``[0]*r[0] + [1]*r[1] + ...``, so the gradient of each
output goes back to the element it repeats. ``unique_consecutive`` keeps the first
element of each run of equal neighbours.

``x.unfold(dim, size, step)`` is a view, as in PyTorch: window ``w`` starts at element
``w * step`` of ``dim``, and a new last dim walks inside it. Along ``dim`` the stride
becomes ``step * stride``; the new dim has the old ``stride``. ``as_strided`` makes it
and checks that every window stays inside the storage.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.dtypes import int64
from minitorch.layout import normalize_dim
from minitorch.ops.common import is_number, require_tensor
from minitorch.ops.shape import sizes_from


def repeat_interleave(input: Tensor, repeats: Any = None, dim: Any = None, *,  # noqa: A002
                      output_size: Any = None) -> Tensor:  # fmt: skip
    """Each element (each slice along ``dim``; without ``dim``, of the flattened tensor)
    repeated ``repeats`` times (a number, or one count per element). Called with only a
    tensor of counts, it repeats ``arange(len(counts))``."""
    require_tensor("repeat_interleave", input)
    if repeats is None:  # repeat_interleave(counts)
        counts = input
        if counts.ndim != 1 or counts.dtype.is_floating_point:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return repeat_interleave(counts.new_tensor(list(range(counts.numel())), dtype=int64), counts)
    line, d = (input.reshape(-1), 0) if dim is None else (input, normalize_dim(dim, input.ndim))
    size = line.shape[d] if line.ndim else 1
    if is_number(repeats):
        counts = [int(repeats)] * size
    else:
        require_tensor("repeat_interleave", repeats, "repeats", 2)
        if repeats.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        counts = [int(c) for c in repeats.reshape(-1).tolist()]
        if len(counts) == 1:
            counts = counts * size
        if len(counts) != size:
            raise RuntimeError("repeats must have the same size as input along dim")
    if any(c < 0 for c in counts):
        raise RuntimeError("repeats can not be negative")
    if sum(counts) > 2**40:  # the index alone would need terabytes, as PyTorch's would
        raise RuntimeError(f"repeat_interleave: cannot allocate {sum(counts)} elements: out of memory")
    index = line.new_tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=int64)
    if line.ndim == 0:
        return line.reshape(1).index_select(0, index)
    return line.index_select(d, index)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
                       dim: Any = None) -> Any:  # fmt: skip
    """The first element of each run of equal neighbours (along ``dim``: of equal
    slices); ``return_inverse``: which run each element belongs to; ``return_counts``:
    the length of each run."""
    require_tensor("unique_consecutive", input)
    line, d = (input.reshape(-1), 0) if dim is None else (input, normalize_dim(dim, input.ndim))
    n = line.shape[d] if line.ndim else 1
    if line.ndim == 0:
        line = line.reshape(1)
    later, earlier = line.narrow(d, 1, max(n - 1, 0)), line.narrow(d, 0, max(n - 1, 0))
    changed = later != earlier
    if line.ndim > 1:
        changed = changed.movedim(d, 0).reshape(max(n - 1, 0), -1).any(1)
    starts = [0] + [i + 1 for i, c in enumerate(changed.tolist()) if c] if n else []
    values = line.index_select(d, line.new_tensor(starts, dtype=int64))
    results = [values]
    if return_inverse:
        run = changed.long().cumsum(0) if n > 1 else changed.long()
        inverse = line.new_zeros((n,), dtype=int64)
        if n > 1:
            inverse[1:] = run
        results.append(inverse.reshape(input.shape) if dim is None else inverse)
    if return_counts:
        ends = starts[1:] + [n]
        results.append(line.new_tensor([b - a for a, b in zip(starts, ends)], dtype=int64))
    return results[0] if len(results) == 1 else tuple(results)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:  # noqa: A002
    """A view of every window of ``size`` elements along ``dimension``, ``step`` apart:
    shape ``(..., windows, ..., size)`` with ``windows = (length - size) // step + 1``."""
    require_tensor("unfold", input)
    d = normalize_dim(dimension, input.ndim) if input.ndim else 0
    length = input.shape[d] if input.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    strides = list(input.stride()) if input.ndim else [1]
    shape = list(input.shape) if input.ndim else [1]
    shape[d], stride = (length - size) // step + 1, strides[d]
    strides[d] = stride * step
    if not input.ndim:
        return input.as_strided((size,), (1,))
    return input.as_strided(shape + [size], strides + [stride], input.storage_offset())


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:  # noqa: A002
    """``narrow`` copied into new storage."""
    require_tensor("narrow_copy", input)
    return input.narrow(dim, start, length).clone()


def sum_to_size(input: Tensor, *size: Any) -> Tensor:  # noqa: A002
    """``input`` summed down to ``size``, which must broadcast to its shape (the reverse
    of ``expand``: how a broadcast operand's gradient is reduced)."""
    require_tensor("sum_to_size", input)
    target = sizes_from(size)
    lead = input.ndim - len(target)
    if lead < 0 or any(t not in (1, s) for t, s in zip(target, input.shape[lead:])):
        raise RuntimeError(f"size {{{', '.join(map(str, target))}}} is not expandable to size "
                           f"{{{', '.join(map(str, input.shape))}}}.")  # fmt: skip
    out = input.sum(tuple(range(lead))) if lead else input
    squeezed = tuple(k for k, (t, s) in enumerate(zip(target, out.shape)) if t == 1 and s != 1)
    return out.sum(squeezed, keepdim=True) if squeezed else out


METHODS = {
    "repeat_interleave": repeat_interleave, "unique_consecutive": unique_consecutive,
    "unfold": unfold, "narrow_copy": narrow_copy, "sum_to_size": sum_to_size,
}  # fmt: skip
