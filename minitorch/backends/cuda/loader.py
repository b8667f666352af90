"""The loader: compile a specialised module once, keep its kernels.

``kernel("map", "exp", "float32", "float32")`` returns the compiled kernel function. The
first call for a module builds its source (``source.py``) and compiles it, on a GPU with
NVRTC through CuPy (cached on disk in ``~/.cupy``), emulated with the host C++ compiler
(cached in ``~/.cache/minitorch``); later calls find it in the runtime's dictionaries.
With ``MINITORCH_DEBUG=1`` (or ``minitorch.dispatch.set_debug(1)``) each load is printed
to stderr; ``=2`` adds the placeholders of the specialisation.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from minitorch import backends
from minitorch.backends import compile_time, cuda_emulator
from minitorch.backends.cuda.device import lock, runtime
from minitorch.backends.cuda.source import FILES, defines, kernel_name, module_ops, module_source


class CudaCompileError(RuntimeError):
    """A kernel module did not compile; the message holds the compiler's log."""


def kernel(family: str, op: str, in_name: str, out_name: str) -> Any:
    """The compiled kernel function for one specialisation (compiling its module the
    first time)."""
    machine = runtime()
    key = (family, op, in_name, out_name)
    function = machine.functions.get(key)
    if function is not None:
        return function
    with lock:
        file = FILES[family]
        ops = module_ops(file, in_name, out_name)
        if op not in ops:  # an unusual pair of dtypes: a module of its own
            ops = (op,)
        module_key = (file, in_name, out_name, ops)
        name = kernel_name(family, op, in_name, out_name)
        start = time.perf_counter()
        try:
            with compile_time.compiling():  # a trace shows it apart from the kernel's own time
                module = machine.modules.get(module_key)
                if module is None:
                    source = module_source(*module_key)
                    label = f"{file[:-3]}_{in_name}_{out_name}" + ("" if len(ops) > 1 else f"_{op}")
                    module = machine.modules[module_key] = machine.raw_module(source, label)
                function = module.get_function(name)
        except (cuda_emulator.CompileError, _cupy_compile_error()) as error:
            raise CudaCompileError(f"CUDA kernel {name} ({file}) failed to compile:\n{error}") from None
        if backends.debug_level:  # which kernel was loaded; at 2 its specialisation too
            seconds = time.perf_counter() - start
            print(f"[minitorch] loaded CUDA kernel {name} in {seconds:.2f}s", file=sys.stderr)
            if backends.debug_level >= 2:
                placeholders = defines(file, op, in_name, out_name).items()
                print("\n".join(f"  #define {k} {v}" for k, v in placeholders) + f"\n  + kernels/{file}",
                      file=sys.stderr)  # fmt: skip
        machine.functions[key] = function
        return function


def _cupy_compile_error() -> type[BaseException]:
    module = sys.modules.get("cupy.cuda.compiler")
    return getattr(module, "CompileException", cuda_emulator.CompileError)
