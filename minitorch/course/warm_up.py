"""The warm-up: filling Numba's disk cache in the background before a lesson needs it.

A kernel that is not in Numba's disk cache is compiled on its first call, once per op,
dtype and layout class. Each compile takes 0.3-2.5 s, so a course chapter's first run
spends 13-25 s of its time compiling ("First run" in ``benchmarks/README.md``). Every
Colab session and every fresh clone starts with an empty cache.

The warm-up runs, in a process of its own, small versions of what the chapters do:
elementwise ops and reductions, an MLP trained with SGD and with Adam, a CNN step, an
embedding lookup as in a language model, and counting in an int32 table. Each kernel
they call is compiled and saved to the disk cache. When a notebook later calls the same
kernel for the first time, Numba finds it on disk and loads it in milliseconds instead
of compiling it.

Nothing about the numbers changes. The warm-up compiles the very kernels the notebook
would compile itself, so the results do not depend on which process got there first.
If the notebook reaches a kernel before the warm-up has saved it, it compiles that
kernel as it always did. Two processes saving the same kernel at once is safe:
``minitorch/backends/numba/cache_lock.py`` makes each save one step.

Who starts it (``start_in_background``): ``python -m minitorch.course``, before JupyterLab
opens, and the setup cell of each chapter that runs on the reference backend (00-04). By
the time a student reaches the Numba chapters (05 on), their kernels are compiled. A
Numba chapter does not start it. Measured on two cores, a warm-up running beside the
chapter's own first calls made them no faster, and sometimes slower: the two processes
compile different kernels at the same time, and the chapter rarely finds the one it
needs already saved. In a fresh Colab session, which has its own new machine, the first
chapter opened still compiles its own kernels.

It runs at low priority, so on a busy machine the notebook comes first. It runs once per
cache: a marker file records a finished warm-up, and a lock keeps a second warm-up from
starting while one runs. Set ``MINITORCH_WARM_UP=0`` to never start it (the tests do).

    python -m minitorch.course.warm_up     # run it here and now, in the foreground
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock, so no warm-up (a notebook compiles as before)
    fcntl = None


def marker_path(numba_cache_dir: str | None = None) -> Path:
    """The file that says "this cache was warmed up". Its name depends on what the cache
    depends on: minitorch's kernel sources (their checksum), the Numba version, the
    Python installation, the cache's folder (``NUMBA_CACHE_DIR`` unless given) and the
    user (where the package's folder is read-only, Numba keeps a cache per user)."""
    import numba

    from minitorch import scalar_ops
    from minitorch.backends.kernel_source_version import code_version

    cache = numba_cache_dir or os.environ.get("NUMBA_CACHE_DIR", "")
    user = os.getuid() if hasattr(os, "getuid") else ""
    key = f"{code_version(scalar_ops.copy)}|{numba.__version__}|{sys.prefix}|{cache}|{user}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"minitorch-warm-up-{digest}"


def start_in_background() -> subprocess.Popen | None:
    """Start the warm-up in a new low-priority process, unless it is turned off
    (``MINITORCH_WARM_UP=0``), impossible here (no ``flock``) or already done for this
    cache. Returns the process, or ``None`` when none was started. Its output is
    discarded: the notebook's cells show what they compile themselves."""
    if os.environ.get("MINITORCH_WARM_UP", "1") == "0" or fcntl is None or marker_path().exists():
        return None
    return subprocess.Popen([sys.executable, "-m", "minitorch.course.warm_up"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip


def main() -> None:
    """Run the warm-up once, unless another process is already running it: hold an
    exclusive lock on the marker's ``.lock`` file while it runs, then write the marker."""
    marker = marker_path()
    with open(f"{marker}.lock", "a") as lock:
        if fcntl is not None:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another warm-up is running
                return
        if marker.exists():
            return
        if hasattr(os, "nice"):
            os.nice(10)  # the notebook's own work comes first
        from minitorch.course.warm_up_lessons import run_lessons

        run_lessons()
        marker.touch()


if __name__ == "__main__":
    main()
