"""The CUDA backend: minitorch's primitives as readable CUDA C kernels.

The kernels live in ``kernels/*.cu`` (one family per file) and ``kernels/strided.cuh``
(the shared header: strided indexing and Python's ``//``, ``%``, ``**``). This module is
their *loader* and *launcher*:

1. **Where kernels run.** On a real GPU through CuPy (``cupy.RawModule``; storage is a
   ``cupy.ndarray``), or on the CPU emulator of the same ``.cu`` files
   (``minitorch/backends/cuda_emulator.py``; storage is an emulated ``DeviceArray``),
   after ``minitorch.cuda.use_emulator()`` or with ``MINITORCH_CUDA=emulator``. Both
   offer the same ``RawModule`` interface, so everything below is one code path.
2. **Specialising.** A kernel is written once with placeholders (``T``, ``IN_T``,
   ``OUT_T``, ``OP(a, b)``, ``KERNEL(name)``). For ``map`` of ``exp`` on float32 the
   loader pastes, in front of ``map.cu``::

       #define KERNEL(name) name##_exp_float32_float32
       #define IN_T float
       #define OUT_T float
       #define T float
       #define OP(a) (exp((a)))

   The expression comes from the scalar-op table (``minitorch/scalar_ops.py``). To save
   compiler time, one *module* holds every op that goes with one family and one pair of
   dtypes (all 20 map ops float32 -> float32, say); it is compiled on first use and
   cached (CuPy on disk in ``~/.cupy``; the emulator in ``~/.cache/minitorch``).
3. **Launching.** Python checks and prepares everything a kernel assumes: dimensions
   that can be merged are merged (a contiguous tensor becomes 1-D, and then the kernel
   takes its no-division fast path), each operand's layout is packed into an ``MtLayout``
   struct passed by value, launch sizes are computed and checked. Launches are
   asynchronous on a GPU; ``to_numpy`` (hence ``.item()``, ``.cpu()``, printing) waits.

Every kernel function agrees with the same-named function of ``reference.py``.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch.backends import Strided, cuda_emulator
from minitorch.layout import numel
from minitorch.scalar_ops import MAP_OPS, REDUCE_OPS, ZIP_OPS

NAME = "cuda"
DEVICE_TYPE = "cuda"

MAX_DIMS = 10  # MT_MAX_DIMS in kernels/strided.cuh
THREADS = 256  # threads per block of elementwise and reduction kernels (= MT_ARG_BLOCK)
TILE = 16  # MT_TILE in kernels/matmul.cu
NVRTC_OPTIONS = ("--std=c++17",)


class CudaCompileError(RuntimeError):
    """A kernel module did not compile; the message holds the compiler's log."""


# ======================================================================================
# 1. Where kernels run: a GPU through CuPy, or the emulator
# ======================================================================================

_MODES = {"": "auto", "auto": "auto", "gpu": "gpu", "cupy": "gpu", "emulator": "emulator"}
_mode = _MODES.get(os.environ.get("MINITORCH_CUDA", "").strip().lower(), "invalid")
_gpu_problem_cache: list[str | None] = []
_runtimes: dict[str, Any] = {}  # "gpu" / "emulator" -> its runtime, made on first use
_lock = threading.RLock()


def use_emulator() -> None:
    """Run device "cuda" on the CPU emulator from now on (same as MINITORCH_CUDA=emulator).
    Call it before creating CUDA tensors: storage made on a GPU cannot be used by it."""
    global _mode
    if not cuda_emulator.is_available():
        raise RuntimeError(f"cannot use the CUDA emulator: {cuda_emulator.unavailable_reason()}")
    _mode = "emulator"


@contextlib.contextmanager
def running_on(mode: str) -> Iterator[None]:
    """Run device "cuda" on ``"emulator"`` or ``"gpu"`` inside a ``with`` block (tests)."""
    global _mode
    previous = _mode
    if mode == "emulator":
        use_emulator()
    elif mode == "gpu" and _gpu_problem() is None:
        _mode = "gpu"
    else:
        raise RuntimeError(f"cannot run CUDA on {mode!r}: {_gpu_problem()}")
    try:
        yield
    finally:
        _mode = previous


def emulated() -> contextlib.AbstractContextManager:
    """``with emulated():`` runs device "cuda" on the emulator inside the block."""
    return running_on("emulator")


def using_emulator() -> bool:
    return _mode == "emulator"


def _gpu_problem() -> str | None:
    """Why CuPy cannot run kernels on a GPU here (None when it can)."""
    if not _gpu_problem_cache:
        try:
            import cupy

            count = cupy.cuda.runtime.getDeviceCount()
            problem = None if count > 0 else "no CUDA GPU was found"
        except ImportError as error:
            problem = f"CuPy is not installed ({error})"
        except Exception as error:  # noqa: BLE001 - CUDARuntimeError without a driver/GPU
            problem = f"no CUDA GPU was found (CuPy says: {type(error).__name__}: {error})"
        _gpu_problem_cache.append(problem)
    return _gpu_problem_cache[0]


def is_available() -> bool:
    """True when device "cuda" can run: a GPU with CuPy, or the emulator was chosen."""
    if _mode == "emulator":
        return cuda_emulator.is_available()
    return _mode != "invalid" and _gpu_problem() is None


def unavailable_reason() -> str:
    """Why device "cuda" cannot run, and the two ways forward ("" when it can)."""
    if is_available():
        return ""
    if _mode == "invalid":
        return (
            f"MINITORCH_CUDA={os.environ.get('MINITORCH_CUDA')!r} is not understood: use "
            "'emulator' (the CPU emulator of the CUDA kernels), 'gpu', or leave it unset"
        )
    if _mode == "emulator":
        return f"the CUDA emulator was requested, but {cuda_emulator.unavailable_reason()}"
    return (
        f"CUDA is not available: {_gpu_problem()}. Two ways forward: (1) on a machine "
        "with an NVIDIA GPU (Colab, for example) install CuPy: pip install "
        "'minitorch[cuda]'; (2) without a GPU, run the very same CUDA kernels on the CPU "
        "emulator: call minitorch.cuda.use_emulator() or set MINITORCH_CUDA=emulator "
        "(it needs a C++ compiler such as g++)."
    )


class _GpuRuntime:
    """CuPy: real device memory and real launches."""

    emulated = False
    max_blocks = 4096  # plenty to fill any GPU; grid-stride loops do the rest

    def __init__(self) -> None:
        import cupy

        self.cupy = cupy
        self.storage_type = cupy.ndarray
        self.modules: dict[tuple, Any] = {}  # compiled modules and kernels of this runtime
        self.functions: dict[tuple, Any] = {}

    def raw_module(self, code: str, name: str) -> Any:
        return self.cupy.RawModule(code=code, options=NVRTC_OPTIONS)

    def empty(self, count: int, numpy_dtype: Any) -> Any:
        return self.cupy.empty(count, dtype=numpy_dtype)

    def from_numpy(self, array: np.ndarray) -> Any:
        return self.cupy.asarray(np.ascontiguousarray(array).reshape(-1))

    def to_numpy(self, storage: Any) -> np.ndarray:
        return self.cupy.asnumpy(storage)  # waits for the kernels that write it

    def synchronize(self) -> None:
        self.cupy.cuda.Device().synchronize()

    def memory_stats(self) -> dict[str, Any]:
        pool = self.cupy.get_default_memory_pool()
        return {"backend": "cupy", "allocated_bytes": pool.used_bytes(),
                "reserved_bytes": pool.total_bytes()}  # fmt: skip

    def device_count(self) -> int:
        return self.cupy.cuda.runtime.getDeviceCount()


class _EmulatorRuntime:
    """The CPU emulator: DeviceArray storage, kernels built by the host compiler."""

    emulated = True
    max_blocks = 64  # fewer coroutines; grid-stride loops still cover every element
    storage_type = cuda_emulator.DeviceArray

    def __init__(self) -> None:
        self.modules: dict[tuple, Any] = {}
        self.functions: dict[tuple, Any] = {}

    def raw_module(self, code: str, name: str) -> Any:
        return cuda_emulator.RawModule(code, NVRTC_OPTIONS, name=name)

    empty = staticmethod(cuda_emulator.empty)
    from_numpy = staticmethod(cuda_emulator.from_numpy)
    to_numpy = staticmethod(cuda_emulator.to_numpy)
    memory_stats = staticmethod(cuda_emulator.memory_stats)

    def synchronize(self) -> None:
        pass  # emulated launches finish before they return

    def device_count(self) -> int:
        return 1


def runtime() -> Any:
    """The runtime device "cuda" uses; raises a RuntimeError naming both ways forward
    when there is none."""
    found = _runtimes.get(_mode)
    if found is None:
        if not is_available():
            raise RuntimeError(unavailable_reason())
        with _lock:
            found = _runtimes.get(_mode)
            if found is None:
                found = _EmulatorRuntime() if _mode == "emulator" else _GpuRuntime()
                _runtimes[_mode] = found
    return found


def synchronize() -> None:
    runtime().synchronize()


def memory_stats() -> dict[str, Any]:
    return runtime().memory_stats()


def device_count() -> int:
    return runtime().device_count() if is_available() else 0


# ======================================================================================
# 2. The loader: .cu files -> specialised, cached modules
# ======================================================================================

C_TYPES = {"bool": "bool", "int32": "int", "int64": "long long",
           "float32": "float", "float64": "double"}  # fmt: skip
FLOATS = ("float32", "float64")
FILES = {"map": "map.cu", "zip": "zip.cu", "where": "where.cu", "reduce": "reduce.cu",
         "arg_reduce": "arg_reduce.cu", "matmul": "matmul.cu",
         "gather": "gather_scatter.cu", "scatter_add": "gather_scatter.cu"}  # fmt: skip
LOWEST = {"bool": "false", "int32": "(-2147483647 - 1)", "int64": "(-9223372036854775807LL - 1)",
          "float32": "(-__int_as_float(0x7f800000))",
          "float64": "(-__longlong_as_double(0x7ff0000000000000LL))"}  # fmt: skip
HIGHEST = {"bool": "true", "int32": "2147483647", "int64": "9223372036854775807LL",
           "float32": "__int_as_float(0x7f800000)",
           "float64": "__longlong_as_double(0x7ff0000000000000LL)"}  # fmt: skip


def dtype_name(storage_or_dtype: Any) -> str:
    """"float32", "int64", ... for a storage array or a NumPy dtype."""
    name = np.dtype(getattr(storage_or_dtype, "dtype", storage_or_dtype)).name
    if name not in C_TYPES:
        raise TypeError(f"the CUDA backend does not support dtype {name}")
    return name


def _float_result(op: Any) -> bool:
    """Does the reference compute ``op`` in floating point for integer inputs (exp, div...)?
    Then the kernel computes it in double, too."""
    with np.errstate(all="ignore"):
        return np.asarray(op.fn(*[np.int64(3)] * op.arity)).dtype.kind == "f"


def _expression(text: str) -> str:
    """A scalar op's CUDA C expression with its operands parenthesised, for a macro."""
    for name in ("a", "b"):
        text = re.sub(rf"\b{name}\b", f"({name})", text)
    return f"({text})"


def module_ops(file: str, in_name: str, out_name: str) -> tuple[str, ...]:
    """The ops compiled together in one module of ``file`` for ``in_name -> out_name``:
    the ops minitorch actually runs with that pair of dtypes."""
    same, to_bool = in_name == out_name, out_name == "bool"
    int_to_float = in_name not in FLOATS and out_name in FLOATS
    if file == "map.cu":
        if same:
            return tuple(MAP_OPS)
        if to_bool:
            return ("copy",) + tuple(o for o in MAP_OPS if MAP_OPS[o].returns_bool)
        if int_to_float:
            return ("copy",) + tuple(o for o in MAP_OPS if _float_result(MAP_OPS[o]))
        return ("copy",)
    if file == "zip.cu":
        if same:
            return tuple(ZIP_OPS)
        if to_bool:
            return tuple(o for o in ZIP_OPS if ZIP_OPS[o].returns_bool)
        return tuple(o for o in ZIP_OPS if int_to_float and _float_result(ZIP_OPS[o]))
    if file == "reduce.cu":
        if same:
            return tuple(REDUCE_OPS)
        if to_bool:
            return ("any", "all")
        return ("sum", "prod") if in_name in ("bool", "int32") and out_name == "int64" else ()
    if file == "arg_reduce.cu":
        return ("argmax", "argmin") if out_name == "int64" else ()
    return ("",) if same else ()  # where, matmul, gather_scatter: no op


def all_modules() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Every module the loader builds for the ops minitorch runs (tests compile each)."""
    modules = []
    for file in dict.fromkeys(FILES.values()):
        for in_name in C_TYPES:
            for out_name in C_TYPES:
                ops = module_ops(file, in_name, out_name)
                if ops:
                    modules.append((file, in_name, out_name, ops))
    return modules


def kernel_name(family: str, op: str, in_name: str, out_name: str) -> str:
    if family in ("map", "zip", "reduce", "arg_reduce"):
        return f"{family}_{op}_{in_name}_{out_name}"
    if family == "where":
        return f"where_{in_name}_{out_name}"
    return f"{family}_{in_name}"  # matmul, gather, scatter_add: one dtype


def _defines(file: str, op: str, in_name: str, out_name: str) -> dict[str, str]:
    """The placeholders of one specialisation (see the comment at the top of each .cu)."""
    in_c, out_c = C_TYPES[in_name], C_TYPES[out_name]
    if file in ("map.cu", "zip.cu"):
        table = MAP_OPS if file == "map.cu" else ZIP_OPS
        scalar_op = table[op]
        compute = "double" if in_name not in FLOATS and _float_result(scalar_op) else in_c
        params = "a" if scalar_op.arity == 1 else "a, b"
        return {"KERNEL(name)": f"name##_{op}_{in_name}_{out_name}", "IN_T": in_c,
                "OUT_T": out_c, "T": compute, f"OP({params})": _expression(scalar_op.cuda)}  # fmt: skip
    if file == "reduce.cu":
        reduction = REDUCE_OPS[op]
        if reduction.identity is not None:
            identity = f"((T){int(reduction.identity)})"
        else:
            identity = (LOWEST if reduction.combine.name == "maximum" else HIGHEST)[out_name]
        return {"KERNEL(name)": f"name##_{op}_{in_name}_{out_name}", "IN_T": in_c,
                "OUT_T": out_c, "T": out_c, "OP(a, b)": _expression(reduction.combine.cuda),
                "IDENTITY": identity}  # fmt: skip
    if file == "arg_reduce.cu":
        return {"KERNEL(name)": f"name##_{op}_{in_name}_{out_name}", "IN_T": in_c,
                "WANT_MAX": "true" if op == "argmax" else "false"}  # fmt: skip
    if file == "where.cu":
        return {"KERNEL(name)": f"name##_{in_name}_{out_name}", "IN_T": in_c, "OUT_T": out_c}
    return {"KERNEL(name)": f"name##_{in_name}", "T": in_c}  # matmul, gather_scatter


def _read_kernel_file(file: str) -> str:
    return (cuda_emulator.kernels_dir() / file).read_text()


def module_source(file: str, in_name: str, out_name: str, ops: tuple[str, ...]) -> str:
    """The complete CUDA source of one module: the shared header, then the kernel file
    pasted once per op with its placeholders defined (``#line`` keeps compiler messages
    pointing at the real file and line)."""
    parts = ['#line 1 "strided.cuh"', _read_kernel_file("strided.cuh")]
    body = _read_kernel_file(file)
    for op in ops:
        defines = _defines(file, op, in_name, out_name)
        parts += [f"#define {key} {value}" for key, value in defines.items()]
        parts += [f'#line 1 "{file}"', body]
        parts += [f"#undef {key.split('(')[0]}" for key in defines]
    return "\n".join(parts) + "\n"


_debug = int(os.environ.get("MINITORCH_DEBUG", "0") or 0)


def kernel(family: str, op: str, in_name: str, out_name: str) -> Any:
    """The compiled kernel function for one specialisation (compiling its module the
    first time)."""
    machine = runtime()
    key = (family, op, in_name, out_name)
    function = machine.functions.get(key)
    if function is not None:
        return function
    with _lock:
        file = FILES[family]
        ops = module_ops(file, in_name, out_name)
        if op not in ops:  # an unusual pair of dtypes: a module of its own
            ops = (op,)
        module_key = (file, in_name, out_name, ops)
        name = kernel_name(family, op, in_name, out_name)
        start = time.perf_counter()
        try:
            module = machine.modules.get(module_key)
            if module is None:
                source = module_source(*module_key)
                label = f"{file[:-3]}_{in_name}_{out_name}" + ("" if len(ops) > 1 else f"_{op}")
                module = machine.modules[module_key] = machine.raw_module(source, label)
            function = module.get_function(name)
        except (cuda_emulator.CompileError, _cupy_compile_error()) as error:
            raise CudaCompileError(f"CUDA kernel {name} ({file}) failed to compile:\n{error}") from None
        if _debug:  # MINITORCH_DEBUG=1: which kernel was loaded; =2: its specialisation too
            seconds = time.perf_counter() - start
            print(f"[minitorch] loaded CUDA kernel {name} in {seconds:.2f}s", file=sys.stderr)
            if _debug >= 2:
                defines = _defines(file, op, in_name, out_name).items()
                print("\n".join(f"  #define {k} {v}" for k, v in defines) + f"\n  + kernels/{file}",
                      file=sys.stderr)  # fmt: skip
        machine.functions[key] = function
        return function


def _cupy_compile_error() -> type[BaseException]:
    module = sys.modules.get("cupy.cuda.compiler")
    return getattr(module, "CompileException", cuda_emulator.CompileError)


# ======================================================================================
# 3. Launching
# ======================================================================================

LAYOUT_DTYPE = np.dtype(
    {"names": ["shape", "strides", "offset", "ndim"],
     "formats": [(np.int64, MAX_DIMS), (np.int64, MAX_DIMS), np.int64, np.int64]},
    align=True,
)  # fmt: skip


def layout(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> np.ndarray:
    """An ``MtLayout`` struct (a one-element NumPy structured array), passed by value."""
    if len(shape) > MAX_DIMS:
        raise RuntimeError(
            f"the CUDA backend supports at most {MAX_DIMS} dimensions (after merging the "
            f"ones that are contiguous), got shape {list(shape)}"
        )
    words = np.zeros(2 * MAX_DIMS + 2, dtype=np.int64)
    words[: len(shape)] = shape
    words[MAX_DIMS : MAX_DIMS + len(strides)] = strides
    words[2 * MAX_DIMS] = offset
    words[2 * MAX_DIMS + 1] = len(shape)
    return words.view(LAYOUT_DTYPE)


def merge_dims(shape: tuple[int, ...], *all_strides: tuple[int, ...]) -> tuple[tuple, list]:
    """Drop size-1 dimensions and merge neighbours that are contiguous in every operand:
    dims (d, d+1) merge when ``stride[d] == stride[d+1] * shape[d+1]`` for all of them.
    The kernels then do less index arithmetic; a contiguous tensor becomes 1-D.

    >>> merge_dims((2, 3, 4), (12, 4, 1), (0, 4, 1))
    ((2, 12), [(12, 1), (0, 1)])
    """
    merged: list[tuple[int, list[int]]] = []
    for d, size in enumerate(shape):
        if size == 1:
            continue
        strides = [s[d] for s in all_strides]
        if merged:
            previous_size, previous = merged[-1]
            if all(p == s * size for p, s in builtins.zip(previous, strides)):
                merged[-1] = (previous_size * size, strides)
                continue
        merged.append((size, strides))
    new_shape = tuple(size for size, _ in merged)
    return new_shape, [tuple(strides[i] for _, strides in merged) for i in range(len(all_strides))]


def _storage(operand: Strided) -> Any:
    storage = operand.storage
    if not isinstance(storage, runtime().storage_type):
        raise TypeError(
            f"expected CUDA storage ({runtime().storage_type.__name__}), got "
            f"{type(storage).__name__}: move the tensor with .to('cuda') first"
        )
    return storage


def launch(function: Any, grid: tuple[int, ...], block: tuple[int, ...], args: tuple,
           shared_mem: int = 0) -> None:  # fmt: skip
    """Launch after checking the sizes against a GPU's limits, so that a bad launch is a
    clear Python error instead of a CUDA driver error (or, emulated, a crash)."""
    grid3, block3 = (*grid, 1, 1)[:3], (*block, 1, 1)[:3]
    threads = block3[0] * block3[1] * block3[2]
    if not (1 <= grid3[0] < 2**31 and 1 <= grid3[1] <= 65535 and 1 <= grid3[2] <= 65535
            and min(block3) >= 1 and threads <= 1024 and block3[2] <= 64
            and 0 <= shared_mem <= 48 * 1024):  # fmt: skip
        raise RuntimeError(
            f"invalid CUDA launch: grid {grid3}, block {block3}, {shared_mem} bytes of shared "
            "memory (limits: grid x < 2^31, y and z <= 65535; at most 1024 threads and "
            "48 KB of shared memory per block)"
        )
    function(grid3, block3, args, shared_mem=shared_mem)


def _blocks(count: int, per_block: int) -> int:
    return max(1, min(-(-count // per_block), runtime().max_blocks))


def _elementwise(family: str, op: str, out: Strided, inputs: list[Strided],
                 in_name: str) -> None:  # fmt: skip
    """map, zip and where: one launch over every output element."""
    count = numel(out.shape)
    if count == 0:
        return
    shape, strides = merge_dims(out.shape, out.strides, *(t.strides for t in inputs))
    operands = [out, *inputs]
    layouts = [layout(shape, s, t.offset) for s, t in builtins.zip(strides, operands)]
    function = kernel(family, op, in_name, dtype_name(out.storage))
    args = (*(_storage(t) for t in operands), *layouts, np.int64(count))
    launch(function, (_blocks(count, THREADS),), (THREADS,), args)


def _reduction(family: str, op: str, out: Strided, a: Strided, dim: int) -> None:
    """reduce and arg_reduce: one row of a block per output cell (see reduce.cu)."""
    count = numel(out.shape)
    if count == 0:
        return
    size = a.shape[dim]
    outer = tuple(s for d, s in enumerate(out.shape) if d != dim)
    out_outer = tuple(s for d, s in enumerate(out.strides) if d != dim)
    a_outer = tuple(s for d, s in enumerate(a.strides) if d != dim)
    shape, (out_strides, a_strides) = merge_dims(outer, out_outer, a_outer)
    threads_x = 32  # a power of two from 32 to 256, about the reduced size
    while threads_x < min(size, THREADS):
        threads_x *= 2
    threads_y = THREADS // threads_x
    out_name = dtype_name(out.storage)
    function = kernel(family, op, dtype_name(a.storage), out_name)
    args = (_storage(out), _storage(a), layout(shape, out_strides, out.offset),
            layout(shape, a_strides, a.offset), np.int64(size), np.int64(a.strides[dim]),
            np.int64(count))  # fmt: skip
    shared = THREADS * np.dtype(out_name).itemsize if family == "reduce" else 0
    launch(function, (_blocks(count, threads_y),), (threads_x, threads_y), args, shared)


# --------------------------------------------------------------------------------------
# The primitives (the contract of minitorch/backends/__init__.py)
# --------------------------------------------------------------------------------------


def empty(count: int, numpy_dtype: Any) -> Any:
    """Uninitialised device storage for ``count`` elements."""
    dtype_name(np.dtype(numpy_dtype))
    return runtime().empty(count, numpy_dtype)


def from_numpy(array: np.ndarray) -> Any:
    """Copy a 1-D host array to the device."""
    dtype_name(array.dtype)
    return runtime().from_numpy(array)


def to_numpy(storage: Any) -> np.ndarray:
    """Copy device storage back to the host (waits for pending kernels)."""
    return runtime().to_numpy(storage)


def map(op: str, out: Strided, a: Strided) -> None:  # noqa: A001 (the primitive's name)
    """``out[i] = f(a[i])``: kernels/map.cu."""
    _elementwise("map", op, out, [a], dtype_name(a.storage))


def zip(op: str, out: Strided, a: Strided, b: Strided) -> None:  # noqa: A001
    """``out[i] = f(a[i], b[i])``: kernels/zip.cu."""
    if dtype_name(a.storage) != dtype_name(b.storage):
        raise TypeError("zip: both inputs must have one dtype (dispatch promotes them)")
    _elementwise("zip", op, out, [a, b], dtype_name(a.storage))


def where(out: Strided, cond: Strided, a: Strided, b: Strided) -> None:
    """``out[i] = a[i] if cond[i] else b[i]``: kernels/where.cu."""
    if dtype_name(cond.storage) != "bool" or dtype_name(a.storage) != dtype_name(b.storage):
        raise TypeError("where: the condition must be bool and a, b must share one dtype")
    _elementwise("where", "", out, [cond, a, b], dtype_name(a.storage))


def reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Fold dimension ``dim``: kernels/reduce.cu."""
    _reduction("reduce", op, out, a, dim)


def arg_reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Index of the first max/min along ``dim``: kernels/arg_reduce.cu."""
    if dtype_name(out.storage) != "int64":
        raise TypeError("arg_reduce writes int64 indices")
    _reduction("arg_reduce", op, out, a, dim)


def matmul(out: Strided, a: Strided, b: Strided) -> None:
    """``out[z] = a[z] @ b[z]`` with shared-memory tiles: kernels/matmul.cu."""
    batch, rows, cols = out.shape
    name = dtype_name(out.storage)
    if not dtype_name(a.storage) == dtype_name(b.storage) == name:
        raise TypeError("matmul: out, a and b must share one dtype")
    if batch * rows * cols == 0:
        return
    grid = (-(-cols // TILE), min(-(-rows // TILE), 65535), min(batch, 65535))
    args = (_storage(out), _storage(a), _storage(b), layout(out.shape, out.strides, out.offset),
            layout(a.shape, a.strides, a.offset), layout(b.shape, b.strides, b.offset))  # fmt: skip
    launch(kernel("matmul", "", name, name), grid, (TILE, TILE), args)


def _indexing(family: str, out: Strided, data: Strided, dim: int, index: Strided,
              walked: Strided) -> None:  # fmt: skip
    count = numel(walked.shape)
    if count == 0:
        return
    name = dtype_name(out.storage)
    if dtype_name(index.storage) != "int64" or dtype_name(data.storage) != name:
        raise TypeError(f"{family}: the index must be int64, and the values share out's dtype")
    args = (_storage(out), _storage(data), _storage(index),
            layout(out.shape, out.strides, out.offset),
            layout(data.shape, data.strides, data.offset),
            layout(index.shape, index.strides, index.offset), np.int64(dim), np.int64(count))  # fmt: skip
    launch(kernel(family, "", name, name), (_blocks(count, THREADS),), (THREADS,), args)


def gather(out: Strided, a: Strided, dim: int, index: Strided) -> None:
    """``out[i][j][k] = a[i][index[i][j][k]][k]`` (dim 1): kernels/gather_scatter.cu."""
    _indexing("gather", out, a, dim, index, out)


def scatter_add(out: Strided, dim: int, index: Strided, src: Strided) -> None:
    """``out[i][index[i][j][k]][k] += src[i][j][k]`` (dim 1): kernels/gather_scatter.cu."""
    _indexing("scatter_add", out, src, dim, index, src)
