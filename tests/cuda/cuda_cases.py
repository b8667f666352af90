"""Operands for the CUDA kernel tests: NumPy values in adversarial strided layouts.

An ``Operand`` is a flat storage plus (shape, strides, offset), the way kernels see
tensors. The same operand is handed to the reference backend (a host copy) and to the
CUDA backend (a device copy), and their outputs are compared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minitorch.backends import Strided, cuda, reference
from minitorch.layout import contiguous_strides, numel

DTYPES = ["bool", "int32", "int64", "float32", "float64"]
FLOATS = ["float32", "float64"]
LAYOUTS = ["contiguous", "transposed", "stepped", "broadcast"]


@dataclass
class Operand:
    storage: np.ndarray  # flat host values
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int

    def host(self) -> Strided:
        return Strided(self.storage.copy(), self.shape, self.strides, self.offset)

    def device(self) -> Strided:
        return Strided(cuda.from_numpy(self.storage), self.shape, self.strides, self.offset)


def random_values(rng: np.random.Generator, dtype: str, count: int, low: float = -6,
                  high: float = 6) -> np.ndarray:  # fmt: skip
    if dtype == "bool":
        return rng.random(count) < 0.5
    if dtype in FLOATS:
        return rng.uniform(low, high, count).astype(dtype)
    return rng.integers(int(low), int(high) + 1, count).astype(dtype)


def operand(rng: np.random.Generator, dtype: str, shape: tuple[int, ...], layout: str,
            **value_range: float) -> Operand:  # fmt: skip
    """Random values of ``dtype`` viewed at ``shape`` through ``layout``:

    * contiguous -- row-major;
    * transposed -- the storage holds the reversed shape, read with reversed strides;
    * stepped    -- every other cell (all strides doubled), starting at offset 3;
    * broadcast  -- the first dimension of size > 1 has stride 0 (re-reads one slice).
    """
    if layout == "contiguous":
        strides, offset, cells = contiguous_strides(shape), 0, numel(shape)
    elif layout == "transposed":
        strides = tuple(reversed(contiguous_strides(tuple(reversed(shape)))))
        offset, cells = 0, numel(shape)
    elif layout == "stepped":
        strides = tuple(2 * s for s in contiguous_strides(shape))
        offset, cells = 3, 2 * numel(shape) + 3
    elif layout == "broadcast":
        stretched = next((d for d, size in enumerate(shape) if size > 1), 0)
        squeezed = tuple(1 if d == stretched else size for d, size in enumerate(shape))
        strides = tuple(0 if d == stretched else s for d, s in enumerate(contiguous_strides(squeezed)))
        offset, cells = 0, numel(squeezed)
    else:
        raise ValueError(layout)
    values = random_values(rng, dtype, max(cells, 1), **value_range)
    return Operand(values, tuple(shape), strides, offset)


def output(dtype: str, shape: tuple[int, ...], layout: str = "contiguous") -> Operand:
    """An output operand filled with a recognisable value (cells a kernel must not touch
    keep it, so the whole storage is compared)."""
    fill = {"bool": False, "int32": -7, "int64": -7, "float32": -7.5, "float64": -7.5}[dtype]
    if layout == "transposed":
        strides = tuple(reversed(contiguous_strides(tuple(reversed(shape)))))
        return Operand(np.full(max(numel(shape), 1), fill, dtype), shape, strides, 0)
    if layout == "stepped":
        strides = tuple(2 * s for s in contiguous_strides(shape))
        return Operand(np.full(2 * numel(shape) + 3, fill, dtype), shape, strides, 3)
    return Operand(np.full(max(numel(shape), 1), fill, dtype), shape, contiguous_strides(shape), 0)


def run_both(primitive: str, out: Operand, *args) -> tuple[np.ndarray, np.ndarray]:
    """Run ``primitive`` on the reference backend and on the CUDA backend; return both
    output storages (host arrays). ``args`` may mix Operands and plain values."""
    host_out, device_out = out.host(), out.device()
    host_args = [a.host() if isinstance(a, Operand) else a for a in args]
    device_args = [a.device() if isinstance(a, Operand) else a for a in args]
    if primitive == "scatter_add":  # (out, dim, index, src)
        getattr(reference, primitive)(host_out, *host_args)
        getattr(cuda, primitive)(device_out, *device_args)
    elif primitive in ("map", "zip", "reduce", "arg_reduce"):  # the op comes first
        op, *rest_host = host_args
        getattr(reference, primitive)(op, host_out, *rest_host)
        getattr(cuda, primitive)(op, device_out, *device_args[1:])
    else:
        getattr(reference, primitive)(host_out, *host_args)
        getattr(cuda, primitive)(device_out, *device_args)
    return host_out.storage, cuda.to_numpy(device_out.storage)


def assert_same(expected: np.ndarray, actual: np.ndarray, rtol: float | None = None,
                atol: float | None = None) -> None:  # fmt: skip
    """Exact for bool and integers; close (NaN equal to NaN) for floats."""
    assert expected.dtype == actual.dtype and expected.shape == actual.shape
    if expected.dtype.kind == "f":
        tight = expected.dtype == np.float64
        np.testing.assert_allclose(
            actual, expected, equal_nan=True,
            rtol=rtol if rtol is not None else (1e-12 if tight else 2e-6),
            atol=atol if atol is not None else (1e-12 if tight else 1e-6),
        )  # fmt: skip
    else:
        np.testing.assert_array_equal(actual, expected)
