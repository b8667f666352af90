"""The stride visualizer's state: a chain of views over one (or a few) storages.

The widget starts from the tensors you pass and lets you derive new views from them
(``permute``, slicing, ``expand``, ``view``...). Every derived view is made by the *real*
minitorch op, so what the widget draws is what minitorch does:

* a view op returns a tensor over the **same storage** (same cells, new
  ``shape``/``strides``/``offset``);
* ``reshape``, ``contiguous`` and ``flip`` may return a **copy**: a new storage, drawn as
  a second strip, and writes through the copy no longer reach the original.

For drawing, each view is turned into its *positions*: the storage position of each
logical element, in row-major order, computed with ``minitorch.layout``'s own
``index_to_position``. The browser only looks these numbers up; it does no stride
arithmetic of its own. Everything here is plain Python, tested without a browser.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from minitorch._tensor import Tensor
from minitorch.autograd import no_grad
from minitorch.layout import (
    check_as_strided,
    index_to_position,
    is_contiguous,
    numel,
    ordinal_to_index,
    storage_span,
    view_strides,
)
from minitorch.widgets.colors import tensor_color
from minitorch.widgets.tensor_info import storage_values
from minitorch.widgets.view_controls import VIEW_OPS, exactly, parse_ints, parse_value

MAX_ELEMENTS = 1024  # the most logical elements (or storage cells) a view may draw


# --------------------------------------------------------------------------------------
# Positions and aliasing
# --------------------------------------------------------------------------------------


def positions_of(shape: Sequence[int], strides: Sequence[int], offset: int) -> list[int]:
    """The storage position of every element, in row-major order:
    ``positions_of((2, 2), (1, 2), 0) == [0, 2, 1, 3]`` (a transposed 2x2)."""
    index = [0] * len(shape)
    result = []
    for ordinal in range(numel(shape)):
        ordinal_to_index(ordinal, shape, index)
        result.append(index_to_position(index, strides, offset))
    return result


def index_of(ordinal: int, shape: Sequence[int]) -> tuple[int, ...]:
    index = [0] * len(shape)
    ordinal_to_index(ordinal, shape, index)
    return tuple(index)


@dataclass
class ViewEntry:
    """One view in the chain: a detached tensor, and how it was made."""

    name: str
    tensor: Tensor  # detached from autograd: the widget never records a graph
    parent: int | None = None  # index of the view it was derived from
    op: str = ""  # the op that made it ("" for a tensor passed in)
    args: str = ""


class ViewChain:
    """Tensors and the views derived from them, over their shared storages."""

    def __init__(self, tensors: Sequence[Tensor], names: Sequence[str | None] | None = None) -> None:
        if not tensors:
            raise ValueError("pass at least one tensor")
        names = list(names) if names is not None else []
        if len(names) > len(tensors):
            raise ValueError(f"{len(names)} names for {len(tensors)} tensors")
        names += [None] * (len(tensors) - len(names))
        names = [("t" if i == 0 else f"v{i}") if name is None else name for i, name in enumerate(names)]
        self.views: list[ViewEntry] = []
        for name, t in zip(names, tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"expected minitorch tensors, got {type(t).__name__}")
            self._check_size(t)
            self.views.append(ViewEntry(str(name), t.detach()))
        self.note = ""  # what the last action did (e.g. which views it dropped)

    # ----- questions the widget asks ------------------------------------------------

    def storages(self) -> list[Tensor]:
        """One tensor per distinct storage, in order of first appearance."""
        found: list[Tensor] = []
        for entry in self.views:
            if not any(entry.tensor._storage is s._storage for s in found):
                found.append(entry.tensor)
        return found

    def storage_index(self, view: int) -> int:
        storage = self.views[view].tensor._storage
        return next(i for i, s in enumerate(self.storages()) if s._storage is storage)

    def positions(self, view: int) -> list[int]:
        t = self.views[view].tensor
        return positions_of(t._shape, t._strides, t._offset)

    def readers(self, storage: int, position: int) -> list[tuple[int, tuple[int, ...]]]:
        """Every ``(view, index)`` whose element lives at ``position`` of ``storage``:
        more than one per view means the view aliases itself (stride 0, overlap)."""
        found = []
        for v, entry in enumerate(self.views):
            if self.storage_index(v) != storage:
                continue
            for ordinal, p in enumerate(self.positions(v)):
                if p == position:
                    found.append((v, index_of(ordinal, entry.tensor._shape)))
        return found

    def viewable(self, view: int) -> bool:
        """Whether ``.view(-1)`` works without a copy (PyTorch's view rule)."""
        t = self.views[view].tensor
        return view_strides(t._shape, t._strides, (t.numel(),)) is not None

    def copied(self, view: int) -> bool:
        """Whether the op that made this view wrote a new storage."""
        entry = self.views[view]
        if entry.parent is None:
            return False
        return entry.tensor._storage is not self.views[entry.parent].tensor._storage

    def repeated_dims(self, view: int) -> list[int]:
        """The dimensions along which the view reads the *same* cell again and again:
        stride 0 and more than one element (what ``expand`` and broadcasting make)."""
        t = self.views[view].tensor
        return [d for d, (size, stride) in enumerate(zip(t._shape, t._strides)) if stride == 0 and size > 1]

    def most_reads(self, view: int) -> int:
        """How many of the view's elements share its most-read storage cell: 1 when each
        element has a cell of its own; with stride 0 along a size-4 dimension, 4."""
        counts = Counter(self.positions(view))
        return max(counts.values(), default=0)

    def label(self, view: int) -> str:
        """How the view was made, as code: ``v3 = t.permute(1, 0)`` (or just the
        expression when that is the view's name: ``a.expand(3, 4)``)."""
        entry = self.views[view]
        if not entry.op:
            return entry.name
        source = as_operand(self.views[entry.parent].name) if entry.parent is not None else "storage"
        if entry.op == "index":
            body = entry.args.strip()
            expression = source + (body if body.startswith("[") else f"[{body}]")
        elif entry.op == "as_strided":
            size, stride, offset = (parse_ints(part) for part in entry.args.split(";"))
            expression = f"{source}.as_strided({_tuple(size)}, {_tuple(stride)}, {offset[0]})"
        else:
            expression = f"{source}.{entry.op}({entry.args})"
        return expression if entry.name == expression else f"{entry.name} = {expression}"

    # ----- actions (each raises a clear error on bad input; the widget shows it) -------

    def apply(self, view: int, op: str, args: str = "") -> int:
        """Derive a new view from view ``view`` with ``op``; returns its index."""
        self._check_view(view)
        if op not in VIEW_OPS:
            raise ValueError(f"unknown view op {op!r}; choose one of {', '.join(VIEW_OPS)}")
        with no_grad():
            result = VIEW_OPS[op][1](self.views[view].tensor, args)
        self._check_size(result)
        self.views.append(ViewEntry(self._new_name(), result.detach(), view, op, args.strip()))
        self.note = ""
        return len(self.views) - 1

    def edit(self, view: int, shape: str, strides: str, offset: str) -> None:
        """Give view ``view`` a new layout over its storage (``as_strided``), checked by
        ``layout.check_as_strided``. Views derived from it are rebuilt from their ops;
        those whose op no longer applies are removed (``note`` says which)."""
        self._check_view(view)
        size, stride = parse_ints(shape), parse_ints(strides)
        start = exactly(parse_ints(offset), 1, "the offset")[0]
        t = self.views[view].tensor
        check_as_strided(size, stride, start, t.untyped_storage_size())
        if numel(size) > MAX_ELEMENTS:
            raise ValueError(f"{numel(size)} elements are too many to draw (at most {MAX_ELEMENTS})")
        with no_grad():
            new = t.as_strided(size, stride, start)
        entry = self.views[view]
        entry.tensor = new.detach()
        entry.op = "as_strided"  # the view is now this layout over its parent's storage
        entry.args = f"{shape}; {strides}; {start}"
        self._rebuild_after(view)

    def write(self, view: int, index: Sequence[int], value: str | float) -> None:
        """``views[view][index] = value``: writes the storage cell, so every view over
        the same storage sees it (and views over a copy do not)."""
        self._check_view(view)
        t = self.views[view].tensor
        number = parse_value(str(value), t)
        index = tuple(int(i) for i in index)
        if len(index) != t.ndim:
            raise IndexError(f"{self.views[view].name} has {t.ndim} dims; got index {list(index)}")
        with no_grad():
            t[index] = number
        self.note = ""

    def remove(self, view: int) -> None:
        """Remove a derived view and everything derived from it."""
        self._check_view(view)
        if self.views[view].parent is None and not self.views[view].op:
            raise ValueError("the tensors you passed in stay; only derived views can be removed")
        doomed = self._descendants(view) | {view}
        self._drop(doomed)

    # ----- helpers -------------------------------------------------------------------

    def _check_view(self, view: int) -> None:
        if not 0 <= view < len(self.views):
            raise IndexError(f"there is no view number {view} (there are {len(self.views)})")

    @staticmethod
    def _check_size(t: Tensor) -> None:
        if t.numel() > MAX_ELEMENTS or t.untyped_storage_size() > MAX_ELEMENTS:
            raise ValueError(
                f"too large to draw: {t.numel()} elements over {t.untyped_storage_size()} "
                f"storage cells (the stride visualizer draws at most {MAX_ELEMENTS})"
            )

    def _new_name(self) -> str:
        taken = {entry.name for entry in self.views}
        number = len(self.views)
        while f"v{number}" in taken:
            number += 1
        return f"v{number}"

    def _descendants(self, view: int) -> set[int]:
        found: set[int] = set()
        for v in range(view + 1, len(self.views)):
            parent = self.views[v].parent
            if parent == view or parent in found:
                found.add(v)
        return found

    def _drop(self, doomed: set[int]) -> None:
        new_index = {}
        kept = []
        for v, entry in enumerate(self.views):
            if v not in doomed:
                new_index[v] = len(kept)
                kept.append(entry)
        for entry in kept:
            if entry.parent is not None:
                entry.parent = new_index[entry.parent]
        self.views = kept

    def _rebuild_after(self, view: int) -> None:
        """Re-run the ops of the views derived from ``view`` (in order)."""
        failed: set[int] = set()
        messages = []
        for v in sorted(self._descendants(view)):
            entry = self.views[v]
            if entry.parent in failed:
                failed.add(v)
                continue
            try:
                with no_grad():
                    result = VIEW_OPS[entry.op][1](self.views[entry.parent].tensor, entry.args)
                self._check_size(result)
                entry.tensor = result.detach()
            except (ValueError, RuntimeError, IndexError, TypeError) as problem:
                failed.add(v)
                messages.append(f"removed {entry.name} ({entry.op}: {problem})")
        self._drop(failed)
        self.note = "; ".join(messages)

    # ----- what the browser draws ------------------------------------------------------

    def state(self) -> dict:
        """Everything the front end needs, as JSON-ready data."""
        storages = self.storages()
        views = []
        for v, entry in enumerate(self.views):
            t = entry.tensor
            views.append({
                "name": entry.name,
                "operand": as_operand(entry.name),  # how a derived view's code starts
                "label": self.label(v),
                "parent": entry.parent,
                "op": entry.op,
                "storage": self.storage_index(v),
                "shape": list(t._shape),
                "strides": list(t._strides),
                "offset": t._offset,
                "span": list(storage_span(t._shape, t._strides, t._offset)),
                "contiguous": is_contiguous(t._shape, t._strides),
                "viewable": self.viewable(v),
                "copied": self.copied(v),
                "positions": self.positions(v),
                "repeated_dims": self.repeated_dims(v),
                "most_reads": self.most_reads(v),
            })  # fmt: skip
        owners = {}
        for v in range(len(self.views)):
            owners.setdefault(self.storage_index(v), self.views[v].name)
        return {
            "storages": [
                {"values": storage_values(s), "dtype": s.dtype.name, "owner": owners[i],
                 "color": tensor_color(s)}
                for i, s in enumerate(storages)
            ],
            "views": views,
            "note": self.note,
            "next_name": self._new_name(),  # what the controls' next derived view is called
        }


def as_operand(expression: str) -> str:
    """``expression`` ready to have ``.method()`` or ``[index]`` written after it: an
    expression with an operator goes in parentheses (``a + b`` -> ``(a + b)``, so that
    ``(a + b).permute(1, 0)`` means what it says); a name, attribute, call or index stays."""
    try:
        node = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return f"({expression})" if " " in expression else expression
    atomic = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    return expression if atomic else f"({expression})"


def _tuple(values: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ("," if len(values) == 1 else "") + ")"
