"""Differential fuzzing of the op table against PyTorch, seeded: case ``n`` is always the
same call, so a failure names its seed and reruns with ``-k "fuzz_op and seed-n-"``.

A case picks an op of ``tests/op_table.py``, a dtype (mostly one the op supports, some
it may not: then PyTorch's exception is the expected result), one of the op's samples,
and mutates it:

* shapes: each size above 1 is renamed consistently across the arguments (so shapes
  that broadcast or multiply still fit), often to 0;
* layouts: each tensor argument becomes contiguous, transposed, sliced with a step, or
  expanded at random.

Then PyTorch and minitorch run the same call on the same data. Either both return the
same values, dtype and shape, or both raise an exception of the same PyTorch type. (The
ops where minitorch departs from PyTorch on purpose, ``empty()`` and dropout's masks, are
not in the op table, so nothing is skipped.)
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from helpers import assert_close
from op_table import ALL, OPS, Sample, T, _walk, build, sample_arrays

import minitorch as mt

from .budget import fuzz_count
from .harness import PYTORCH_ERRORS

COUNT = fuzz_count(1500)  # cases per backend
SIZES = (0, 0, 2, 3, 5)  # what a size above 1 may become


def mutate(sample: Sample, rng: np.random.Generator) -> Sample:
    """``sample`` with renamed sizes and random layouts (see the module docstring)."""
    tensors: list[T] = []
    _walk((sample.args, sample.kwargs), tensors.append)
    fixed_data = any(arg.values is not None for arg in tensors)  # index tensors: left as they are
    sizes = {size for arg in tensors for size in arg.shape if size > 1}
    rename = {} if rng.random() < 0.3 else {size: int(rng.choice(SIZES)) for size in sizes}

    def change(arg: T) -> T:
        shape = tuple(rename.get(size, size) for size in arg.shape)
        layouts = ["contiguous"] + (["sliced"] if shape else []) + (["transposed"] if len(shape) >= 2 else [])
        layouts += ["expanded"] if any(size > 1 for size in shape) else []
        layout = arg.layout if rng.random() < 0.4 else str(rng.choice(layouts))
        return dataclasses.replace(arg, shape=shape, layout=layout)

    if fixed_data:
        return sample
    args, kwargs = _walk((sample.args, sample.kwargs), change)
    return Sample(args, kwargs)


def make_case(seed: int) -> tuple:
    """``(op, dtype, sample)`` of case ``seed``."""
    rng = np.random.default_rng(seed)
    op = OPS[int(rng.integers(len(OPS)))]
    dtype = str(rng.choice(op.dtypes if rng.random() < 0.85 else ALL))
    samples = op.samples(dtype)
    return op, dtype, mutate(samples[int(rng.integers(len(samples)))], rng)


def error_kind(error: BaseException) -> str:
    """The PyTorch exception type an error counts as (``RuntimeError``, ...)."""
    names = [kind.__name__ for kind in type(error).__mro__]
    return next((name for name in names if name in PYTORCH_ERRORS), type(error).__name__)


def run_case(seed: int) -> str | None:
    """``None`` when minitorch agrees with PyTorch on case ``seed``, otherwise how not."""
    op, dtype, sample = make_case(seed)
    where = f"seed {seed}: {op.name}[{dtype}]({sample.desc})"
    arrays = sample_arrays(op, sample, dtype, seed)
    theirs, ours = build(torch, sample, arrays, dtype), build(mt, sample, arrays, dtype)
    try:
        expected = op.fn(torch, *theirs.args, **theirs.kwargs)
    except Exception as error:  # noqa: BLE001 - the oracle refusing is an expected outcome
        expected_error = error
    else:
        expected_error = None
    try:
        actual = op.fn(mt, *ours.args, **ours.kwargs)
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's outcome below
        if expected_error is None:
            return f"{where}: raised {type(error).__name__}: {error}; PyTorch returns"
        if error_kind(error) != error_kind(expected_error):
            return (f"{where}: raised {type(error).__name__} ({error}); PyTorch raises "
                    f"{error_kind(expected_error)} ({expected_error})")  # fmt: skip
        return None
    if expected_error is not None:
        return f"{where}: returned; PyTorch raises {error_kind(expected_error)} ({expected_error})"
    try:
        assert_close(actual, expected, rtol=op.rtol, atol=op.atol, msg=where)
    except AssertionError as error:
        return " | ".join(line.strip() for line in str(error).splitlines()[:6] if line.strip())
    return None


@pytest.mark.parametrize("seed", range(COUNT), ids=lambda seed: f"seed-{seed}-")
def test_fuzz_op(backend, seed):
    problem = run_case(seed)
    if problem is not None:
        pytest.fail(problem, pytrace=False)
