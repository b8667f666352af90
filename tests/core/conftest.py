"""Every test in this directory runs once per CPU backend (see ``tests/conftest.py``)."""

import pytest


@pytest.fixture(autouse=True, scope="module")
def _use_backend(backend):
    """Make the parametrized ``backend`` fixture apply to every test here."""
    yield backend


@pytest.fixture
def fresh_plans(monkeypatch):
    """An empty plan cache of this test's own (``minitorch/dispatch/plans.py``: the
    primitives' lookups and ``apply_zip``'s share it), so that what a test's calls
    remember is all there is in it. A test that counts ``plans.made`` across two calls
    needs it: in a shared cache another test's plans can fill it between the calls, and a
    full cache starts afresh, so the second call would make its plan again."""
    from minitorch import dispatch
    from minitorch.dispatch import plans

    cache: dict = {}
    monkeypatch.setattr(plans, "cache", cache)
    monkeypatch.setattr(dispatch, "plan_cache", cache)
    return cache
