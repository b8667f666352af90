"""The memory viewer: ``minitorch.widgets.memory()``.

It draws the caching allocator (``minitorch/backends/allocator.py``): each pool as a
strip of segments, each segment cut into blocks whose widths are proportional to their
sizes. An allocated block is labelled with the tensors holding it, by the names the
notebook gave them (``x``, ``model.0.weight.grad``; a view says ``view of x``); a free
block is hatched: the allocator keeps it for the next tensor of a fitting size instead
of giving it back. Above the strips: allocated and reserved bytes, and the peak.

    mem = minitorch.widgets.memory()       # the last line of a cell displays it
    x = minitorch.randn(256, 256)          # the widget updates as the cell runs
    del x                                  # ... and when the last view of x is gone

    with mem.record():                     # one frame per allocation and free
        loss = loss_fn(model(inputs), targets)
        loss.backward()                    # forward: activations appear; backward: they go
    mem.show_frame(0)                      # or drag the slider

The viewer holds tensors only through weak references (``memory_names.py`` says how it
finds them and their names), so showing a tensor never keeps it alive. While displayed
it follows the allocator, looking again at most ten times a second and after each
cell (``memory_live.py``: how, and how record mode sees every allocation and free);
``refresh()`` looks at once.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

import traitlets

from minitorch import dispatch
from minitorch import memory as cpu_memory
from minitorch._tensor import Tensor
from minitorch.widgets.colors import tensor_color
from minitorch.widgets.frontend import MinitorchWidget, bundle, styles
from minitorch.widgets.memory_live import Follower, Recorder, byte_counts, bytes_text, memory_api, peak_text
from minitorch.widgets.memory_names import TensorFinder, library_names, saved_for_backward, tensor_names
from minitorch.widgets.svg import Drawing


def holder_label(t: Tensor, names: dict[int, str], saved: dict[int, str]) -> dict:
    """How a tensor holding a block is labelled: its name, or ``tensor (3, 4) float32``
    with what keeps it (``saved by TanhBackward0``) or made it (``from MulBackward0``);
    a view says whose view it is. ``color`` is the tensor's colour in every widget."""
    shape = tuple(t._shape)
    name = names.get(id(t))
    if name is None:
        name = f"tensor {shape} {t.dtype.name}"
        if id(t) in saved:
            name += f" saved by {saved[id(t)]}"
        elif t._grad_fn is not None:
            name += f" from {t._grad_fn.name()}"
    view = t._base is not None
    label = name
    if view:
        base = names.get(id(t._base))
        label = f"{name} (view of {base})" if base else f"{name} (view)"
    return {"label": label, "view": view, "color": tensor_color(t)}


FIELDS_READ = ("_storage", "_shape", "dtype", "device", "_grad", "_grad_fn", "_base")  # of each tensor


class MemoryWidget(MinitorchWidget):
    """The allocator's blocks and the tensors holding them (see the module docstring)."""

    _esm = bundle("memory.js")
    _css = styles("common.css", "memory.css")

    state = traitlets.Dict().tag(sync=True)  # the allocator now (look())
    frames = traitlets.List().tag(sync=True)  # the states recorded by record()
    frame = traitlets.Int(-1).tag(sync=True)  # the frame shown (-1: the allocator now)

    def __init__(self, device: str = "cpu", namespaces: list | None = None) -> None:
        super().__init__()
        self.device = str(device)
        self.namespaces = list(namespaces or [])  # where names are looked up (the caller's globals)
        self.finder = TensorFinder()
        self._looking = threading.RLock()  # one look at a time (the live thread, or the notebook)
        # Allocated blocks whose holder the last look did not find: new ones (their
        # tensor may not exist yet, or may have aged unseen: look at everything next
        # time) and old ones (looked for everywhere already: held by no tensor).
        self._unheld_new: set = set()
        self._unheld_old: set = set()
        self._caller: Any = None  # the frame running a record() block (its locals name tensors)
        self._follower: Follower | None = None
        self.on_msg(self._on_front_end_message)
        self.refresh()

    # ----- looking at the allocator --------------------------------------------------

    def look(self, event: str = "", phase: str = "", everything: bool = True, find_new: bool = True) -> dict:
        """The allocator now, as the front end draws it: byte counts, and every segment
        with its blocks, each allocated block with the tensors holding it. ``everything``
        looks at every object for tensors, not only at the young ones (``_holders``).
        ``find_new=False`` (the live thread) names blocks only by the tensors found
        before; a block none of them holds is ``pending`` until the notebook's own
        thread looks again (``memory_live.py`` says why)."""
        segments = _segments(self.device)
        held = self._holders(segments, everything) if find_new else self._known_holders()
        for segment in segments:
            for block in segment["blocks"]:
                block["holders"] = held.get(block["address"], []) if block["allocated"] else []
                block["pending"] = not find_new and block["allocated"] and not block["holders"]
        return {"device": self.device, "event": event, "phase": phase, **byte_counts(self.device),
                "segments": segments}  # fmt: skip

    def _holders(self, segments: list[dict], everything: bool) -> dict[int, list[dict]]:
        """``{block address: [holder_label, ...]}`` for the live tensors on our device.
        Young objects are looked at each time; all of them once more when an allocated
        block has no holder among them (its tensor survived a collection unseen)."""
        self.finder.scan(everything=everything)
        allocated = {b["address"] for s in segments for b in s["blocks"] if b["allocated"]}
        tensors = self._tensors_on_device()
        unheld = allocated - set(tensors.values())
        if not everything and unheld & self._unheld_new:  # (a new block's tensor comes just after it)
            self.finder.scan(everything=True)
            tensors = self._tensors_on_device()
            unheld = allocated - set(tensors.values())
        before = self._unheld_new | self._unheld_old
        self._unheld_new, self._unheld_old = unheld - before, unheld & before
        return self._labels(tensors)

    def _known_holders(self) -> dict[int, list[dict]]:
        """Like ``_holders``, among the tensors found before only (no garbage-collector scan)."""
        return self._labels(self._tensors_on_device())

    def _labels(self, tensors: dict[Tensor, int]) -> dict[int, list[dict]]:
        """``{block address: [holder_label, ...]}`` for ``tensors`` (tensor -> its block)."""
        caller = [self._caller.f_locals] if self._caller is not None else []
        names = {**library_names(), **tensor_names(caller + self.namespaces)}
        saved = saved_for_backward(tensors)
        held: dict[int, list[dict]] = {}
        for t in sorted(tensors, key=lambda t: (t._base is not None, id(t) not in names)):
            held.setdefault(tensors[t], []).append(holder_label(t, names, saved))
        return held

    def _tensors_on_device(self) -> dict[Tensor, int]:
        """The live tensors with a block on our device, each with its block's address. A
        look can happen while a tensor is being made (a block freed by the garbage
        collector in the middle of its ``_init``): one without all the fields read here
        yet is left out."""
        addresses: dict[int, int] = {}  # id(storage) -> address (views share a storage)
        found = {}
        for t in self.finder.tensors():
            complete = all(hasattr(t, field) for field in FIELDS_READ)
            if complete and t.device.type == self.device and t._storage.size:
                storage = t._storage
                if id(storage) not in addresses:
                    addresses[id(storage)] = _address(storage)
                found[t] = addresses[id(storage)]
        return found

    def refresh(self, everything: bool = True) -> None:
        """Look at the allocator and the live tensors again, and redraw."""
        with self._looking:
            self.state = self.look(everything=everything)

    def look_if_free(self) -> bool:
        """Refresh from the live thread, unless a look or a recording is under way."""
        if not self._looking.acquire(blocking=False):
            return False
        try:
            self.state = self.look(find_new=False)
        finally:
            self._looking.release()
        return True

    # ----- live updates -----------------------------------------------------------------

    def start(self) -> None:
        """Follow the allocator live (displaying the widget does this): a thread looks
        again whenever the allocator's counters change, at most ten times a second, so
        the strip moves while a cell runs; and after every cell, for new names."""
        if self._follower is None:
            self._follower = Follower(self)
            self._follower.start()

    def stop(self) -> None:
        """Stop following the allocator (``close()`` does this too)."""
        if self._follower is not None:
            self._follower.stop()
            self._follower = None

    def close(self) -> None:
        self.stop()
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict] | None:
        self.start()
        return super()._repr_mimebundle_(**kwargs)

    # ----- record mode -------------------------------------------------------------------

    def record(self) -> contextlib.AbstractContextManager:
        """``with mem.record():`` makes a frame at every allocation and every free inside
        the block; afterwards the slider (or ``show_frame``) steps through them. Tensors
        are named by the block's variables too (it may run inside a function)."""
        return self._record(sys._getframe(1))

    @contextlib.contextmanager
    def _record(self, caller: Any) -> Iterator[MemoryWidget]:
        if self._caller is not None:
            raise RuntimeError("this memory viewer is already recording")
        self._caller = caller
        try:
            with self._looking, dispatch.trace():  # (the trace names the op of each event)
                frames = [self.look(event="start of the block", everything=False)]
                recorder = Recorder(self, frames)
                try:
                    with recorder.watching():
                        yield self
                finally:
                    recorder.frame()
                    self.frames, self.frame = frames, len(frames) - 1
        finally:
            self._caller = None
        self.refresh()

    def show_frame(self, k: int) -> dict:
        """Show recorded frame ``k`` (negative counts from the end); returns it."""
        if not self.frames:
            raise IndexError("nothing recorded yet: use `with mem.record():` around some code")
        if not -len(self.frames) <= k < len(self.frames):
            raise IndexError(f"frame {k} is out of range: {len(self.frames)} frames were recorded")
        self.frame = k % len(self.frames)
        return self.frames[self.frame]

    def _on_front_end_message(self, _widget: Any, content: dict, _buffers: Any) -> None:
        if content.get("type") == "refresh":
            self._guarded(self.refresh)

    # ----- static fallbacks ------------------------------------------------------------

    def shown(self) -> dict:
        """The state on screen: the recorded frame picked, or the allocator now."""
        return self.frames[self.frame] if 0 <= self.frame < len(self.frames) else self.state

    def to_text(self) -> str:
        state = self.shown()
        lines = [f"memory on {state['device']}: allocated {bytes_text(state['allocated'])}, "
                 f"reserved {bytes_text(state['reserved'])}, {peak_text(state)}"]  # fmt: skip
        if self.frames:
            at = f"frame {self.frame + 1}: {state['event']}" if self.frame >= 0 else "the allocator now"
            lines.append(f"recorded {len(self.frames)} frames; showing {at}")
        for segment in state["segments"]:
            size = bytes_text(segment["size"])
            lines.append(f"{segment['pool']} pool, segment {segment['index']} ({size}):")
            for block in segment["blocks"]:
                if block["allocated"]:
                    held = ", ".join(h["label"] for h in block["holders"]) or unheld_text(block)
                    what = f"allocated (asked for {bytes_text(block['requested'])}): {held}"
                else:
                    what = "free, cached"
                lines.append(f"  @{block['offset']:<9} {bytes_text(block['size']):>10}  {what}")
        return "\n".join(lines)

    def to_svg(self) -> str:
        return memory_svg(self.shown())


def unheld_text(block: dict) -> str:
    """What an allocated block with no holder found says (as ``blockLabel`` in memory.js)."""
    return "new: named when the cell ends" if block.get("pending") else "held by no tensor found"


def block_widths(sizes: list[int], total: float, minimum: float) -> list[float]:
    """Widths proportional to ``sizes`` that add up to ``total``, none under ``minimum``
    (those are fixed at the minimum and the rest shares what is left; when even the
    minimums do not fit, the widths add up to more than ``total``)."""
    fixed: set[int] = set()
    while True:
        rest = sum(size for i, size in enumerate(sizes) if i not in fixed)
        scale = (total - minimum * len(fixed)) / rest if rest else 0.0
        small = {i for i, size in enumerate(sizes) if i not in fixed and size * scale < minimum}
        if not small:
            return [minimum if i in fixed else size * scale for i, size in enumerate(sizes)]
        fixed |= small


HATCH = ('<defs><pattern id="mt-hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
         'patternTransform="rotate(45)"><rect width="8" height="8" fill="#eef1f4"/>'
         '<rect width="4" height="8" fill="#d9dee4"/></pattern></defs>')  # fmt: skip


def memory_svg(state: dict) -> str:
    """The static picture: the byte counts and a bar, a strip per pool, the labels. A
    pool with more blocks than fit at their minimum width makes the picture wider."""
    width, strip, gap, left, minimum = 760, 34, 8, 16, 36
    pools = {}  # pool -> (its segments, the width of each block in them)
    for pool in dict.fromkeys(s["pool"] for s in state["segments"]):
        segments = [s for s in state["segments"] if s["pool"] == pool]
        sizes = [b["size"] for s in segments for b in s["blocks"]]
        pools[pool] = segments, block_widths(sizes, width - gap * (len(segments) - 1), minimum)
    widest = max([width] + [sum(w) + gap * (len(s) - 1) for s, w in pools.values()])
    allocated = [(s, b) for s in state["segments"] for b in s["blocks"] if b["allocated"]]
    height = 70 + len(pools) * (strip + 30) + 16 * len(allocated) + 20
    drawing = Drawing(widest + 2 * left, height)
    drawing.parts.append(HATCH)
    title = (f"memory on {state['device']}: allocated {bytes_text(state['allocated'])}, reserved "
             f"{bytes_text(state['reserved'])}, {peak_text(state)}")  # fmt: skip
    if state.get("event"):
        title += f"   ({state['event']})"
    drawing.text(left, 18, title, anchor="start", bold=True)
    scale = width / max(state["reserved"], state["peak"], 1)
    drawing.rect(left, 28, state["reserved"] * scale, 12, fill="url(#mt-hatch)")
    drawing.rect(left, 28, state["allocated"] * scale, 12, fill="accent", stroke="none")
    drawing.line(left + state["peak"] * scale, 24, left + state["peak"] * scale, 44, color="warm", width=2)
    y = 62
    for pool, (segments, block_width) in pools.items():
        drawing.text(left, y, f"{pool} pool", anchor="start", bold=True)
        widths = iter(block_width)
        x = left
        for segment in segments:
            start = x
            for block in segment["blocks"]:
                w = next(widths)
                fill = ("leaf" if block["holders"] else "saved") if block["allocated"] else "url(#mt-hatch)"
                drawing.rect(x, y + 6, w, strip, fill=fill, stroke="#ffffff")
                label = ", ".join(h["label"] for h in block["holders"])
                if block["allocated"]:
                    drawing.text(x + 3, y + 6 + strip / 2 + 4, _clip(label, w - 6), anchor="start")
                x += w
            drawing.rect(start, y + 6, x - start, strip, fill="none", stroke="ink")
            x += gap
        y += strip + 30
    for segment, block in allocated:
        held = ", ".join(h["label"] for h in block["holders"]) or unheld_text(block)
        if block["holders"] and block["holders"][0].get("color"):  # the tensor's colour in every widget
            drawing.line(left - 6, y - 10, left - 6, y + 2, color=block["holders"][0]["color"], width=4)
        drawing.text(left, y, f"{segment['pool']} {segment['index']}:{block['offset']}  "
                              f"{bytes_text(block['size'])}  {held}", anchor="start", size=11)  # fmt: skip
        y += 16
    return str(drawing)


def _clip(text: str, width: float, size: float = 11) -> str:
    """``text`` cut to fit ``width`` pixels (with an ellipsis)."""
    fits = int(width / (size * 0.62))
    return text if len(text) <= fits else text[: max(fits - 1, 0)] + "…"


def _segments(device: str) -> list[dict]:
    """``device``'s memory snapshot as the viewer draws it: each segment numbered, its
    blocks with their address (a storage starts at its block's address)."""
    return [
        {"index": i, "pool": segment["segment_type"], "address": segment["address"],
         "size": segment["total_size"],
         "blocks": [{"address": b["address"], "offset": b["offset"], "size": b["size"],
                     "requested": b["requested_size"], "allocated": b["allocated"]}
                    for b in segment["blocks"]]}
        for i, segment in enumerate(cpu_memory.snapshot(device))
    ]  # fmt: skip


def _address(storage: Any) -> int:
    """Where a storage's data starts (NumPy's data pointer)."""
    return storage.__array_interface__["data"][0]


def memory(device: str = "cpu") -> MemoryWidget:
    """A memory viewer of ``device``'s caching allocator (``"cpu"``, or ``"cuda"`` for
    the GPU or its emulator). Tensors are named by the caller's global variables."""
    memory_api(str(device))  # a clear error for another device
    return MemoryWidget(str(device), namespaces=[sys._getframe(1).f_globals])


__all__ = ["MemoryWidget", "block_widths", "holder_label", "memory", "memory_svg"]
