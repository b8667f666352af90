"""``python -m minitorch.course``: open the course notebooks in JupyterLab.

This is the README's first command. It runs ``jupyter lab notebooks/`` with one
difference: JupyterLab refuses to run as root and exits at once ("Running as root is not
recommended. Use --allow-root to bypass."), and root is who you are in a Docker
container or on a fresh cloud VM. As root, the launcher adds ``--allow-root`` and says
why; as anyone else it runs exactly ``jupyter lab notebooks/``::

    python -m minitorch.course                   # the course's notebooks/ folder
    python -m minitorch.course my_notes/ --port 8890   # another folder; options go to jupyter lab
    python -m minitorch.course --print-command   # show the command, start nothing

Before JupyterLab opens, it starts Numba's warm-up in the background (once per machine:
``minitorch/course/warm_up.py``), so that by the time a student reaches the
Numba chapters (05 on; 00-04 run on the reference backend), their kernels are compiled.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
from pathlib import Path

from minitorch.resources import PACKAGE

ALLOW_ROOT = "--allow-root"
ROOT_NOTICE = (
    "You are root (user id 0), as in most containers and fresh VMs: JupyterLab refuses to "
    f"start as root unless given {ALLOW_ROOT}, so it is added. Anyone who can reach the "
    "server's port and has its token can run code as root: keep the token to yourself."
)


def is_root() -> bool:
    """Whether this process runs as root (never on Windows, which has no user ids)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def notebooks_folder() -> Path:
    """The course's ``notebooks/`` folder beside the package (a source checkout or an
    editable install), else the current folder (an installed wheel has no notebooks)."""
    checkout = PACKAGE.parent / "notebooks"
    return checkout if checkout.is_dir() else Path.cwd()


def jupyter_command(folder: Path | str, options: list[str] | None = None, root: bool = False) -> list[str]:
    """The command that opens ``folder`` in JupyterLab: ``jupyter lab folder options``,
    plus ``--allow-root`` when ``root`` (unless the options already have it)."""
    options = list(options or [])
    command = [sys.executable, "-m", "jupyter", "lab", str(folder), *options]
    if root and ALLOW_ROOT not in options:
        command.append(ALLOW_ROOT)
    return command


def main(argv: list[str] | None = None) -> int:
    """``[folder] [jupyter lab options...] [--print-command]``: the folder, if given,
    comes first (so ``--port 8890`` is never mistaken for it)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    print_only = "--print-command" in arguments
    options = [argument for argument in arguments if argument != "--print-command"]
    folder = options.pop(0) if options and not options[0].startswith("-") else notebooks_folder()
    root = is_root()
    command = jupyter_command(folder, options, root)
    if print_only:
        print(shlex.join(command))
        return 0
    if importlib.util.find_spec("jupyterlab") is None:
        print('JupyterLab is not installed: pip install -e ".[course]"', file=sys.stderr)
        return 1
    if root:
        print(ROOT_NOTICE, file=sys.stderr)
    if importlib.util.find_spec("numba") is not None:
        from minitorch.course import warm_up

        if warm_up.start_in_background() is not None:
            print("compiling the Numba chapters' kernels in the background (once)", file=sys.stderr)
    print("running:", shlex.join(command), file=sys.stderr)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:  # Ctrl-C stops JupyterLab too (it shares the terminal)
        return 130
