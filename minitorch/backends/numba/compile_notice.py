"""Say that kernels are being compiled, instead of silently hanging.

A kernel's first call in a new process either loads it from Numba's disk cache (a
fraction of a second) or, when the cache holds nothing for it (a fresh install, a new
``NUMBA_CACHE_DIR``, an edited kernel file), compiles it: 1-3 s per kernel on the
development machine, 7-10 s before the first training step of a small MLP. So a student
knows the wait is normal and happens once, we say so, in the student's own medium:

* in a terminal (a script, ``python -c``, pytest), one line on stderr, the first time a
  kernel is compiled in the process;
* in a notebook, stderr would be a pink box that reads as an error. There the cell gets
  one quiet line of progress instead, a display that is updated in place (IPython's
  ``display(..., display_id=True)`` gives a handle whose ``update`` replaces it): which
  kernels this cell compiled so far and how long it has waited, then, when the cell
  ends (IPython's ``post_run_cell`` event), that it is done::

      minitorch: compiling Numba kernels, first use only: add, mul (2.1 s so far)...
      minitorch: compiled 3 Numba kernels for add, mul, sum in 4.0 s, first use only (done)
"""

from __future__ import annotations

import html
import os
import sys
import time
from typing import Any

_announced = False
# Kernels already looked at. Asking again would cost more than the call of a small kernel:
# ``kernel.signatures`` hashes the Numba type of every compiled argument list.
_looked_at: set[int] = set()
TERMINAL_NOTICE = (
    "minitorch: compiling the Numba kernel for {what} -- first use only, about 1-3 s per kernel"
    " (later runs load them from the disk cache)..."
)


def cached_on_disk(kernel) -> bool:
    """Whether Numba's disk cache has an index file for ``kernel`` (an earlier process
    compiled it). Reads Numba's cache object; a Numba without one counts as cached."""
    cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    index_path = getattr(cache_file, "_index_path", None)
    return index_path is None or os.path.exists(index_path)


def announce_if_compiling(kernel, what: str) -> None:
    """Before the first call of ``kernel`` (``what`` names it): if it is neither compiled
    in this process nor cached on disk, say so (see the module docstring)."""
    global _announced
    if id(kernel) in _looked_at:
        return
    _looked_at.add(id(kernel))  # from this call on the kernel is compiled or loaded
    shell = _notebook_shell()
    if (_announced and shell is None) or kernel.signatures or cached_on_disk(kernel):
        return
    if shell is not None:
        CellProgress.for_this_cell(shell).compiling(what)
        return
    _announced = True
    print(TERMINAL_NOTICE.format(what=what), file=sys.stderr, flush=True)


def _notebook_shell() -> Any:
    """The IPython shell of a notebook kernel (it has a ``kernel``), or ``None`` in a
    terminal, a plain IPython prompt, or a process without IPython."""
    ipython = sys.modules.get("IPython")  # never imported here: only if already running
    shell = ipython.get_ipython() if ipython is not None else None
    return shell if getattr(shell, "kernel", None) is not None else None


class CellProgress:
    """The one progress line of the running cell: the kernels it compiled, since when."""

    current: CellProgress | None = None  # the running cell's, until the cell ends

    def __init__(self) -> None:
        self.kernels: list[str] = []
        self.started = time.monotonic()
        self.handle: Any = None

    @classmethod
    def for_this_cell(cls, shell: Any) -> CellProgress:
        if cls.current is None:
            cls.current = cls()
            shell.events.register("post_run_cell", cls.cell_ended)
        return cls.current

    @classmethod
    def cell_ended(cls, *_result: Any) -> None:
        """IPython's ``post_run_cell``: the line says "done", and the next cell starts anew."""
        progress, cls.current = cls.current, None
        shell = _notebook_shell()
        if shell is not None:
            shell.events.unregister("post_run_cell", cls.cell_ended)
        if progress is not None:
            progress.show(done=True)

    def compiling(self, what: str) -> None:
        if what not in self.kernels:
            self.kernels.append(what)
        self.show(done=False)

    def text(self, done: bool) -> str:
        seconds = time.monotonic() - self.started
        names = ", ".join(self.kernels)
        if done:
            count = f"{len(self.kernels)} Numba kernel{'s' if len(self.kernels) != 1 else ''}"
            return f"minitorch: compiled {count} for {names} in {seconds:.1f} s, first use only (done)"
        return f"minitorch: compiling Numba kernels, first use only: {names} ({seconds:.1f} s so far)..."

    def show(self, done: bool) -> None:
        from IPython.display import display  # present: the notebook's shell is running

        text = self.text(done)
        bundle = {
            "text/plain": text,
            "text/html": (
                '<div class="minitorch-notice" style="font-size: 12px; line-height: 1.5; '
                f'color: var(--jp-ui-font-color2, #666);">{html.escape(text)}</div>'
            ),
        }
        if self.handle is None:
            self.handle = display(bundle, raw=True, display_id=True)
        else:
            self.handle.update(bundle, raw=True)
