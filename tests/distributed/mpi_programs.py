"""Run a program of ``tests/distributed/programs/`` under ``mpiexec -n N`` and read the
one JSON line each rank prints. Tests that use it skip when mpi4py or mpiexec is missing
(``pip install -e '.[distributed]'`` brings both; CI installs them)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs"
ROOT = PROGRAMS.parents[2]

needs_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None or shutil.which("mpiexec") is None,
    reason="needs mpi4py and mpiexec: pip install -e '.[distributed]'",
)


def run_ranks(n: int, program: str, *args: str, timeout: float = 240) -> list[dict]:
    """Every JSON line the ranks printed, in the order printed."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=path)
    command = ["mpiexec", "-n", str(n), sys.executable, str(PROGRAMS / program), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return json_objects(done.stdout)


def json_objects(text: str) -> list[dict]:
    """The JSON objects in ``text``: ranks share one stdout, so two ranks' lines can end up
    on one line; each ``print`` of a short line is one write, so objects never interleave."""
    decoder, found, at = json.JSONDecoder(), [], text.find("{")
    while at != -1:
        value, end = decoder.raw_decode(text, at)
        found.append(value)
        at = text.find("{", end)
    return found
