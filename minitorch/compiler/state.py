"""State: the tensors a graph reads without receiving them, found again on every call.

A training step reads much more than its arguments: parameters, their ``.grad``,
optimizer state, a module's running statistics, a tensor in a closure or a dict. Python
finds each of them through a *slot*: a place that holds a tensor (or ``None``) by name,

    model._parameters["weight"]      optimizer.state[p]["square_avg"]      p.grad
    self.__dict__["avg"]             the closure cell of ``w``              settings["w"]

A captured graph knows storages, not slots. It is only right on a later call if every
slot still leads where it led during the capture: the same tensor object, over the same
storage, with the same ``requires_grad``, and ``None`` where it was ``None`` (``p.grad``
is ``None`` after ``zero_grad()``, and then backward *stores* its gradient instead of
adding to one). The values may change freely: the graph reads them in place.

``find_slots(fn)`` walks what ``fn`` can see (its ``self``, closure, globals, and inside
them modules, optimizers, dicts, lists and objects) and lists every slot it meets.
``StateGuard`` is made once per captured graph from the slots before and after the
capture call, and does three things on each replay:

1. ``check``: every slot that matters to the graph is read again and compared by
   identity; a difference is the reason to capture again (``fn.recaptures``). A tensor
   argument that is also state the function reads (``f(w)`` where ``f`` reads ``w``) is
   checked the same way: the graph reads both through one buffer only if they alias.
2. before running: a slot the capture *rebound* (``state["square_avg"] = new``, ``self.avg
   = self.avg * 0.5 + x * 0.5``) now holds the tensor the capture made; the graph reads
   the old one, so the new values are copied into it first;
3. ``write_back`` after running: each rebound slot is set to what the capture left there,
   a tensor over the graph's buffer that holds the new value (``p.grad`` after
   ``zero_grad()``: the gradient the replay just wrote).
"""

from __future__ import annotations

import inspect
import types
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.compiler.graph import Graph
from minitorch.nn.module import Module
from minitorch.optim.optimizer import Optimizer


class _Missing:
    def __repr__(self) -> str:
        return "missing"


MISSING = _Missing()  # what a slot holds when its dict has no such key (yet)


class Slot:
    """A place Python finds a value by name: ``holder[key]`` (a dict or a list) or
    ``holder.key`` (a closure cell's ``cell_contents``, a tensor's ``_grad``)."""

    __slots__ = ("holder", "key", "is_item", "name")

    def __init__(self, holder: Any, key: Any, is_item: bool, name: str) -> None:
        self.holder, self.key, self.is_item, self.name = holder, key, is_item, name

    @property
    def identity(self) -> tuple:
        return id(self.holder), self.key, self.is_item

    def read(self) -> Any:
        if not self.is_item:
            return getattr(self.holder, self.key, MISSING)
        if isinstance(self.holder, dict):
            return self.holder.get(self.key, MISSING)
        return self.holder[self.key] if self.key < len(self.holder) else MISSING

    def write(self, value: Any) -> None:
        if not self.is_item:
            setattr(self.holder, self.key, value)
        elif value is MISSING:
            self.holder.pop(self.key, None)
        else:
            self.holder[self.key] = value


def find_slots(fn: Any) -> tuple[list[Slot], list[tuple[str, Module]]]:
    """Every slot ``fn`` can reach (see the module docstring), and the modules met on
    the way, by name (their ``training`` flags are part of the guard key)."""
    roots: list[tuple[str, Any, Slot | None]] = []
    if not isinstance(fn, Module) and inspect.isfunction(inspect.getattr_static(type(fn), "__call__", None)):
        fn = fn.__call__  # an object with a __call__ method: what that method sees
    owner = getattr(fn, "__self__", None)
    if owner is not None:
        roots.append(("self", owner, None))
    if isinstance(fn, Module):
        roots.append(("model", fn, None))
        fn = fn.forward
    code = getattr(fn, "__code__", None)
    if code is not None:
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            roots.append(
                (
                    name,
                    cell.cell_contents if _filled(cell) else None,
                    Slot(cell, "cell_contents", False, name),
                )
            )
        scope = getattr(fn, "__globals__", {})
        roots += [
            (name, scope[name], Slot(scope, name, True, name)) for name in code.co_names if name in scope
        ]
    # Modules first, then everything else, then optimizers: a parameter is named after
    # its module ("model.0.weight"), and the optimizer's state after the parameter.
    roots.sort(
        key=lambda root: 0 if isinstance(root[1], Module) else 2 if isinstance(root[1], Optimizer) else 1
    )
    walk = _Walk()
    for name, value, slot in roots:
        walk.visit(name, value, slot, depth=0)
    return walk.slots, walk.modules


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
    except ValueError:
        return False
    return True


class _Walk:
    """The walk of ``find_slots``: containers are visited once, to a bounded depth."""

    DEPTH = 6

    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self.modules: list[tuple[str, Module]] = []
        self.tensor_names: dict[int, str] = {}
        self.seen: set[int] = set()

    def visit(self, name: str, value: Any, slot: Slot | None, depth: int) -> None:
        if slot is not None and (
            isinstance(value, (Tensor, int, float)) or value is None or value is MISSING
        ):
            self.slots.append(slot)
        if isinstance(value, Tensor):
            if id(value) not in self.tensor_names:
                self.tensor_names[id(value)] = name
                if value.requires_grad or value._grad is not None:
                    self.slots.append(Slot(value, "_grad", False, f"{name}.grad"))
            return
        if depth > self.DEPTH or id(value) in self.seen or not _walkable(value):
            return
        self.seen.add(id(value))
        if isinstance(value, Module):
            self.modules.append((name, value))
            for table in ("_parameters", "_buffers"):
                for key, item in vars(value)[table].items():
                    self.visit(
                        f"{name}.{key}", item, Slot(vars(value)[table], key, True, f"{name}.{key}"), depth + 1
                    )
            for key, item in vars(value)["_modules"].items():
                self.visit(f"{name}.{key}", item, None, depth + 1)
            self._items(name, vars(value), depth, skip=("_parameters", "_buffers", "_modules"))
        elif isinstance(value, Optimizer):
            for param, state in value.state.items():
                label = self.tensor_names.get(id(param), "param")
                self._items(f"{name}.state[{label}]", state, depth)
            self.visit(f"{name}.param_groups", value.param_groups, None, depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                self.visit(f"{name}[{key!r}]", item, Slot(value, key, True, f"{name}[{key!r}]"), depth + 1)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                self.visit(f"{name}[{i}]", item, Slot(value, i, True, f"{name}[{i}]"), depth + 1)
        else:
            self._items(name, vars(value), depth)

    def _items(self, name: str, table: dict, depth: int, skip: tuple = ()) -> None:
        for key, item in table.items():
            if key not in skip and isinstance(key, str):
                self.visit(f"{name}.{key}", item, Slot(table, key, True, f"{name}.{key}"), depth + 1)


def _walkable(value: Any) -> bool:
    """Containers and objects of the program's own classes: not Python modules, classes,
    functions or minitorch's own helpers (dtypes, devices)."""
    if isinstance(value, (Module, Optimizer, dict, list, tuple)):
        return True
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType,
                          types.BuiltinFunctionType)) or not hasattr(value, "__dict__"):  # fmt: skip
        return False
    return not type(value).__module__.startswith("minitorch")


def snapshot(slots: list[Slot]) -> dict[tuple, tuple[Slot, Any]]:
    """What each slot holds now, by the slot's identity."""
    return {slot.identity: (slot, slot.read()) for slot in slots}


class StateGuard:
    """What one captured graph needs of the slots, checked and kept on each replay (see
    the module docstring). ``refusal`` says why the graph cannot be replayed at all."""

    def __init__(self, graph: Graph, before: dict, after: dict, inputs: list[Tensor]) -> None:
        kinds = {id(b.storage): b.kind for b in graph.buffers if b.kind in ("variable", "state")}
        read = {id(graph.buffers[o.buffer].storage) for node in graph.nodes for o in node.reads
                if graph.buffers[o.buffer].kind == "variable"}  # fmt: skip
        argument_of = {id(t._storage): i for i, t in enumerate(inputs)}
        self.checks: list[tuple] = []
        self.rebound: list[tuple[Slot, Any]] = []
        self.aliases: list[tuple[int, Slot]] = []
        self.refusal: str | None = None
        state_names: dict[int, str] = {id(b.storage): b.name or "a tensor it reads" for b in graph.buffers
                                       if b.kind in ("variable", "state")}  # fmt: skip
        numbers: list[tuple[Slot, Any, Any]] = []  # Python numbers the call changed
        for identity in dict.fromkeys([*before, *after]):
            slot, was = before.get(identity, (None, MISSING))
            slot, now = after.get(identity, (slot, MISSING))
            if (_number(was) or _number(now)) and (type(was) is not type(now) or was != now):
                numbers.append((slot, was, now))
            if _number(was) or _number(now):
                continue
            tensors = [v for v in (was, now) if isinstance(v, Tensor)]
            touches = any(id(t._storage) in kinds or id(t._storage) in argument_of for t in tensors)
            is_grad = not slot.is_item and slot.key == "_grad"
            if not touches and not (is_grad and slot.holder._requires_grad):
                continue
            copy = None  # the copy that brings the values of ``now`` into ``was`` (step 2)
            if now is not was:
                if isinstance(now, Tensor) and kinds.get(id(now._storage)) != "state":
                    self.refusal = (f"it sets {slot.name} to a tensor it did not make (an argument, or "
                                    "a tensor that existed before the call), and a replay cannot set "
                                    f"it to the new call's tensor: copy into {slot.name} in place "
                                    "(copy_) instead")  # fmt: skip
                self.rebound.append((slot, now))
                if isinstance(was, Tensor) and isinstance(now, Tensor) and id(was._storage) in read:
                    same = (was._shape, was.dtype, was.device) == (now._shape, now.dtype, now.device)
                    copy = _copy_kernel(was, now) if same else False
            accepts_now = (
                now is not was and isinstance(was, Tensor) and isinstance(now, Tensor) and copy is not False
            )
            # A slot the call emptied and filled again without reading it (p.grad under
            # zero_grad()) may hold any tensor of that shape: the graph never reads it.
            like = (was._shape, was.dtype, was.device) if accepts_now and copy is None else None
            table = slot.holder if isinstance(slot.holder, dict) else None  # (read at once)
            self.checks.append(
                (slot, table, was, _fields(was), now if accepts_now else MISSING, _fields(now), copy, like)
            )
            for t in tensors:
                if id(t._storage) in argument_of and t is was:
                    self.aliases.append((argument_of[id(t._storage)], slot))
                elif id(t._storage) not in argument_of:
                    state_names.setdefault(id(t._storage), slot.name)
        self.refusal = _numbers_no_replay_redoes(graph, numbers) or self.refusal
        self.state_names = state_names  # storages an argument must not be (unless aliased)
        found = {
            id(t._storage)
            for _, _, was, _, now, _, _, _ in self.checks
            for t in (was, now)
            if isinstance(t, Tensor)
        }
        self.owned = [b for b in graph.buffers if b.kind == "variable" and b.owner is not None
                      and id(b.storage) not in found]  # fmt: skip

    def check(self, inputs: list[Tensor], input_names: list[str]) -> tuple[str | None, list]:
        """Why this call's state differs from the capture's (None if it does not), and
        the copies of step 2 this call needs (for ``copy_in``)."""
        copies: list = []
        for slot, table, was, (storage, requires_grad), now, now_fields, copy, like in self.checks:
            value = table.get(slot.key, MISSING) if table is not None else slot.read()
            if value is not was:
                if value is now and value is not MISSING:
                    storage, requires_grad = now_fields
                    if copy is not None:
                        copies.append(copy)
                elif (
                    like is not None
                    and isinstance(value, Tensor)
                    and (value._shape, value.dtype, value.device) == like
                ):
                    continue
                else:
                    return _why(slot.name, was, value), copies
            if storage is not None:
                if value._storage is not storage:
                    return f"{slot.name} was replaced (its storage changed)", copies
                if value._requires_grad is not requires_grad:
                    return f"{slot.name}: requires_grad {requires_grad} -> {value._requires_grad}", copies
        for index, slot in self.aliases:
            value = slot.read()
            if not isinstance(value, Tensor) or inputs[index]._storage is not value._storage:
                name = input_names[index]
                return (
                    f"argument {name} was {slot.name}, a tensor the function also reads; now it is not",
                    copies,
                )
        for t, name in zip(inputs, input_names):
            shared = self.state_names.get(id(t._storage))
            if shared is not None and not any(t._storage is s.read()._storage for _, s in self.aliases):
                return f"argument {name} is {shared}, a tensor the function also reads", copies
        for buffer in self.owned:  # a variable found by no slot: its tensor object
            owner = buffer.owner()
            if owner is not None and owner._storage is not buffer.storage:
                return f"{buffer.name or 'a tensor it reads'} was replaced (its storage changed)", copies
        return None, copies

    @staticmethod
    def copy_in(copies: list) -> None:
        """Step 2: the values of each rebound slot's tensor into the one the graph reads."""
        for kernel, out, source in copies:
            kernel("copy", out, source)

    def write_back(self) -> None:
        """Step 3: each rebound slot set to what the capture left there."""
        for slot, value in self.rebound:
            slot.write(value)


def _numbers_no_replay_redoes(graph: Graph, numbers: list[tuple[Slot, Any, Any]]) -> str | None:
    """Why a Python number the call changed (``state["step"] += 1``) would go stale, or
    None. A replay runs no Python, except the Python half of a fused optimizer step
    (``Node.scalars_again``), which counts its own steps: it is run once here, and every
    number it moves as the call did is its; the values are put back afterwards."""
    if not numbers:
        return None
    start = {slot.identity: slot.read() for slot, _, _ in numbers}
    for slot, was, _ in numbers:
        slot.write(was)
    try:
        for node in graph.nodes:
            if node.scalars_again is not None:
                node.scalars_again()
    except Exception:  # noqa: BLE001 (it needs state the capture made: nothing is redone)
        pass
    redone = {
        slot.identity for slot, _, now in numbers if type(slot.read()) is type(now) and slot.read() == now
    }
    for slot, _, _ in numbers:
        slot.write(start[slot.identity])
    for slot, was, now in numbers:
        if slot.identity not in redone:
            return (f"it changes {slot.name}, a Python number ({was!r} -> {now!r}), and a replay runs "
                    "no Python: the number, and anything computed from it, would stay the capture's. "
                    "Keep it in a tensor, or use a fused optimizer step (foreach=None or True)")  # fmt: skip
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, Tensor)


def _fields(value: Any) -> tuple[Any, Any]:
    return (value._storage, value._requires_grad) if isinstance(value, Tensor) else (None, None)


def _copy_kernel(out: Tensor, source: Tensor) -> tuple:
    strided = dispatch.Strided
    return (dispatch.kernel_function("map", out.device.type),
            strided(out._storage, out._shape, out._strides, out._offset),
            strided(source._storage, source._shape, source._strides, source._offset))  # fmt: skip


def _why(name: str, was: Any, now: Any) -> str:
    def word(value: Any) -> str:
        return "a tensor" if isinstance(value, Tensor) else repr(value)

    if isinstance(was, Tensor) and isinstance(now, Tensor):
        return f"{name} is another tensor than when captured"
    return f"{name} was {word(was)} when captured, now {word(now)}"
