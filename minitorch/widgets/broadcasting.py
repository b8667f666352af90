"""Broadcasting two shapes, one dimension at a time, for the stride visualizer's
``broadcast(a, b)`` mode. The rule itself is ``minitorch.layout.broadcast_shapes``;
this file only lays it out as a table the widget can draw."""

from __future__ import annotations

from collections.abc import Sequence

from minitorch.layout import broadcast_shapes


def broadcast_columns(a_shape: Sequence[int], b_shape: Sequence[int]) -> dict:
    """The broadcasting rule, one dimension at a time, for the widget's table.

    Shapes are aligned from the right. For each aligned dimension: the sizes of ``a``
    and ``b`` (``None`` where a shape is too short: it counts as 1), the result size,
    which side is stretched (stride 0), and whether the pair is allowed. ``error`` is
    ``layout.broadcast_shapes``'s own message when the shapes do not broadcast.
    """
    ndim = max(len(a_shape), len(b_shape))
    columns = []
    for d in range(ndim):
        a = a_shape[d - (ndim - len(a_shape))] if d >= ndim - len(a_shape) else None
        b = b_shape[d - (ndim - len(b_shape))] if d >= ndim - len(b_shape) else None
        a_size, b_size = 1 if a is None else a, 1 if b is None else b
        ok = a_size == b_size or a_size == 1 or b_size == 1
        result = max(a_size, b_size) if ok and 0 not in (a_size, b_size) else (0 if ok else None)
        columns.append({
            "dim": d,
            "from_right": d - ndim,
            "a": a,
            "b": b,
            "result": result,
            "a_stretched": ok and a_size != result,
            "b_stretched": ok and b_size != result,
            "ok": ok,
        })  # fmt: skip
    try:
        shape, error = list(broadcast_shapes(tuple(a_shape), tuple(b_shape))), ""
    except RuntimeError as problem:
        shape, error = None, str(problem)
    return {"a": list(a_shape), "b": list(b_shape), "columns": columns, "result": shape, "error": error}
