"""Checks for the kernel exercises (chapter 3): a student's ``map``, ``zip`` and ``sum``
kernels over ``Strided`` operands, compared with the reference backend.

The operands are real tensors' storages viewed through awkward layouts (transposed,
sliced with an offset, broadcast with stride 0), and the *output* is sometimes a
non-contiguous view too: a kernel must use every operand's own strides and offset.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import minitorch
from minitorch.backends import Strided
from minitorch.backends import reference as reference_backend
from minitorch.course.cases import KINDS, describe_tensor, random_shape, random_tensor, rng, strided
from minitorch.course.report import call_student, checker, fail
from minitorch.scalar_ops import MAP_OPS, ZIP_OPS


def _output(generator, shape: tuple[int, ...]) -> minitorch.Tensor:
    """A fresh output filled with NaN, sometimes a transposed or sliced view."""
    kind = generator.choice(["contiguous", "contiguous", "transposed", "sliced"])
    out = random_tensor(generator, shape, kind)
    out._storage[:] = np.nan  # cells the kernel forgets to write stay NaN
    return out


def _values(t: minitorch.Tensor) -> np.ndarray:
    return t.numpy().copy()


def _hint_for(got: np.ndarray, inputs: list[minitorch.Tensor], f: Callable) -> str:
    """Guess the usual mistakes from the wrong output."""
    if np.isnan(got).any():
        return ("some output elements were never written: loop over *all* numel(out.shape) "
                "elements and write each at its position in out.")  # fmt: skip
    size = got.size
    flat = [t._storage[t.storage_offset() : t.storage_offset() + size] for t in inputs]
    if all(len(x) == size for x in flat):
        with np.errstate(all="ignore"):
            naive = np.array([f(*values) for values in zip(*flat)]).reshape(got.shape)
        if np.allclose(got, naive, equal_nan=True):
            return ("your kernel read the inputs as if they were contiguous. Turn the ordinal "
                    "into an index, then into a position with *each operand's own* strides "
                    "and offset.")  # fmt: skip
    return ("check that every operand (out included) goes through index_to_position with its "
            "own strides and offset.")  # fmt: skip


@checker
def check_map_kernel(student: Callable) -> str:
    """``student(f, out, a)``: ``out[i] = f(a[i])`` over ``Strided`` operands."""
    __tracebackhide__ = True
    generator = rng(10)
    count = 0
    for n in range(60):
        shape = random_shape(generator, max_ndim=3)
        op = ["neg", "exp", "relu", "sigmoid"][n % 4]
        f = MAP_OPS[op].fn
        a = random_tensor(generator, shape, KINDS[n % len(KINDS)])
        out = _output(generator, shape)
        expected = minitorch.empty(*shape, dtype=minitorch.float64)
        reference_backend.map(op, strided(expected), strided(a))
        case = f"f = {op}, {describe_tensor('a', a)}; {describe_tensor('out', out)}"
        call_student("map_kernel", student, f, strided(out), strided(a), case=case)
        count += 1
        got = _values(out)
        if not np.allclose(got, _values(expected), equal_nan=False):
            raise fail("map_kernel", case, _values(expected), got, _hint_for(got, [a], f))
    return (
        f"map_kernel agrees with the reference on {count} cases (non-contiguous, broadcast, offset outputs)."
    )


@checker
def check_zip_kernel(student: Callable) -> str:
    """``student(f, out, a, b)``: ``out[i] = f(a[i], b[i])``; ``a``/``b`` may be broadcast."""
    __tracebackhide__ = True
    generator = rng(11)
    count = 0
    for n in range(60):
        shape = random_shape(generator, max_ndim=3)
        op = ["add", "mul", "sub", "maximum"][n % 4]
        f = ZIP_OPS[op].fn
        a = random_tensor(generator, shape, KINDS[n % len(KINDS)])
        b = random_tensor(generator, shape, KINDS[(n + 1 + n // 4) % len(KINDS)])
        out = _output(generator, shape)
        expected = minitorch.empty(*shape, dtype=minitorch.float64)
        reference_backend.zip(op, strided(expected), strided(a), strided(b))
        case = (f"f = {op}, {describe_tensor('a', a)}; {describe_tensor('b', b)}; "
                f"{describe_tensor('out', out)}")  # fmt: skip
        call_student("zip_kernel", student, f, strided(out), strided(a), strided(b), case=case)
        count += 1
        got = _values(out)
        if not np.allclose(got, _values(expected)):
            raise fail("zip_kernel", case, _values(expected), got, _hint_for(got, [a, b], f))
    return f"zip_kernel agrees with the reference on {count} cases (broadcast inputs, strided outputs)."


@checker
def check_sum_kernel(student: Callable) -> str:
    """``student(out, a, dim)``: ``out`` has ``a``'s shape with size 1 at ``dim``."""
    __tracebackhide__ = True
    generator = rng(12)
    count = 0
    for n in range(60):
        shape = random_shape(generator, min_ndim=1, max_ndim=3)
        dim = generator.randrange(len(shape))
        a = random_tensor(generator, shape, KINDS[n % len(KINDS)])
        out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
        out = _output(generator, out_shape)
        expected = minitorch.zeros(*out_shape, dtype=minitorch.float64)
        reference_backend.reduce("sum", strided(expected), strided(a), dim)
        case = f"dim = {dim}, {describe_tensor('a', a)}; {describe_tensor('out', out)}"
        call_student("sum_kernel", student, strided(out), strided(a), dim, case=case)
        count += 1
        got = _values(out)
        want = _values(expected)
        if np.allclose(got, want):
            continue
        hint = ""
        if np.isnan(got).any():
            hint = ("every output element must be written, starting from 0: don't rely on out "
                    "holding zeros before the kernel runs.")  # fmt: skip
        elif a.shape[dim] > 1 and np.allclose(got, _values(a).take([0], axis=dim)):
            hint = "only the first element along dim was used: loop j over range(a.shape[dim])."
        raise fail("sum_kernel", case, want, got, hint)
    return f"sum_kernel agrees with the reference on {count} cases."


__all__ = ["Strided", "check_map_kernel", "check_sum_kernel", "check_zip_kernel"]
