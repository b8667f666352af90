"""Broadcasting: the shape two or more tensors are stretched to, by NumPy's and PyTorch's rule.

Re-exported by ``minitorch/layout.py``; ``expand`` there makes the view a broadcast reads.
"""

from __future__ import annotations

from collections.abc import Sequence

Shape = tuple[int, ...]


def broadcast_shapes(*shapes: Sequence[int]) -> Shape:
    """The shape two or more tensors broadcast to (NumPy and PyTorch rules).

    Align the shapes from the right; in each position the sizes must be equal or 1, and
    the result takes the larger. Missing leading dimensions count as 1::

        (4, 1, 3) and (2, 1) -> (4, 2, 3)
    """
    ndim = max((len(shape) for shape in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape):
            d = ndim - len(shape) + i
            if result[d] == 1:
                result[d] = size
            elif size != 1 and size != result[d]:
                raise RuntimeError(
                    f"The size of tensor a ({result[d]}) must match the size of tensor b "
                    f"({size}) at non-singleton dimension {d}. Shapes {_show_all(shapes)} "
                    f"do not broadcast: align them from the right, and each pair of sizes "
                    f"must be equal or one of them 1."
                )
    return tuple(result)


def _show_all(shapes: Sequence[Sequence[int]]) -> str:
    return ", ".join(str(list(shape)) for shape in shapes)
