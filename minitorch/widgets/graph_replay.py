"""The graph viewer's own backward: a replay on a copy of the graph, taken when drawn.

Pressing *backward* in the graph viewer must leave the notebook's tensors as they were.
Running the real ``backward()`` on the user's graph would not:

* it adds into every leaf's ``.grad``: a chapter that prints ``w.grad`` in its next cell
  would print twice the gradient;
* after the notebook's own ``loss.backward()`` the graph's saved tensors are freed, and a
  second walk raises "Trying to backward through the graph a second time";
* after ``opt.step()`` the parameters it saved were changed in place, and the walk raises
  that a saved tensor was modified.

So when the viewer draws a graph, ``capture`` copies it: every node once, with the same
op, the same ``sequence_nr`` (so the engine runs the copies in the same order), and the
tensors saved for backward *cloned* as they are at that moment. A leaf's
``AccumulateGrad`` becomes a ``KeptGrad``, which keeps the gradient it receives on
itself instead of adding it into ``leaf.grad``. ``Replay.run`` then walks the copy
with the real engine (``record_backward`` notes every step)::

    user's graph                          the copy (graph_replay)
    loss.grad_fn  MeanBackward0    ->     MeanBackward0'   ctx': saved tensors cloned
                  MulBackward0     ->     MulBackward0'
                  AccumulateGrad   ->     KeptGrad         .grad kept here, not in w.grad
    loss                           ->     a stand-in tensor whose grad_fn is MeanBackward0'

The copy runs without the user's hooks (``register_hook``, ``retain_grad``): they may
write into tensors the notebook owns. Cloning the saved tensors costs as much memory as
they take; the copy lives as long as the widget.

A graph whose saved tensors were already freed when the viewer drew it (the widget made
after ``loss.backward()``) cannot be copied: ``Replay.problem`` says so, and what to do.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from minitorch._tensor import Tensor
from minitorch.autograd.function import BackwardNode, SavedTensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.autograd.node import AccumulateGrad, Node, gradient_edge
from minitorch.widgets.watch import Step, record_backward, step_of

FREED = (
    "backward() already ran through this graph before the viewer drew it, and freed the "
    "tensors it saved, so the viewer cannot replay it. Draw the graph before calling "
    "backward() (or call backward(retain_graph=True))."
)


class KeptGrad(AccumulateGrad):
    """A leaf's node in the copy: keeps the gradient it receives (``self.grad``)
    instead of adding it into ``leaf.grad``. Named ``AccumulateGrad``, as the node it
    stands for."""

    def __init__(self, original: AccumulateGrad) -> None:
        super().__init__(original.variable)
        self.sequence_nr = original.sequence_nr
        self.tensor_hooks = {}  # the leaf's own hooks stay with the leaf
        self.grad: Tensor | None = None

    def name(self) -> str:
        return "AccumulateGrad"

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if grads[0] is not None:
            grad = grads[0].detach()
            self.grad = grad if self.grad is None else self.grad + grad
        return ()


def _kept(saved: SavedTensor | None) -> SavedTensor | None:
    """A saved tensor's copy: the same record around a clone of its values now. A tensor
    changed in place before the capture keeps a stale version, so the replay raises the
    engine's own error about it."""
    if saved is None:
        return None
    kept = copy.copy(saved)
    with no_grad():
        kept.tensor = saved.tensor.detach().clone()
    kept.version = kept.tensor._version if saved.tensor._version == saved.version else -1
    return kept


def _copy_node(node: Node) -> Node:
    """One node's copy (its ``next_functions`` still point at the user's nodes)."""
    if isinstance(node, AccumulateGrad):
        return KeptGrad(node)
    twin = copy.copy(node)  # same class, op, ctx reference, sequence_nr, metadata
    twin.tensor_hooks, twin.retained = {}, {}
    if isinstance(node, BackwardNode):
        twin.ctx = copy.copy(node.ctx)
        if node.ctx._saved is not None:
            twin.ctx._saved = [_kept(s) for s in node.ctx._saved]
    return twin


class Replay:
    """A copy of the graph behind ``outputs``, and the steps and gradients of its last
    replay. ``copies`` maps each of the user's nodes to its copy."""

    def __init__(self, outputs: Sequence[Tensor]) -> None:
        self.outputs = list(outputs)
        self.copies: dict[Node, Node] = {}
        self.ran = False
        self.problem = ""
        roots = [gradient_edge(t) for t in self.outputs]
        stack = [node for node, _ in roots if node is not None]
        while stack:  # every node reachable from the outputs, copied once
            node = stack.pop()
            if node in self.copies:
                continue
            if isinstance(node, BackwardNode) and node.ctx._released:
                self.problem = FREED
            self.copies[node] = _copy_node(node)
            stack.extend(n for n, _ in node.next_functions if n is not None)
        for twin in self.copies.values():
            twin.next_functions = tuple((self.copies.get(n), nr) if n is not None else (None, nr)
                                        for n, nr in twin.next_functions)  # fmt: skip
        self.stand_ins = []  # the outputs, detached, with the copies as their grad_fn
        for t, (node, output_nr) in zip(self.outputs, roots):
            stand_in = t.detach()
            if node is not None:  # (what autograd itself does when it unpacks a saved output)
                stand_in._grad_fn, stand_in._output_nr = self.copies[node], output_nr
                stand_in._requires_grad = True
            self.stand_ins.append(stand_in)

    def run(self) -> None:
        """``backward()`` through the copy from every output (gradient 1 everywhere),
        recording each step. Each run starts from no gradients: pressing twice shows
        the same numbers, never their sum."""
        if self.problem:
            raise RuntimeError(self.problem)
        for twin in self.copies.values():
            if isinstance(twin, KeptGrad):
                twin.grad = None
        record_backward(self.stand_ins, retain_graph=True)
        self.ran = True

    def is_of(self, outputs: Sequence[Tensor]) -> bool:
        """Whether this is the copy of the graph behind these very tensors."""
        return len(outputs) == len(self.outputs) and all(a is b for a, b in zip(outputs, self.outputs))

    def copy_of(self, node: Node) -> Node | None:
        return self.copies.get(node)

    def step_of(self, node: Node) -> Step | None:
        """The step the last replay took at ``node`` (the user's node)."""
        twin = self.copies.get(node)
        return step_of(twin) if twin is not None else None

    def grad_of(self, node: Node) -> Tensor | None:
        """The gradient the last replay gave the leaf of ``node`` (an AccumulateGrad)."""
        twin = self.copies.get(node)
        return twin.grad if isinstance(twin, KeptGrad) else None
