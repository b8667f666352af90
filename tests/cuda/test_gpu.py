"""Tests that need a real NVIDIA GPU (``@pytest.mark.gpu``; skipped without one).

They run the CuPy launch path the emulator cannot check: real compilation for the
device, struct arguments, asynchronous launches, real atomics and shuffles. Run them on
Colab with ``pytest tests/cuda -m gpu``.
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda_cases import DTYPES, Operand, assert_same, operand, output, run_both

import minitorch as mt
from minitorch.backends import cuda
from minitorch.backends.cuda import device
from minitorch.scalar_ops import MAP_OPS, ScalarOp

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def on_gpu():
    if device.gpu_problem() is not None:
        pytest.skip(f"needs a real CUDA GPU: {device.gpu_problem()}")
    with cuda.running_on("gpu"):
        yield


@pytest.fixture
def rng():
    return np.random.default_rng(11)


@pytest.mark.parametrize("dtype", DTYPES)
def test_elementwise_on_the_gpu(rng, dtype):
    a = operand(rng, dtype, (33, 17), "transposed")
    b = operand(rng, dtype, (33, 17), "broadcast")
    expected, actual = run_both("zip", output(dtype, (33, 17)), "mul", a, b)
    assert_same(expected, actual, rtol=1e-5)
    expected, actual = run_both("map", output("float64", (33, 17)), "copy", a)
    assert_same(expected, actual)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "max", "any"])
def test_reductions_on_the_gpu(rng, dtype, op):
    out_dtype = "bool" if op == "any" else dtype
    a = operand(rng, dtype, (70, 300), "stepped")
    expected, actual = run_both("reduce", output(out_dtype, (70, 1)), op, a, 1)
    assert_same(expected, actual, rtol=1e-4, atol=1e-3)
    expected, actual = run_both("arg_reduce", output("int64", (1, 300)), "argmax", a, 0)
    assert_same(expected, actual)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_matmul_on_the_gpu(rng, dtype):
    a = operand(rng, dtype, (2, 70, 45), "contiguous", low=-2, high=2)
    b = operand(rng, dtype, (2, 45, 33), "transposed", low=-2, high=2)
    expected, actual = run_both("matmul", output(dtype, (2, 70, 33)), a, b)
    assert_same(expected, actual, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_atomics_on_the_gpu(rng, dtype):
    out = operand(rng, dtype, (4, 50), "contiguous")
    src = operand(rng, dtype, (4, 500), "contiguous")
    index = Operand(rng.integers(0, 50, 2000).astype(np.int64), (4, 500), (500, 1), 0)
    expected, actual = run_both("scatter_add", out, 1, index, src)
    assert_same(expected, actual, rtol=1e-4, atol=1e-4)


def test_mlp_training_step_matches_cpu(rng):
    data = rng.standard_normal((64, 10)).astype(np.float32)
    labels = rng.integers(0, 4, 64)

    def step(device):
        mt.manual_seed(0)
        model = mt.nn.Sequential(mt.nn.Linear(10, 32), mt.nn.ReLU(), mt.nn.Linear(32, 4)).to(device)
        loss = mt.nn.functional.cross_entropy(
            model(mt.tensor(data, device=device)), mt.tensor(labels, device=device)
        )
        loss.backward()
        return loss.item(), [p.grad.cpu().numpy() for p in model.parameters()]

    loss_gpu, grads_gpu = step("cuda")
    loss_cpu, grads_cpu = step("cpu")
    assert loss_gpu == pytest.approx(loss_cpu, rel=1e-5)
    for g_gpu, g_cpu in zip(grads_gpu, grads_cpu):
        np.testing.assert_allclose(g_gpu, g_cpu, rtol=1e-4, atol=1e-5)


def test_compile_errors_show_the_kernel_and_the_nvrtc_log(monkeypatch):
    broken = ScalarOp("broken", 1, lambda a: a, "no_such_function(a)")
    monkeypatch.setitem(MAP_OPS, "broken", broken)
    a = operand(np.random.default_rng(0), "float32", (3,), "contiguous")
    with pytest.raises(cuda.CudaCompileError, match="map_broken_float32_float32") as error:
        run_both("map", output("float32", (3,)), "broken", a)
    assert "no_such_function" in str(error.value)


def test_synchronize_and_memory_stats():
    x = mt.ones(1 << 20, device="cuda")
    y = (x * 3).sum()
    mt.cuda.synchronize()
    assert y.item() == 3 * (1 << 20)
    assert mt.cuda.memory_reserved() >= mt.cuda.memory_allocated() >= 4 << 20  # CuPy's pool
    assert mt.cuda.get_device_name()
