"""Which tensors are alive, and what a student calls them (for the memory viewer).

The memory viewer labels each allocated block with the tensors holding it. Two
questions, answered without ever keeping a tensor alive:

**Which tensors exist?** minitorch keeps no list of its tensors (that would cost every
op a little, and a list would keep them alive). Python's garbage collector already
has one: every object that can hold references, a ``Tensor`` included, is *tracked*
by it, and ``gc.get_objects()`` returns them all. Asking for all of them is slow in a
notebook, which holds hundreds of thousands of objects, so ``TensorFinder``
asks once and then only for the *young* ones: the collector sorts objects into
generations, and a new object starts in generation 0, moves to 1 when it survives a
collection, then to 2. A tensor made since the last look is in generation 0 or 1
unless it survived many collections since, which is why the finder still looks at
everything when a block appears whose holder it cannot find. It remembers the tensors
in a ``weakref.WeakSet``: a weak reference does not count for reference counting, so
``del x`` still frees ``x`` (the set forgets it by itself).

Tensors nobody named are often *activations*: outputs an op's backward will need, kept
by the autograd graph (``saved_for_backward`` finds which node keeps each); or the 0-d
operands minitorch caches for Python numbers (``library_names``).

**What are they called?** A tensor does not know its variable's name; the names live
in namespaces. ``tensor_names`` reads the notebook's globals (or a function's
locals) the way a student wrote them: ``x``, ``model.0.weight`` (a module's
parameters), ``model.0.weight.grad``, ``opt.state[model.0.weight].exp_avg``,
``xs[2]`` (one level into a list, tuple or dict). Names starting with ``_`` come
last: IPython keeps a cell's displayed result as ``_7`` (and ``Out[7]``), which
is a real reference, and the viewer says so.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterable, Mapping
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.function import BackwardNode
from minitorch.nn import Module
from minitorch.ops import common
from minitorch.optim import Optimizer

MAX_ITEMS = 100  # items of a list or dict looked into


class TensorRef(weakref.ref):
    """A weak reference that remembers the ``id`` its tensor was filed under."""

    __slots__ = ("key",)


class TensorFinder:
    """The live minitorch tensors, found through the garbage collector, held weakly.

    They are kept as ``{id(tensor): weak reference}``, not in a ``weakref.WeakSet``: a
    set compares its members with ``==``, which for tensors is elementwise."""

    def __init__(self) -> None:
        self.known: dict[int, TensorRef] = {}
        self.full_scans = 0  # how many times every object was looked at (tests read it)

    def scan(self, everything: bool) -> None:
        """Look at the young generations (0 and 1), or at every tracked object."""
        if everything:
            self.full_scans += 1
            objects = gc.get_objects()
        else:
            objects = gc.get_objects(0) + gc.get_objects(1)
        for o in objects:
            # (``type(o)``, not ``isinstance(o, ...)``: isinstance also asks ``o.__class__``,
            # which raises for a dead weakref.proxy and warns for deprecated objects)
            if issubclass(type(o), Tensor) and id(o) not in self.known:
                ref = self.known[id(o)] = TensorRef(o, self._forget)
                ref.key = id(o)
        del objects  # (the list holds every object strongly)

    def _forget(self, ref: TensorRef) -> None:
        """Called when a tensor dies: drop its entry (unless its id is reused already)."""
        if self.known.get(ref.key) is ref:
            del self.known[ref.key]

    def tensors(self) -> list[Tensor]:
        """The tensors still alive (strong references: drop the list when done)."""
        return [t for t in (ref() for ref in list(self.known.values())) if t is not None]


def tensor_names(namespaces: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """``{id(tensor): name}`` for the tensors reachable by name from ``namespaces``.
    A tensor reachable by several names gets the first plain one (names starting with
    ``_`` come last). The ids mean something only while the tensors are alive: use the
    result at once, while the namespaces still hold them."""
    entries = [(name, value) for namespace in namespaces for name, value in list(namespace.items())]
    entries.sort(key=lambda entry: entry[0].startswith("_"))  # stable: plain names first
    names: dict[int, str] = {}

    def give(t: Any, name: str) -> None:
        if isinstance(t, Tensor) and id(t) not in names:
            names[id(t)] = name
            if t._grad is not None:
                give(t._grad, f"{name}.grad")

    optimizers = []
    for name, value in entries:
        if isinstance(value, Tensor):
            give(value, name)
        elif isinstance(value, Module):
            for path, t in [*value.named_parameters(), *value.named_buffers()]:
                give(t, f"{name}.{path}")
        elif isinstance(value, Optimizer):
            optimizers.append((name, value))
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value[:MAX_ITEMS]):
                give(item, f"{name}[{i}]")
        elif isinstance(value, dict):
            for key, item in list(value.items())[:MAX_ITEMS]:
                give(item, f"{name}[{key!r}]")
    for name, optimizer in optimizers:  # after the modules, so parameters have names
        for param, state in list(optimizer.state.items()):
            owner = names.get(id(param), "param")
            for key, item in state.items():
                give(item, f"{name}.state[{owner}][{key!r}]")
    return names


def saved_for_backward(tensors: Iterable[Tensor]) -> dict[int, str]:
    """``{id(tensor): node name}`` for the tensors the autograd graphs of ``tensors``
    keep for their backward (an activation: ``TanhBackward0`` keeps ``tanh(x)``). The
    graphs are walked from each tensor's ``grad_fn`` along ``next_functions``."""
    saved: dict[int, str] = {}
    seen: set[int] = set()
    waiting = [t._grad_fn for t in tensors if t._grad_fn is not None]
    while waiting:
        node = waiting.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, BackwardNode) and node.ctx._saved is not None:
            for entry in node.ctx._saved:
                if entry is not None:
                    saved.setdefault(id(entry.tensor), node.name())
        waiting.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return saved


def library_names() -> dict[int, str]:
    """Tensors minitorch keeps for itself: the 0-d operands ``scalar_tensor`` remembers
    (``x * 0.5``, a learning rate...), each in a block of its own."""
    return {id(t): "scalar operand cached by minitorch.ops" for t in list(common._scalars.values())}
