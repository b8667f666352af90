"""The Numba backend's parallel policy (``minitorch/backends/numba/parallel_policy.py``).

1. The serial and the parallel kernels agree exactly on adversarial layouts (transposed,
   sliced with steps, expanded, size-0, odd sizes around the thresholds), for map, zip,
   where, reduce, arg_reduce, gather and matmul. Exactly: both paths add in one order.
2. The thresholds are respected: small work never runs a parallel kernel (counted by
   ``parallel_calls``, no timing), and neither does any work on a single core.
3. Above the threshold the faster path wins and the slower one is re-tried now and then.
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.backends import Strided

tuned = pytest.importorskip("minitorch.backends.numba")
from minitorch.backends.numba import parallel_policy  # noqa: E402
from minitorch.backends.numba.parallel_policy import THRESHOLDS, KernelTiming, force  # noqa: E402

from .test_numba_kernels import make_input, make_output  # noqa: E402

LAYOUTS = ["contiguous", "transposed", "stepped_at_end", "expanded", "offset"]
# odd sizes around the elementwise thresholds, a size-0 one and a tiny one
SHAPES = [(0, 5), (3, 1), (255, 513), (257, 511), (1, 131073), (2, 3, 21847)]


def both_paths(call, out: Strided) -> tuple[np.ndarray, np.ndarray]:
    """The output storage after ``call()`` on the serial path, then on the parallel one."""
    results = []
    for path in ("serial", "parallel"):
        out.storage[:] = 77
        with force(path):
            call()
        results.append(out.storage.copy())
    return results[0], results[1]


def assert_identical(serial: np.ndarray, parallel: np.ndarray) -> None:
    np.testing.assert_array_equal(serial, parallel)  # NaN == NaN here, bit-exact otherwise


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_map_zip_where_paths_agree(layout, shape):
    rng = np.random.default_rng(1)
    a = make_input(layout, shape, np.float32, rng)
    b = make_input("transposed" if layout == "contiguous" else "contiguous", shape, np.float32, rng)
    cond = make_input(layout, shape, np.bool_, rng)
    out = make_output("contiguous", shape, np.float32)
    assert_identical(*both_paths(lambda: tuned.map("exp", out, a), out))
    assert_identical(*both_paths(lambda: tuned.zip("add", out, a, b), out))
    assert_identical(*both_paths(lambda: tuned.where(out, cond, a, b), out))
    out_t = make_output("transposed", shape, np.float32)
    assert_identical(*both_paths(lambda: tuned.zip("mul", out_t, a, b), out_t))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("shape", [(0, 7), (5, 0), (1, 1), (511, 257), (3, 43691), (43691, 3)], ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped_at_end", "expanded"])
def test_reductions_paths_agree(layout, shape, dim):
    rng = np.random.default_rng(2)
    a = make_input(layout, shape, np.float32, rng)
    dim = dim % len(shape)
    if shape[dim] == 0:
        pytest.skip("max/argmax of an empty dimension is refused before the kernel")
    out_shape = tuple(1 if d == dim else size for d, size in enumerate(shape))
    out = make_output("contiguous", out_shape, np.float32)
    for op in ("sum", "max"):
        assert_identical(*both_paths(lambda op=op: tuned.reduce(op, out, a, dim), out))
    index_out = make_output("contiguous", out_shape, np.int64)
    assert_identical(*both_paths(lambda: tuned.arg_reduce("argmax", index_out, a, dim), index_out))


@pytest.mark.parametrize(
    "batch, n, k, m", [(1, 0, 3, 4), (1, 5, 0, 3), (1, 2000, 3, 1), (3, 67, 33, 65), (1, 129, 130, 131)]
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
def test_matmul_paths_agree(layout, batch, n, k, m):
    rng = np.random.default_rng(3)
    a = make_input(layout, (batch, n, k), np.float64, rng, special=False)
    b = make_input("transposed" if layout == "contiguous" else "contiguous", (batch, k, m), np.float64, rng,
                   special=False)  # fmt: skip
    out = make_output("contiguous", (batch, n, m), np.float64)
    assert_identical(*both_paths(lambda: tuned.matmul(out, a, b), out))


def test_gather_paths_agree():
    rng = np.random.default_rng(4)
    a = make_input("transposed", (300, 257), np.float32, rng)
    index_values = rng.integers(0, 300, size=(301, 257)).astype(np.int64)
    index = Strided(index_values.reshape(-1), (301, 257), (257, 1), 0)
    out = make_output("contiguous", (301, 257), np.float32)
    assert_identical(*both_paths(lambda: tuned.gather(out, a, 0, index), out))


def parallel_runs(call) -> int:
    before = sum(parallel_policy.parallel_calls.values())
    call()
    return sum(parallel_policy.parallel_calls.values()) - before


def test_small_work_never_wakes_threads():
    """Just under each threshold the serial kernel runs, whatever was measured before."""
    rng = np.random.default_rng(5)
    n = THRESHOLDS["zip"] - 1
    a, b = make_input("contiguous", (n,), np.float32, rng), make_input("expanded", (n,), np.float32, rng)
    out = make_output("contiguous", (n,), np.float32)
    assert parallel_runs(lambda: tuned.zip("add", out, a, b)) == 0
    n = THRESHOLDS["map"] - 1
    assert parallel_runs(lambda: tuned.map("neg", make_output("contiguous", (n,), np.float32),
                                           make_input("contiguous", (n,), np.float32, rng))) == 0  # fmt: skip
    side = int(THRESHOLDS["matmul"] ** (1 / 3)) - 1  # side**3 multiply-adds: under the threshold
    x = make_input("contiguous", (1, side, side), np.float32, rng)
    product = make_output("contiguous", (1, side, side), np.float32)
    assert parallel_runs(lambda: tuned.matmul(product, x, x)) == 0
    column = make_input("contiguous", (THRESHOLDS["reduce"] * 2, 1), np.float32, rng)
    total = make_output("contiguous", (1, 1), np.float32)  # one output: one thread's fold
    assert parallel_runs(lambda: tuned.reduce("sum", total, column, 0)) == 0


def test_one_core_means_serial(monkeypatch):
    """Under ``taskset -c 0`` (one core in the affinity mask) even huge work stays serial."""
    monkeypatch.setattr(parallel_policy.os, "sched_getaffinity", lambda pid: {0})
    rng = np.random.default_rng(6)
    n = THRESHOLDS["zip"] * 4
    a = make_input("contiguous", (n,), np.float32, rng)
    out = make_output("contiguous", (n,), np.float32)
    assert parallel_runs(lambda: [tuned.zip("add", out, a, a) for _ in range(3)]) == 0


def test_above_threshold_the_faster_path_wins_and_the_slower_is_retried():
    """``KernelTiming``: parallel is tried first, then serial; then the faster path runs,
    except one call in ``PROBE_EVERY`` that re-measures the slower one."""
    timing = KernelTiming()
    assert timing.choose() is True
    timing.record(True, 3.0, 1000)  # parallel measured slow (a busy core)
    assert timing.choose() is False
    timing.record(False, 1.0, 1000)
    choices = [timing.choose() for _ in range(4 * parallel_policy.PROBE_EVERY)]
    assert choices.count(True) == 4  # only the probes
    timing.record(True, 0.1, 1000)  # the machine got quiet: parallel is fast again
    assert timing.choose() is True


def test_force_refuses_unknown_paths():
    with pytest.raises(ValueError, match="'serial', 'parallel' or None"):
        with force("threads"):
            pass



@pytest.mark.parametrize("path", ["serial", "parallel"])
def test_gather_rows_with_one_index_and_the_row_odometer(path):
    """The gather kernel walks rows with an odometer (carrying from the last dimension
    into the ones before) and reads a row's index once when it is broadcast along the
    row (``C[X]``). On rank-3 operands, gathering along every dimension, with the
    parallel pieces starting in the middle of rows (odd sizes): NumPy's answer."""
    rng = np.random.default_rng(5)
    for dim in range(3):
        a_values = rng.standard_normal((6, 7, 5)).astype(np.float32)
        a = Strided(a_values.T.copy().reshape(-1), (6, 7, 5), (1, 6, 42), 0)  # transposed storage
        shape = tuple(9 if d == dim else size for d, size in enumerate(a_values.shape))
        broadcast = rng.integers(0, a_values.shape[dim], size=shape[:2]).astype(np.int64)
        for index_values, strides in [(broadcast, (shape[1], 1, 0)),  # one index per row
                                      (rng.integers(0, a_values.shape[dim], size=shape).astype(np.int64),
                                       (shape[1] * shape[2], shape[2], 1))]:  # fmt: skip
            index = Strided(index_values.reshape(-1), shape, strides, 0)
            full_index = np.lib.stride_tricks.as_strided(index_values, shape, tuple(8 * s for s in strides))
            storage = np.full(int(np.prod(shape)), np.nan, np.float32)
            out = Strided(storage, shape, (shape[1] * shape[2], shape[2], 1), 0)
            with parallel_policy.force(path):
                tuned.gather(out, a, dim, index)
            want = np.take_along_axis(a_values, full_index, axis=dim)
            np.testing.assert_array_equal(out.storage.reshape(shape), want)
