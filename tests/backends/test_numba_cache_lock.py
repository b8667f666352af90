"""Two processes saving compiled kernels into Numba's disk cache at the same moment must
not mix them up (``minitorch/backends/numba/cache_lock.py``). Two threads stand in for the
two processes (``flock`` excludes separate opens of the lock file, threads or not), and a
pause after reading the index makes the unlucky timing certain instead of rare."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("numba")

from numba.core import caching  # noqa: E402

import minitorch.backends.numba  # noqa: F401,E402 (installs the lock)


def save_two_versions_at_once(monkeypatch, tmp_path, save) -> caching.IndexDataCacheFile:
    """Two savers of versions ``"int //"`` and ``"float //"`` of one kernel, each pausing
    after it has read the index, as a compiling process may be descheduled there."""
    monkeypatch.setattr(caching.IndexDataCacheFile, "save", save)
    load_index = caching.IndexDataCacheFile._load_index

    def slow_load_index(self):
        overloads = load_index(self)
        time.sleep(0.2)
        return overloads

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", slow_load_index)
    files = [caching.IndexDataCacheFile(str(tmp_path), "zip_kernel-1", "stamp") for _ in range(2)]
    threads = [threading.Thread(target=f.save, args=(key, f"code of {key}"))
               for f, key in zip(files, ["int //", "float //"])]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", load_index)
    return caching.IndexDataCacheFile(str(tmp_path), "zip_kernel-1", "stamp")


def test_simultaneous_saves_keep_each_version_with_its_own_code(monkeypatch, tmp_path):
    assert getattr(caching.IndexDataCacheFile.save, "holds_the_lock", False)
    cache = save_two_versions_at_once(monkeypatch, tmp_path, caching.IndexDataCacheFile.save)
    assert cache.load("int //") == "code of int //"
    assert cache.load("float //") == "code of float //"


def test_without_the_lock_the_same_timing_loses_or_mixes_a_version(monkeypatch, tmp_path):
    unlocked = caching.IndexDataCacheFile.save.__wrapped__  # Numba's own save
    cache = save_two_versions_at_once(monkeypatch, tmp_path, unlocked)
    found = [cache.load("int //"), cache.load("float //")]
    assert found != ["code of int //", "code of float //"]  # what the lock is for
