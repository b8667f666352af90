"""Say once, on stderr, that kernels are being compiled, instead of silently hanging.

A kernel's first call in a new process either loads it from Numba's disk cache (a
fraction of a second) or, when the cache holds nothing for it (a fresh install, a new
``NUMBA_CACHE_DIR``, an edited kernel file), compiles it: 1-3 s per kernel on the
development machine, 7-10 s before the first training step of a small MLP. The first
time that happens in a process we print one line, so a student knows the wait is normal
and happens once.
"""

from __future__ import annotations

import os
import sys

_announced = False
# Kernels already looked at. Asking again would cost more than the call of a small kernel:
# ``kernel.signatures`` hashes the Numba type of every compiled argument list.
_looked_at: set[int] = set()


def cached_on_disk(kernel) -> bool:
    """Whether Numba's disk cache has an index file for ``kernel`` (an earlier process
    compiled it). Reads Numba's cache object; a Numba without one counts as cached."""
    cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    index_path = getattr(cache_file, "_index_path", None)
    return index_path is None or os.path.exists(index_path)


def announce_if_compiling(kernel, what: str) -> None:
    """Before the first call of ``kernel`` (``what`` names it): print the notice if it is
    not compiled in this process nor cached on disk, once per process."""
    global _announced
    if _announced or id(kernel) in _looked_at:
        return
    _looked_at.add(id(kernel))  # from this call on the kernel is compiled or loaded
    if kernel.signatures or cached_on_disk(kernel):
        return
    _announced = True
    print(
        f"minitorch: compiling the Numba kernel for {what} -- first use only, about 1-3 s per kernel"
        " (later runs load them from the disk cache)...",
        file=sys.stderr,
        flush=True,
    )
