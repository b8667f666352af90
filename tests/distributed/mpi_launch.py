"""Running a small program on n ranks under ``mpiexec``, for the distributed tests.

``run_ranks("programs/collectives.py", 3)`` starts 3 ranks through the launcher's own
command builder (``minitorch.distributed.run.mpiexec_command``, which adds Open MPI's
flags for root and for more ranks than cores) and returns the finished process. A
wall-clock ``timeout`` guards against a hang: a test fails, it never stalls the suite.
Tests skip cleanly where mpi4py or mpiexec is missing (``requires_mpi``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minitorch.distributed.run import find_mpiexec, mpiexec_command

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

requires_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None or find_mpiexec() is None,
    reason='needs mpi4py and mpiexec: pip install -e ".[distributed]"',
)


def environment() -> dict[str, str]:
    """The ranks' environment: this checkout importable, one Numba thread per rank."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.setdefault("NUMBA_NUM_THREADS", "1")
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        env.pop(name, None)
    return env


def run_ranks(program: str, n: int, *args: str, timeout: float = 120,
              env: dict | None = None) -> subprocess.CompletedProcess:  # fmt: skip
    """Run ``programs/<program>`` on ``n`` ranks (``env``: more environment variables);
    stdout and stderr come back as text."""
    command = mpiexec_command(n) + [sys.executable, str(HERE / "programs" / program), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env={**environment(), **(env or {})}, cwd=ROOT)  # fmt: skip


def run_launcher(n: int, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m minitorch.distributed.run -n <n> <args...>``, from the repository root."""
    command = [sys.executable, "-m", "minitorch.distributed.run", "-n", str(n), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment(),
                          cwd=ROOT)  # fmt: skip


def explain(done: subprocess.CompletedProcess) -> str:
    return f"exit {done.returncode}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
