"""The elementwise-fusion pass (``minitorch/compiler/passes/fusion.py``).

The oracle is the same graph replayed unfused (``passes=["dead_code"]``): a fused float32
chain runs the same scalar functions and rounds each intermediate where the unfused
kernel stored it, so the results must agree bit for bit; and eager execution, and
PyTorch for the values themselves."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import minitorch
from minitorch import nn

FUSED = ["dead_code", "fuse_elementwise"]
UNFUSED = ["dead_code"]


def run_both(fn, *args, calls: int = 3):
    """Results of ``fn`` compiled with and without fusion (after a warm-up, a capture
    and a replay), and the fused function."""
    fused, unfused = minitorch.compile(fn, passes=FUSED), minitorch.compile(fn, passes=UNFUSED)
    for _ in range(calls):
        got, expected = fused(*args), unfused(*args)
    return got, expected, fused


def primitives(compiled) -> list[str]:
    return [node.primitive for node in compiled.graph.nodes]


def chain(x, y):
    return ((x * 2 + y).tanh() - 1).exp()


def test_a_chain_of_five_becomes_one_kernel_with_the_same_bits():
    x, y = minitorch.randn(40, 30), minitorch.randn(30)
    got, expected, fused = run_both(chain, x, y)
    assert primitives(fused) == ["fused"]
    assert got.dtype == minitorch.float32 and got.shape == (40, 30)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    np.testing.assert_array_equal(got.numpy(), chain(x, y).numpy())
    reference = chain(torch.tensor(x.numpy()), torch.tensor(y.numpy())).numpy()
    np.testing.assert_allclose(got.numpy(), reference, rtol=1e-6, atol=1e-6)


def test_new_inputs_after_the_capture():
    x, y = minitorch.randn(40, 30), minitorch.randn(30)
    _, _, fused = run_both(chain, x, y)
    x2, y2 = minitorch.randn(40, 30), minitorch.randn(30)
    np.testing.assert_array_equal(fused(x2, y2).numpy(), chain(x2, y2).numpy())


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded", "large"])
def test_strided_and_broadcast_inputs(layout):
    base = minitorch.randn(64, 48)
    x = {"transposed": base.t(), "sliced": base[::2, 1::3], "expanded": base[:1].expand(64, 48),
         "large": minitorch.randn(600, 700)}[layout]  # fmt: skip
    y = minitorch.randn(x.shape[1])
    got, expected, fused = run_both(lambda a, b: (a * b - a.sin()).abs() + b, x, y)
    assert primitives(fused) == ["fused"]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    tx, ty = torch.tensor(x.numpy()), torch.tensor(y.numpy())
    reference = (tx * ty - tx.sin()).abs() + ty
    np.testing.assert_allclose(got.numpy(), reference.numpy(), rtol=1e-6, atol=1e-6)


def test_bool_results_and_where():
    x, y = minitorch.randn(20, 10), minitorch.randn(20, 10)

    def fn(a, b):
        mask = (a * 2 + 1) > b
        return minitorch.where(mask, a.exp(), b - 1), mask.logical_not()

    (got, got_mask), (expected, expected_mask), fused = run_both(fn, x, y)
    assert got_mask.dtype == minitorch.bool
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    np.testing.assert_array_equal(got_mask.numpy(), expected_mask.numpy())
    tx, ty = torch.tensor(x.numpy()), torch.tensor(y.numpy())
    np.testing.assert_array_equal(got_mask.numpy(), ((tx * 2 + 1) > ty).logical_not().numpy())
    # the mask is read twice (by where and by logical_not): it must stay a result in memory
    assert "zip" in primitives(fused) or primitives(fused).count("fused") == 2


def test_float64_and_integer_to_float():
    x = minitorch.randn(30, 7, dtype=minitorch.float64)
    n = minitorch.arange(7)
    got, expected, fused = run_both(lambda a, k: (a * k).sigmoid() / (k + 1), x, n)
    assert got.dtype == minitorch.float64
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    tx, tn = torch.tensor(x.numpy()), torch.tensor(n.numpy())
    np.testing.assert_allclose(got.numpy(), ((tx * tn).sigmoid() / (tn + 1)).numpy(), rtol=1e-12)


def test_float32_ops_that_compute_wider_are_rounded_where_the_unfused_kernel_stored():
    x = minitorch.randn(300, 7) * 4  # sigmoid, rsqrt and div compute in float64 inside
    got, expected, fused = run_both(lambda a: ((a.sigmoid() + 1).rsqrt() / 3).sigmoid(), x)
    assert primitives(fused) == ["fused"]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_16_bit_floats_are_not_fused():
    x = minitorch.randn(5, 4, dtype=minitorch.float16)
    got, expected, fused = run_both(lambda a: (a * 2 + 1).exp(), x)
    assert "fused" not in primitives(fused)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_a_matmul_breaks_the_chain():
    x, w = minitorch.randn(16, 8), minitorch.randn(8, 4)
    got, expected, fused = run_both(lambda a, b: ((a.exp() * 2) @ b).tanh() + 1, x, w)
    assert primitives(fused) == ["fused", "matmul", "fused"]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_an_intermediate_read_elsewhere_is_kept():
    x = minitorch.randn(10, 10)

    def fn(a):
        t = a * 3 - 1  # returned, and read by the chain below
        return t, (t.exp() + 1).log()

    (got_t, got), (expected_t, expected), fused = run_both(fn, x)
    np.testing.assert_array_equal(got_t.numpy(), expected_t.numpy())
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    written = {node.writes[0].buffer for node in fused.graph.nodes}
    assert fused.graph.outputs[0].operand.buffer in written
    assert primitives(fused) == ["fused", "fused"]  # t = a * 3 - 1 is written once, then read


def test_a_reduction_reading_an_intermediate_keeps_it():
    x = minitorch.randn(10, 10)
    got, expected, fused = run_both(lambda a: (a * 2).exp().sum() + (a * 2), x)
    assert "reduce" in primitives(fused)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_in_place_updates_of_an_input():
    x0 = minitorch.randn(12, 5)

    def fn(a):
        a.mul_(0.5)
        a.add_(a.t().t() * 2)
        return (a - 1).exp()

    fused = minitorch.compile(fn, passes=FUSED)
    mine, twin = x0.clone(), x0.clone()
    for _ in range(4):
        got, expected = fused(mine), fn(twin)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
        np.testing.assert_array_equal(mine.numpy(), twin.numpy())
    assert "fused" in primitives(fused)


def test_a_transposed_read_of_the_output_is_not_fused():
    x0 = minitorch.randn(6, 6)

    def fn(a):
        t = a.t() * 2  # reads a transposed ...
        a.copy_(t + 1)  # ... then writes a: fusing would read elements already written
        return a

    fused = minitorch.compile(fn, passes=FUSED)
    mine, twin = x0.clone(), x0.clone()
    for _ in range(3):
        np.testing.assert_array_equal(fused(mine).numpy(), fn(twin).numpy())
    assert primitives(fused) == ["fused", "map"]  # a.t() * 2 + 1 fused; the copy into a apart


def test_graph_source_shows_the_generated_kernel():
    _, _, fused = run_both(chain, minitorch.randn(4, 3), minitorch.randn(3))
    text = fused.graph.source(0)
    assert "def fused_rows" in text and "map_tanh" in text and "zip_mul" in text
    assert fused.graph.source("n0") == text
    assert "fused(" in str(fused.graph) and "fuse_elementwise" in str(fused.graph)
    _, _, plain = run_both(lambda a: a.sum(), minitorch.randn(3))
    with pytest.raises(ValueError, match="no generated source"):
        plain.graph.source(0)


def test_the_reference_backend_leaves_the_graph_alone():
    with minitorch.backend("reference"):
        got, expected, fused = run_both(chain, minitorch.randn(4, 3), minitorch.randn(3))
        assert "fused" not in primitives(fused)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_empty_and_zero_dim():
    for x in (minitorch.randn(0, 3), minitorch.tensor(1.5)):
        got, expected, fused = run_both(lambda a: (a * 2 + 1).exp(), x)
        assert got.shape == x.shape
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_a_training_step_with_fusion_equals_the_eager_one():
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    twin = copy.deepcopy(model)
    optimizers = [minitorch.optim.Adam(m.parameters(), lr=0.01) for m in (model, twin)]

    def make_step(m, opt):
        def step(x, y):
            opt.zero_grad()
            loss = nn.functional.mse_loss(m(x), y)
            loss.backward()
            opt.step()
            return loss

        return step

    compiled = minitorch.compile(make_step(model, optimizers[0]), passes=FUSED)
    eager = make_step(twin, optimizers[1])
    x, y = minitorch.randn(50, 2), minitorch.randn(50, 1)
    for _ in range(5):
        assert compiled(x, y).item() == eager(x, y).item()
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    assert "fused" in primitives(compiled)


# ----- CUDA: the generated .cu text, on the emulator and through NVRTC -------------------


def cuda_chain(x, y):
    mask = (x * 2 + y) > 0
    return minitorch.where(mask, (x - 1).exp(), y.tanh() * x), mask


@pytest.fixture(params=["forward", "reversed"])
def emulated_cuda(request):
    from minitorch.backends import cuda, cuda_emulator

    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    with cuda.emulated(), cuda_emulator.thread_order(request.param):
        yield


def test_cuda_fused_kernels_on_the_emulator_equal_the_cpu(emulated_cuda):
    x_cpu, y_cpu = minitorch.randn(50, 40), minitorch.randn(40)
    x, y = x_cpu.to("cuda"), y_cpu.t().to("cuda")
    (got, got_mask), (expected, expected_mask), fused = run_both(cuda_chain, x.t().t(), y)
    assert primitives(fused).count("fused") == 2
    assert 'extern "C" __global__' in fused.graph.source(0)
    np.testing.assert_array_equal(got.cpu().numpy(), expected.cpu().numpy())  # same CUDA ops
    np.testing.assert_array_equal(got_mask.cpu().numpy(), expected_mask.cpu().numpy())
    cpu, cpu_mask = cuda_chain(x_cpu, y_cpu)
    np.testing.assert_array_equal(got_mask.cpu().numpy(), cpu_mask.numpy())
    np.testing.assert_allclose(got.cpu().numpy(), cpu.numpy(), rtol=1e-6, atol=1e-6)  # expf, tanhf
    transposed = x_cpu.t().contiguous().to("cuda").t()  # a strided input: new layout, new graph
    got_t, _, _ = run_both(cuda_chain, transposed, y)
    np.testing.assert_array_equal(got_t[0].cpu().numpy(), got.cpu().numpy())


def test_cuda_fused_source_compiles_with_nvrtc(emulated_cuda):
    from minitorch.backends.cuda_emulator import kernels_dir
    from tests.cuda.test_nvrtc_compile import _options, compile_cuda

    x, n = minitorch.randn(8, 3).to("cuda"), minitorch.arange(3).to("cuda")
    _, _, fused = run_both(lambda a, k: ((a * k).sigmoid() / (k + 1) > 0.3).logical_not(), x, n)
    header = (kernels_dir() / "strided.cuh").read_text()
    for node in fused.graph.nodes:
        if node.primitive == "fused":
            log = compile_cuda(header + "\n" + node.source, "fused.cu", _options("sm_80", fast=True))
            assert log is None, log


def test_a_result_read_twice_is_taken_from_the_register_once():
    # (y - t) * (y - t): the product reads the difference twice; after fusion nothing may
    # still read the difference's buffer, which no node writes any more.
    f = minitorch.compile(lambda y, t: (y - t) * (y - t), passes=["dead_code", "fuse_elementwise"])
    y, t = minitorch.randn(50, 1), minitorch.randn(50, 1)
    f(y, t), f(y, t)
    graph = f.graph
    written = {o.buffer for node in graph.nodes for o in node.writes}
    assert [node.primitive for node in graph.nodes] == ["fused"]
    assert all(graph.buffers[o.buffer].kind != "temp" or o.buffer in written for o in graph.nodes[0].reads)
    np.testing.assert_array_equal(f(y, t).numpy(), ((y - t) * (y - t)).numpy())
