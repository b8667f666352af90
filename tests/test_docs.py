"""docs/architecture.md describes the tree as it is: every path it names exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARCHITECTURE = REPO / "docs" / "architecture.md"
TOP_LEVEL = ("minitorch/", "kernels/", "widgets/", "tests/", "docs/", "benchmarks/", "examples/",
             "notebooks/")  # fmt: skip

# Homes that work in progress is creating right now. Each must still be missing: when it
# lands the test fails until its entry is deleted here, so this set only shrinks.
PENDING_PATHS: set[str] = set()


def named_paths() -> set[str]:
    """Every `path` in backquotes that starts with a top-level folder of the repository."""
    quoted = re.findall(r"`([^`\s]+)`", ARCHITECTURE.read_text())
    return {path for path in quoted if path.startswith(TOP_LEVEL)}


def test_every_path_in_the_architecture_exists() -> None:
    missing = sorted(path for path in named_paths() - PENDING_PATHS if not (REPO / path).exists())
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_pending_paths_are_still_pending() -> None:
    landed = sorted(path for path in PENDING_PATHS if (REPO / path).exists())
    assert not landed, f"these now exist, so delete them from PENDING_PATHS in tests/test_docs.py: {landed}"
    assert PENDING_PATHS <= named_paths(), "PENDING_PATHS lists a path the document no longer names"
