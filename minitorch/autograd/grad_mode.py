"""Grad mode: whether operations record the autograd graph.

Inside ``with minitorch.no_grad():`` no graph is built: outputs have no ``grad_fn`` and
nothing is saved for backward. Optimizers update parameters this way, and evaluation
code uses it to save memory. Each of these also works as a decorator::

    @minitorch.no_grad()
    def evaluate(model, x): ...

Grad mode belongs to a *thread*, as in PyTorch: ``no_grad`` in one thread (say, a
notebook evaluating a model) must not stop another thread (a Playground training in the
background) from recording its graph. So each thread has its own ``GradMode`` object,
found through a ``threading.local``: ``thread_state.mode`` is a different object in every
thread. (Reading a ``threading.local`` costs more than a plain attribute, so code that
runs on every op, ``Function.apply``, fetches ``thread_state.mode`` once and then reads and
writes its ``enabled`` as plainly as any attribute.)
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Generator
from typing import Any


class GradMode:
    """One thread's grad mode: ``enabled`` is True while its operations record the graph."""

    __slots__ = ("enabled",)

    def __init__(self) -> None:
        self.enabled = True


class _ThreadState(threading.local):
    def __init__(self) -> None:  # runs once in each thread, on its first use
        self.mode = GradMode()


thread_state = _ThreadState()


def is_grad_enabled() -> bool:
    """True when operations in this thread record the graph for backward (the default)."""
    return thread_state.mode.enabled


class _GradMode:
    """A context manager (and decorator) that sets grad mode and restores it after."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        state = thread_state.mode
        self._previous = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        thread_state.mode.enabled = self._previous

    def __call__(self, function: Callable) -> Callable:
        mode = self.mode
        if inspect.isgeneratorfunction(function):
            return _generator_in_mode(function, mode)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with _GradMode(mode):
                return function(*args, **kwargs)

        return wrapper


def _generator_in_mode(function: Callable, mode: bool) -> Callable:
    """Decorate a generator function: the mode holds while the generator's own code runs
    (each resumption), and the caller's mode is back at every ``yield``, as in PyTorch.

        gen = function(...)
        loop:  with mode: value = gen.send(request)    # run up to the next yield
               request = yield value                   # the caller runs, in its own mode
    """

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Generator:
        generator = function(*args, **kwargs)
        send, request = generator.send, None
        while True:
            try:
                with _GradMode(mode):
                    response = send(request)
            except StopIteration as stop:
                return stop.value
            try:
                request = yield response
                send = generator.send
            except GeneratorExit:
                with _GradMode(mode):
                    generator.close()
                raise
            except BaseException as error:  # thrown in by the caller: pass it on
                send, request = generator.throw, error

    return wrapper


class no_grad(_GradMode):  # noqa: N801 (PyTorch's name)
    """Do not record the graph inside the block (``@no_grad`` or ``@no_grad()`` on a
    function does the same for every call of it)."""

    def __new__(cls, function: Callable | None = None) -> Any:
        if function is not None:  # used as @no_grad, without parentheses
            return _GradMode(False)(function)
        return super().__new__(cls)

    def __init__(self, function: Callable | None = None) -> None:
        super().__init__(False)


class enable_grad(_GradMode):  # noqa: N801
    """Record the graph inside the block, even within ``no_grad``."""

    def __new__(cls, function: Callable | None = None) -> Any:
        if function is not None:
            return _GradMode(True)(function)
        return super().__new__(cls)

    def __init__(self, function: Callable | None = None) -> None:
        super().__init__(True)


class set_grad_enabled(_GradMode):  # noqa: N801
    """``set_grad_enabled(False)`` turns recording off at once; used as a context manager
    it restores the previous mode at the end of the block."""

    def __init__(self, mode: bool) -> None:
        super().__init__(bool(mode))
        state = thread_state.mode
        self._previous = state.enabled
        state.enabled = self.mode

    def __enter__(self) -> None:
        thread_state.mode.enabled = self.mode

    def __call__(self, function: Callable) -> Callable:
        thread_state.mode.enabled = self._previous  # as a decorator, it must not change the mode now
        return super().__call__(function)
