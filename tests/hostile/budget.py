"""How many fuzz cases to run: a few minutes in CI by default, far more on request.

``MINITORCH_FUZZ=long`` multiplies every default count by 20; a number multiplies it by
that number (``MINITORCH_FUZZ=100``: a night's run). The cases are seeded, so a count
only adds cases: the first ones stay the same.
"""

from __future__ import annotations

import os

LONG = 20


def fuzz_count(default: int) -> int:
    """``default``, scaled by ``MINITORCH_FUZZ``."""
    value = os.environ.get("MINITORCH_FUZZ", "").strip()
    if value == "long":
        return default * LONG
    if value.isdigit() and int(value) > 0:
        return default * int(value)
    if value:
        raise ValueError(f"MINITORCH_FUZZ must be 'long' or a positive integer, got {value!r}")
    return default
