"""``minitorch.compile(fn)``: capture ``fn`` as a static graph, then replay it.

    step = minitorch.compile(train_step)     # or @minitorch.compile above the def
    for x, y in batches:
        loss = step(x, y)                    # 1st call: eager; 2nd: captured; then replayed

Each call goes through four stages:

1. **guard** (``guards.py``): the call's key (input shapes, dtypes, devices, Python
   arguments, grad mode, backend). Graphs are kept per key, like ``torch.compile``'s.
2. **warm-up**: the first call of a key runs eagerly. State that a program makes on its
   first step (``p.grad``, Adam's moments, a momentum buffer) then exists before the
   capture, so the graph updates it instead of making it again (tinygrad's TinyJit
   waits one call for the same reason).
3. **capture** (``capture.py``): the next call runs eagerly while every kernel call is
   recorded, then the passes run (``passes/``) and the graph is prepared (``replay.py``).
4. **replay**: every later call with that key runs the graph's kernels and nothing else.

``fn.graph`` is the last graph captured; ``fn.graphs`` all of them by key;
``fn.recaptures`` lists why each capture after the first happened.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.compiler import guards
from minitorch.compiler.capture import CaptureError, Recorder, ValuesChanged
from minitorch.compiler.graph import Graph
from minitorch.compiler.naming import name_buffers
from minitorch.compiler.passes import DEFAULT_PASSES, PASSES
from minitorch.compiler.replay import Program

CACHE_LIMIT = 8  # graphs kept per function (``torch._dynamo.config.cache_size_limit``)


class CompiledFunction:
    """``fn`` wrapped by ``minitorch.compile`` (see the module docstring)."""

    def __init__(self, fn: Any, passes: list | None = None, warmup: int = 1) -> None:
        self.fn = fn
        names = DEFAULT_PASSES if passes is None else passes
        self.passes = [PASSES[p] if isinstance(p, str) else p for p in names]
        self.warmup = warmup
        self.graphs: dict[tuple, Graph] = {}
        self.programs: dict[tuple, Program] = {}
        self.calls: dict[tuple, int] = {}  # key -> calls seen (for the warm-up)
        self.eager: dict[tuple, str] = {}  # key -> why it runs eagerly
        self.recaptures: list[str] = []
        self.graph: Graph | None = None
        self._last_key: tuple | None = None
        functools.update_wrapper(self, fn, updated=())  # its name and docstring
        self.name = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if dispatch.capturing_now():  # inside another compiled function's capture
            return self.fn(*args, **kwargs)
        leaves, tensors = guards.flatten_arguments(self.fn, args, kwargs)
        key = guards.guard_key(leaves)
        program = self.programs.get(key)
        if program is not None:
            stale = guards.stale_variable(program.graph)
            if stale is None:
                try:
                    return program(tensors)
                except ValuesChanged as change:  # raised before any kernel ran
                    stale = str(change)
            self._forget(key)
            self._note(stale, key)
            return self._capture(key, leaves, tensors, args, kwargs)
        if key in self.eager:
            return self.fn(*args, **kwargs)
        seen = self.calls[key] = self.calls.get(key, 0) + 1
        if seen == 1:
            self._note_new_key(key)
        if seen <= self.warmup:
            return self.fn(*args, **kwargs)
        if len(self.programs) >= CACHE_LIMIT:
            self.eager[key] = f"more than {CACHE_LIMIT} graphs captured: running eagerly"
            self.recaptures.append(self.eager[key])
            return self.fn(*args, **kwargs)
        return self._capture(key, leaves, tensors, args, kwargs)

    def _capture(self, key: tuple, leaves: list, tensors: list[Tensor], args: tuple, kwargs: dict) -> Any:
        names = [name for name, value in leaves if isinstance(value, Tensor)]
        recorder = Recorder(tensors, names)
        before = [_what_a_replay_cannot_redo(t) for t in tensors]
        with dispatch.capturing(recorder):
            result = self.fn(*args, **kwargs)
        ran_backward = any(node.phase == "backward" for node in recorder.nodes)
        reason = _changed_argument(names, tensors, before)
        if reason is None and not ran_backward and any(t.requires_grad for t in _tensors_in(result)):
            # A forward whose result the caller will differentiate: a replay makes no
            # autograd graph, so the caller's backward() would have nothing to walk.
            reason = ("it returns tensors that require grad, and a replay records no autograd graph "
                      "for them: run it under torch.no_grad(), or call backward() inside it")  # fmt: skip
        if reason is not None:
            self.eager[key] = reason
            warnings.warn(f"minitorch.compile: {self.name} runs eagerly: {reason}", stacklevel=3)
            return result
        spec = recorder.outputs(result)
        copies = _copy_tensors(result)  # what this call returns, so that the graph ...
        del result  # ... can tell what else still holds its buffers (see Recorder.finish)
        if any(node.device_type == "cuda" for node in recorder.nodes):
            from minitorch import cuda  # (a queued launch holds its operands)

            cuda.synchronize()
        graph = recorder.finish(spec)
        name_buffers(graph, self.fn)
        for run_pass in self.passes:
            graph = run_pass(graph)
        self.graphs[key], self.programs[key], self.graph = graph, Program(graph), graph
        return copies

    def _note_new_key(self, key: tuple) -> None:
        if self._last_key is not None:
            self._note(guards.difference(self._last_key, key), key)
        self._last_key = key

    def _note(self, reason: str, key: tuple) -> None:
        self.recaptures.append(reason)
        self._last_key = key

    def _forget(self, key: tuple) -> None:
        self.programs.pop(key, None)
        self.graphs.pop(key, None)
        self.calls[key] = self.warmup  # capture again on the next call

    def explain(self) -> str:
        """What happened so far, in words: graphs, recaptures, eager fallbacks."""
        lines = [f"{self.name}: {len(self.graphs)} graph(s) captured"]
        lines += [f"  recaptured: {reason}" for reason in self.recaptures]
        lines += [f"  runs eagerly: {reason}" for reason in dict.fromkeys(self.eager.values())]
        return "\n".join(lines)


def compile(fn: Any = None, *, passes: list | None = None, warmup: int = 1) -> Any:  # noqa: A001
    """Capture ``fn`` as a static graph and replay it (see the module docstring).

    ``passes``: the optimisation passes to run, by name or as functions, in order (None:
    ``DEFAULT_PASSES``; ``[]``: none). ``warmup``: eager calls before the capture."""
    if fn is None:  # @minitorch.compile(passes=[...])
        return lambda f: CompiledFunction(f, passes, warmup)
    return CompiledFunction(fn, passes, warmup)


def _tensors_in(value: Any) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors_in(v)]
    return []


def _what_a_replay_cannot_redo(t: Tensor) -> tuple:
    """What a function may change of its tensor argument besides the values: the tensor's
    layout (``t_()``, ``unsqueeze_()``, ``resize_()``) and its gradient (``backward()``
    into a leaf argument). A replay only writes values into the argument's storage."""
    return t._storage, t._shape, t._strides, t._offset, t._grad


def _changed_argument(names: list[str], tensors: list[Tensor], before: list[tuple]) -> str | None:
    """Why a replay could not do what this call did to an argument, or None.

    A graph writes into buffers, so it can redo ``x.add_(1)`` on a new argument, but
    not a new shape for ``x`` (``x.t_()``: the Tensor object itself changed), nor a
    gradient for it: ``w.grad`` was made during the capture, and a replay would write
    into that same tensor, never setting the new argument's ``.grad``."""
    for name, t, (storage, shape, strides, offset, grad) in zip(names, tensors, before):
        if t._storage is not storage or (t._shape, t._strides, t._offset) != (shape, strides, offset):
            return (f"it changes the shape or strides of its argument {name} in place "
                    "(t_, unsqueeze_, squeeze_, resize_...), which a replay cannot do to a "
                    "new argument: return the reshaped tensor instead")  # fmt: skip
        if t._grad is not grad or (grad is not None and t.requires_grad):
            return (f"it computes the gradient of its argument {name}, and a replay would "
                    f"write it into this call's {name}.grad, not the new argument's: make "
                    f"{name} a parameter the function reads (a module's, or a closure's) "
                    "instead of an argument")  # fmt: skip
    return None


def _copy_tensors(value: Any) -> Any:
    if isinstance(value, Tensor):
        with no_grad():
            return value.clone()
    if isinstance(value, (list, tuple)):
        items = [_copy_tensors(v) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {k: _copy_tensors(v) for k, v in value.items()}
    return value


__all__ = ["CaptureError", "CompiledFunction", "compile"]
