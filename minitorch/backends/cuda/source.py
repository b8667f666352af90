"""Specialising the ``.cu`` files: which ops go in one module, and its complete source.

A kernel is written once with placeholders (``T``, ``IN_T``, ``OUT_T``, ``OP(a, b)``,
``KERNEL(name)``). For ``map`` of ``exp`` on float32 this module pastes, in front of
``kernels/map.cu``::

    #define KERNEL(name) name##_exp_float32_float32
    #define IN_T float
    #define OUT_T float
    #define T float
    #define OP(a) (exp((a)))

The expression comes from the scalar-op table (``minitorch/scalar_ops.py``). To save
compiler time, one *module* holds every op that goes with one family and one pair of
dtypes (all the map ops float32 -> float32, say). Pure text work: nothing is compiled
here (``loader.py`` does that).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from minitorch.backends import cuda_emulator
from minitorch.scalar_ops import MAP_OPS, REDUCE_OPS, ZIP_OPS

C_TYPES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short",
           "int32": "int", "int64": "long long", "float32": "float", "float64": "double"}  # fmt: skip
SMALL_INTS = ("bool", "uint8", "int8", "int16", "int32")  # they sum to int64, as in PyTorch
FLOATS = ("float32", "float64")
FILES = {"map": "map.cu", "zip": "zip.cu", "where": "where.cu", "reduce": "reduce.cu",
         "arg_reduce": "arg_reduce.cu", "matmul": "matmul.cu",
         "gather": "gather_scatter.cu", "scatter_add": "gather_scatter.cu",
         "scan": "scan.cu", "softmax": "softmax.cu",
         "log_softmax_backward": "log_softmax_backward.cu"}  # fmt: skip
LOWEST = {"bool": "false", "uint8": "0", "int8": "(-128)", "int16": "(-32768)",
          "int32": "(-2147483647 - 1)", "int64": "(-9223372036854775807LL - 1)",
          "float32": "(-__int_as_float(0x7f800000))",
          "float64": "(-__longlong_as_double(0x7ff0000000000000LL))"}  # fmt: skip
HIGHEST = {"bool": "true", "uint8": "255", "int8": "127", "int16": "32767", "int32": "2147483647",
           "int64": "9223372036854775807LL",
           "float32": "__int_as_float(0x7f800000)",
           "float64": "__longlong_as_double(0x7ff0000000000000LL)"}  # fmt: skip


def dtype_name(storage_or_dtype: Any) -> str:
    """"float32", "int64", ... for a storage array or a NumPy dtype."""
    name = np.dtype(getattr(storage_or_dtype, "dtype", storage_or_dtype)).name
    if name not in C_TYPES:
        shown = {"uint16": "bfloat16"}.get(name, name)  # bfloat16 is stored as 16-bit words
        raise TypeError(f"the CUDA backend does not support dtype {shown} (yet): compute in "
                        "float32 on the GPU, or use the CPU")  # fmt: skip
    return name


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
            return ("copy",) + tuple(o for o in MAP_OPS if MAP_OPS[o].returns_float)
        return ("copy",)
    if file == "zip.cu":
        if same:
            return tuple(ZIP_OPS)
        if to_bool:
            return tuple(o for o in ZIP_OPS if ZIP_OPS[o].returns_bool)
        return tuple(o for o in ZIP_OPS if int_to_float and ZIP_OPS[o].returns_float)
    if file == "reduce.cu":
        if same:
            return tuple(REDUCE_OPS)
        if to_bool:
            return ("any", "all")
        return ("sum", "prod") if in_name in SMALL_INTS and out_name == "int64" else ()
    if file == "arg_reduce.cu":
        return ("argmax", "argmin") if out_name == "int64" else ()
    if file == "scan.cu":  # the ops layer converts the input to the result dtype first
        return ("sum", "prod") if same and in_name != "bool" else ()
    if file == "softmax.cu":  # floats only (the ops layer refuses others)
        return ("softmax", "log_softmax") if same and in_name in FLOATS else ()
    if file == "log_softmax_backward.cu":  # floats only, no op
        return ("",) if same and in_name in FLOATS else ()
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
    if family in ("map", "zip", "reduce", "arg_reduce", "scan", "softmax"):
        return f"{family}_{op}_{in_name}_{out_name}"
    if family == "where":
        return f"where_{in_name}_{out_name}"
    return f"{family}_{in_name}"  # matmul, gather, scatter_add: one dtype


def defines(file: str, op: str, in_name: str, out_name: str) -> dict[str, str]:
    """The placeholders of one specialisation (see the comment at the top of each .cu).
    An op that returns a float (``returns_float``: exp, div...) computes in double for
    integer inputs, like the reference."""
    in_c, out_c = C_TYPES[in_name], C_TYPES[out_name]
    if file in ("map.cu", "zip.cu"):
        table = MAP_OPS if file == "map.cu" else ZIP_OPS
        scalar_op = table[op]
        compute = "double" if in_name not in FLOATS and scalar_op.returns_float else in_c
        params = "a" if scalar_op.arity == 1 else "a, b"
        return {"KERNEL(name)": f"name##_{op}_{in_name}_{out_name}", "IN_T": in_c,
                "OUT_T": out_c, "T": compute, f"OP({params})": _expression(scalar_op.cuda)}  # fmt: skip
    if file in ("reduce.cu", "scan.cu"):
        reduction = REDUCE_OPS[op]
        if reduction.identity is not None:
            identity = f"((T){int(reduction.identity)})"
        else:
            identity = (LOWEST if reduction.combine.name == "maximum" else HIGHEST)[out_name]
        return {"KERNEL(name)": f"name##_{op}_{in_name}_{out_name}", "IN_T": in_c,
                "OUT_T": out_c, "T": out_c, "OP(a, b)": _expression(reduction.combine.cuda),
                "IDENTITY": identity}  # fmt: skip
    if file == "softmax.cu":
        return {"KERNEL(name)": f"name##_{op}_{in_name}_{out_name}", "T": in_c,
                "LOG_SOFTMAX": "true" if op == "log_softmax" else "false"}  # fmt: skip
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
        placeholders = defines(file, op, in_name, out_name)
        parts += [f"#define {key} {value}" for key, value in placeholders.items()]
        parts += [f'#line 1 "{file}"', body]
        parts += [f"#undef {key.split('(')[0]}" for key in placeholders]
    return "\n".join(parts) + "\n"
