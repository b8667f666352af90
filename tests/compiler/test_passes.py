"""The optimisation passes: constant folding, common subexpressions, memory planning.

Each pass must change what it is for (fewer nodes, less temp memory) and nothing that
the graph computes: the oracle is eager minitorch running the same code, bit for bit on
the reference backend, to float32 rounding on numba (whose fused kernels are generated)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.compiler.graph import Graph, operands_in
from minitorch.compiler.passes import DEFAULT_PASSES, PASSES
from minitorch.compiler.replay import flatten_outputs

BACKENDS = ["reference", "numba"]


def assert_same(got, expected, backend: str) -> None:
    got, expected = got.detach().numpy(), expected.detach().numpy()
    if backend == "reference":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def compiled_results(fn, *args, passes, calls: int = 3):
    """The compiled function (warm-up, capture, replays) and its last result."""
    compiled = minitorch.compile(fn, passes=passes)
    for _ in range(calls):
        result = compiled(*args)
    return compiled, result


def kernels(graph: Graph) -> list[str]:
    return [f"{node.primitive}:{node.kernel}" for node in graph.nodes]


def assert_no_shared_storage_overlaps(graph: Graph) -> None:
    """Two temps placed in one storage are never alive at once (first touch .. last
    touch; a returned buffer lives to the end): checked independently of the pass."""
    alive: dict[int, list[int]] = {}
    for i, node in enumerate(graph.nodes):
        for o in operands_in(node.args):
            alive.setdefault(o.buffer, [i, i])[1] = i
    for spec in flatten_outputs(graph.outputs):
        alive.setdefault(spec.operand.buffer, [len(graph.nodes)] * 2)[1] = len(graph.nodes)
    storages: dict[int, list[int]] = {}
    for buffer, target in graph.placement.items():
        assert graph.buffers[buffer].dtype == graph.buffers[target].dtype
        assert graph.buffers[target].count >= graph.buffers[buffer].count
        if buffer in alive:
            storages.setdefault(target, []).append(buffer)
    for members in storages.values():
        spans = sorted(alive[b] for b in members)
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert end < start, f"buffers sharing a storage are alive together: {spans}"


# ----- constant folding -------------------------------------------------------------------


def scaled_by_constants(x):
    c = minitorch.tensor([1.0, 2.0, 3.0])
    return x * c.exp() + (c * minitorch.tensor(2.0)).sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_folding_runs_calls_on_constants_once(backend):
    with minitorch.backend(backend):
        x = minitorch.randn(3, 4).t()  # non-contiguous input
        plain, _ = compiled_results(scaled_by_constants, x, passes=[])
        folded, got = compiled_results(scaled_by_constants, x, passes=["constant_folding"])
        assert kernels(plain.graph) == ["map:exp", "zip:mul", "zip:mul", "reduce:sum", "zip:add"]
        assert kernels(folded.graph) == ["zip:mul", "zip:add"]  # exp, c * 2 and its sum folded
        assert len(folded.graph.buffers_of("constant")) > len(plain.graph.buffers_of("constant"))
        assert_same(got, scaled_by_constants(x), backend)
        x2 = minitorch.randn(3, 4).t()
        assert_same(folded(x2), scaled_by_constants(x2), backend)


def test_variables_are_not_folded():
    weight = minitorch.tensor([1.0, 2.0, 3.0])  # state that lives outside: may change

    def f(x):
        return x * weight.exp()

    x = minitorch.randn(2, 3)
    folded, _ = compiled_results(f, x, passes=["constant_folding"])
    assert kernels(folded.graph) == ["map:exp", "zip:mul"]
    weight.add_(1.0)
    np.testing.assert_array_equal(folded(x).numpy(), f(x).numpy())


def test_a_constant_written_in_place_is_not_folded():
    def f(x):
        z = minitorch.zeros(3)
        z.add_(x)  # z's values depend on x: the capture made it a temp
        return z.exp()

    x = minitorch.randn(3)
    folded, _ = compiled_results(f, x, passes=["constant_folding"])
    assert "map:exp" in kernels(folded.graph)
    x2 = minitorch.randn(3)
    np.testing.assert_array_equal(folded(x2).numpy(), f(x2).numpy())


# ----- common subexpressions ----------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_repeated_call_is_computed_once(backend):
    def f(x, y):
        return (x - y) * (x - y).exp() + (x - y).exp()  # the second exp repeats too (cascade)

    with minitorch.backend(backend):
        x, y = minitorch.randn(5, 4), minitorch.randn(4)
        plain, _ = compiled_results(f, x, y, passes=[])
        merged, got = compiled_results(f, x, y, passes=["common_subexpressions"])
        assert kernels(plain.graph).count("zip:sub") == 3 and kernels(plain.graph).count("map:exp") == 2
        assert kernels(merged.graph) == ["zip:sub", "map:exp", "zip:mul", "zip:add"]
        assert_same(got, f(x, y), backend)


def test_a_call_after_its_operand_was_written_is_kept():
    def f(x):
        a = x * 2.0
        x.add_(1.0)  # x changed: x * 2.0 now computes something else
        return a + x * 2.0

    x = minitorch.randn(6)
    x_eager = x.clone()
    merged = minitorch.compile(f, passes=["common_subexpressions"])
    for _ in range(3):
        got, expected = merged(x), f(x_eager)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert kernels(merged.graph).count("zip:mul") == 2


def test_a_call_whose_earlier_result_was_overwritten_is_kept():
    def f(x):
        a = x.exp()
        kept = a * 1.0
        a.mul_(2.0)  # the first exp's buffer no longer holds exp(x)
        return kept + a + x.exp()

    x = minitorch.randn(6)
    merged, got = compiled_results(f, x, passes=["common_subexpressions"])
    assert kernels(merged.graph).count("map:exp") == 2
    np.testing.assert_array_equal(got.numpy(), f(x).numpy())


def test_different_numbers_are_different_calls():
    def f(x):
        return x.pow(2.0) + x.pow(3.0) + x.clamp(min=0.0) + x.clamp(min=-0.0)

    x = minitorch.randn(6)
    merged, got = compiled_results(f, x, passes=["common_subexpressions"])
    plain, _ = compiled_results(f, x, passes=[])
    assert len(merged.graph.nodes) == len(plain.graph.nodes)
    np.testing.assert_array_equal(got.numpy(), f(x).numpy())


def test_a_returned_result_keeps_its_own_buffer():
    def f(x):
        return x.exp(), x.exp()

    x = minitorch.randn(3)
    merged, (a, b) = compiled_results(f, x, passes=["common_subexpressions"])
    assert kernels(merged.graph) == ["map:exp", "map:exp"]
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# ----- memory planning ----------------------------------------------------------------------


def long_chain(x):
    a = x.tanh() * 2.0
    b = (a.exp() + 1.0).sin()
    c = minitorch.cat([b * 3.0, a.cos()])  # partial writes: cat copies into parts of one buffer
    return c.log1p().sum(0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_temps_with_disjoint_lifetimes_share_storage(backend):
    with minitorch.backend(backend):
        x = minitorch.randn(30, 20)[::2]  # non-contiguous
        planned, got = compiled_results(long_chain, x, passes=["plan_memory"])
        graph = planned.graph
        assert graph.memory["after"] < graph.memory["before"]
        assert any(buffer != target for buffer, target in graph.placement.items())
        assert "temp memory:" in str(graph)
        assert_no_shared_storage_overlaps(graph)
        assert_same(got, long_chain(x), backend)
        x2 = minitorch.randn(30, 20)[::2]
        assert_same(planned(x2), long_chain(x2), backend)


def test_a_kernel_that_reads_what_it_writes_keeps_its_buffer_alive():
    def f(x, index):
        out = minitorch.zeros(4, 3).scatter_add(0, index, x.exp())  # adds into out
        return (out * 2.0).sum()

    x = minitorch.randn(5, 3)
    index = minitorch.tensor([[0, 1, 2], [2, 2, 2], [3, 0, 1], [0, 0, 0], [1, 1, 3]])
    planned, got = compiled_results(f, x, index, passes=["plan_memory"])
    assert "scatter_add" in [node.primitive for node in planned.graph.nodes]
    assert_no_shared_storage_overlaps(planned.graph)
    np.testing.assert_array_equal(got.numpy(), f(x, index).numpy())


def test_an_empty_graph_plans_nothing():
    planned, got = compiled_results(lambda x: x, minitorch.randn(2), passes=["plan_memory"])
    assert planned.graph.memory == {"before": 0, "after": 0}


# ----- real training steps, every pass on -------------------------------------------------


def mlp_regression():
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    data = minitorch.randn(40, 2), minitorch.randn(40, 1)
    return model, lambda p: minitorch.optim.SGD(p, lr=0.05), nn.functional.mse_loss, data


def conv_net():
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 3))
    data = minitorch.randn(3, 1, 6, 6), minitorch.tensor([0, 2, 1])
    return model, lambda p: minitorch.optim.SGD(p, lr=0.05, momentum=0.9), nn.functional.cross_entropy, data


def classifier():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    data = minitorch.randn(10, 4), minitorch.tensor([0, 1, 2, 1, 0, 2, 2, 1, 0, 0])
    return model, lambda p: minitorch.optim.Adam(p, lr=0.01), nn.functional.cross_entropy, data


def training_step(model, optimizer, loss_fn):
    def step(x, y):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


ALL = ["constant_folding", "common_subexpressions", "dead_code", "fuse_elementwise", "plan_memory"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("make", [mlp_regression, conv_net, classifier])
def test_training_steps_with_every_pass_equal_eager(make, backend):
    with minitorch.backend(backend):
        minitorch.manual_seed(0)
        model, make_optimizer, loss_fn, (x, y) = make()
        twin, plain_twin = copy.deepcopy(model), copy.deepcopy(model)
        optimized = minitorch.compile(training_step(model, make_optimizer(model.parameters()), loss_fn),
                                      passes=ALL)  # fmt: skip
        plain = minitorch.compile(training_step(plain_twin, make_optimizer(plain_twin.parameters()), loss_fn),
                                  passes=[])  # fmt: skip
        eager = training_step(twin, make_optimizer(twin.parameters()), loss_fn)
        for _ in range(5):
            got = optimized(x, y)
            plain(x, y)
            assert_same(got, eager(x, y), backend)
        for p, q in zip(model.parameters(), twin.parameters()):
            assert_same(p, q, backend)
        graph = optimized.graph
        assert graph.passes == ALL
        assert len(graph.nodes) <= len(plain.graph.nodes)
        assert graph.memory["after"] < graph.memory["before"]
        assert_no_shared_storage_overlaps(graph)


def test_mse_loss_difference_is_computed_once_in_a_training_step():
    """``zip:sub(out, target)``: mse_loss's forward and its backward both compute it."""
    minitorch.manual_seed(0)
    model, make_optimizer, loss_fn, (x, y) = mlp_regression()
    step = training_step(model, make_optimizer(model.parameters()), loss_fn)
    merged, _ = compiled_results(step, x, y, passes=["common_subexpressions"])
    plain, _ = compiled_results(step, x, y, passes=[])
    assert kernels(plain.graph).count("zip:sub") - kernels(merged.graph).count("zip:sub") == 1
    assert len(merged.graph.nodes) == len(plain.graph.nodes) - 1


# ----- switching passes ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["constant_folding", "common_subexpressions", "dead_code", "plan_memory"])
def test_each_pass_can_run_alone(name):
    x, y = minitorch.randn(5, 4), minitorch.randn(4)

    def f(x, y):
        unused = (x * 3.0).exp()  # noqa: F841  (dead code)
        return (x - y) * (x - y) + minitorch.tensor([1.0, 2.0, 3.0, 4.0]).exp()

    alone, got = compiled_results(f, x, y, passes=[name])
    assert alone.graph.passes == [name]
    assert bool(alone.graph.memory) == (name == "plan_memory")
    np.testing.assert_array_equal(got.numpy(), f(x, y).numpy())
    nothing, _ = compiled_results(f, x, y, passes=[])
    assert nothing.graph.passes == [] and not nothing.graph.placement
    dropped = {"constant_folding": 1, "common_subexpressions": 1, "dead_code": 2, "plan_memory": 0}
    assert len(alone.graph.nodes) == len(nothing.graph.nodes) - dropped[name]


def test_the_default_passes_in_order():
    names = [n for n in DEFAULT_PASSES if n != "fuse_elementwise"]
    assert names == ["constant_folding", "common_subexpressions", "dead_code", "plan_memory"]
    assert all(name in PASSES for name in DEFAULT_PASSES)
    x = minitorch.randn(3)
    compiled, _ = compiled_results(lambda x: x.exp().sin(), x, passes=None)
    assert compiled.graph.passes == DEFAULT_PASSES


def test_the_readme_step_keeps_its_temps_in_less_memory():
    """README, Static graphs: the example step keeps its 74 kB of temps in about 50 kB
    (48 or 50: a scalar constant an earlier step cached is a variable, not a temp)."""
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    step = training_step(model, minitorch.optim.SGD(model.parameters(), lr=0.1), nn.functional.mse_loss)
    compiled, _ = compiled_results(step, minitorch.randn(500, 2), minitorch.randn(500, 1), passes=None)
    memory = compiled.graph.memory
    assert round(memory["before"] / 1000) == 74 and 45_000 <= memory["after"] <= 52_000


# ----- CUDA, on the emulator ----------------------------------------------------------------


def test_every_pass_on_cuda_equals_eager_on_the_emulator():
    from minitorch.backends import cuda, cuda_emulator

    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())

    def f(x, y):
        c = minitorch.tensor([1.0, 2.0, 3.0, 4.0], device="cuda")
        return ((x - y) * (x - y).exp() + c.exp()).sum(0)

    with cuda.emulated():
        x, y = minitorch.randn(5, 4).to("cuda"), minitorch.randn(4).to("cuda")
        plain, _ = compiled_results(f, x, y, passes=[])
        optimized, got = compiled_results(f, x, y, passes=ALL)
        assert len(optimized.graph.nodes) < len(plain.graph.nodes)
        assert optimized.graph.memory["after"] < optimized.graph.memory["before"]
        np.testing.assert_allclose(got.cpu().numpy(), f(x, y).cpu().numpy(), rtol=1e-6, atol=1e-6)
