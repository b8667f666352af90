"""Replay: run a captured ``Graph`` again on new inputs, with no Python op logic at all.

Eager minitorch pays for every op: argument checks, dtype promotion, broadcasting,
allocation, a ``Function`` and its graph node. A replay pays none of it. Everything those
steps decided is already in the graph (each node's operands, with shapes, strides and
offsets), so replaying is one loop:

    for node in graph.nodes:
        kernel = the backend's function for node.primitive (or node.code, if generated)
        kernel(*node's arguments, each Operand turned into a Strided of its storage)

Two tiers, as everywhere in minitorch:

* ``replay(graph, inputs)`` is that loop, written plainly: the specification;
* ``Program`` is the same loop made cheap. It allocates the graph's temps once (per
  workspace, below) and turns every operand into its ``Strided`` once, so that a call
  only rebinds the operands of the inputs and runs the kernels. A ``Program`` must
  give exactly what ``replay`` gives.

Temps are scratch memory, and two replays must never share it while both run: two
threads calling one compiled function, or two CUDA streams (a replay only queues its
kernels, so replays on two streams overlap). A ``Program`` therefore keeps its temps
in *workspaces*, one per replay in flight, and a replay takes one no other running
replay uses (``workspace.py`` tells why and how). One thread on one stream uses one.

What a replay returns is what eager code returns. A view of memory the caller holds --
an argument (``x[0]``, ``x.t()``) or a named variable (a parameter) -- comes back as
that same view, so writing into ``x`` shows in it. Anything else is new on each call,
so a later call never changes a result you kept: ``replay`` copies it out of the
graph's buffers; ``Program`` gives a returned temp a new storage on each call and
writes it there directly (no copy), and copies the rest.
"""

from __future__ import annotations

import time
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.compiler.capture import ValuesChanged
from minitorch.compiler.graph import Buffer, Graph, Node, Operand, OutputSpec, operands_in
from minitorch.compiler.workspace import Workspace, Workspaces
from minitorch.dispatch import tracing as dispatch_tracing  # ``recording``: is a trace or capture open?
from minitorch.layout import contiguous_strides, numel
from minitorch.storage_tensor import tensor_over_storage

Strided = dispatch.Strided  # what a kernel sees of a tensor (minitorch/backends/__init__.py)

# ----------------------------------------------------------------------------------------
# The plain replay
# ----------------------------------------------------------------------------------------


def replay(graph: Graph, inputs: list[Tensor]) -> Any:
    """Run ``graph`` on ``inputs`` (its tensor arguments, in order) and return what the
    captured function returned."""
    storages = own_storages(graph)
    check_inputs(graph, inputs)
    for node in checks_first(graph):
        run(node, [strided(o, graph, storages, inputs) for o in operands_in(node.args)], node.args)
    return outputs(graph.outputs, lambda spec: returned(spec, graph, storages, inputs))


def checks_first(graph: Graph) -> list[Node]:
    """The nodes in the order a replay runs them: the input checks whose values exist
    before any kernel ran (an index passed in) first, so that bad input, or values that
    send an op down another path, stop the replay before it changed anything."""
    written: set[int] = set()
    early, rest = [], []
    for node in graph.nodes:
        if node.primitive == "check" and node.reads[0].buffer not in written:
            early.append(node)
        else:
            rest.append(node)
        written.update(o.buffer for o in node.writes)
    return early + rest


def own_storages(graph: Graph) -> dict[int, Any]:
    """A storage for every buffer except the inputs: the program's own (variables,
    state, constants: ``shared_storages``) and this replay's temps (``temp_storages``)."""
    return {**shared_storages(graph), **temp_storages(graph)}


def shared_storages(graph: Graph) -> dict[int, Any]:
    """The storages every replay shares: variables and state (their own storage) and
    constants (made from their values the first time)."""
    storages: dict[int, Any] = {}
    for buffer in graph.buffers:
        if buffer.kind == "constant" and buffer.storage is None:
            buffer.storage = dispatch.from_numpy(buffer.values.reshape(-1), buffer.device_type)
        if buffer.kind in ("variable", "state", "constant"):
            storages[buffer.index] = buffer.storage
    return storages


def temp_storages(graph: Graph) -> dict[int, Any]:
    """A new storage for every temp; a temp that memory planning placed in another
    temp's storage (``graph.placement``) shares that one, which holds the largest."""
    storages: dict[int, Any] = {}
    shared: dict[int, int] = {}  # placement target -> elements it must hold
    temps = graph.buffers_of("temp")
    for buffer in temps:
        target = graph.placement.get(buffer.index, buffer.index)
        shared[target] = max(shared.get(target, 0), buffer.count)
    for buffer in temps:
        target = graph.placement.get(buffer.index, buffer.index)
        if target not in storages:
            storages[target] = dispatch.empty(shared[target], buffer.dtype, buffer.device_type)
        storages[buffer.index] = storages[target]
    return storages


def strided(o: Operand, graph: Graph, storages: dict[int, Any], inputs: list[Tensor]) -> Strided:
    """The kernel's view of operand ``o``: an input's is moved by how far the new
    argument's offset is from the captured one's."""
    buffer = graph.buffers[o.buffer]
    if buffer.kind == "input":
        arg = inputs[buffer.input_index]
        return Strided(arg._storage, o.shape, o.strides, o.offset - buffer.input_offset + arg._offset)
    return Strided(storages[o.buffer], o.shape, o.strides, o.offset)


def check_inputs(graph: Graph, inputs: list[Tensor]) -> None:
    """Refuse an input whose storage is too small for what the graph reads of it (the
    guard checked shapes and strides; an argument's offset and storage may differ)."""
    for buffer, low, high in input_extents(graph):
        arg = inputs[buffer.input_index]
        shift = arg._offset - buffer.input_offset
        if low + shift < 0 or high + shift >= len(arg._storage):
            raise RuntimeError(
                f"compiled function: argument {buffer.name!r} does not hold the elements the "
                "captured graph reads (its storage is smaller than when it was captured)"
            )


def input_extents(graph: Graph) -> list[tuple[Buffer, int, int]]:
    """For each input buffer: the lowest and highest position any node reads or writes."""
    extents: dict[int, list[int]] = {}
    specs = [spec.operand for spec in flatten_outputs(graph.outputs)]
    for o in [o for node in graph.nodes for o in operands_in(node.args)] + specs:
        reach = o.positions()
        if reach is None or graph.buffers[o.buffer].kind != "input":
            continue
        low, high = extents.setdefault(o.buffer, [reach[0], reach[1]])
        extents[o.buffer] = [min(low, reach[0]), max(high, reach[1])]
    return [(graph.buffers[i], low, high) for i, (low, high) in extents.items()]


def run(node: Node, operands: list[Strided], args: tuple) -> None:
    """Call ``node``'s kernel with ``operands`` in place of its ``Operand``s."""
    supply = iter(operands)
    call_args = _substitute(args, supply)
    if node.scalars_again is not None:  # this step's numbers (see Node.scalars_again)
        call_args = (*call_args[:-1], node.scalars_again())
    if node.primitive == "check":
        operand, answer = call_args
        if dispatch.check_values(operand, node.device_type, node.code) != answer:
            raise ValuesChanged(f"the values checked by {node.name} now give another answer than "
                                f"{answer!r}: the op takes another path")  # fmt: skip
    elif node.code is not None:
        node.code(*call_args)
    else:
        dispatch.kernel_function(node.primitive, node.device_type)(*call_args)


def _substitute(value: Any, supply: Any) -> Any:
    if isinstance(value, Operand):
        return next(supply)
    if isinstance(value, list):
        return [_substitute(v, supply) for v in value]
    if isinstance(value, tuple):
        return tuple(_substitute(v, supply) for v in value)
    return value


def flatten_outputs(value: Any) -> list[OutputSpec]:
    if isinstance(value, OutputSpec):
        return [value]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in flatten_outputs(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in flatten_outputs(v)]
    return []


def outputs(value: Any, make: Any) -> Any:
    """The function's return value rebuilt: each ``OutputSpec`` replaced by ``make(spec)``."""
    if isinstance(value, OutputSpec):
        return make(value)
    if isinstance(value, (list, tuple)):
        items = [outputs(v, make) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {k: outputs(v, make) for k, v in value.items()}
    return value


def returned(spec: OutputSpec, graph: Graph, storages: dict[int, Any], inputs: list[Tensor]) -> Tensor:
    """One tensor of the return value. Where eager code returned a view of memory the
    caller holds -- of an argument (``x[0]``, ``x.t()``, ``x`` itself) or of a named
    variable (a parameter) -- the replay returns that same view: writing into ``x``
    shows in the result, as it does eagerly (the view is a new tensor object, as any
    view is: even ``return x`` gives a view of ``x``, not ``x`` itself). Anything else
    lives in the graph's own buffers and is copied out, so that a later replay never
    changes a result you kept."""
    o = spec.operand
    source = strided(o, graph, storages, inputs)
    base = held_by_caller(graph.buffers[o.buffer], inputs)
    if base is not None:
        return tensor_over_storage(source.storage, o.shape, o.strides, source.offset, spec.dtype, spec.device,
                                   base)  # fmt: skip
    return copy_out(spec, source)


def held_by_caller(buffer: Buffer, inputs: list[Tensor]) -> Tensor | None:
    """The tensor a returned view of ``buffer`` is a view of (as ``Tensor._view`` sets
    ``_base``): the argument, or the tensor that named the variable; None when the
    buffer is the graph's own (temps, constants, state)."""
    if buffer.kind == "input":
        t = inputs[buffer.input_index]
    elif buffer.kind == "variable" and buffer.owner is not None:
        t = buffer.owner()
        if t is None or t._storage is not buffer.storage:
            return None
    else:
        return None
    return t if t._base is None else t._base


def copy_out(spec: OutputSpec, source: Strided) -> Tensor:
    shape = spec.operand.shape
    device_type = spec.device.type
    storage = dispatch.empty(numel(shape), source.storage.dtype, device_type)
    out = Strided(storage, shape, contiguous_strides(shape), 0)
    dispatch.kernel_function("map", device_type)("copy", out, source)
    return tensor_over_storage(storage, shape, out.strides, 0, spec.dtype, spec.device)


# ----------------------------------------------------------------------------------------
# The fast replay
# ----------------------------------------------------------------------------------------


class Program:
    """A graph made ready to run many times (see the module docstring).

    A workspace's ``steps`` hold one ``(kernel, arguments, None)`` triple per node whose
    operands are all the graph's own; a node that reads or writes an input (or a
    returned temp) is kept as ``(None, None, node)`` and completed on each call."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.extents = input_extents(graph)
        # Temps the function returns get a new storage on every call and are handed out
        # as they are, instead of being copied out of a storage the graph keeps.
        self.fresh = sorted({spec.operand.buffer for spec in flatten_outputs(graph.outputs)
                             if graph.buffers[spec.operand.buffer].kind == "temp"})  # fmt: skip
        self.order = checks_first(graph)
        shared = shared_storages(graph)
        on_cuda = any(buffer.device_type == "cuda" for buffer in graph.buffers)
        self.workspaces = Workspaces(lambda: self._workspace(shared), on_cuda)

    def _workspace(self, shared: dict[int, Any]) -> Workspace:
        """New temps (``workspace.py``), and every kernel call prepared on them."""
        graph, storages = self.graph, {**shared, **temp_storages(self.graph)}
        steps: list[tuple[Any, Any, Node | None]] = []
        for node in self.order:
            touches_input = any(graph.buffers[o.buffer].kind == "input" or o.buffer in self.fresh
                                for o in operands_in(node.args))  # fmt: skip
            if touches_input or node.primitive == "check" or node.scalars_again is not None:
                steps.append((None, None, node))
                continue
            own = [Strided(storages[o.buffer], o.shape, o.strides, o.offset) for o in operands_in(node.args)]
            kernel = node.code or dispatch.kernel_function(node.primitive, node.device_type)
            steps.append((kernel, _substitute(node.args, iter(own)), None))
        return Workspace(storages, steps)

    def __call__(self, inputs: list[Tensor]) -> Any:
        for buffer, low, high in self.extents:  # check_inputs, on the extents kept once
            arg = inputs[buffer.input_index]
            shift = arg._offset - buffer.input_offset
            if low + shift < 0 or high + shift >= len(arg._storage):
                check_inputs(self.graph, inputs)  # raises with the message
        workspace = self.workspaces.take()  # this replay's temps, no one else's
        try:
            return self._run(workspace, inputs)
        finally:
            self.workspaces.give_back(workspace)

    def _run(self, workspace: Workspace, inputs: list[Tensor]) -> Any:
        graph, storages = self.graph, workspace.storages
        if self.fresh:
            storages = dict(storages)  # this call's: the returned temps' new storages
            for index in self.fresh:
                buffer = graph.buffers[index]
                storages[index] = dispatch.empty(buffer.count, buffer.dtype, buffer.device_type)
        if dispatch_tracing.recording:  # a trace() block is open: record each call as it runs
            return self._traced(inputs, storages)
        for kernel, call_args, node in workspace.steps:
            if node is None:
                kernel(*call_args)
            else:
                run(node, [strided(o, graph, storages, inputs) for o in operands_in(node.args)], node.args)
        return self._results(inputs, storages)

    def _results(self, inputs: list[Tensor], storages: dict[int, Any]) -> Any:
        """The return value: a returned temp as a tensor over its new storage, anything
        else as ``returned`` makes it (a view of the caller's memory, or a copy)."""
        graph = self.graph

        def make(spec: OutputSpec) -> Tensor:
            o = spec.operand
            if o.buffer in self.fresh:
                return tensor_over_storage(storages[o.buffer], o.shape, o.strides, o.offset, spec.dtype,
                                           spec.device)  # fmt: skip
            return returned(spec, graph, storages, inputs)

        return outputs(graph.outputs, make)

    def _traced(self, inputs: list[Tensor], storages: dict[int, Any]) -> Any:
        """``_run`` with every kernel call timed and added to the open traces."""
        graph = self.graph
        for node in self.order:
            operands = [strided(o, graph, storages, inputs) for o in operands_in(node.args)]
            start = time.perf_counter()
            run(node, operands, node.args)
            seconds = time.perf_counter() - start
            written = [strided(o, graph, storages, inputs) for o in node.writes]
            if written:
                read = [strided(o, graph, storages, inputs) for o in node.reads]
                dispatch.record_replayed(node.primitive, node.kernel, node.device_type, written[:1] + read,
                                         f"{node.op} (replay)", node.phase, seconds)  # fmt: skip
        return self._results(inputs, storages)
