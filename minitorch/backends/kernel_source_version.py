"""A number that changes whenever the code a Numba kernel compiles from may have changed.

Numba keeps compiled kernels on disk (``cache=True``) and checks only the timestamp of the
file that defines a cached kernel, not of the functions the kernel calls from other files
(``scalar_ops.relu``...). So the kernel factories capture ``code_version(fn)``: a checksum
of the file defining ``fn`` and of the Numba backend's own files. Numba keys its disk cache
on captured values, so editing ``scalar_ops.py`` compiles the kernels anew instead of
loading stale ones.

This file reads the sources only and imports nothing from the Numba backend, so the course's
warm-up can name "this version of the kernels" (``minitorch/course/warm_up.py``) without
loading that backend in a chapter that runs on the reference one.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

NUMBA_BACKEND = Path(__file__).parent / "numba"

_versions: dict[str, int] = {}  # module file -> checksum, read once per process


def code_version(fn) -> int:
    """The checksum of the file defining ``fn`` and of every file of the Numba backend."""
    module_file = sys.modules[fn.__module__].__file__
    if module_file not in _versions:
        files = [Path(module_file), *sorted(NUMBA_BACKEND.glob("*.py"))]
        _versions[module_file] = zlib.crc32(b"".join(path.read_bytes() for path in files))
    return _versions[module_file]
