"""Every kernel specialisation compiles with NVRTC for real GPU architectures.

No GPU is needed: CuPy's low-level ``cupy.cuda.nvrtc`` (with the ``nvidia-cuda-nvrtc``
wheel) turns CUDA C into a cubin for sm_75 (Turing, Colab's T4), sm_80 (Ampere) and
sm_90 (Hopper). Warnings are errors (``-Werror all-warnings``).

To keep CI fast, these compiles use ``--Ofast-compile=max`` (the optimiser does less;
parsing, type checking, warnings and code generation for the architecture are the same),
and a passing (module, architecture, options) is remembered in the user cache, so an
unchanged module is not compiled again. One module per kernel file is also compiled
with full optimisation, as CuPy does at run time.
"""

from __future__ import annotations

import hashlib
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from minitorch.backends import cuda_emulator
from minitorch.backends.cuda import device
from minitorch.backends.cuda import source as cuda_source

ARCHITECTURES = ["sm_75", "sm_80", "sm_90"]
FILES = sorted(set(cuda_source.FILES.values()))


def _nvrtc():
    try:
        from cupy.cuda import nvrtc

        version = nvrtc.getVersion()
    except Exception as error:  # noqa: BLE001 - missing cupy, or no NVRTC library
        pytest.skip(f"cupy.cuda.nvrtc is not usable ({type(error).__name__}: {error}); "
                    "pip install cupy-cuda13x nvidia-cuda-nvrtc")  # fmt: skip
    return nvrtc, version


def compile_cuda(source: str, name: str, options: list[str]) -> str | None:
    """Compile with NVRTC; None on success, else the log (which names file and line)."""
    nvrtc, _ = _nvrtc()
    program = nvrtc.createProgram(source, name, [], [])
    try:
        nvrtc.compileProgram(program, options)
        assert nvrtc.getCUBIN(program)
        return None
    except nvrtc.NVRTCError:
        return nvrtc.getProgramLog(program)
    finally:
        nvrtc.destroyProgram(program)


def _options(architecture: str, fast: bool) -> list[str]:
    _, version = _nvrtc()
    options = [f"--gpu-architecture={architecture}", "-Werror", "all-warnings",
               *device.NVRTC_OPTIONS]  # fmt: skip
    if fast and tuple(version) >= (12, 8):
        options.append("--Ofast-compile=max")
    return options


def _checked_already(source: str, options: list[str]) -> tuple[bool, object]:
    _, version = _nvrtc()
    key = hashlib.sha256("\0".join([source, *options, str(version)]).encode()).hexdigest()
    marker = cuda_emulator.cache_dir().parent / "nvrtc-checked" / key[:32]
    return marker.exists(), marker


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("file", FILES)
def test_every_specialisation_compiles(file, architecture):
    options = _options(architecture, fast=True)
    modules = [m for m in cuda_source.all_modules() if m[0] == file]
    assert modules

    def check(module):
        source = cuda_source.module_source(*module)
        done, marker = _checked_already(source, options)
        if done:
            return None
        log = compile_cuda(source, file, options)
        if log is None:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
            return None
        return f"{module[:3]} for {architecture}:\n{log}"

    with ThreadPoolExecutor(2) as pool:
        failures = [f for f in pool.map(check, modules) if f]
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("file", FILES)
def test_full_optimisation_compiles(file):
    module = next(m for m in cuda_source.all_modules() if m[0] == file and m[1] == "float32")
    source = cuda_source.module_source(*module)
    options = _options("sm_80", fast=False)
    done, marker = _checked_already(source, options)
    if not done:
        log = compile_cuda(source, file, options)
        assert log is None, log
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()


def test_compile_errors_name_the_file_and_line(monkeypatch):
    """A broken scalar-op expression: NVRTC's log points into map.cu."""
    source = cuda_source.module_source("map.cu", "float32", "float32", ("copy",))
    broken = source.replace("#define OP(a) ((a))", "#define OP(a) (no_such_function(a))")
    log = compile_cuda(broken, "map.cu", _options("sm_80", fast=True))
    assert log is not None and "map.cu(" in log and "no_such_function" in log


def test_kernel_files_include_nothing():
    """NVRTC has no standard headers: the sources must not #include anything."""
    directory = cuda_emulator.kernels_dir()
    for path in [directory / "strided.cuh", *directory.glob("*.cu")]:
        assert not re.search(r"^\s*#\s*include", path.read_text(), re.MULTILINE), path.name
