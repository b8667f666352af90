"""Remembering what made each autograd node, and what each backward step did.

An autograd node (``tensor.grad_fn``) knows its inputs but not *who* made it. The graph
viewer can say more when the code runs inside ``watch``::

    with minitorch.widgets.watch(model):        # model is optional
        loss = loss_fn(model(x), y)
        loss.backward()
    minitorch.widgets.graph(loss, params=model)

Inside the block, for every node that ``Function.apply`` records (via autograd's
``node_listeners``), we note the innermost ``nn.Module`` whose forward was running and
the dispatch records of the node's forward kernels. For every node the backward engine
runs (via its ``step_listeners``), we note the gradient it received, what it sent
along each edge before and after un-broadcasting, and the kernels it dispatched. The
graph widget's own *backward* button records steps the same way (``record_backward``).

The notes are kept in weak dictionaries keyed by node: they disappear with the graph.
"""

from __future__ import annotations

import contextlib
import itertools
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd import engine, function
from minitorch.autograd.node import Node
from minitorch.creation import ones_like


@dataclass
class NodeFacts:
    """What was running when a node was made."""

    module: str = ""  # dotted path of the innermost module ("" for none; the root is "")
    module_type: str = ""  # its class name, e.g. "Linear"
    forward_records: list = field(default_factory=list)  # DispatchRecords of its forward


@dataclass
class Step:
    """One node run by the backward engine."""

    order: int  # global order of recording (sorting by it gives the engine's order)
    incoming: list  # the gradient(s) the node received
    local: tuple  # what its backward returned, one per edge of next_functions
    delivered: list  # what was sent along each edge after un-broadcasting (sum_to)
    records: list  # DispatchRecords of its backward kernels (and of the sums it caused)


_facts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Node -> NodeFacts
_steps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Node -> Step (latest)
_order = itertools.count()


def facts_of(node: Node) -> NodeFacts | None:
    return _facts.get(node)


def step_of(node: Node) -> Step | None:
    return _steps.get(node)


class _Recorder:
    """The listeners used by ``watch`` and ``record_backward``."""

    def __init__(self, calls: list) -> None:
        self.calls = calls  # the dispatch trace being recorded
        self.seen = 0  # how many records are already attributed
        self.modules: list[tuple[str, str]] = []  # the stack of running modules

    def on_node(self, node: Node) -> None:
        new, self.seen = self.calls[self.seen :], len(self.calls)
        name = getattr(getattr(node, "function", None), "__name__", "")
        path, kind = self.modules[-1] if self.modules else ("", "")
        _facts[node] = NodeFacts(path, kind, [r for r in new if r.op == name])

    def on_step(self, node: Node, incoming: list, local: tuple, delivered: list) -> None:
        new, self.seen = self.calls[self.seen :], len(self.calls)
        _steps[node] = Step(next(_order), list(incoming), tuple(local), list(delivered), list(new))


@contextlib.contextmanager
def _listening(recorder: _Recorder, nodes: bool) -> Iterator[None]:
    if nodes:
        function.node_listeners.append(recorder.on_node)
    engine.step_listeners.append(recorder.on_step)
    try:
        yield
    finally:
        if nodes:
            function.node_listeners.remove(recorder.on_node)
        engine.step_listeners.remove(recorder.on_step)


@contextlib.contextmanager
def watch(model: Any = None) -> Iterator[dispatch.DispatchTrace]:
    """Record, for the code inside the block, which module and which kernels made each
    autograd node, and every step of any backward pass. Yields the dispatch trace."""
    with dispatch.trace() as calls:
        recorder = _Recorder(calls)
        undo = _track_modules(model, recorder.modules) if model is not None else []
        try:
            with _listening(recorder, nodes=True):
                yield calls
        finally:
            for action in reversed(undo):
                action()


def record_backward(outputs: Sequence[Tensor], retain_graph: bool = True) -> None:
    """``backward()`` from ``outputs`` with a gradient of ones for each (for a scalar
    loss that is ``loss.backward()``), recording every step the engine takes."""
    from minitorch.autograd import backward

    ones = [ones_like(t) for t in outputs]
    with dispatch.trace() as calls:
        with _listening(_Recorder(calls), nodes=False):
            backward(list(outputs), ones, retain_graph=retain_graph)


def _track_modules(model: Any, stack: list[tuple[str, str]]) -> list:
    """Keep ``stack`` equal to the modules whose forward is running. Uses PyTorch-style
    forward hooks when the module has them, else wraps ``forward`` for the block."""
    if not hasattr(model, "named_modules"):
        raise TypeError(f"watch(model) expects an nn.Module, got {type(model).__name__}")
    undo = []
    for path, module in model.named_modules():
        entry = (path, type(module).__name__)
        if hasattr(module, "register_forward_pre_hook") and hasattr(module, "register_forward_hook"):
            enter = module.register_forward_pre_hook(lambda _m, _args, entry=entry: stack.append(entry))
            leave = module.register_forward_hook(lambda _m, _args, _out: stack.pop())
            undo += [enter.remove, leave.remove]
            continue
        original = module.forward

        def forward(*args: Any, _original: Any = original, _entry: Any = entry, **kwargs: Any) -> Any:
            stack.append(_entry)
            try:
                return _original(*args, **kwargs)
            finally:
                stack.pop()

        object.__setattr__(module, "forward", forward)
        undo.append(lambda module=module: object.__delattr__(module, "forward"))
    return undo
