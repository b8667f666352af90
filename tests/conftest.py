"""Shared fixtures.

* ``backend``: every test under ``tests/core`` and ``tests/autograd`` runs once per CPU
  backend (``reference``, ``numba``; ``numba_simple`` for the op table only) inside
  ``with minitorch.backend(name):``. The autouse hook lives in ``tests/core/conftest.py``
  and ``tests/autograd/conftest.py``.
  A backend whose module cannot be imported yet is skipped (the only allowed skip).
* ``device``: ``"cpu"``, plus ``"cuda"`` when ``minitorch.cuda.is_available()`` (also true
  on the CUDA emulator, ``MINITORCH_CUDA=emulator``).

Both fixtures are module-scoped: pytest then runs a whole module on one backend before
switching, and hypothesis tests may use them (hypothesis rejects function-scoped ones).
"""

from __future__ import annotations

import os
import random
import sys
import zlib

import numpy as np
import pytest

# The course notebooks' setup starts a background warm-up of Numba's disk cache
# (``minitorch/course/warm_up.py``). The suite executes notebooks by the dozen on
# two cores: a warm-up beside each would only take a core from the tests.
# ``tests/course/test_warm_up.py`` runs it on purpose.
os.environ["MINITORCH_WARM_UP"] = "0"

CPU_BACKENDS = ["reference", "numba", "numba_simple"]
# numba_simple (the reference's loops compiled, a readable tier) runs only the op table
# against torch here: tests/backends checks each of its kernels, and the whole core and
# autograd suites on it would cost minutes of compiling in a fresh checkout for little.
PARTIAL_BACKENDS = {"numba_simple": {"test_ops.py"}}


def _cuda_available() -> bool:
    try:
        import minitorch

        return bool(minitorch.cuda.is_available())
    except Exception:  # the library may not be importable yet
        return False


DEVICES = ["cpu"] + (["cuda"] if _cuda_available() else [])


@pytest.fixture(scope="module", params=CPU_BACKENDS)
def backend(request):
    """Run the test with ``minitorch.backend(name)`` active for the CPU."""
    import minitorch
    from minitorch import dispatch

    name = request.param
    try:
        dispatch.load_backend(name)  # imports the backend's module
    except Exception as error:  # noqa: BLE001 - any import problem means "not available"
        pytest.skip(f"backend {name} not available: {type(error).__name__}: {error}")
    with minitorch.backend(name):
        yield name


# ``bash tests/run.sh`` runs the suite in parallel processes (pytest-xdist, ``--dist
# loadgroup``): each test file goes to one worker whole, so its module-scoped fixtures (the
# backend) are set up once and its tests keep their order. The MPI tests go to a single
# worker together: each starts several ranks, and two such tests at once would fight for
# the cores. (The browser tests run after, in one process of their own: see tests/run.sh.)
SHARED_GROUPS = {"distributed": "mpi"}


def xdist_group(item) -> str:
    """The worker group of a test: its directory's shared group, else its file."""
    relative = item.path.relative_to(item.config.rootpath)
    return SHARED_GROUPS.get(relative.parts[1] if len(relative.parts) > 2 else "", str(relative))


def pytest_collection_modifyitems(config, items):
    """Deselect the tests a partial backend does not run (see ``PARTIAL_BACKENDS``), and
    put each test in its worker group (``xdist_group``)."""
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        files = PARTIAL_BACKENDS.get(callspec.params.get("backend")) if callspec else None
        (drop if files is not None and item.path.name not in files else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    for item in items:
        item.add_marker(pytest.mark.xdist_group(xdist_group(item)))


@pytest.fixture(scope="module", params=DEVICES)
def device(request):
    """The device tensors are created on ("cpu", or "cuda" when available)."""
    return request.param


def pytest_configure(config):
    """Start the test process from PyTorch's fixed default seed (for what runs before the
    first test: collection, module-level data)."""
    try:
        import minitorch
    except Exception:  # the library may not be importable yet
        return
    minitorch.manual_seed(67280421310721)


def seed_of(item) -> int:
    """The seed of one test: a checksum of its name (without the worker group's suffix
    that pytest-xdist adds), so the same in every run, in any order, alone or in the suite."""
    name = item.nodeid.removesuffix(f"@{xdist_group(item)}")
    return zlib.crc32(name.encode())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Seed every global generator a test may draw from (minitorch's, PyTorch's, NumPy's
    and Python's) with the test's own seed, before its fixtures are set up.

    A program's global generator is seeded afresh in every process (like PyTorch's); a
    test is reproducible instead. Without this, a test's random data would depend on
    which tests ran before it in its worker process, which pytest-xdist decides anew in
    every run: a test whose tolerance fits most data but not all would fail now and then,
    and never when run alone. Seeded by its name, a test sees the same numbers every time."""
    seed = seed_of(item)
    random.seed(seed)
    np.random.seed(seed)
    if "minitorch" in sys.modules:
        sys.modules["minitorch"].manual_seed(seed)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)
