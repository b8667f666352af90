"""Numba's disk cache, safe when several processes compile at the same time.

Every kernel is ``cache=True``: a compiled kernel is written to disk, and the next
process loads it instead of compiling. Numba keeps one *index* file per kernel function
(``zip_kernel-<line>.nbi``) mapping each compiled version (its argument types, the CPU,
the scalar function inlined into it) to a *data* file (``zip_kernel-<line>.1.nbc``,
``.2.nbc``...). One function of ours has a version per op and dtype, hundreds in one
index. Saving a version is three steps::

    read the index; pick the first data-file number the index does not use;
    write the index with the new entry; write the data file.

Two processes that save versions of the same function at the same moment (two test
workers, two Jupyter kernels started together, the ranks of an MPI job) both read the
same index and pick the same number. Interleaved badly, the index ends with the second
process's entry pointing at the first process's code: a later process asking for, say,
integer ``//`` loads the kernel of another op, and computes wrong numbers silently.

``install`` makes the three steps one: each save holds an exclusive lock (``flock``) on a
``.lock`` file beside the index, so the second saver reads the index the first wrote and
takes the next number. Loading needs no lock: a data file, once written for an entry, is
only ever replaced by the same entry's code (Numba writes it to a temporary file and
renames it, so a reader sees the old file or the new one, never half of one).
"""

from __future__ import annotations

import functools

try:
    import fcntl
except ImportError:  # Windows: no flock; processes there compile one at a time or not at all
    fcntl = None


def _locked(save):
    @functools.wraps(save)
    def save_holding_the_lock(self, key, data):
        with open(f"{self._index_path}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                return save(self, key, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    save_holding_the_lock.holds_the_lock = True
    return save_holding_the_lock


def install() -> None:
    """Make Numba's cache saves hold the lock (once per process)."""
    from numba.core import caching

    save = caching.IndexDataCacheFile.save
    if fcntl is not None and not getattr(save, "holds_the_lock", False):
        caching.IndexDataCacheFile.save = _locked(save)
