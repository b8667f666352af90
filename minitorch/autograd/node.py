"""The nodes of an autograd graph: what every node has, and the node of a leaf.

A graph is made of nodes. Each op that records one leaves a ``BackwardNode``
(``minitorch/autograd/function.py``); each leaf tensor that requires grad (a parameter,
an input with ``requires_grad=True``) has one ``AccumulateGrad`` node, where the walk of
``backward`` ends: it adds the gradient that arrives into ``leaf.grad``.
``gradient_edge(t)`` says where a gradient for ``t`` must be sent: the node that made
``t``, the node of a leaf, or nowhere.

Every node carries its *creation order* (``sequence_nr``): the engine runs later nodes
first, as PyTorch does, so a node's gradient is complete before it runs.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Mapping
from types import MappingProxyType

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.dispatch import tracing as dispatch_tracing  # ``recording``: is a trace or capture open?
from minitorch.layout import strides_in_order

creation_order = itertools.count()  # the ``sequence_nr`` of the next node made


class Node:
    """A node of the backward graph (what ``tensor.grad_fn`` returns)."""

    next_functions: tuple[tuple[Node | None, int], ...] = ()
    num_outputs = 1
    # For each graph input (edge of ``next_functions``): its ``(shape, dtype, device)``,
    # which the engine un-broadcasts and casts the gradient to (None: sent as it is).
    input_meta: list | None = None
    # Hooks on the gradients the node receives (output_nr -> hooks, ``register_hook``) and
    # the outputs that keep their gradient (output_nr -> weak reference, ``retain_grad``).
    # Most nodes have neither: they share these empty, read-only mappings until
    # ``hooks_of`` or ``retain`` gives them dicts of their own.
    tensor_hooks: Mapping[int, list] = MappingProxyType({})
    retained: Mapping[int, weakref.ref] = MappingProxyType({})

    def __init__(self) -> None:
        self.sequence_nr = next(creation_order)  # creation order: later nodes run first

    def hooks_of(self, output_nr: int) -> list:
        """The list of hooks on the gradient of output ``output_nr`` (made on first use)."""
        if type(self.tensor_hooks) is not dict:
            self.tensor_hooks = {}
        return self.tensor_hooks.setdefault(output_nr, [])

    def retain(self, t: Tensor) -> None:
        """Store the gradient ``t`` (output ``t._output_nr``) receives in ``t.grad``."""
        if type(self.retained) is not dict:
            self.retained = {}
        self.retained[t._output_nr] = weakref.ref(t)

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        raise NotImplementedError

    def release(self) -> None:
        """Free what was saved for backward (after a backward without retain_graph)."""

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """The node of a leaf tensor: adds the incoming gradient into ``leaf.grad``.

    The node holds its leaf; the leaf holds its node only by a weak reference (and its
    hooks, ``register_hook``, in a dict it shares with the node), so no cycle forms."""

    def __init__(self, variable: Tensor) -> None:
        super().__init__()
        self.variable = variable
        if variable._backward_hooks is not None:
            self.tensor_hooks = variable._backward_hooks

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if grads[0] is None:
            return ()
        if dispatch_tracing.recording:  # name its kernel (the copy) in dispatch traces
            with dispatch.op_context(self.name(), "backward"):
                accumulate_grad(self.variable, grads[0])
        else:
            accumulate_grad(self.variable, grads[0])
        self.run_post_accumulate_hooks()
        return ()

    def run_post_accumulate_hooks(self) -> None:
        """Call ``hook(leaf)`` for each ``register_post_accumulate_grad_hook`` of the leaf,
        now that ``leaf.grad`` holds this backward's gradient (``DistributedDataParallel``
        starts its all-reduce from here)."""
        hooks = self.variable._post_accumulate_grad_hooks
        if hooks:
            for hook in list(hooks):
                hook(self.variable)

    def keep(self, grad: Tensor) -> None:
        """Take a gradient of a plain backward that no one else holds (the engine checked):
        it becomes ``leaf.grad`` with no copy, when the leaf has no gradient yet and the
        gradient fills its storage densely in the leaf's memory order. A view (a weight's
        gradient, seen through a transpose) gives its storage to a tensor of its own: its
        base goes away with it. Otherwise it is accumulated as ``apply`` does."""
        leaf = self.variable
        if (leaf._grad is None and grad._grad_fn is None and grad._offset == 0
                and grad._strides == strides_in_order(leaf._shape, leaf._strides)
                and len(grad._storage) == leaf.numel()):  # fmt: skip
            if grad._base is not None:
                grad = Tensor._make(grad._storage, grad._shape, grad._strides, 0, grad.dtype, grad.device)
            leaf._grad = grad
            self.run_post_accumulate_hooks()
        else:
            self.apply([grad])


def accumulate_grad(t: Tensor, grad: Tensor) -> None:
    """``t.grad += grad`` (or ``t.grad = grad`` the first time).

    With ``create_graph=True`` (grad mode on during the walk) the stored gradient keeps
    its graph, so it can be differentiated again. In a plain backward it is a tensor with
    no history and storage of its own: the first gradient is *copied*, because the
    tensor that arrived may be seen elsewhere (a gradient you passed to ``backward``,
    one that ``a + b`` sends to both ``a`` and ``b``). The copy is laid out in ``t``'s
    memory order (PyTorch's rule: a transposed weight gets a transposed gradient) and
    is one kernel call, made here directly rather than through ``clone`` since this runs
    for every parameter of every training step."""
    if is_grad_enabled():
        t.grad = grad if t.grad is None else t.grad + grad
    elif t.grad is None:
        copy = Tensor._empty(t._shape, grad.dtype, grad.device, strides_in_order(t._shape, t._strides))
        t.grad = dispatch.map("copy", copy, grad)
    else:
        t.grad = t.grad + grad  # (grad mode is off: the sum has no history)


def gradient_edge(t: Tensor) -> tuple[Node | None, int]:
    """Where a gradient for ``t`` must be sent: its ``grad_fn`` (and which of that
    node's outputs ``t`` is), the ``AccumulateGrad`` node of a leaf, or nowhere."""
    if not t.requires_grad:
        return None, 0
    grad_fn = t.grad_fn
    if grad_fn is not None:
        return grad_fn, t._output_nr
    return accumulator_of(t), 0


def accumulator_of(leaf: Tensor) -> AccumulateGrad:
    """The one ``AccumulateGrad`` node of a leaf (kept alive by the graph, not the leaf)."""
    node = leaf._grad_accumulator() if leaf._grad_accumulator is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._grad_accumulator = weakref.ref(node)
    return node
