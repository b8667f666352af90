"""The stride visualizer: ``minitorch.widgets.strides(t, *views)`` and ``broadcast(a, b)``.

It draws each storage as a strip of cells and each tensor as a grid of logical
elements, and links them: hover an element and its storage cell lights up with the
arithmetic written out (``offset + i0*s0 + i1*s1 = position``); hover a storage cell
and every element that reads it lights up. Controls derive new views with real
minitorch ops (the state logic is in ``stride_state.py``) and edit a view's
shape/strides/offset in place, checked live by ``layout.check_as_strided``.

    >>> t = minitorch.arange(12.).view(3, 4)
    >>> minitorch.widgets.strides(t, t.t(), t[:, ::2])          # doctest: +SKIP

Each view is titled by what you wrote for it (``t``, ``t.t()``, ``t[:, ::2]``), read back
from the calling line (``call_source.py``), or by the name you give it
(``strides(t, tT=t.t())``). A dimension of stride 0 (``expand``, broadcasting) is marked
"stride 0: repeats": walking along it reads the same storage cell again and again.

Kernel-side state a notebook can read: ``widget.selected`` (the element clicked last),
``widget.views`` (the tensors drawn), ``widget.error`` (the last rejected input).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import traitlets

from minitorch._tensor import Tensor
from minitorch.autograd import no_grad
from minitorch.widgets.broadcasting import broadcast_columns
from minitorch.widgets.call_source import argument_sources, readable_names
from minitorch.widgets.frontend import MinitorchWidget, bundle, styles
from minitorch.widgets.stride_state import MAX_ELEMENTS, VIEW_OPS, ViewChain, ViewEntry, as_operand, index_of
from minitorch.widgets.svg import Drawing, text_width
from minitorch.widgets.tensor_info import format_number


class StrideWidget(MinitorchWidget):
    """A chain of views over shared storage, drawn and linked (see the module docstring)."""

    _esm = bundle("strides.js")
    _css = styles("common.css", "strides.css")

    state = traitlets.Dict().tag(sync=True)  # storages and views (ViewChain.state())
    ops = traitlets.List().tag(sync=True)  # [[op name, what to type], ...]
    active = traitlets.Int(0).tag(sync=True)  # the view the controls act on
    selected = traitlets.Dict().tag(sync=True)  # {"view", "index", "position"} clicked
    broadcast = traitlets.Dict().tag(sync=True)  # broadcast_columns(...) in broadcast mode

    def __init__(self, chain: ViewChain, broadcast_info: dict | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chain = chain
        self.ops = [[name, hint] for name, (hint, _) in VIEW_OPS.items()]
        self.broadcast = broadcast_info or {}
        self._refresh()
        self.on_msg(self._on_front_end_message)

    # ----- the Python API (the front end's buttons call the same methods) -----------

    @property
    def views(self) -> list[Tensor]:
        """The tensors drawn, in order (detached views of your tensors)."""
        return [entry.tensor for entry in self.chain.views]

    def apply(self, op: str, args: str = "", view: int | None = None) -> Tensor:
        """Derive a new view from view ``view`` (default: the active one) with ``op``
        (a name in ``VIEW_OPS``) and its arguments as text, e.g. ``apply("permute", "1, 0")``."""
        index = self.chain.apply(self.active if view is None else view, op, args)
        self.active = index
        self._refresh()
        return self.chain.views[index].tensor

    def edit(self, view: int, shape: str, strides: str, offset: str) -> None:
        """Give view ``view`` a new layout (as_strided), e.g. ``edit(0, "2, 2", "1, 2", "0")``."""
        self.chain.edit(view, shape, strides, offset)
        self._refresh()

    def write(self, view: int, index: tuple[int, ...], value: Any) -> None:
        """``views[view][index] = value``: every view over that storage changes."""
        self.chain.write(view, index, value)
        self._refresh()

    def select(self, view: int, index: tuple[int, ...]) -> dict:
        """What a click on an element does: remember it and return its position."""
        self.chain._check_view(view)
        t = self.chain.views[view].tensor
        if len(index) != t.ndim or any(not 0 <= i < n for i, n in zip(index, t._shape)):
            name = self.chain.views[view].name
            raise IndexError(f"index {list(index)} is outside {name}'s shape {list(t._shape)}")
        ordinal = 0
        for i, n in zip(index, t._shape):
            ordinal = ordinal * n + i
        position = self.chain.positions(view)[ordinal]
        self.selected = {"view": view, "index": list(index), "position": position,
                         "storage": self.chain.storage_index(view)}  # fmt: skip
        return self.selected

    # ----- messages from the browser ---------------------------------------------------

    def _on_front_end_message(self, _widget: Any, content: dict, _buffers: Any) -> None:
        kind = content.get("type")
        if kind == "apply":
            self._guarded(self.apply, content.get("op", ""), content.get("args", ""), content.get("view"))
        elif kind == "edit":
            self._guarded(self.edit, content.get("view", 0), content.get("shape", ""),
                          content.get("strides", ""), content.get("offset", ""))  # fmt: skip
        elif kind == "write":
            self._guarded(self.write, content.get("view", 0), tuple(content.get("index", ())),
                          content.get("value", ""))  # fmt: skip
        elif kind == "select":
            self._guarded(self.select, content.get("view", 0), tuple(content.get("index", ())))
        elif kind == "remove":
            self._guarded(self._remove, content.get("view", 0))
        self._refresh(error_only=True)

    def _remove(self, view: int) -> None:
        self.chain.remove(view)
        self.active = min(self.active, len(self.chain.views) - 1)
        self.selected = {}
        self._refresh()

    def _refresh(self, error_only: bool = False) -> None:
        if not error_only:
            self.state = self.chain.state()

    # ----- static fallbacks ------------------------------------------------------------

    def to_text(self) -> str:
        lines = []
        if self.broadcast:
            lines.append(_broadcast_text(self.broadcast))
        for s, storage in enumerate(self.state["storages"]):
            values = " ".join(format_number(v) for v in storage["values"])
            lines.append(f"storage {s} ({storage['dtype']}, {len(storage['values'])} cells): [{values}]")
        for view in self.state["views"]:
            flags = "contiguous" if view["contiguous"] else "not contiguous"
            if not view["viewable"]:
                flags += ", view(-1) needs a copy"
            if view["copied"]:
                flags += ", copied to a new storage"
            flags += _repeats_note(view)
            lines.append(
                f"{view['label']}: shape {tuple(view['shape'])} strides {tuple(view['strides'])} "
                f"offset {view['offset']} on storage {view['storage']} ({flags})"
            )
            lines.append(f"    storage positions, row-major: {view['positions']}")
        return "\n".join(lines)

    def to_svg(self) -> str:
        return stride_svg(self.state, self.broadcast)


def stride_svg(state: dict, broadcast_info: dict | None = None) -> str:
    """The static picture: each storage strip, then each view's grid with its positions."""
    cell, gap = 40, 18  # a cell holds a 6-character number at 11 px
    storages, views = state["storages"], state["views"]
    widest_storage = max((len(s["values"]) for s in storages), default=0)
    rows = []  # (view, grid height)
    for view in views:
        shape = view["shape"]
        r = shape[-2] if len(shape) >= 2 else 1
        blocks = _blocks(shape)
        rows.append((view, r * cell * blocks + 36 + (blocks - 1) * 6))
    grid_width = max((_cols(v["shape"]) * cell for v in views), default=0)
    # a view's title line: its title, then "not contiguous" and "stride 0: repeats" at most
    title_width = max((text_width(_view_title(v) + "not contiguous  stride 0: repeats") + 36
                       for v in views), default=0)  # fmt: skip
    width = max(widest_storage * cell, grid_width, title_width, 360) + 2 * gap
    height = gap + len(storages) * (cell + 34) + sum(h for _, h in rows) + gap
    if broadcast_info:
        height += 60
    drawing = Drawing(width, height)
    y = gap
    if broadcast_info:
        drawing.text(gap, y + 12, _broadcast_text(broadcast_info).split("\n")[0], anchor="start", bold=True)
        color = "bad" if broadcast_info.get("error") else "good"
        drawing.text(gap, y + 30, (broadcast_info.get("error") or "")[:100], anchor="start", color=color)
        y += 60
    for s, storage in enumerate(storages):
        drawing.text(gap, y + 11, f"storage {s} ({storage['dtype']}), first used by {storage['owner']}",
                     anchor="start", color="muted")  # fmt: skip
        if storage.get("color"):  # the tensor's colour in every widget of the page
            drawing.line(gap - 8, y + 18, gap - 8, y + 18 + cell, color=storage["color"], width=4)
        used = {p for v in views if v["storage"] == s for p in v["positions"]}
        reads = _reads_per_cell([v for v in views if v["storage"] == s])
        for p, value in enumerate(storage["values"]):
            x = gap + p * cell
            fill = "#ffe6d1" if reads.get(p, 0) > 1 else "cell" if p in used else "unused"
            drawing.rect(x, y + 18, cell, cell, fill=fill)
            drawing.text(x + cell / 2, y + 18 + cell / 2 + 4, format_number(value))
            if reads.get(p, 0) > 1:  # one view reads this cell several times (stride 0)
                drawing.text(x + cell - 2, y + 29, f"×{reads[p]}", color="warm", anchor="end")
            drawing.text(x + cell / 2, y + 18 + cell + 12, str(p), color="muted")
        y += cell + 34
    for view, h in rows:
        title = _view_title(view)
        drawing.text(gap, y + 12, title, anchor="start", bold=True)
        badge = "contiguous" if view["contiguous"] else "not contiguous"
        drawing.text(gap + text_width(title, 11) + 12, y + 12, badge, anchor="start",
                     color="good" if view["contiguous"] else "warm")  # fmt: skip
        if view["repeated_dims"]:
            x = gap + text_width(title + badge, 11) + 24
            drawing.text(x, y + 12, "stride 0: repeats", anchor="start", color="warm", bold=True)
        values = storages[view["storage"]]["values"]
        shape = view["shape"]
        r, c = (shape[-2] if len(shape) >= 2 else 1), _cols(shape)
        top = y + 22
        for ordinal, position in enumerate(view["positions"]):
            block, within = divmod(ordinal, max(r * c, 1))
            row, col = divmod(within, max(c, 1))
            x, yy = gap + col * cell, top + block * (r * cell + 6) + row * cell
            drawing.rect(x, yy, cell, cell)
            drawing.text(x + cell / 2, yy + 16, format_number(values[position]))
            drawing.text(x + cell / 2, yy + 32, f"@{position}", color="accent")
        y += h
    return str(drawing)


def _view_title(view: dict) -> str:
    return (f"{view['label']}  shape {tuple(view['shape'])}  strides {tuple(view['strides'])}  "
            f"offset {view['offset']}")  # fmt: skip


def _reads_per_cell(views: list[dict]) -> dict[int, int]:
    """For each storage cell, the most times any one of ``views`` reads it (2 or more only
    where a view repeats cells: stride 0, or an overlapping ``as_strided``)."""
    most: dict[int, int] = {}
    for view in views:
        counts: dict[int, int] = {}
        for p in view["positions"]:
            counts[p] = counts.get(p, 0) + 1
        for p, n in counts.items():
            most[p] = max(most.get(p, 0), n)
    return most


def _cols(shape: list[int]) -> int:
    return shape[-1] if shape else 1


def _blocks(shape: list[int]) -> int:
    count = 1
    for size in shape[:-2]:
        count *= size
    return max(count, 1)


def _broadcast_text(info: dict) -> str:
    """The broadcast table as text: a header naming the two tensors, then one line per
    dimension (aligned from the right)."""
    a_name, b_name = info.get("names", ("a", "b"))
    result = info.get("result")
    head = f"broadcasting {a_name} + {b_name}\nbroadcast {tuple(info['a'])} with {tuple(info['b'])}"
    if result is None:
        return f"{head}: they do not broadcast.\n{info['error']}"
    lines = [f"{head} -> {tuple(result)}"]
    for column in info["columns"]:
        a = "-" if column["a"] is None else column["a"]
        b = "-" if column["b"] is None else column["b"]
        sides = ((a_name, column["a_stretched"]), (b_name, column["b_stretched"]))
        stretched = [name for name, flag in sides if flag]
        note = f"  ({' and '.join(stretched)} stretched: stride 0)" if stretched else ""
        lines.append(f"  dim {column['dim']}: {a_name} {a}, {b_name} {b} -> {column['result']}{note}")
    return "\n".join(lines)


def _repeats_note(view: dict) -> str:
    """``", stride 0 in dim 1: each cell read 4 times"`` for a view that repeats cells."""
    if view["repeated_dims"]:
        dims = ", ".join(str(d) for d in view["repeated_dims"])
        return f", stride 0 in dim {dims}: repeats, each cell read {view['most_reads']} times"
    if view["most_reads"] > 1:
        return f", overlapping: a cell read {view['most_reads']} times"
    return ""


# ----- the functions users call ------------------------------------------------------


def strides(*tensors: Tensor, names: Sequence[str] | None = None, **named: Tensor) -> StrideWidget:
    """Draw tensors, and views of them, over their storages::

        strides(t, t.t(), t[1:])      # titled "t", "t.t()" and "t[1:]": what you wrote
        strides(t, tT=t.t())          # a keyword names its view: "t" and "tT"
        strides(t, t.t(), names=["t", "tT"])

    Without a name a view is titled by the expression written for it in the calling line
    (``call_source.argument_sources``); where that line cannot be read (a bare ``python``
    prompt, ``exec`` of a string) by ``t``, ``v1``, ``v2``... The widget works on
    *detached* views of your tensors, so it never records autograd history; but writing
    a value through it writes your tensor's storage, like ``t[i, j] = value`` would.
    """
    if not tensors and not named:
        raise TypeError("strides() needs a tensor to draw, e.g. strides(t, t.t()) or strides(t, tT=t.t())")
    given: list[str | None] = list(names) if names is not None else []
    if len(given) > len(tensors):
        raise ValueError(f"{len(given)} names for {len(tensors)} tensors")
    if len(given) < len(tensors):
        written = argument_sources(inspect.currentframe().f_back, "strides")
        given += readable_names(written, len(tensors))[len(given) :]
    return StrideWidget(ViewChain([*tensors, *named.values()], [*given, *named]))


def layout_chain(shape: tuple[int, ...], strides_: tuple[int, ...], name: str = "layout") -> ViewChain:
    """A bare layout (no tensor at hand, e.g. from a dispatch record) over a storage that
    holds its own positions ``0, 1, 2, ...``, so each element shows where it lives.
    The offset puts the lowest position the layout reads at 0 (negative strides, as in
    ``flip``'s kernel, start further in)."""
    from minitorch import arange
    from minitorch.layout import storage_span

    low, high = storage_span(tuple(shape), tuple(strides_), 0)
    size = high - low + 1
    if size > MAX_ELEMENTS:
        raise ValueError(
            f"this layout spans {size} storage cells; the stride visualizer draws at most {MAX_ELEMENTS}"
        )
    base = arange(float(max(size, 1)))
    view = base._view(tuple(shape), tuple(strides_), -low)  # checked above: stays inside
    return ViewChain([view], [name])


SHORT_NAME = 20  # characters: a longer expression is called a or b in broadcast's header


def broadcast(a: Tensor, b: Tensor, names: Sequence[str] | None = None) -> StrideWidget:
    """Broadcasting ``a`` with ``b``: shapes aligned from the right, each input expanded
    to the result shape with stride 0 where it is stretched, and the result ``a + b``,
    or the exact reason the shapes do not broadcast.

    The two are called by what you wrote (``broadcast(x, bias)``: "broadcasting x + bias")
    when it is short, else ``a`` and ``b``; ``names=["x", "bias"]`` names them yourself.
    Press *traverse* to watch the kernel walk the output and both inputs in step.
    """
    if names is None:
        written = readable_names(argument_sources(inspect.currentframe().f_back, "broadcast"), 2)
        names = [w if w is not None and len(w) <= SHORT_NAME else default
                 for w, default in zip(written, ("a", "b"))]  # fmt: skip
    if len(names) != 2:
        raise ValueError(f"broadcast() takes two names, one per tensor, got {len(names)}")
    a_name, b_name = (str(name) for name in names)
    info = {**broadcast_columns(tuple(a.shape), tuple(b.shape)), "names": [a_name, b_name]}
    chain = ViewChain([a, b], [a_name, b_name])
    if info["result"] is not None:
        size = ", ".join(str(n) for n in info["result"])
        chain.apply(0, "expand", size)
        chain.apply(1, "expand", size)
        for view, name in ((2, a_name), (3, b_name)):  # titled by what they are: a.expand(3, 4)
            chain.views[view].name = f"{as_operand(name)}.expand({size})"
        with no_grad():
            total = chain.views[0].tensor + chain.views[1].tensor
        chain.views.append(ViewEntry(f"{as_operand(a_name)} + {as_operand(b_name)}", total.detach()))
    widget = StrideWidget(chain, broadcast_info=info)
    widget.active = len(chain.views) - 1
    return widget


__all__ = ["StrideWidget", "broadcast", "index_of", "layout_chain", "strides"]
