"""Guards: when may a captured graph be replayed, and when must it be captured again?

A graph bakes in everything that was true while it was captured: the shapes, strides,
dtypes and devices of the inputs (every node's layout follows from them), the Python
values passed in (``fn(x, 0.5)`` multiplied by 0.5), grad mode (whether backward nodes
were made), and which backend ran. The *guard* of a call is all of that written as one
hashable key; a call whose key matches a captured graph may replay it, any other
captures anew. ``difference(old, new)`` says in words which part changed: the reasons
``fn.recaptures`` lists (PyTorch's ``torch._dynamo`` logs its recompiles the same way).

What a guard cannot see is Python state the function reads without receiving it as an
argument (a global number, a list it appends to): that is baked in at capture, as in
``torch.compile`` and ``tf.function``. Parameters and optimizer state are tensors the
graph updates in place, so they stay live; a parameter whose storage was *replaced*
(``p.data = ...``) is caught by ``stale_variable``.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.compiler.graph import Graph


def flatten_arguments(fn: Any, args: tuple, kwargs: dict) -> tuple[list[tuple[str, Any]], list[Tensor]]:
    """Every leaf of the arguments as ``(name, value)`` (names as the function calls
    them: ``x``, ``batch[0]``), and the tensors among them, in order."""
    try:
        bound = signature(fn).bind(*args, **kwargs)
        named = list(bound.arguments.items())
    except (TypeError, ValueError):
        named = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    leaves: list[tuple[str, Any]] = []

    def walk(name: str, value: Any) -> None:
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(f"{name}[{i}]", item)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(f"{name}[{key!r}]", item)
        else:
            leaves.append((name, value))

    for name, value in named:
        walk(name, value)
    return leaves, [value for _, value in leaves if isinstance(value, Tensor)]


def signature(fn: Any) -> inspect.Signature:
    """``inspect.signature(fn)``, worked out once per function: it reads the code object
    and costs about 50 microseconds, a tenth of a small captured training step."""
    try:
        return _cached_signature(fn)
    except TypeError:  # an unhashable callable (a bound method of an unhashable object)
        return inspect.signature(fn)


_cached_signature = functools.lru_cache(maxsize=256)(inspect.signature)


def guard_key(leaves: list[tuple[str, Any]]) -> tuple:
    """The guard of a call (see the module docstring)."""
    parts: list[tuple] = []
    first_of_storage: dict[int, tuple[int, int]] = {}  # storage -> (tensor number, offset)
    tensor_number = 0
    for name, value in leaves:
        if isinstance(value, Tensor):
            # Which earlier argument's storage this one shares, and how far from it it
            # starts: the graph reads both through one buffer, at the captured distance.
            storage = id(value._storage)
            first, first_offset = first_of_storage.setdefault(storage, (tensor_number, value._offset))
            shares = (first, value._offset - first_offset)
            tensor_number += 1
            parts.append((name, "tensor", value._shape, value._strides, value.dtype, str(value.device),
                          value.requires_grad, shares))  # fmt: skip
        else:
            try:
                hash(value)
                parts.append((name, "value", type(value).__name__, value))
            except TypeError:
                parts.append((name, "value", type(value).__name__, repr(value)))
    context = (("grad mode", is_grad_enabled()), ("cpu backend", dispatch.get_backend("cpu")),
               ("cuda backend", dispatch.get_backend("cuda")))  # fmt: skip
    return tuple(parts) + context


def difference(old: tuple, new: tuple) -> str:
    """Why ``new`` does not match ``old``, in words."""
    if len(old) != len(new):
        return f"the number of arguments changed ({len(old) - 3} -> {len(new) - 3})"
    for before, after in zip(old, new):
        if before == after:
            continue
        name = before[0]
        if len(before) == 2:  # context
            return f"{name} changed ({_word(before[1])} -> {_word(after[1])})"
        if before[1] != after[1]:
            return f"argument {name} was a {before[2] if before[1] == 'value' else 'tensor'}, now "\
                   f"{after[2] if after[1] == 'value' else 'a tensor'}"  # fmt: skip
        if before[1] == "value":
            return f"argument {name} changed ({before[3]!r} -> {after[3]!r})"
        labels = ("shape", "strides", "dtype", "device", "requires_grad",
                  "storage sharing (first argument of that storage, offset from it)")  # fmt: skip
        for label, was, now in zip(labels, before[2:], after[2:]):
            if was != now:
                if label in ("shape", "strides"):
                    was, now = tuple(was), tuple(now)
                return f"{name}: {label} {was} -> {now}"
    return "the guard changed"


def _word(value: Any) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


def stale_variable(graph: Graph) -> str | None:
    """A variable whose tensor now holds another storage (``p.data = ...``,
    ``load_state_dict`` into new tensors): the graph would update the old one."""
    for buffer in graph.buffers:
        if buffer.kind == "variable" and buffer.owner is not None:
            owner = buffer.owner()
            if owner is not None and owner._storage is not buffer.storage:
                return f"{buffer.name or 'a tensor it reads'} was replaced (its storage changed)"
    return None
