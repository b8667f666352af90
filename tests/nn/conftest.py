"""Fixtures for the nn tests.

The layer, loss and optimizer tests are small and run on the CPU backend that is active
(the default one). Training tests ask for the ``numba_backend`` fixture: the models there
are too large for the reference backend's Python loops.
"""

from __future__ import annotations

import pytest

import minitorch

NEEDED = ("map", "zip", "where", "reduce", "arg_reduce", "matmul", "gather", "scatter_add")


@pytest.fixture
def numba_backend():
    """Run the test on the Numba backend (skipped while that backend cannot load)."""
    from minitorch import dispatch

    try:
        module = dispatch.load_backend("numba")
    except Exception as error:  # noqa: BLE001 - any import problem means "not available"
        pytest.skip(f"backend numba not available: {type(error).__name__}: {error}")
    missing = [name for name in NEEDED if not hasattr(module, name)]
    if missing:
        pytest.skip(f"backend numba not available: it lacks {missing}")
    with minitorch.backend("numba"):
        yield "numba"
