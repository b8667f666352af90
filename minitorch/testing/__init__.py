"""``minitorch.testing``: helpers for testing numerical code, as ``torch.testing``.

``assert_close(actual, expected)`` raises an ``AssertionError`` that says how many
elements differ and by how much, with PyTorch's default tolerances for the dtype.

The course's homework checkers used to live here; they are now ``minitorch.course``.
Importing them from here still works for one release, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch.testing.comparison import assert_close

__all__ = ["assert_close"]


def __getattr__(name: str) -> Any:
    """Forward the old homework-checker names to ``minitorch.course`` (deprecated)."""
    from minitorch import course  # course sits above testing: import only when asked

    if name in course.__all__:
        warnings.warn(
            f"minitorch.testing.{name} moved to minitorch.course.{name}; "
            "the old name goes away in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(course, name)
    raise AttributeError(f"module 'minitorch.testing' has no attribute '{name}'")
