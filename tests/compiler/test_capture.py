"""minitorch.compile: capture, guards, replay and what a capture refuses.

The oracle is eager minitorch itself: a compiled function must give exactly what the
same code gives eagerly (bit for bit: a replay runs the very kernels eager code ran)."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.compiler import CaptureError, replay


def make_model(seed: int = 0) -> nn.Module:
    minitorch.manual_seed(seed)
    return nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))


def training_step(model: nn.Module, optimizer: minitorch.optim.Optimizer):
    def step(x, y):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


OPTIMIZERS = {
    "sgd": lambda p: minitorch.optim.SGD(p, lr=0.1),
    "momentum": lambda p: minitorch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3),
    "adam": lambda p: minitorch.optim.Adam(p, lr=0.01),
    "adamw_amsgrad": lambda p: minitorch.optim.AdamW(p, lr=0.01, amsgrad=True),
}


@pytest.mark.parametrize("backend", ["numba", "reference"])
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_a_compiled_training_step_equals_the_eager_one(optimizer, backend):
    with minitorch.backend(backend):
        model = make_model()
        twin = copy.deepcopy(model)
        make = OPTIMIZERS[optimizer]
        opt, twin_opt = make(model.parameters()), make(twin.parameters())
        compiled, eager = minitorch.compile(training_step(model, opt)), training_step(twin, twin_opt)
        x, y = minitorch.randn(20, 2), minitorch.randn(20, 1)
        steps = 3 if backend == "reference" else 6
        for i in range(steps):
            if i == steps - 2:  # a learning rate changed between steps is honoured
                for group in opt.param_groups + twin_opt.param_groups:
                    group["lr"] *= 0.5
            got, expected = compiled(x, y), eager(x, y)
            assert got.item() == expected.item()
        for p, q in zip(model.parameters(), twin.parameters()):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
            np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
        assert compiled.graph is not None and compiled.recaptures == []


def test_first_call_warms_up_second_captures_then_replays():
    model = make_model()
    step = minitorch.compile(training_step(model, minitorch.optim.SGD(model.parameters(), lr=0.1)))
    x, y = minitorch.randn(10, 2), minitorch.randn(10, 1)
    step(x, y)
    assert step.graph is None  # the warm-up ran eagerly
    step(x, y)
    assert step.graph is not None
    with minitorch.dispatch.trace() as calls:
        step(x, y)
    assert len(calls) == len(step.graph.nodes)
    assert all(call.op.endswith("(replay)") for call in calls)
    assert {"forward", "backward"} <= {call.phase for call in calls}


def test_the_listing_names_inputs_parameters_and_gradients():
    model = make_model()
    step = minitorch.compile(training_step(model, minitorch.optim.SGD(model.parameters(), lr=0.1)))
    x, y = minitorch.randn(10, 2), minitorch.randn(10, 1)
    step(x, y), step(x, y)
    graph = step.graph
    text = str(graph)
    assert text.startswith("graph(x, y):")
    for name in ("model.0.weight", "model.2.bias", "model.0.weight.grad"):
        assert name in text
    assert [b.kind for b in graph.buffers if b.kind == "input"] == ["input", "input"]
    kinds = {b.name: b.kind for b in graph.buffers if b.name}
    assert kinds["model.0.weight"] == "variable" and kinds["model.0.weight.grad"] == "state"
    assert [n.name for n in graph.nodes] == [f"n{i}" for i in range(len(graph.nodes))]
    for node in graph.nodes:  # one line per node, naming it
        assert f"{node.name} " in text
    assert graph.nodes[-1].primitive == "optimizer_step"
    assert any(n.primitive == "matmul" and n.phase == "backward" for n in graph.nodes)


def test_plain_replay_equals_the_prepared_program():
    def f(a, b):
        return (a @ b).tanh().sum(0) * 2 + a.mean()

    compiled = minitorch.compile(f)
    a, b = minitorch.randn(5, 3), minitorch.randn(3, 4)
    compiled(a, b), compiled(a, b)
    a2, b2 = minitorch.randn(5, 3), minitorch.randn(3, 4)
    np.testing.assert_array_equal(replay(compiled.graph, [a2, b2]).numpy(), compiled(a2, b2).numpy())
    np.testing.assert_array_equal(compiled(a2, b2).numpy(), f(a2, b2).numpy())


def test_inputs_at_other_offsets_and_non_contiguous_inputs():
    data = minitorch.randn(40, 3)
    f = minitorch.compile(lambda x, w: (x * w).sum(1))
    w = minitorch.randn(3, 1).t()  # transposed, a (1, 3) view
    results = [f(data[i : i + 10], w) for i in range(0, 40, 10)]
    for i, got in zip(range(0, 40, 10), results):
        np.testing.assert_array_equal(got.numpy(), (data[i : i + 10] * w).sum(1).numpy())


def test_results_are_copies_that_a_later_call_does_not_change():
    f = minitorch.compile(lambda x: x * 2)
    results = [f(minitorch.full((3,), float(i))) for i in range(5)]
    assert [r.tolist() for r in results] == [[2.0 * i] * 3 for i in range(5)]


def test_guards_recapture_and_say_why():
    f = minitorch.compile(lambda x, scale: x * scale, warmup=0)
    f(minitorch.ones(2, 3), 2.0)
    f(minitorch.ones(4, 3), 2.0)
    f(minitorch.ones(4, 3), 3.0)
    f(minitorch.ones(4, 3, dtype=minitorch.float64), 3.0)
    with minitorch.no_grad():
        f(minitorch.ones(4, 3, dtype=minitorch.float64), 3.0)
    assert f.recaptures[0] == "x: shape (2, 3) -> (4, 3)"
    assert f.recaptures[1] == "argument scale changed (2.0 -> 3.0)"
    assert f.recaptures[2].startswith("x: dtype")
    assert f.recaptures[3] == "grad mode changed (on -> off)"
    assert f(minitorch.ones(4, 3), 3.0).tolist() == [[3.0] * 3] * 4
    assert "recaptured" in f.explain()


def test_a_replaced_parameter_is_noticed():
    model = make_model()
    step = minitorch.compile(training_step(model, minitorch.optim.SGD(model.parameters(), lr=0.1)))
    x, y = minitorch.randn(10, 2), minitorch.randn(10, 1)
    step(x, y), step(x, y)
    model[0].weight.data = minitorch.zeros(8, 2)
    step(x, y)
    assert step.recaptures == ["model.0.weight was replaced (its storage changed)"]


def test_reading_a_value_inside_is_refused_with_the_line():
    def f(x):
        if x.sum().item() > 0:  # Python decides by a value: cannot be captured
            return x * 2
        return x

    compiled = minitorch.compile(f, warmup=0)
    with pytest.raises(CaptureError, match=r"reads a tensor's value \(test_capture.py, line \d+\)"):
        compiled(minitorch.ones(3))


def test_random_numbers_inside_are_refused():
    compiled = minitorch.compile(lambda x: x + minitorch.randn(3), warmup=0)
    with pytest.raises(CaptureError, match="random numbers"):
        compiled(minitorch.ones(3))


def test_values_made_from_constants_may_be_read():
    # x[[0, 2]] turns the list into an index tensor and checks it on the host: a constant
    f = minitorch.compile(lambda x: x[[0, 2]] * 2, warmup=0)
    f(minitorch.arange(4.0))
    assert f(minitorch.arange(4.0) + 1).tolist() == [2.0, 6.0]


def test_an_index_out_of_range_is_refused_on_replay_as_eagerly():
    f = minitorch.compile(lambda x, i: x.gather(0, i), warmup=0)
    x = minitorch.arange(5.0)
    assert f(x, minitorch.tensor([4, 0])).tolist() == [4.0, 0.0]
    assert f(x, minitorch.tensor([1, 3])).tolist() == [1.0, 3.0]
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 0 with size 5"):
        f(x, minitorch.tensor([7, 0]))


def test_a_result_that_needs_grad_without_backward_runs_eagerly():
    model = make_model()
    f = minitorch.compile(model)
    x = minitorch.randn(4, 2)
    f(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(x)
    assert out.grad_fn is not None  # eager: the caller can still call backward
    assert any("runs eagerly" in str(w.message) for w in caught)
    with minitorch.no_grad():  # without grad the forward is captured and replayed
        f(x), f(x)
        np.testing.assert_array_equal(f(x).numpy(), model(x).numpy())
    assert "runs eagerly" in f.explain()


def test_inplace_on_an_input_is_replayed():
    def f(x):
        x.mul_(2)
        return x.sum()

    compiled = minitorch.compile(f, warmup=0)
    for value in (1.0, 2.0, 3.0):
        x = minitorch.full((3,), value)
        assert compiled(x).item() == 6 * value
        assert x.tolist() == [2 * value] * 3


def test_decorator_form_and_passes_argument():
    @minitorch.compile(passes=[])
    def f(x):
        return x.exp() + 1

    x = minitorch.randn(3)
    f(x), f(x)
    assert f.graph.passes == []
    np.testing.assert_array_equal(f(x).numpy(), (x.exp() + 1).numpy())


def test_an_op_that_chose_its_path_by_values_is_captured_again():
    # nll_loss skips the ignore_index work when no target is ignored: a replay checks
    # that this still holds, and captures again (before running anything) when not.
    logits = minitorch.randn(4, 3)
    f = minitorch.compile(lambda x, t: minitorch.nn.functional.cross_entropy(x, t, ignore_index=1))
    counted = minitorch.tensor([0, 2, 0, 2])
    with_ignored = minitorch.tensor([0, 1, 2, 1])
    for target in (counted, counted, counted, with_ignored, counted):
        expected = minitorch.nn.functional.cross_entropy(logits, target, ignore_index=1)
        assert f(logits, target).item() == expected.item()
    assert len(f.recaptures) == 2 and "another answer" in f.recaptures[0]
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        f(logits, minitorch.tensor([0, 5, 0, 2]))
