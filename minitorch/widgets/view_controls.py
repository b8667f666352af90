"""The stride visualizer's view controls: what the user types, read as minitorch values.

Each control names a view op (``permute``, an index, ``expand``...) and takes its
arguments as text, as a student would write them after the op's name: ``1, 0`` for
``permute``, ``[:, 1:3]`` for an index, ``size; stride; offset`` for ``as_strided``.
``VIEW_OPS`` maps each op to the hint the control shows and to the function that applies
it to a tensor, through the real minitorch op. Bad text raises ``ValueError`` with what
was expected, which the widget shows beside the control.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitorch._tensor import Tensor
from minitorch.layout import check_as_strided


def parse_ints(text: str) -> tuple[int, ...]:
    """``"2, 3"``, ``"(2, 3)"``, ``"[2 3]"`` -> ``(2, 3)``; ``""`` -> ``()``."""
    cleaned = text.strip().strip("()[]").replace(",", " ")
    try:
        return tuple(int(token) for token in cleaned.split())
    except ValueError:
        raise ValueError(f"expected whole numbers separated by commas, like 2, 3 (got {text!r})") from None


def parse_index(text: str) -> tuple:
    """A Python index written as text: ``"[:, 1:3]"`` -> ``(slice(None), slice(1, 3))``.
    Items may be integers, ``start:stop:step`` slices, ``None`` and ``...``."""
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    if not body.strip():
        raise ValueError("type an index such as [:, 1:3] or [0, ::2]")
    items: list[Any] = []
    for item in body.split(","):
        item = item.strip()
        try:
            if item == "...":
                items.append(Ellipsis)
            elif item == "None":
                items.append(None)
            elif ":" in item:
                parts = [int(p) if p.strip() else None for p in item.split(":")]
                if len(parts) > 3:
                    raise ValueError
                items.append(slice(*parts))
            else:
                items.append(int(item))
        except ValueError:
            raise ValueError(
                f"could not read the index item {item!r}: use integers, start:stop:step slices, None or ..."
            ) from None
    return tuple(items)


def parse_value(text: str, like: Tensor) -> bool | int | float:
    """A number typed by the user, as the Python type of ``like``'s dtype."""
    text = text.strip()
    try:
        if like.dtype.name == "bool":
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return text.lower() in ("true", "1")
        if not like.dtype.is_floating_point:
            return int(text)
        return float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a {like.dtype.name} value") from None


def exactly(values: tuple[int, ...], count: int, what: str) -> tuple[int, ...]:
    if len(values) != count:
        raise ValueError(f"{what} takes {count} number{'s' * (count > 1)}, got {list(values)}")
    return values


def as_strided_of(t: Tensor, text: str) -> Tensor:
    parts = text.split(";")
    if len(parts) != 3:
        raise ValueError("as_strided takes size; stride; offset, e.g. 2, 2; 1, 1; 0")
    size, stride = parse_ints(parts[0]), parse_ints(parts[1])
    offset = exactly(parse_ints(parts[2]), 1, "the offset")[0]
    check_as_strided(size, stride, offset, t.untyped_storage_size())
    return t.as_strided(size, stride, offset)


# The view controls: op name -> (what to type, how to apply it to a tensor).
VIEW_OPS: dict[str, tuple[str, Callable[[Tensor, str], Tensor]]] = {
    "permute": ("dims, e.g. 1, 0", lambda t, a: t.permute(*parse_ints(a))),
    "transpose": ("dim0, dim1", lambda t, a: t.transpose(*exactly(parse_ints(a), 2, "transpose"))),
    "index": ("an index, e.g. [:, 1:3] or [0, ::2]", lambda t, a: t[parse_index(a)]),
    "expand": ("sizes, e.g. 3, 4 (-1 keeps a size)", lambda t, a: t.expand(*parse_ints(a))),
    "unsqueeze": ("dim, e.g. 0", lambda t, a: t.unsqueeze(*exactly(parse_ints(a), 1, "unsqueeze"))),
    "squeeze": ("dims, or nothing for all", lambda t, a: t.squeeze(parse_ints(a) or None)),
    "view": ("shape, e.g. 2, -1", lambda t, a: t.view(*parse_ints(a))),
    "reshape": ("shape (copies if view can't)", lambda t, a: t.reshape(*parse_ints(a))),
    "contiguous": ("nothing (copies if needed)", lambda t, a: t.contiguous()),
    "flip": ("dims (always a copy)", lambda t, a: t.flip(parse_ints(a))),
    "as_strided": ("size; stride; offset", as_strided_of),
}
