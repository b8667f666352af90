"""Every test in this directory runs once per CPU backend (see ``tests/conftest.py``)."""

import pytest


@pytest.fixture(autouse=True, scope="module")
def _use_backend(backend):
    """Make the parametrized ``backend`` fixture apply to every test here."""
    yield backend
