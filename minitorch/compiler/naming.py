"""Names for a graph's buffers, as the student wrote them: ``model.0.weight``,
``model.0.weight.grad``, ``optimizer.state[model.0.weight].exp_avg``.

A kernel call knows storages, not names. The names come from the modules and
optimizers the compiled function can reach: the object it is a method of, the variables
of its closure, and the globals it mentions. Any storage a parameter, a buffer, a
gradient or an optimizer state holds gets that thing's name; the rest keep ``b7``.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any

from minitorch._tensor import Tensor
from minitorch.compiler.graph import Graph
from minitorch.nn.module import Module
from minitorch.optim.optimizer import Optimizer


def reachable_objects(fn: Any) -> list[tuple[str, Any]]:
    """``(name, object)`` for the modules, optimizers and tensors ``fn`` can see (a
    tensor also inside a list or tuple: ``params[0]``)."""
    found: list[tuple[str, Any]] = []
    if not isinstance(fn, Module) and inspect.isfunction(inspect.getattr_static(type(fn), "__call__", None)):
        fn = fn.__call__  # an object of a class with a __call__ method: what that method sees
    owner = getattr(fn, "__self__", None)
    if owner is not None:
        found.append(("self", owner))
    if isinstance(fn, Module):
        found.append(("model", fn))
        fn = fn.forward
    code = getattr(fn, "__code__", None)
    if code is not None:
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                found.append((name, cell.cell_contents))
            except ValueError:  # an empty cell
                continue
        scope = getattr(fn, "__globals__", {})
        found += [(name, scope[name]) for name in code.co_names if name in scope]
    for name, value in list(found):  # what ``self`` holds
        if not isinstance(value, (Module, Optimizer, Tensor)) and hasattr(value, "__dict__"):
            found += [(f"{name}.{attr}", v) for attr, v in vars(value).items()]
    for name, value in list(found):
        if isinstance(value, (list, tuple)):
            found += [(f"{name}[{i}]", v) for i, v in enumerate(value)]
    return [(name, value) for name, value in found if isinstance(value, (Module, Optimizer, Tensor))]


def tensor_names(fn: Any) -> dict[int, tuple[str, Tensor]]:
    """id(storage) -> (name, tensor), for every tensor reachable as described above."""
    names: dict[int, tuple[str, Tensor]] = {}
    param_names: dict[int, str] = {}

    def add(t: Any, name: str) -> None:
        if isinstance(t, Tensor):
            names.setdefault(id(t._storage), (name, t))

    objects = reachable_objects(fn)
    for prefix, obj in objects:
        add(obj, prefix)  # a tensor the function reads from its closure or globals
        if isinstance(obj, Module):
            for name, p in obj.named_parameters():
                param_names[id(p)] = f"{prefix}.{name}"
                add(p, f"{prefix}.{name}")
                add(p.grad, f"{prefix}.{name}.grad")
            for name, b in obj.named_buffers():
                add(b, f"{prefix}.{name}")
    for prefix, obj in objects:
        if isinstance(obj, Optimizer):
            for group in obj.param_groups:  # an SGD without momentum keeps no state
                for param in group["params"]:
                    add(param, param_names.get(id(param), f"{prefix}.param"))
            for param, state in obj.state.items():
                label = param_names.get(id(param), "param")
                add(param.grad, f"{label}.grad")
                for key, value in state.items():
                    add(value, f"{prefix}.state[{label}].{key}")
    return names


def name_buffers(graph: Graph, fn: Any) -> None:
    """Give every unnamed variable or state buffer of ``graph`` its name, if found, and
    make the tensor that has that name the variable's owner (the guard checks that it
    still holds this storage: ``state.StateGuard``)."""
    names = tensor_names(fn)
    for buffer in graph.buffers:
        found = names.get(id(buffer.storage)) if buffer.storage is not None else None
        if found is None:
            continue
        buffer.name = buffer.name or found[0]
        if buffer.kind == "variable":
            buffer.owner = weakref.ref(found[1])
