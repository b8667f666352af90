"""Grad mode: whether operations record the autograd graph.

Inside ``with minitorch.no_grad():`` no graph is built: outputs have no ``grad_fn`` and
nothing is saved for backward. Optimizers update parameters this way, and evaluation
code uses it to save memory. Each of these also works as a decorator::

    @minitorch.no_grad()
    def evaluate(model, x): ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_enabled = True


def is_grad_enabled() -> bool:
    """True when operations record the graph for backward (the default)."""
    return _enabled


class _GradMode:
    """A context manager (and decorator) that sets grad mode and restores it after."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        global _enabled
        self._previous = _enabled
        _enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        global _enabled
        _enabled = self._previous

    def __call__(self, function: Callable) -> Callable:
        mode = self.mode

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with _GradMode(mode):
                return function(*args, **kwargs)

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
        global _enabled
        super().__init__(bool(mode))
        self._previous = _enabled
        _enabled = self.mode

    def __enter__(self) -> None:
        global _enabled
        _enabled = self.mode

    def __call__(self, function: Callable) -> Callable:
        global _enabled
        _enabled = self._previous  # as a decorator, it must not change the mode now
        return super().__call__(function)
