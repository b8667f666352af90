"""Capture: run a function once, eagerly, and write down every kernel call as a ``Graph``.

The recorder sits where every op ends, in ``minitorch/dispatch/tracing.py``: inside
``dispatch.capturing(recorder)`` dispatch tells it each

* kernel call (``kernel``): a new node, its tensors turned into ``Operand``s of buffers;
* allocation (``allocated``): a new *temp* buffer;
* storage made from host data (``constant``): a *constant* buffer;
* read of values back to the host (``host_read``): the one thing a static graph cannot
  contain. ``if loss.item() > 1:`` decides Python's path by a value; replaying the
  graph would silently take the captured path forever. So a read is refused with a
  ``CaptureError`` naming the line, unless the buffer holds a constant (then the value
  can never change);
* input check (``validation``): a *check* node, so a replay validates new indices too.

A storage first met in a kernel call that was neither allocated during the capture nor
passed in is a *variable*: state that existed before (a parameter, a momentum buffer).

Buffers are known by identity. The recorder holds temps and constants only by weak
reference while the function runs, so that at the end it can see which temps are still
alive: those are referenced by something outside (``p.grad``, a returned tensor) and
become *state*; the dead ones are intermediate results the graph may reuse.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from minitorch._tensor import Tensor
from minitorch.compiler.graph import Buffer, Graph, Node, Operand, OutputSpec
from minitorch.compiler.source_location import user_line


class CaptureError(RuntimeError):
    """The function did something a captured graph could not replay faithfully."""


class ValuesChanged(Exception):
    """A replay's input check answered differently than during the capture (an op chose
    its path by the values, e.g. whether any target is ``ignore_index``): capture again."""


class _Entry:
    """What the recorder knows of one storage: its buffer, and the storage itself
    (weakly for temps and constants while the capture runs)."""

    __slots__ = ("buffer", "ref")

    def __init__(self, buffer: Buffer, storage: Any, weak: bool) -> None:
        self.buffer = buffer
        try:
            self.ref = weakref.ref(storage) if weak else (lambda: storage)
        except TypeError:  # a storage type without weak references: keep it
            self.ref = lambda: storage


class Recorder:
    """Builds a ``Graph`` from the calls dispatch reports (see the module docstring)."""

    def __init__(self, inputs: list[Tensor], input_names: list[str]) -> None:
        self.buffers: list[Buffer] = []
        self.nodes: list[Node] = []
        self._entries: dict[int, _Entry] = {}  # id(storage) -> entry
        self.constant_buffers: set[int] = set()  # buffers whose values are fixed (see host_read)
        self.created_at: dict[int, int] = {}  # constant buffer -> how many nodes came before
        self.input_names = input_names
        self.refused: str | None = None
        for i, t in enumerate(inputs):
            if self._find(t._storage) is None:
                buffer = self._add(t._storage, "input", t.device.type, weak=False)
                buffer.input_index, buffer.input_offset, buffer.name = i, t._offset, input_names[i]

    # ----- buffers ----------------------------------------------------------------------

    def _find(self, storage: Any) -> _Entry | None:
        entry = self._entries.get(id(storage))
        if entry is not None and entry.ref() is storage:
            return entry
        return None  # never seen, or a dead storage's id reused by a new one

    def _add(self, storage: Any, kind: str, device_type: str, weak: bool) -> Buffer:
        buffer = Buffer(len(self.buffers), kind, len(storage), np.dtype(storage.dtype), device_type)
        self.buffers.append(buffer)
        self._entries[id(storage)] = _Entry(buffer, storage, weak)
        return buffer

    def allocated(self, storage: Any, device_type: str) -> None:
        self._add(storage, "temp", device_type, weak=True)

    def constant(self, storage: Any, device_type: str, array: Any) -> None:
        buffer = self._add(storage, "constant", device_type, weak=True)
        buffer.values = np.array(array, copy=True)  # the values it starts with
        self.created_at[buffer.index] = len(self.nodes)
        self.constant_buffers.add(buffer.index)

    def operand(self, t: Tensor, device_type: str) -> Operand:
        entry = self._find(t._storage)
        if entry is None:  # state from before the capture
            buffer = self._add(t._storage, "variable", device_type, weak=False)
            buffer.storage = t._storage
            if t._base is None:  # the tensor itself, not a view: the state guard watches it
                buffer.owner = weakref.ref(t)
        else:
            buffer = entry.buffer
        return Operand(buffer.index, t._shape, t._strides, t._offset)

    def _convert(self, value: Any, device_type: str) -> Any:
        if isinstance(value, Tensor):
            return self.operand(value, device_type)
        if isinstance(value, list):
            return [self._convert(v, device_type) for v in value]
        if isinstance(value, tuple):
            return tuple(self._convert(v, device_type) for v in value)
        return value

    # ----- what dispatch reports ----------------------------------------------------------

    def kernel(self, primitive: str, args: tuple, device_type: str, op: str, phase: str,
               scalars_again: Any = None) -> None:  # fmt: skip
        if primitive == "optimizer_step" and scalars_again is None:
            raise CaptureError(
                f"the compiled function runs an optimizer step ({user_line()}) whose numbers "
                "a replay could not recompute (parameters of several dtypes or devices in "
                "one group): give each dtype and device its own optimizer, or leave the "
                "step uncompiled."
            )
        node = Node(primitive, self._convert(args, device_type), device_type, op, phase,
                    scalars_again=scalars_again)  # fmt: skip
        self.nodes.append(node)
        # A result computed from constants only is a constant too (its values are fixed
        # by the shapes, which the guard checks): reading it back is allowed.
        if all(o.buffer in self.constant_buffers for o in node.reads):
            self.constant_buffers.update(o.buffer for o in node.writes)
        else:
            self.constant_buffers.difference_update(o.buffer for o in node.writes)

    def host_read(self, storage: Any) -> None:
        entry = self._find(storage)
        if entry is not None and entry.buffer.index in self.constant_buffers:
            return
        raise CaptureError(
            f"the compiled function reads a tensor's value ({user_line()}): .item(), "
            "print, .tolist(), .numpy(), bool(tensor), or an op that needs values on the "
            "host (indexing with a tensor, nonzero). A captured graph cannot contain Python "
            "decisions made from values: replaying it would silently repeat this call's "
            "choice. Read values outside the compiled function (return the tensor, then "
            "call .item() on the result), or leave this function uncompiled."
        )

    def validation(self, t: Tensor, check: Any, answer: Any) -> None:
        """A check node: a replay runs ``check`` on the new values, and an answer other
        than ``answer`` means the op would now take another path (``ValuesChanged``)."""
        self.nodes.append(Node("check", (self.operand(t, t.device.type), answer), t.device.type,
                               "check", "forward", code=check))  # fmt: skip

    def refuse(self, what: str) -> None:
        raise CaptureError(
            f"the compiled function draws {what} ({user_line()}): a captured graph would "
            "replay the very same numbers on every call. Draw them outside and pass them "
            "in as an argument, or leave this function uncompiled."
        )

    # ----- the end --------------------------------------------------------------------

    def finish(self, outputs: Any) -> Graph:
        """The graph, once the function returned (``outputs``: what it returned, as
        ``outputs()`` described it, after the caller let go of the tensors themselves).

        Temps still alive now are referenced from outside the graph (a returned tensor,
        ``p.grad``): they become *state*, kept with their storage. A constant that some
        node writes into (``zeros`` then an in-place add) must start from its values on
        every replay: it becomes a temp, filled by a ``copy`` node from a fresh constant
        at the point where it was made."""
        for entry in list(self._entries.values()):
            buffer, storage = entry.buffer, entry.ref()
            if buffer.kind == "temp" and storage is not None:
                buffer.kind, buffer.storage = "state", storage
            elif buffer.kind == "constant":
                buffer.storage = storage  # None if it died: made again from its values
        written = {o.buffer for node in self.nodes for o in node.writes}
        for index in sorted(self.created_at, key=self.created_at.get, reverse=True):
            buffer = self.buffers[index]
            if index not in written:
                continue  # read only: one storage with these values serves every replay
            source = Buffer(len(self.buffers), "constant", buffer.count, buffer.dtype,
                            buffer.device_type, values=buffer.values)  # fmt: skip
            self.buffers.append(source)
            buffer.kind = "state" if buffer.storage is not None else "temp"
            buffer.values = None
            whole = (buffer.count,), (1,), 0
            copy = Node("map", ("copy", Operand(index, *whole), Operand(source.index, *whole)),
                        buffer.device_type, "constant", "forward")  # fmt: skip
            self.nodes.insert(self.created_at[index], copy)
        return Graph(self.buffers, self.nodes, outputs, self.input_names).renumber()

    def outputs(self, value: Any) -> Any:
        """The function's return value with each tensor replaced by an ``OutputSpec``."""
        if isinstance(value, Tensor):
            return OutputSpec(self.operand(value, value.device.type), value.dtype, value.device)
        if isinstance(value, (list, tuple)):
            items = [self.outputs(v) for v in value]
            return tuple(items) if isinstance(value, tuple) else items
        if isinstance(value, dict):
            return {k: self.outputs(v) for k, v in value.items()}
        return value
