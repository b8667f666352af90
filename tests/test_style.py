"""The code style docs/architecture.md asks for is checked, not hoped for: ``ruff check`` is clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean() -> None:
    ruff = shutil.which("ruff")
    command = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    result = subprocess.run([*command, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, f"ruff check found problems:\n{result.stdout[-4000:]}"
