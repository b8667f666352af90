"""Small helpers shared by the Playground tests."""

from __future__ import annotations

import json
from typing import Any

from minitorch.widgets.playground import PlaygroundConfig


def small(**changes: Any) -> PlaygroundConfig:
    """A quick config: 200 points on the Numba backend, with ``changes`` on top."""
    return PlaygroundConfig(num_samples=200, backend="numba").copy(**changes)


def json_safe(value: Any) -> None:
    """What the widget syncs must be valid JSON (no NaN): raises if not."""
    json.dumps(value, allow_nan=False)
