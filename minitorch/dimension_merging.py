"""Dimension merging: the fast backends' first step (fewer dimensions, less index arithmetic).

A layout whose dimensions follow each other in memory walks the same positions as one
longer dimension; ``merge_dims`` finds the fewest dimensions for every operand of an
elementwise loop at once, ``merge_kept_dims`` the outer loop of a reduction. Re-exported by
``minitorch/layout.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

Shape = tuple[int, ...]
Strides = tuple[int, ...]


def merge_dims(shape: Sequence[int], *all_strides: Sequence[int]) -> tuple[Shape, list[Strides]]:
    """The fewest dimensions that walk every operand through the same positions, in the
    same order, as ``shape`` with each operand's ``strides``.

    An elementwise loop may visit the elements in any order, so the dimensions are first
    put in the memory order of the first operand (the output: largest stride outermost),
    which makes a permuted output like ``x.t().exp()``'s one run. Size-1 dimensions are
    dropped (an index along them is always 0), and dimension ``d`` merges into the one
    after it when, for *every* operand, one step along ``d`` jumps exactly over a whole
    run of the next: ``strides[d] == strides[d + 1] * shape[d + 1]``::

        merged = []                                  # (size, one stride per operand)
        for d with shape[d] != 1, outermost in the first operand first:
            if merged and every operand has previous stride == strides[d] * shape[d]:
                merged[-1] = (previous size * shape[d], strides[d])
            else:
                merged.append((shape[d], strides[d]))

    The result has at least one dimension (kernels look at ``shape[-1]``): a single
    element, a 0-d tensor or any shape of all 1s, becomes shape ``(1,)`` with stride 1 in
    every operand. Its one index is 0, so any stride walks the same position; 1 makes it
    what it is, one contiguous run, and the kernels take it by the contiguous loop (a
    0-d loss or weight update runs the op's one contiguous kernel, instead of making the
    op compile its general strided loop for one element).

    >>> merge_dims((4, 5), (5, 1), (5, 1))           # contiguous: one flat run
    ((20,), [(1,), (1,)])
    >>> merge_dims((4, 5), (5, 1), (1, 4))           # a transposed input: no merge
    ((4, 5), [(5, 1), (1, 4)])
    >>> merge_dims((4, 5), (1, 4), (1, 4))           # all transposed alike: one run
    ((20,), [(1,), (1,)])
    >>> merge_dims((2, 3, 4), (12, 4, 1), (0, 4, 1)) # the broadcast dim stays apart
    ((2, 12), [(12, 1), (0, 1)])
    """
    sizes: list[int] = []
    merged: list[list[int]] = [[] for _ in all_strides]
    first = all_strides[0]
    for d in sorted(range(len(shape)), key=lambda d: -abs(first[d])):  # (stable: ties keep order)
        size = shape[d]
        if size == 1:
            continue
        if sizes and all(new[-1] == strides[d] * size for new, strides in zip(merged, all_strides)):
            sizes[-1] *= size
            for new, strides in zip(merged, all_strides):
                new[-1] = strides[d]
        else:
            sizes.append(size)
            for new, strides in zip(merged, all_strides):
                new.append(strides[d])
    if not sizes:
        return (1,), [(1,) for _ in all_strides]
    return tuple(sizes), [tuple(new) for new in merged]


def merge_kept_dims(
    shape: Sequence[int], dim: int, *all_strides: Sequence[int]
) -> tuple[Shape, list[Strides]]:
    """A reduction's outer loop: every dimension but the reduced ``dim``, merged.

    A reduction walks two nested loops: the *kept* dimensions pick one output (and the
    start of its run in the input), the reduced one walks that run. The kept dimensions
    of ``out`` and of the input share one shape, so they merge like an elementwise
    layout (``merge_dims``). Summing dim 1 of a contiguous ``(3, 4, 5)`` tensor into an
    ``out`` of shape ``(3, 1, 5)``: ``out``'s kept dims are one run, the input's are not
    (a step along dim 0 jumps over the 4 x 5 reduced block), so both stay::

    >>> merge_kept_dims((3, 4, 5), 1, (5, 5, 1), (20, 5, 1))
    ((3, 5), [(5, 1), (20, 1)])
    >>> merge_kept_dims((3, 4, 5), 0, (20, 5, 1), (20, 5, 1))   # sum over dim 0
    ((20,), [(1,), (1,)])
    """
    kept = [d for d in range(len(shape)) if d != dim]
    return merge_dims([shape[d] for d in kept], *([strides[d] for d in kept] for strides in all_strides))
