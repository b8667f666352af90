"""Building the emulator's kernels: CUDA source in, a shared library out.

A kernel module's CUDA C goes through three steps (``RawModule.compile`` in
``cuda_emulator.py`` calls them):

1. ``build_translation_unit``: the host compiler's preprocessor expands the source's own
   macros (no system headers, as NVRTC), then two rewrites make it C++: an
   ``extern __shared__ T name[];`` becomes a pointer into the launch's dynamic shared
   memory, and every ``__global__`` kernel gets an exported ``mt_launch_<name>`` that
   hands it to the scheduler.
2. ``_cached_build``: g++ (or clang++) compiles that against
   ``kernels/emulator/cuda_emulator.h`` into a shared library, kept in a cache keyed by a
   hash of the source, the header, the flags and the compiler's version, so a kernel is
   compiled once per machine.
3. ``_runtime``: the scheduler (``kernels/emulator/scheduler.cpp``) is built the same way
   and loaded first, globally, so every kernel library links to it.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

COMPILE_FLAGS = [
    "-std=c++20", "-O2", "-fPIC", "-shared",
    "-fwrapv",  # signed overflow wraps, as it does on a GPU
    "-fno-strict-aliasing",
    "-U_FORTIFY_SOURCE",  # its longjmp check rejects jumps between coroutine stacks
    "-w",
]  # fmt: skip


class CompileError(RuntimeError):
    """The host compiler rejected a kernel module; the message holds its log."""


def kernels_dir() -> Path:
    """The ``kernels/`` directory (``$MINITORCH_KERNELS_DIR`` overrides where
    ``minitorch.resources`` finds it)."""
    override = os.environ.get("MINITORCH_KERNELS_DIR")
    if override:
        return Path(override)
    from minitorch.resources import resource_dir

    return resource_dir("kernels")


def cache_dir() -> Path:
    """Where compiled kernel libraries are kept (never inside the repository)."""
    root = os.environ.get("MINITORCH_CACHE_DIR")
    if root:
        base = Path(root)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) / "minitorch" if xdg else Path.home() / ".cache" / "minitorch"
    path = base / "cuda-emulator"
    path.mkdir(parents=True, exist_ok=True)
    return path


def find_compiler() -> str | None:
    """The host C++ compiler: ``$CXX``, else g++, c++ or clang++ on the PATH."""
    for name in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def is_available() -> bool:
    return find_compiler() is not None


def unavailable_reason() -> str:
    if find_compiler() is None:
        return (
            "the CUDA emulator needs a C++20 compiler (g++ 10+ or clang++ 12+), and none "
            "was found on the PATH (set CXX to choose one)"
        )
    return ""


_compiler_version: str | None = None
_runtime_library: ctypes.CDLL | None = None
_build_lock = threading.Lock()


def _compiler() -> str:
    global _compiler_version
    compiler = find_compiler()
    if compiler is None:
        raise RuntimeError(unavailable_reason())
    if _compiler_version is None:
        _compiler_version = subprocess.run(
            [compiler, "--version"], capture_output=True, text=True, check=False
        ).stdout
    return compiler


def _cached_build(name: str, source: str, extra_flags: Sequence[str] = ()) -> Path:
    """Compile ``source`` (a C++ translation unit) into a cached shared library."""
    compiler = _compiler()
    header_dir = kernels_dir() / "emulator"
    digest = hashlib.sha256()
    for part in (source, " ".join([*COMPILE_FLAGS, *extra_flags]), _compiler_version or ""):
        digest.update(part.encode())
        digest.update(b"\0")
    for header in sorted(header_dir.glob("*.h")):
        digest.update(header.read_bytes())
    target = cache_dir() / f"{name}-{digest.hexdigest()[:20]}.so"
    if target.exists():
        return target
    with tempfile.TemporaryDirectory(prefix="minitorch-emu-") as work:
        source_path = Path(work) / f"{name}.cpp"
        source_path.write_text(source)
        output = Path(work) / "module.so"
        command = [compiler, *COMPILE_FLAGS, *extra_flags, f"-I{header_dir}",
                   str(source_path), "-o", str(output)]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise CompileError(
                f"g++ could not build the emulated CUDA module {name!r}:\n{result.stderr}"
            )
        os.replace(output, target)  # atomic: parallel sessions never see half a file
    return target


def _runtime() -> ctypes.CDLL:
    """The scheduler library, loaded with RTLD_GLOBAL so kernel modules link to it."""
    global _runtime_library
    with _build_lock:
        if _runtime_library is None:
            source = (kernels_dir() / "emulator" / "scheduler.cpp").read_text()
            path = _cached_build("scheduler", source)
            library = ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
            library.mt_emulator_last_error.restype = ctypes.c_char_p
            _runtime_library = library
    return _runtime_library


_EXTERN_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?"
    r"(?P<type>[A-Za-z_][\w\s]*?[\w*])\s*(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;"
)
_KERNEL = re.compile(r"__global__\s+void\s+(?P<name>[A-Za-z_]\w*)\s*\(")


def _preprocess(code: str) -> str:
    """Expand the kernel source's own macros (no system headers, like NVRTC), so that
    the specialised kernel names can be found."""
    command = [_compiler(), "-E", "-x", "c++", "-std=c++20", "-nostdinc",
               "-D__CUDACC__", "-DMINITORCH_CUDA_EMULATOR=1", "-"]  # fmt: skip
    result = subprocess.run(command, input=code, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise CompileError(f"preprocessing the CUDA source failed:\n{result.stderr}")
    return result.stdout


def build_translation_unit(code: str) -> tuple[str, list[str]]:
    """The C++ the host compiler builds for CUDA ``code``, and the kernel names.

    Two rewrites: ``extern __shared__ T name[];`` becomes a pointer into the launch's
    dynamic shared memory, and each kernel gets an exported ``mt_launch_<name>``.
    """
    expanded = _preprocess(code)
    expanded = _EXTERN_SHARED.sub(
        lambda m: f"{m['type']} *const {m['name']} = "
        f"static_cast<{m['type']} *>(mt_emu::dynamic_shared_memory());",
        expanded,
    )
    names = list(dict.fromkeys(m["name"] for m in _KERNEL.finditer(expanded)))
    wrappers = [
        f'extern "C" int mt_launch_{n}(const mt_emu::LaunchConfig* c, void** p) '
        f'{{ return mt_emu::launch<{n}>(c, p, "{n}"); }}'
        for n in names
    ]
    return '#include "cuda_emulator.h"\n' + expanded + "\n" + "\n".join(wrappers) + "\n", names
