"""``minitorch.compile(fn)``: capture ``fn`` as a static graph, then replay it.

    step = minitorch.compile(train_step)     # or @minitorch.compile above the def
    for x, y in batches:
        loss = step(x, y)                    # 1st call: eager; 2nd: captured; then replayed

Each call goes through four stages:

1. **guard** (``guards.py``, ``state.py``): the call's key (input shapes, dtypes,
   devices, Python arguments, grad mode, backend, default dtype, ``training`` of the
   modules it reaches). Graphs are kept per key, like ``torch.compile``'s; before a
   replay, the state the graph reads (parameters, ``.grad``, optimizer state) is found
   again and checked, and a difference captures again.
2. **warm-up**: the first call of a key runs eagerly. State that a program makes on its
   first step (``p.grad``, Adam's moments, a momentum buffer) then exists before the
   capture, so the graph updates it instead of making it again (tinygrad's TinyJit
   waits one call for the same reason).
3. **capture** (``capture.py``): the next call runs eagerly while every kernel call is
   recorded, then the passes run (``passes/``) and the graph is prepared (``replay.py``).
4. **replay**: every later call with that key runs the graph's kernels and nothing else,
   then sets each slot the capture rebound (``p.grad`` after ``zero_grad()``,
   ``state["square_avg"] = ...``) to the tensor that holds its new value.

At most ``GRAPH_LIMIT`` graphs are kept per function (the least recently used goes
first); an argument whose value changes on every call (a learning rate passed as a
float) makes a new key each time, and is named in one warning.

``fn.graph`` is the last graph captured; ``fn.graphs`` all of them by key;
``fn.recaptures`` lists why each capture after the first happened.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.compiler import guards
from minitorch.compiler.capture import CaptureError, Recorder, ValuesChanged
from minitorch.compiler.graph import Graph
from minitorch.compiler.naming import name_buffers
from minitorch.compiler.passes import DEFAULT_PASSES, PASSES, run_passes
from minitorch.compiler.replay import Program
from minitorch.compiler.state import StateGuard, find_slots, snapshot

GRAPH_LIMIT = 8  # graphs kept per function, least recently used first out (torch's cache_size_limit)
KEY_LIMIT = 64  # keys remembered for their warm-up count or their reason to run eagerly
RECAPTURE_LIMIT = 8  # state-guard failures of one key before it runs eagerly
RECAPTURES_LISTED = 100  # reasons kept in ``fn.recaptures``


class CompiledFunction:
    """``fn`` wrapped by ``minitorch.compile`` (see the module docstring)."""

    def __init__(self, fn: Any, passes: list | None = None, warmup: int = 1) -> None:
        self.fn = fn
        names = DEFAULT_PASSES if passes is None else passes
        self.passes = [PASSES[p] if isinstance(p, str) else p for p in names]
        self.warmup = warmup
        self.graphs: OrderedDict[tuple, Graph] = OrderedDict()  # least recently used first
        self.programs: dict[tuple, Program] = {}
        self.state_guards: dict[tuple, StateGuard] = {}
        self.calls: OrderedDict[tuple, int] = OrderedDict()  # key -> calls seen (for the warm-up)
        self.eager: OrderedDict[tuple, str] = OrderedDict()  # key -> why it runs eagerly
        self.recaptures: list[str] = []
        self.graph: Graph | None = None
        self._last_key: tuple | None = None
        self._modules: list | None = None  # the modules fn reaches, by name (their training flags)
        self._values_seen: dict[str, int] = {}  # argument -> how many new values made new keys
        self._failures: dict[tuple, int] = {}  # key -> state-guard failures
        functools.update_wrapper(self, fn, updated=())  # its name and docstring
        self.name = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if dispatch.capturing_now():  # inside another compiled function's capture
            return self.fn(*args, **kwargs)
        leaves, tensors = guards.flatten_arguments(self.fn, args, kwargs)
        if self._modules is None:
            self._modules = find_slots(self.fn)[1]
        key = guards.guard_key(leaves, guards.context_key(self._modules))
        program = self.programs.get(key)
        if program is not None:
            state_guard = self.state_guards[key]
            reason, copies = state_guard.check(tensors, program.graph.input_names)
            if reason is None:
                state_guard.copy_in(copies)
                try:
                    result = program(tensors)
                except ValuesChanged as change:  # raised before any kernel ran
                    reason = str(change)
                else:
                    state_guard.write_back()
                    self.graphs.move_to_end(key)
                    return result
            self._forget(key)
            self._note(reason)
            failures = self._failures[key] = self._failures.get(key, 0) + 1
            if failures > RECAPTURE_LIMIT:
                return self._run_eagerly(
                    key, f"captured again {failures} times (last: {reason})", args, kwargs
                )
            return self._capture(key, leaves, tensors, args, kwargs)
        if key in self.eager:
            self.eager.move_to_end(key)
            return self.fn(*args, **kwargs)
        seen = self.calls[key] = self.calls.pop(key, 0) + 1
        if len(self.calls) > KEY_LIMIT:
            self.calls.popitem(last=False)
        if seen == 1:
            self._note_new_key(key)
        if seen <= self.warmup:
            return self.fn(*args, **kwargs)
        return self._capture(key, leaves, tensors, args, kwargs)

    def _capture(self, key: tuple, leaves: list, tensors: list[Tensor], args: tuple, kwargs: dict) -> Any:
        names = [name for name, value in leaves if isinstance(value, Tensor)]
        recorder = Recorder(tensors, names)
        state_before = snapshot(find_slots(self.fn)[0])
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
            return self._run_eagerly(key, reason, result=result)
        spec = recorder.outputs(result)
        copies = _copy_tensors(result)  # what this call returns, so that the graph ...
        del result  # ... can tell what else still holds its buffers (see Recorder.finish)
        if any(node.device_type == "cuda" for node in recorder.nodes):
            from minitorch import cuda  # (a queued launch holds its operands)

            cuda.synchronize()
        graph = recorder.finish(spec)
        name_buffers(graph, self.fn)
        graph = run_passes(graph, self.passes)  # the rewrites in order, memory planning last
        state_guard = StateGuard(graph, state_before, snapshot(find_slots(self.fn)[0]), tensors)
        if state_guard.refusal is not None:
            return self._run_eagerly(key, state_guard.refusal, result=copies)
        if len(self.graphs) >= GRAPH_LIMIT:
            oldest = next(iter(self.graphs))
            self._forget(oldest)
            self._note(f"dropped the least recently used graph: at most {GRAPH_LIMIT} are kept per function")
        self.graphs[key], self.programs[key], self.graph = graph, Program(graph), graph
        self.state_guards[key] = state_guard
        return copies

    def _run_eagerly(self, key: tuple, reason: str, args: tuple = (), kwargs: dict | None = None,
                     result: Any = None) -> Any:  # fmt: skip
        """From now on calls with ``key`` run ``fn`` eagerly, because of ``reason`` (said
        once, as a warning); returns ``result``, or this call's result if none is given."""
        self.eager[key] = reason
        if len(self.eager) > KEY_LIMIT:
            self.eager.popitem(last=False)
        warnings.warn(
            f"minitorch.compile: {self.name} runs eagerly: {reason}", stacklevel=4 if kwargs is None else 3
        )
        return self.fn(*args, **(kwargs or {})) if kwargs is not None else result

    def _note_new_key(self, key: tuple) -> None:
        """Say why a new key was met. An argument whose value keeps changing makes a new
        key each time: after ``GRAPH_LIMIT`` of them one warning names it, as
        ``torch.compile``'s recompile limit does, and its changes are no longer listed."""
        last, self._last_key = self._last_key, key
        if last is None:
            return
        name, reason = guards.difference(last, key)
        if not any(part[0] == name and part[1] == "value" for part in key if len(part) > 2):
            self._note(reason)
            return
        seen = self._values_seen[name] = self._values_seen.get(name, 0) + 1
        if seen < GRAPH_LIMIT:
            self._note(reason)
        elif seen == GRAPH_LIMIT:
            message = (f"{self.name} was called with {seen + 1} different values of argument {name} "
                       f"(last: {reason}); each value is part of the guard key, so each new one runs "
                       f"eagerly first and at most {GRAPH_LIMIT} graphs are kept. Pass a value that "
                       "changes on every call as a tensor (minitorch.tensor(value)): one graph then "
                       "serves every value")  # fmt: skip
            self._note(message)
            warnings.warn(f"minitorch.compile: {message}", stacklevel=4)

    def _note(self, reason: str) -> None:
        if len(self.recaptures) < RECAPTURES_LISTED:
            self.recaptures.append(reason)
        elif len(self.recaptures) == RECAPTURES_LISTED:
            self.recaptures.append(f"(later reasons are not listed: more than {RECAPTURES_LISTED})")

    def _forget(self, key: tuple) -> None:
        self.programs.pop(key, None)
        self.graphs.pop(key, None)
        self.state_guards.pop(key, None)
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
