"""``Function``: an operation that knows its own derivative, and the graph nodes it leaves.

Every differentiable op in minitorch is a ``Function`` with PyTorch's shape::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            result = dispatch.map("exp", ...)      # compute, with no graph recorded
            ctx.save_for_backward(result)          # keep what backward needs
            return result

        @staticmethod
        def backward(ctx, grad):                   # d exp(x)/dx = exp(x)
            (result,) = ctx.saved_tensors
            return grad * result

    y = Exp.apply(x)

``apply`` runs ``forward`` without recording, then (if any input requires grad) creates
a ``BackwardNode`` and makes it the outputs' ``grad_fn``. The node points to the nodes of
the inputs through ``next_functions``: that chain of nodes *is* the autograd graph, built
anew each time the code runs (define-by-run). ``backward`` formulas are tensor
expressions, so with ``create_graph=True`` the backward pass records a graph of its own
and can be differentiated again.

**No reference cycles.** References only point *backwards* in time: an output tensor
points to its node, a node to its ``ctx`` and to the nodes of its inputs, a ``ctx`` to
the tensors it saved. Nothing points back: ``ctx`` does not know its node (the node hands
itself over when backward unpacks the saved tensors), a saved output is kept without its
``grad_fn``, and a leaf knows its ``AccumulateGrad`` only by a weak reference. So
the moment the last tensor of a graph goes away, Python's reference counting frees the
whole graph at once, with no wait for the cycle collector (as in PyTorch). One cycle can
only be made by the user, and PyTorch documents it too: ``loss.backward(create_graph=True)``
stores in ``x.grad`` a gradient whose graph leads back to ``x``; set ``x.grad = None``
after use, or take higher derivatives with ``autograd.grad``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import thread_state as grad_mode_of_thread
from minitorch.autograd.node import Node, accumulator_of, creation_order, gradient_edge
from minitorch.dispatch import tracing as dispatch_tracing  # ``recording``: is a trace or capture open?

# Called as ``listener(node)`` each time ``Function.apply`` records a new graph node
# (after its forward ran). The widgets use it to note which module and which dispatched
# kernels made each node; empty by default, so it costs nothing.
node_listeners: list = []


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    An output of the op itself is stored without its ``grad_fn`` (that would be a
    reference cycle output -> node -> output) and reattached when unpacked.
    """

    __slots__ = ("version", "is_output", "output_nr", "tensor")  # (one per tensor saved)

    def __init__(self, t: Tensor, is_output: bool) -> None:
        self.version = t._version_counter.value  # (``t._version``)
        self.is_output = is_output
        self.output_nr = t._output_nr
        self.tensor = t._alias() if is_output else t

    def unpack(self, node: Node) -> Tensor:
        t = self.tensor
        if t._version_counter.value != self.version:  # (``t._version``)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified "
                f"by an inplace operation: [{t.dtype} {list(t.shape)}], which is "
                f"{'output' if self.is_output else 'input'} of {node.name()}, is at version "
                f"{t._version}; expected version {self.version} instead. Hint: do the "
                "in-place operation on a copy (.clone()), or do it out of place."
            )
        if self.is_output:
            t = t._alias()
            t._grad_fn, t._output_nr, t._requires_grad = node, self.output_nr, True
        return t


class FunctionCtx:
    """The ``ctx`` passed to ``forward`` and ``backward``: a place to keep things.

    Its fields start as the class-level defaults below, and an instance stores only
    what an op changes: a ctx is made for every op called, most ops change one or two
    fields, and setting all six each time was a tenth of a small op's cost."""

    needs_input_grad: tuple[bool, ...] = ()
    _to_save: tuple[Tensor | None, ...] = ()
    _saved: list[SavedTensor | None] | None = None
    _unpacking_for: Node | None = None  # set by the node only while backward runs
    _non_differentiable: frozenset[int] | set[int] = frozenset()  # a set once marked
    _released = False
    _materialize = True  # missing output gradients arrive as zeros (PyTorch's default)

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``backward`` (checked there for in-place changes)."""
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        if self._released:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access "
                "saved tensors after they have already been freed). Saved intermediate "
                "values of the graph are freed when you call .backward() or autograd.grad(). "
                "Specify retain_graph=True if you need to backward through the graph a "
                "second time or if you need to access saved tensors after calling backward."
            )
        if self._saved is None:  # forward ran without recording a graph
            return self._to_save
        node = self._unpacking_for
        if node is None:
            raise RuntimeError("saved tensors can only be read inside backward()")
        return tuple([s.unpack(node) if s is not None else None for s in self._saved])

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Outputs that have no gradient (indices, masks)."""
        self._non_differentiable = {*self._non_differentiable, *(id(t) for t in tensors)}

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = value


def is_python_number(value: Any) -> bool:
    """An int, float or bool (a scalar operand, not a dim or a flag of another type)."""
    return type(value) in (int, float, bool)


class BackwardNode(Node):
    """The node a ``Function.apply`` leaves behind: calls ``Function.backward``."""

    # For each output: its ``(shape, dtype, device)`` (set by ``Function.apply``), which
    # a missing output gradient is materialized as (zeros of that shape).
    output_meta: Sequence[tuple] = ()

    def __init__(self, function: type[Function], ctx: FunctionCtx, args: tuple) -> None:
        # (``Node.__init__``, written out: one node is made for every recorded op)
        self.sequence_nr = next(creation_order)
        self.function = function
        self.ctx = ctx
        # Which arguments are graph inputs: every tensor, and for ops like ``x + 1`` the
        # number too (PyTorch wraps it in a tensor that needs no gradient: edge (None, 0)).
        # A tensor that needs no gradient gets the edge (None, 0) without asking again.
        numbers = function.numbers_are_inputs
        self.arg_is_tensor = arg_is_input = []  # (named for tensors; numbers may count too)
        edges, self.input_meta = [], []  # one of each per graph input
        for a, needs_grad in zip(args, ctx.needs_input_grad):
            if isinstance(a, Tensor):
                # (``gradient_edge``, its two common cases written out: an op's output
                # and a leaf, neither of them a view)
                if not needs_grad:
                    edges.append((None, 0))
                elif a._base is not None:
                    edges.append(gradient_edge(a))
                elif a._grad_fn is not None:
                    edges.append((a._grad_fn, a._output_nr))
                else:
                    edges.append((accumulator_of(a), 0))
                self.input_meta.append((a._shape, a.dtype, a.device))
                arg_is_input.append(True)
            elif numbers and is_python_number(a):
                edges.append((None, 0))
                self.input_meta.append(None)
                arg_is_input.append(True)
            else:
                arg_is_input.append(False)
        self.next_functions = tuple(edges)

    def name(self) -> str:
        return type(self).__name__  # the subclass made by node_class_of

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if len(grads) == 1:  # (most ops have one output: decided without a list)
            if grads[0] is None:
                return (None,) * len(self.next_functions)
        else:
            missing = [g is None for g in grads]  # (not grads.count(None): that runs ==)
            if all(missing):
                return (None,) * len(self.next_functions)
            if True in missing and self.ctx._materialize:
                grads = [
                    g if g is not None else Tensor._full(shape, 0, dtype, device)
                    for g, (shape, dtype, device) in zip(grads, self.output_meta)
                ]
        ctx = self.ctx
        ctx._unpacking_for = self  # a reference back to the node, for this call only
        try:
            if dispatch_tracing.recording:  # name the kernels of this backward in the trace
                with dispatch.op_context(self.name(), "backward"):
                    result = self.function.backward(ctx, *grads)
            else:
                result = self.function.backward(ctx, *grads)
        finally:
            ctx._unpacking_for = None
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) < len(self.arg_is_tensor):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {len(self.arg_is_tensor)}, got {len(result)})"
            )
        if len(result) == len(self.next_functions):  # every argument is a graph input
            return result
        return tuple([g for g, is_tensor in zip(result, self.arg_is_tensor) if is_tensor])

    def release(self) -> None:
        self.ctx._saved = None
        self.ctx._to_save = ()
        self.ctx._released = True


# One BackwardNode subclass per Function, named as PyTorch names its node classes, so
# that ``type(y.grad_fn).__name__`` is ``"MulBackward0"`` as tutorials print it. It is
# kept in the Function class's own ``__dict__`` (not inherited: a subclass of a Function
# gets its own), so finding it is one lookup, and a Function class defined in a notebook
# cell and then redefined is freed with its node class.


def node_class_of(function: type[Function]) -> type[BackwardNode]:
    """The class of the nodes ``function`` records (made once, on its first use)."""
    node_class = function.__dict__.get("_node_class")
    if node_class is None:
        if function.node_name is not None:
            name = function.node_name
        elif function.__module__.startswith("minitorch."):
            name = function.__name__ + "Backward0"
        else:  # a user's own Function, as PyTorch names it
            name = function.__name__ + "Backward"
        node_class = type(name, (BackwardNode,), {"__module__": __name__})
        function._node_class = node_class
    return node_class


class Function:
    """Base class of differentiable operations (PyTorch's ``torch.autograd.Function``).

    Subclasses define static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``;
    ``backward`` returns one gradient per argument of ``forward`` (``None`` for
    arguments that are not tensors or need no gradient). Call it with ``apply``.
    """

    # The name of the op's node (``grad_fn``). None: the class name and "Backward0"
    # ("Backward" for a user's Function), as PyTorch names its nodes; an op whose PyTorch
    # name ends in another number (``sum(dim)`` gives ``SumBackward1``) sets it.
    node_name: str | None = None
    # True for ops whose Python-number operand PyTorch shows as a graph input that needs
    # no gradient (``(x + 1).grad_fn.next_functions`` ends with ``(None, 0)``).
    numbers_are_inputs = False

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Tensor) -> Any:
        raise NotImplementedError("a Function subclass must define backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        # The one place that decides whether a call records: a graph node when grad mode
        # is on and some input needs a gradient, a trace entry while dispatch records.
        mode = grad_mode_of_thread.mode  # this thread's grad mode (see grad_mode.py)
        grad_enabled = record = mode.enabled
        if grad_enabled:  # does an input need a gradient? (``a.requires_grad`` for a view,
            for a in args:  # whose history may need renewing first)
                if isinstance(a, Tensor) and (a._requires_grad or (a._base is not None and a.requires_grad)):
                    break
            else:
                record = False
        ctx = FunctionCtx()
        if not record:  # ``no_grad``, a backward formula, or no input needing a gradient:
            ctx.needs_input_grad = (False,) * len(args)  # as in PyTorch, none needs one
            if not dispatch_tracing.recording:  # and nothing traces: the forward alone
                if not grad_enabled:
                    return cls.forward(ctx, *args, **kwargs)
                mode.enabled = False  # (a forward always runs with grad mode off)
                try:
                    return cls.forward(ctx, *args, **kwargs)
                finally:
                    mode.enabled = True
        else:
            ctx.needs_input_grad = tuple([
                isinstance(a, Tensor) and (a._requires_grad or (a._base is not None and a.requires_grad))
                for a in args
            ])  # fmt: skip
        traced = dispatch_tracing.recording
        # Run forward with grad mode off and, while dispatch records kernel calls, with
        # the op's name on the stack that names them (the same as `with no_grad(),
        # dispatch.op_context(name):`). An op called by a backward formula keeps the
        # phase "backward" in the trace.
        mode.enabled = False
        stack = dispatch.thread_state.op_stack if traced else None
        if stack is not None:
            stack.append((cls.__name__, stack[-1][1] if stack else "forward"))
        try:
            outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            mode.enabled = grad_enabled
            if stack is not None:
                stack.pop()
        if not record:
            return outputs
        node = (cls.__dict__.get("_node_class") or node_class_of(cls))(cls, ctx, args)
        if type(outputs) is Tensor:  # one output, as most ops have: the loop below, unrolled
            out = outputs
            for a in args:
                if a is out:  # never rewrite an input's history: return a view
                    out = out._view(out._shape, out._strides, out._offset)
                    break
            node.output_meta = ((out._shape, out.dtype, out.device),)
            if out.dtype.is_floating_point and id(outputs) not in ctx._non_differentiable:
                out._grad_fn, out._output_nr, out._requires_grad = node, 0, True
            if ctx._to_save:
                ctx._saved = [None if t is None else SavedTensor(t, is_output=t is out) for t in ctx._to_save]
                ctx._to_save = ()
            for listener in node_listeners:
                listener(node)
            return out
        is_tuple = isinstance(outputs, tuple)
        results = list(outputs) if is_tuple else [outputs]
        node.num_outputs = len(results)
        node.output_meta = []
        input_ids = set(map(id, args))
        for i, out in enumerate(results):
            if not isinstance(out, Tensor):
                node.output_meta.append(((), None, None))
                continue
            if id(out) in input_ids:  # never rewrite an input's history: return a view
                out = results[i] = out._view(out._shape, out._strides, out._offset)
            node.output_meta.append((out._shape, out.dtype, out.device))
            if id(outputs if not is_tuple else outputs[i]) in ctx._non_differentiable:
                continue
            if out.dtype.is_floating_point:
                out._grad_fn, out._output_nr, out._requires_grad = node, i, True
        if ctx._to_save:
            output_ids = set(map(id, results))
            ctx._saved = [
                None if t is None else SavedTensor(t, is_output=id(t) in output_ids) for t in ctx._to_save
            ]
            ctx._to_save = ()
        for listener in node_listeners:
            listener(node)
        return tuple(results) if is_tuple else results[0]
