"""Device "cuda" end to end, on the emulator: create, compute, backward, move back.

Every result is compared with the same computation on "cpu". The last test runs a slice
of the main suite (the ``device``-parametrized core tests) with ``MINITORCH_CUDA=emulator``
in a fresh interpreter, so that every op the core tests check also runs on "cuda" (with
the emulator's threads in reversed order).
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitorch as mt
from minitorch.backends import cuda_emulator
from minitorch.backends.cuda import device

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _on_emulator(emulator):
    yield


def same(cuda_tensor, cpu_tensor, rtol=1e-5, atol=1e-6):
    assert cuda_tensor.device.type == "cuda" and cpu_tensor.device.type == "cpu"
    assert cuda_tensor.dtype == cpu_tensor.dtype and cuda_tensor.shape == cpu_tensor.shape
    np.testing.assert_allclose(cuda_tensor.cpu().numpy(), cpu_tensor.numpy(), rtol=rtol, atol=atol)


def pair(array, **kwargs):
    return mt.tensor(array, device="cuda", **kwargs), mt.tensor(array, **kwargs)


def test_creation_and_moving_between_devices():
    assert mt.cuda.is_available() and mt.cuda.is_emulated() and mt.cuda.device_count() == 1
    x = mt.arange(12, device="cuda").reshape(3, 4)
    assert x.device == mt.device("cuda") and x.is_cuda
    assert isinstance(x._storage, cuda_emulator.DeviceArray)
    same(x, mt.arange(12).reshape(3, 4))
    same(mt.zeros(2, 3, device="cuda"), mt.zeros(2, 3))
    same(mt.full((2,), 7.5, device="cuda"), mt.full((2,), 7.5))
    mt.manual_seed(0)
    on_cpu = mt.randn(4)
    assert mt.randn(4, device="cuda").device.type == "cuda"
    back = on_cpu.cuda().cpu()
    assert back.device.type == "cpu" and back.tolist() == on_cpu.tolist()
    assert on_cpu.to("cuda").to("cpu", mt.float64).dtype == mt.float64
    assert x.sum().item() == 66 and x[1].tolist() == [4, 5, 6, 7]
    assert "device='cuda:0'" in repr(x)
    with pytest.raises(TypeError, match="cpu"):
        x.numpy()


def test_elementwise_broadcasting_and_dtypes():
    rng = np.random.default_rng(0)
    a, a_cpu = pair(rng.standard_normal((4, 1, 3)).astype(np.float32))
    b, b_cpu = pair(rng.standard_normal((5, 1)).astype(np.float32))
    same((a * b + 1).exp() - a / (b.abs() + 1), (a_cpu * b_cpu + 1).exp() - a_cpu / (b_cpu.abs() + 1))
    same(a.permute(2, 0, 1).sigmoid(), a_cpu.permute(2, 0, 1).sigmoid())
    i, i_cpu = pair([[7, -7], [3, 0]])
    same(i // 2, i_cpu // 2)
    same(i % -3, i_cpu % -3)
    same(i ** 2, i_cpu**2)
    same((a > 0) & (b < 0), (a_cpu > 0) & (b_cpu < 0))
    same(mt.where(a > 0, a, b), mt.where(a_cpu > 0, a_cpu, b_cpu))
    same(a.to(mt.int64), a_cpu.to(mt.int64))


def test_reductions():
    rng = np.random.default_rng(1)
    x, x_cpu = pair(rng.standard_normal((6, 70)).astype(np.float64))
    same(x.sum(), x_cpu.sum(), rtol=1e-12)
    same(x.mean(1), x_cpu.mean(1), rtol=1e-12)
    values, indices = x.max(dim=0)
    values_cpu, indices_cpu = x_cpu.max(dim=0)
    same(values, values_cpu)
    same(indices, indices_cpu)
    same(x.argmin(1), x_cpu.argmin(1))
    same(x.softmax(-1), x_cpu.softmax(-1), rtol=1e-12)
    same(x.t().prod(0), x_cpu.t().prod(0), rtol=1e-12)
    same((x > 0).any(1), (x_cpu > 0).any(1))


def test_matmul():
    rng = np.random.default_rng(2)
    a, a_cpu = pair(rng.standard_normal((3, 17, 20)).astype(np.float32))
    b, b_cpu = pair(rng.standard_normal((20, 9)).astype(np.float32))
    same(a @ b, a_cpu @ b_cpu, atol=1e-5)
    same(a[0].t() @ a[1], a_cpu[0].t() @ a_cpu[1], atol=1e-5)


def test_indexing():
    rng = np.random.default_rng(3)
    x, x_cpu = pair(rng.standard_normal((5, 4)).astype(np.float32))
    same(x[1:4:2, 1:], x_cpu[1:4:2, 1:])
    same(x[[0, 3, 3]], x_cpu[[0, 3, 3]])
    same(x[x > 0], x_cpu[x_cpu > 0])
    index, index_cpu = pair([[0, 3], [1, 1], [2, 0], [3, 3], [1, 2]])
    same(x.gather(1, index), x_cpu.gather(1, index_cpu))
    target, target_cpu = mt.zeros(5, 4, device="cuda"), mt.zeros(5, 4)
    same(target.scatter_add(1, index, x[:, :2]), target_cpu.scatter_add(1, index_cpu, x_cpu[:, :2]))
    y, y_cpu = x.clone(), x_cpu.clone()
    y[1:3] = 0.5
    y_cpu[1:3] = 0.5
    same(y, y_cpu)


def test_backward_of_a_small_mlp_matches_cpu():
    rng = np.random.default_rng(4)
    data = rng.standard_normal((16, 5)).astype(np.float32)
    labels = rng.integers(0, 3, 16)

    def train(device):
        mt.manual_seed(0)
        model = mt.nn.Sequential(mt.nn.Linear(5, 8), mt.nn.ReLU(), mt.nn.Linear(8, 3))
        model.to(device)
        optimizer = mt.optim.SGD(model.parameters(), lr=0.1)
        inputs = mt.tensor(data, device=device)
        targets = mt.tensor(labels, device=device)
        losses = []
        for _ in range(3):
            optimizer.zero_grad()
            loss = mt.nn.functional.cross_entropy(model(inputs), targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, [p.grad for p in model.parameters()]

    losses_cuda, grads_cuda = train("cuda")
    losses_cpu, grads_cpu = train("cpu")
    np.testing.assert_allclose(losses_cuda, losses_cpu, rtol=1e-5)
    for g_cuda, g_cpu in zip(grads_cuda, grads_cpu):
        same(g_cuda, g_cpu, atol=1e-5)


def test_autograd_through_views_and_reductions():
    rng = np.random.default_rng(5)
    raw = rng.standard_normal((3, 4)).astype(np.float64)
    x = mt.tensor(raw, device="cuda", requires_grad=True)
    x_cpu = mt.tensor(raw, requires_grad=True)
    for t in (x, x_cpu):
        (t.t()[1:] * t.t()[:-1]).exp().sum(0).max().backward()
    same(x.grad, x_cpu.grad, rtol=1e-12)


def test_mixing_devices_is_an_error():
    with pytest.raises(RuntimeError, match="same device"):
        mt.ones(2, device="cuda") + mt.ones(2)


def test_unavailable_cuda_names_both_ways_forward():
    if device.gpu_problem() is None:
        pytest.skip("a GPU is present")
    previous = device._mode
    device._mode = "auto"
    try:
        assert not mt.cuda.is_available()
        with pytest.raises(RuntimeError) as error:
            mt.zeros(2, device="cuda")
        message = str(error.value)
        assert "use_emulator()" in message and "MINITORCH_CUDA=emulator" in message
        assert "pip install" in message
    finally:
        device._mode = previous


def test_memory_stats_and_synchronize():
    # Garbage from earlier tests must not be freed in between (that made this flaky).
    gc.collect()
    gc.disable()
    try:
        before = mt.cuda.memory_allocated()
        x = mt.ones(1000, device="cuda")
        assert mt.cuda.memory_allocated() >= before + 4000
    finally:
        gc.enable()
    mt.cuda.synchronize()
    del x
    assert "reserved_bytes.all.peak" in mt.cuda.memory_stats()  # the emulator's allocator


@pytest.mark.slow
def test_core_suite_slice_on_emulated_cuda():
    """The device-parametrized core tests, with "cuda" among the devices, the emulator's
    threads in reversed order (the kernel tests cover both orders)."""
    env = dict(os.environ, MINITORCH_CUDA="emulator", MINITORCH_CUDA_ORDER="reversed")
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               "tests/core/test_ops.py", "tests/core/test_creation.py", "tests/core/test_views.py",
               "-k", "cuda and reference"]  # fmt: skip
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    # exit code 5 would mean "no test selected": "cuda" was not among the devices
    assert result.returncode == 0, "\n".join(result.stdout.splitlines()[-25:])
