"""The backward engine: walks the graph from the outputs back to the leaves.

``loss.backward()`` does, in this order:

1. **Count dependencies.** From the output's node, follow ``next_functions`` and count
   how many edges arrive at each reachable node. A node may only run once *all* the
   gradients flowing into it have arrived (a tensor used twice gets two).
2. **Run nodes in topological order.** Start with the output's node and the gradient
   ``1``. Pop a ready node (the most recently created first, as PyTorch does), run the
   hooks registered on its gradients, call its backward, and add each resulting
   gradient into the buffer of the next node. Adding is how *fan-out* works: ``x``
   used in two places receives the sum of both contributions.
3. **Un-broadcast.** If ``x`` of shape ``(3, 1)`` was broadcast to ``(2, 3, 4)`` in the
   forward pass, its gradient arrives with shape ``(2, 3, 4)``; ``sum_to`` sums the
   stretched dimensions back so that the gradient has ``x``'s shape.
4. **Free the graph.** Each node drops its saved tensors after running, unless
   ``retain_graph=True``; a second backward through it then raises.
5. **Final callbacks.** Hooks may ``queue_callback(f)`` during the walk; each ``f`` runs
   once the last node has run, before ``backward()`` returns (``DistributedDataParallel``
   waits there for the gradients it sent to the other ranks).

Leaves end in ``AccumulateGrad`` nodes, which add into ``leaf.grad`` and then call the
leaf's ``register_post_accumulate_grad_hook`` hooks. The first gradient
of a leaf is copied, since someone else may hold it, except when no one does (Python's
reference count says so): then the leaf keeps it as it is (``_may_keep``, below).
``minitorch.autograd.grad`` runs the same walk but returns the gradients of the chosen
inputs instead of accumulating into ``.grad``; ``backward(inputs=[...])`` runs it too and
accumulates only into the ``.grad`` of those tensors.

Autograd is the layer *below* the ops (every op is a ``Function``), so this file imports
nothing from ``minitorch.ops``: the sums of un-broadcasting, the additions of fan-out and
the dtype casts are ``Tensor`` methods, which ``minitorch/ops/__init__.py`` attaches to
``Tensor`` when the package loads.
"""

from __future__ import annotations

import functools
import heapq
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled, set_grad_enabled
from minitorch.autograd.node import AccumulateGrad, Node, gradient_edge
from minitorch.dispatch import tracing as dispatch_tracing  # ``recording``: is a trace or capture open?

# Observers of the walk, for teaching tools (the graph viewer's step-through backward).
# After each node runs, every listener is called as
#     listener(node, incoming, local, delivered)
# with the gradients the node received (``incoming``), what its backward returned for
# each edge of ``next_functions`` (``local``), and what was actually sent along each edge
# after un-broadcasting (``delivered``; ``None`` where nothing was sent). Empty by default.
step_listeners: list[Callable[[Node, list, tuple, list], None]] = []

# The backward walks in progress in this thread (innermost last), each with the callbacks
# queued during it: a hook that starts work which must be finished before ``backward()``
# returns (``DistributedDataParallel``'s last all-reduces) queues one with ``queue_callback``.
_walks = threading.local()


def queue_callback(callback: Callable[[], None]) -> None:
    """Call ``callback()`` once the backward walk now running has run its last node, before
    ``backward()`` returns (PyTorch's ``Variable._execution_engine.queue_callback``). Only
    allowed during a backward, from a hook; callbacks run in the order they were queued."""
    stack = getattr(_walks, "stack", None)
    if not stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    stack[-1].callbacks.append(callback)


class _FinalCallbacks:
    """Around one backward walk: where ``queue_callback`` puts its callbacks, and at the end
    of a walk that did not raise, running them (a callback may queue another; it runs after)."""

    __slots__ = ("callbacks",)

    def __init__(self) -> None:
        self.callbacks: list[Callable[[], None]] = []

    def __enter__(self) -> None:
        stack = getattr(_walks, "stack", None)
        if stack is None:
            stack = _walks.stack = []
        stack.append(self)

    def __exit__(self, error_type: object, error: object, traceback: object) -> None:
        try:
            done = 0
            while error_type is None and done < len(self.callbacks):
                self.callbacks[done]()
                done += 1
        finally:
            _walks.stack.pop()


def sum_to(grad: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum ``grad`` down to ``shape``: the reverse of broadcasting ``shape`` up to
    ``grad.shape``. Leading extra dimensions are summed away; dimensions where
    ``shape`` has size 1 are summed with ``keepdim``."""
    shape = tuple(shape)
    if grad._shape == shape:
        return grad
    extra, stretched = _dims_to_sum(grad._shape, shape)
    if not (is_grad_enabled() or dispatch_tracing.recording):
        return _sum_without_graph(grad, extra, stretched)
    if extra:
        grad = grad.sum(dim=tuple(range(extra)))
    if stretched:
        grad = grad.sum(dim=stretched, keepdim=True)
    return grad


@functools.lru_cache(maxsize=1024)  # (every broadcast operand asks, on every step)
def _dims_to_sum(grad_shape: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """How many leading dimensions ``sum_to`` sums away, and which of the others (numbered
    in ``shape``) it sums with ``keepdim``: those where ``shape`` has size 1."""
    extra = len(grad_shape) - len(shape)
    if extra < 0 or any(s != 1 and s != g for s, g in zip(shape, grad_shape[extra:])):
        raise RuntimeError(
            f"gradient of shape {list(grad_shape)} cannot be summed to the input's shape "
            f"{list(shape)}: the shapes do not broadcast"
        )
    return extra, tuple(d for d, s in enumerate(shape) if s == 1 and grad_shape[extra + d] != 1)


@functools.lru_cache(maxsize=1024)
def _folds(grad_shape: tuple[int, ...], extra: int, stretched: tuple[int, ...]) -> tuple:
    """The ``reduce`` calls of ``_sum_without_graph``: each dim it folds, and the shape
    after folding it (size 1 there)."""
    folds, shape = [], grad_shape
    for d in (*range(extra), *(extra + d for d in stretched)):
        shape = shape[:d] + (1,) + shape[d + 1 :]
        folds.append((d, shape))
    return tuple(folds)


def _sum_without_graph(grad: Tensor, extra: int, stretched: tuple[int, ...]) -> Tensor:
    """``sum_to`` when nothing records a graph or a trace (a backward without
    ``create_graph``, the usual case): the same sums, in the same order and so the same
    bits, as ``grad.sum(...)`` computes them, one dimension at a time with the ``reduce``
    kernel, without the ``Function.apply`` of each ``sum`` (nothing to record). The
    ``extra`` leading dimensions, kept with size 1 while summing, are dropped at the end."""
    for d, shape in _folds(grad._shape, extra, stretched):
        grad = dispatch.reduce("sum", Tensor._empty(shape, grad.dtype, grad.device), grad, d)
    if extra:  # The leading size-1 dimensions dropped. The summed tensor is new and seen
        # by no one else, so they are dropped from its own shape and strides, where it lies.
        grad._shape, grad._strides = grad._shape[extra:], grad._strides[extra:]
    return grad


def _count_dependencies(roots: Sequence[Node]) -> dict[Node, int]:
    """How many edges arrive at each node reachable from ``roots``."""
    dependencies: dict[Node, int] = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def _nodes_leading_to(roots: Sequence[Node], targets: set[Node]) -> set[Node]:
    """The nodes from which some target is reachable (the only ones ``grad`` needs).

    A depth-first walk that decides for each node *after* its next nodes (post-order):
    useful = node is a target, or any of its next nodes is useful. (Written with a stack,
    not a recursive inner function: that would be a reference cycle keeping the graph
    alive, and would overflow Python's stack on long chains.)"""
    useful: set[Node] = set()
    finished: set[Node] = set()
    stack = [(root, False) for root in roots]
    while stack:
        node, next_nodes_finished = stack.pop()
        if node in finished:
            continue
        if not next_nodes_finished:
            stack.append((node, True))
            stack.extend((n, False) for n, _ in node.next_functions if n is not None)
            continue
        finished.add(node)
        if node in targets or any(n in useful for n, _ in node.next_functions):
            useful.add(node)
    return useful


def run_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
) -> list[Tensor | None] | None:
    """The walk described above. With ``inputs``, return their gradients instead of
    accumulating into ``.grad`` (this is ``autograd.grad``)."""
    roots, root_grads = [], []
    for output, grad in zip(outputs, grad_outputs):
        node, output_nr = gradient_edge(output)
        if node is None:
            raise RuntimeError(
                "element 0 of tensors does not require grad and does not have a grad_fn"
            )
        roots.append((node, output_nr))
        root_grads.append(grad)

    capture: dict[tuple[Node, int], int] = {}
    if inputs is not None:
        for i, t in enumerate(inputs):
            node, output_nr = gradient_edge(t)
            if node is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            capture[(node, output_nr)] = i
        useful = _nodes_leading_to([n for n, _ in roots], {n for n, _ in capture})
    captured: list[Tensor | None] = [None] * (len(inputs) if inputs is not None else 0)

    root_nodes = list(dict.fromkeys(node for node, _ in roots))
    dependencies = _count_dependencies(root_nodes)
    buffers: dict[Node, list[Tensor | None]] = {}
    for (node, output_nr), grad in zip(roots, root_grads):
        buffer = buffers.setdefault(node, [None] * node.num_outputs)
        buffer[output_nr] = grad if buffer[output_nr] is None else buffer[output_nr] + grad
    ready = [(-node.sequence_nr, id(node), node) for node in root_nodes
             if dependencies.get(node, 0) == 0]  # fmt: skip
    heapq.heapify(ready)

    # Kernels run by the walk (backward formulas, un-broadcasting sums, accumulation)
    # are recorded with the phase "backward" in dispatch traces.
    naming = dispatch.op_context("backward", "backward") if dispatch_tracing.recording else nullcontext()
    with _FinalCallbacks(), set_grad_enabled(create_graph), naming:
        while ready:
            node = heapq.heappop(ready)[2]
            grads = buffers.pop(node)
            if node.tensor_hooks or node.retained:
                grads = _run_tensor_hooks(node, grads)
            edges = node.next_functions
            if capture:
                for output_nr, grad in enumerate(grads):
                    if (node, output_nr) in capture:
                        captured[capture[(node, output_nr)]] = grad
            if inputs is not None and (node not in useful or isinstance(node, AccumulateGrad)):
                next_grads = (None,) * len(edges)
            elif type(node) is AccumulateGrad and _may_keep(node, grads, create_graph):
                node.keep(grads[0])  # no one else holds this gradient: the leaf keeps it, uncopied
                next_grads = ()
            else:
                next_grads = node.apply(grads)
                if not retain_graph:
                    node.release()
            input_meta = node.input_meta
            delivered: list[Tensor | None] = []  # (what was sent: for step listeners)
            for edge, (next_node, output_nr) in enumerate(edges):
                if next_node is None:
                    delivered.append(None)
                    continue
                grad = next_grads[edge]
                if grad is not None and input_meta is not None:
                    shape, dtype, _ = input_meta[edge]
                    if grad._shape != shape:
                        grad = sum_to(grad, shape)  # un-broadcast
                    if grad.dtype is not dtype:
                        grad = grad.to(dtype)
                delivered.append(grad)
                buffer = buffers.get(next_node)
                if buffer is None:
                    buffer = buffers[next_node] = [None] * next_node.num_outputs
                if grad is not None:
                    old = buffer[output_nr]
                    buffer[output_nr] = grad if old is None else old + grad
                left = dependencies[next_node] - 1
                dependencies[next_node] = left
                if not left:
                    heapq.heappush(ready, (-next_node.sequence_nr, id(next_node), next_node))
            for listener in step_listeners:
                listener(node, grads, next_grads, delivered)
            # The walk's own references to the gradients it sent go now, so that a leaf
            # can tell whether anyone else holds the gradient it receives (``_may_keep``).
            next_grads = delivered = grad = old = None
    return captured if inputs is not None else None


# ----- keeping a gradient no one else holds -------------------------------------------
#
# A leaf's first gradient is copied (``accumulate_grad``): the tensor that arrives may be
# held elsewhere, by the caller who passed it to ``backward``, a hook, a backward formula
# that kept it, or the other input of an ``a + b`` that sent it to both. Most of the time
# no one holds it: a bias's gradient is a new sum, a weight's a new product (seen through
# a transpose). PyTorch then lets the leaf keep it (it checks the tensor's use count);
# we ask Python the same question: ``sys.getrefcount``, how many references there are.


def _reference_counts(grads: list) -> tuple[int, int, int]:
    """References to the gradient ``grads[0]``, to its base (0 for no base) and to its
    storage, counting those this function makes itself while it asks."""
    grad = grads[0]
    base = grad._base
    return sys.getrefcount(grad), 0 if base is None else sys.getrefcount(base), sys.getrefcount(grad._storage)


@functools.cache
def _counts_when_unshared() -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """What ``_reference_counts`` answers when the list is all that holds the gradient:
    for a tensor, and for a view whose base only the view holds. Measured on two probes
    once, rather than assumed, since the counts of a call differ between Python versions."""
    tensor = [Tensor._make(np.zeros(1), (1,), (1,), 0, None, None)]
    base = Tensor._make(np.zeros(1), (1,), (1,), 0, None, None)
    view = [Tensor._make(base._storage, (1,), (1,), 0, None, None, base)]
    del base
    return _reference_counts(tensor), _reference_counts(view)


def _may_keep(node: AccumulateGrad, grads: list[Tensor | None], create_graph: bool) -> bool:
    """Whether the leaf of ``node`` may keep the gradient arriving as it is: a plain
    backward, no hook or step listener that could hold on to it, and no reference to it
    but the walk's list (nor to its base and storage but the gradient's, for a view)."""
    if create_graph or node.tensor_hooks or step_listeners or grads[0] is None:
        return False
    tensor, view = _counts_when_unshared()
    return _reference_counts(grads) == (view if grads[0]._base is not None else tensor)


def _run_tensor_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """Apply the hooks registered on the gradients this node receives, then store
    gradients of tensors that asked for ``retain_grad()``."""
    grads = list(grads)
    for output_nr, hooks in node.tensor_hooks.items():
        for hook in hooks:
            if grads[output_nr] is not None:
                replaced = hook(grads[output_nr])
                if replaced is not None:
                    grads[output_nr] = replaced
    for output_nr, ref in node.retained.items():
        t = ref()
        if t is not None and grads[output_nr] is not None:
            grad = grads[output_nr].detach()
            t.grad = grad.clone() if t.grad is None else t.grad + grad
    return grads
