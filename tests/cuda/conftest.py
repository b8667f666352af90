"""Fixtures of the CUDA tests.

* ``emulator``: device "cuda" runs on the CPU emulator for the module (skipped, with the
  reason, when no C++ compiler exists).
* ``order``: every kernel test runs with the emulator's threads in forward and in
  reversed order (a missing ``__syncthreads`` often passes in one order only).
* ``gpu``: tests marked ``@pytest.mark.gpu`` are skipped unless a real GPU is present.
"""

from __future__ import annotations

import pytest

from minitorch.backends import cuda, cuda_emulator
from minitorch.backends.cuda import device


@pytest.fixture(scope="module")
def emulator():
    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    with cuda.emulated():
        yield cuda


@pytest.fixture(params=["forward", "reversed"])
def order(request, emulator):
    with cuda_emulator.thread_order(request.param):
        yield request.param


def gpu_present() -> bool:
    return device.gpu_problem() is None


def pytest_collection_modifyitems(config, items):
    if gpu_present():
        return
    skip = pytest.mark.skip(reason=f"needs a real CUDA GPU: {device.gpu_problem()}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
