"""Checks for the fast-CPU exercises (chapter 5): a Numba map kernel and a Numba matmul.

Kernel arguments follow the chapter: a storage (flat NumPy array) and its layout as
int64 arrays, ``kernel(out, out_shape, out_strides, out_offset, a, a_shape, a_strides,
a_offset)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import minitorch
from minitorch.backends import reference as reference_backend
from minitorch.course.cases import KINDS, describe_tensor, random_shape, random_tensor, rng, strided
from minitorch.course.report import CheckFailed, call_student, checker, fail
from minitorch.scalar_ops import MAP_OPS


def _layout_arrays(t: minitorch.Tensor) -> tuple:
    return (t._storage, np.array(t.shape, np.int64), np.array(t.stride(), np.int64),
            np.int64(t.storage_offset()))  # fmt: skip


def _require_numba(kernel: object, what: str) -> None:
    __tracebackhide__ = True
    import numba.core.registry

    if not isinstance(kernel, numba.core.registry.CPUDispatcher):
        raise CheckFailed(
            f"{what} is a plain Python function, not a Numba kernel: decorate it with "
            "@numba.njit (and parallel=True for prange)."
        )


@checker
def check_numba_map(make_map: Callable) -> str:
    """``make_map(f)`` returns a Numba kernel computing ``out[i] = f(a[i])``."""
    __tracebackhide__ = True
    import numba

    generator = rng(30)
    count = 0
    for op in ["neg", "exp"]:
        f = numba.njit(MAP_OPS[op].fn)
        kernel = call_student("make_map", make_map, f, case=f"make_map(f) with f = {op}")
        _require_numba(kernel, "make_map(f)")
        for n in range(12):
            shape = random_shape(generator, min_ndim=1, max_ndim=3)
            a = random_tensor(generator, shape, KINDS[n % len(KINDS)])
            out_kind = "transposed" if n % 3 == 2 else "contiguous"
            out = random_tensor(generator, shape, out_kind)
            out._storage[:] = np.nan
            expected = minitorch.empty(*shape, dtype=minitorch.float64)
            reference_backend.map(op, strided(expected), strided(a))
            case = f"f = {op}, {describe_tensor('a', a)}; {describe_tensor('out', out)}"
            call_student("the map kernel", kernel, *_layout_arrays(out), *_layout_arrays(a), case=case)
            count += 1
            got, want = out.numpy(), expected.numpy()
            if not np.allclose(got, want):
                hint = ""
                if np.isnan(got).any():
                    hint = "some elements were never written: loop over all numel elements."
                elif a.is_contiguous() is False:
                    hint = "read `a` with its own strides and offset (it is not contiguous here)."
                raise fail("the map kernel", case, want, got, hint)
    return f"your Numba map kernel agrees with the reference on {count} cases."


@checker
def check_numba_matmul(kernel: Callable) -> str:
    """``kernel(out, a, b)`` on 2-D NumPy arrays: ``out = a @ b`` (``out`` preallocated)."""
    __tracebackhide__ = True
    generator = rng(31)
    call_student("matmul", kernel, np.zeros((1, 1)), np.ones((1, 1)), np.ones((1, 1)), case="1x1")
    _require_numba(kernel, "matmul")
    sizes = [(1, 1, 1), (2, 3, 4), (5, 1, 3), (7, 8, 6), (16, 16, 16), (33, 17, 9)]
    count = 0
    for n, k, m in sizes:
        for transposed in (False, True):
            a = np.array([generator.gauss(0, 1) for _ in range(n * k)]).reshape(n, k)
            b = np.array([generator.gauss(0, 1) for _ in range(k * m)]).reshape(k, m)
            if transposed:  # non-contiguous inputs: views of transposed arrays
                a = np.ascontiguousarray(a.T).T
                b = np.ascontiguousarray(b.T).T
            out = np.full((n, m), np.nan)
            case = f"a of shape {a.shape}, b of shape {b.shape}" + (
                " (both non-contiguous: transposed views)" if transposed else ""
            )
            call_student("matmul", kernel, out, a, b, case=case)
            count += 1
            if not np.allclose(out, a @ b):
                hint = ""
                if np.isnan(out).any():
                    hint = "every out[i, j] must be written (start each sum from 0)."
                elif np.allclose(out, (a @ b) * 0 + np.nan_to_num(out)) and n == m == k:
                    hint = "out[i, j] = sum over k of a[i, k] * b[k, j]."
                raise fail("matmul", case, a @ b, out, hint)
    return f"your Numba matmul agrees with NumPy on {count} cases (odd sizes, non-contiguous)."
