"""A cold first run says once on stderr that kernels are being compiled; a warm one is silent.

Runs two fresh processes that share a temporary, initially empty ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

PROGRAM = "import minitorch; x = minitorch.ones(3) + 1; y = x * 2; z = (x - y).sum(); print(z.item())"


def run_fresh(cache_dir) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), MINITORCH_CPU_BACKEND="numba")
    return subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True,
                          check=True, timeout=600)  # fmt: skip


def test_cold_run_says_once_that_it_compiles_and_warm_run_is_silent(tmp_path):
    cold = run_fresh(tmp_path)
    assert float(cold.stdout) == -6.0  # 3 * (2 - 4)
    notices = [line for line in cold.stderr.splitlines() if line.startswith("minitorch: compiling")]
    assert notices == [
        "minitorch: compiling the Numba kernel for add -- first use only, about 1-3 s per kernel"
        " (later runs load them from the disk cache)..."
    ]
    warm = run_fresh(tmp_path)
    assert float(warm.stdout) == -6.0
    assert "compiling" not in warm.stderr
