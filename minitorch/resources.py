"""Where minitorch's non-Python files are: ``kernels/`` (CUDA C) and ``widgets/`` (ES modules).

In a source checkout (and an editable install) they sit at the top of the repository,
next to the ``minitorch/`` package. In an installed wheel they are inside the package,
as ``minitorch/_kernels`` and ``minitorch/_widgets`` (see ``pyproject.toml``).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The folder ``kernels`` or ``widgets``, wherever this install keeps it."""
    installed = PACKAGE / f"_{name}"
    if installed.is_dir():
        return installed
    checkout = PACKAGE.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"minitorch's {name}/ folder is missing from this installation")
