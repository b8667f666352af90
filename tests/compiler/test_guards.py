"""Guards of minitorch.compile: a replay must never give a stale answer (issue 29).

Each test runs a compiled function and the same code eagerly, side by side, and compares
them value by value (a replay runs the very kernels eager code ran: equal bit for bit)."""

from __future__ import annotations

import copy
import itertools
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn

F = nn.functional


def twins(seed: int = 0) -> tuple[nn.Module, nn.Module]:
    minitorch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    return model, copy.deepcopy(model)


def values(t: minitorch.Tensor | None):
    return None if t is None else t.detach().numpy().copy()


def assert_same_state(model: nn.Module, twin: nn.Module, what: str) -> None:
    for (name, p), q in zip(model.named_parameters(), twin.parameters()):
        np.testing.assert_array_equal(values(p), values(q), err_msg=f"{what}: {name}")
        assert (p.grad is None) == (q.grad is None), f"{what}: {name}.grad"
        if p.grad is not None:
            np.testing.assert_array_equal(values(p.grad), values(q.grad), err_msg=f"{what}: {name}.grad")


# ----- 1. zero_grad outside the compiled step, or inside ---------------------------------


@pytest.mark.parametrize("zero_grad", ["outside", "outside_set_to_none_false", "inside"])
def test_a_compiled_forward_backward_with_zero_grad_outside_or_inside_equals_eager(zero_grad):
    # Before: with zero_grad() outside (set_to_none=True), every replay wrote the
    # gradient into the tensor the capture made, while p.grad stayed None: opt.step()
    # skipped every parameter and the loss never changed.
    model, twin = twins()
    opt, twin_opt = (minitorch.optim.SGD(m.parameters(), lr=0.1) for m in (model, twin))
    x, y = minitorch.randn(8, 3), minitorch.randn(8, 1)

    def make(m, o):
        def step(x, y):
            if zero_grad == "inside":
                o.zero_grad()
            loss = F.mse_loss(m(x), y)
            loss.backward()
            return loss

        return step

    compiled, eager = minitorch.compile(make(model, opt)), make(twin, twin_opt)
    for i in range(6):
        if zero_grad != "inside":
            for o in (opt, twin_opt):
                o.zero_grad(set_to_none=zero_grad == "outside")
        got, expected = compiled(x, y), eager(x, y)
        assert got.item() == expected.item(), f"step {i}"
        assert_same_state(model, twin, f"step {i} after backward")
        opt.step(), twin_opt.step()
    assert compiled.graph is not None and compiled.eager == {}, compiled.explain()


# ----- 2. state rebound during the call ----------------------------------------------------


RMSPROP = [
    {"centered": c, "momentum": m, "weight_decay": w}
    for c, m, w in itertools.product([False, True], [0, 0.9], [0, 0.1])
]


@pytest.mark.parametrize(
    "make_optimizer, replays",
    [(lambda p, o=o: minitorch.optim.RMSprop(p, lr=0.01, **o), True) for o in RMSPROP]
    + [(lambda p: minitorch.optim.Adam(p, lr=0.01, foreach=False), False)],
    ids=[f"rmsprop-{'-'.join(f'{k}={v}' for k, v in o.items())}" for o in RMSPROP] + ["adam-foreach-false"],
)
def test_an_optimizer_that_rebinds_its_state_equals_eager(make_optimizer, replays):
    # Before: state["square_avg"] = new tensor stayed frozen at the tensor the capture
    # saw, and state["step"] += 1 (a Python number) at the capture's count (Adam's bias
    # correction baked in): every replay diverged from eager.
    model, twin = twins()

    def make(m):
        o = make_optimizer(m.parameters())

        def step(x, y):
            o.zero_grad()
            loss = F.mse_loss(m(x), y)
            loss.backward()
            o.step()
            return loss

        return step, o

    (compiled, opt), (eager, twin_opt) = make(model), make(twin)
    compiled = minitorch.compile(compiled)
    x, y = minitorch.randn(8, 3), minitorch.randn(8, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(5):
            assert compiled(x, y).item() == eager(x, y).item(), f"step {i}"
            assert_same_state(model, twin, f"step {i}")
    for p, q in zip(model.parameters(), twin.parameters()):
        for key, value in twin_opt.state[q].items():
            got = opt.state[p][key]
            assert (
                values(got).tolist() == values(value).tolist()
                if isinstance(value, minitorch.Tensor)
                else got == value
            )
    if replays:
        # RMSprop counts its step in a 0-d tensor (as PyTorch does) and rebinds its
        # averages: the graph redoes the count, and the new averages are bound back.
        assert compiled.graph is not None and compiled.eager == {}, compiled.explain()
        return
    # Adam's foreach=False step counts in a Python number no replay can advance (its
    # bias correction would be baked in): said once, then eager.
    assert [str(w.message) for w in caught if "runs eagerly" in str(w.message)] == [
        f"minitorch.compile: step runs eagerly: {reason}" for reason in compiled.eager.values()
    ]
    assert "a Python number" in compiled.explain()


def test_a_fused_optimizer_step_that_rebinds_state_is_replayed():
    model, twin = twins()
    opts = [minitorch.optim.Adam(m.parameters(), lr=0.01) for m in (model, twin)]

    def make(m, o):
        def step(x, y):
            loss = F.mse_loss(m(x), y)
            loss.backward()
            o.step()
            return loss

        return step

    compiled, eager = minitorch.compile(make(model, opts[0])), make(twin, opts[1])
    x, y = minitorch.randn(8, 3), minitorch.randn(8, 1)
    for i in range(5):
        for o in opts:
            o.zero_grad()
        assert compiled(x, y).item() == eager(x, y).item(), f"step {i}"
        assert_same_state(model, twin, f"step {i}")
    assert compiled.graph is not None and compiled.eager == {}, compiled.explain()


class RunningAverage:
    def __init__(self) -> None:
        self.avg = minitorch.zeros(3)

    def __call__(self, x):
        self.avg = self.avg * 0.5 + x * 0.5  # rebinds the attribute to a new tensor
        return self.avg.sum()


def test_an_attribute_rebound_on_every_call_is_written_back():
    compiled, eager = RunningAverage(), RunningAverage()
    step = minitorch.compile(compiled)
    for i in range(6):
        x = minitorch.full((3,), float(i))
        assert step(x).item() == eager(x).item(), f"call {i}"
        np.testing.assert_array_equal(values(compiled.avg), values(eager.avg))
    assert step.graph is not None


def test_rebinding_state_to_a_tensor_made_before_the_call_runs_eagerly_with_the_reason():
    class Swap:
        def __init__(self) -> None:
            self.a, self.b = minitorch.zeros(2), minitorch.ones(2)

        def __call__(self, x):
            self.a, self.b = self.b, self.a  # no replay can redo this
            return self.a + x

    compiled, eager = Swap(), Swap()
    step = minitorch.compile(compiled)
    with pytest.warns(UserWarning, match=r"runs eagerly: it sets self\.[ab] to a tensor it did not make"):
        results = [step(minitorch.ones(2)).tolist() for _ in range(4)]
    assert results == [eager(minitorch.ones(2)).tolist() for _ in range(4)]


# ----- 3. what the key and the state guard cover -----------------------------------------


def test_module_training_is_part_of_the_key():
    minitorch.manual_seed(0)
    bn = nn.BatchNorm1d(3)
    twin = copy.deepcopy(bn)
    compiled, x = minitorch.compile(bn), minitorch.randn(8, 3) * 2 + 1
    with minitorch.no_grad():
        for mode in ["train", "train", "train", "eval", "eval", "train", "eval"]:
            for m in (bn, twin):
                m.train(mode == "train")
            np.testing.assert_array_equal(values(compiled(x)), values(twin(x)), err_msg=mode)
            np.testing.assert_array_equal(values(bn.running_mean), values(twin.running_mean), err_msg=mode)
    assert "model.training changed (on -> off)" in compiled.recaptures


def test_freezing_a_parameter_is_seen():
    model, twin = twins()
    opts = [minitorch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (model, twin)]

    def make(m, o):
        def step(x, y):
            o.zero_grad()
            F.mse_loss(m(x), y).backward()
            o.step()

        return step

    compiled, eager = minitorch.compile(make(model, opts[0])), make(twin, opts[1])
    x, y = minitorch.randn(8, 3), minitorch.randn(8, 1)
    for i in range(6):
        if i == 3:
            model[0].weight.requires_grad_(False), twin[0].weight.requires_grad_(False)
        compiled(x, y), eager(x, y)
        assert_same_state(model, twin, f"step {i}")
    assert "m.0.weight: requires_grad True -> False" in compiled.recaptures, compiled.recaptures


def test_the_default_dtype_is_part_of_the_key():
    f = minitorch.compile(lambda x: (x * 2).sum() + minitorch.ones(2))
    x = minitorch.ones(2)
    with minitorch.no_grad():
        for _ in range(3):
            f(x)
        minitorch.set_default_dtype(minitorch.float64)
        try:
            got, expected = f(x), f.fn(x)
        finally:
            minitorch.set_default_dtype(minitorch.float32)
    assert got.dtype == expected.dtype == minitorch.float64
    assert f.recaptures[-1].startswith("default dtype changed")


@pytest.mark.parametrize("first,then", [(0.0, -0.0), (-0.0, 0.0), (float("nan"), 1.0), (1, True)])
def test_python_numbers_are_keyed_exactly(first, then):
    f = minitorch.compile(lambda x, s: x / s)
    with minitorch.no_grad():
        for _ in range(3):
            f(minitorch.ones(2), first)
        np.testing.assert_array_equal(values(f(minitorch.ones(2), then)), values(minitorch.ones(2) / then))


def test_a_nan_argument_matches_itself():
    f = minitorch.compile(lambda x, s: x * s)
    with minitorch.no_grad():
        for _ in range(4):
            f(minitorch.ones(2), float("nan"))
    assert f.graph is not None and f.recaptures == []


def test_numpy_arguments_are_keyed_by_value_and_others_that_cannot_be_hashed_are_refused():
    f = minitorch.compile(lambda x, s: x * float(s))
    with minitorch.no_grad():
        x = minitorch.ones(1, dtype=minitorch.float64)
        for _ in range(3):
            f(x, np.array(0.1234567891))
        assert f(x, np.array(0.1234567899)).item() == 0.1234567899
        assert f(x, np.float32(-0.0)).tolist() == [-0.0] and str(f(x, np.float32(-0.0)).item()) == "-0.0"
    with pytest.raises(TypeError, match="argument s is a set, which cannot be hashed"):
        f(x, {1, 2})


def test_an_argument_that_is_the_tensor_a_closure_reads_is_guarded():
    w = minitorch.full((3,), 2.0)
    f = minitorch.compile(lambda x: x * w)
    with minitorch.no_grad():
        for _ in range(3):
            assert f(w).tolist() == [4.0] * 3
        other = minitorch.full((3,), 5.0)
        assert f(other).tolist() == [10.0] * 3
        assert f(other).tolist() == [10.0] * 3
        assert f(w).tolist() == [4.0] * 3
    assert "argument x was w, a tensor the function also reads; now it is not" in f.recaptures


@pytest.mark.parametrize("how", ["data", "share_memory_"])
def test_state_reached_through_a_dict_whose_storage_changes_is_noticed(how):
    settings = {"w": minitorch.ones(3)}
    f = minitorch.compile(lambda x: x * settings["w"])
    with minitorch.no_grad():
        for _ in range(3):
            f(minitorch.ones(3))
        if how == "data":
            settings["w"].data = minitorch.full((3,), 3.0)
        else:
            settings["w"].share_memory_()
            settings["w"].fill_(3.0)
        assert f(minitorch.ones(3)).tolist() == [3.0] * 3
    assert f.recaptures[-1] == "settings['w'] was replaced (its storage changed)"


# ----- 4. a bounded number of keys, and a warning for a value that keeps changing --------


def test_an_argument_that_changes_on_every_call_is_named_once_and_keys_stay_bounded():
    from minitorch.compiler.compiled import GRAPH_LIMIT, KEY_LIMIT

    f = minitorch.compile(lambda x, lr: x * lr)
    with warnings.catch_warnings(record=True) as caught, minitorch.no_grad():
        warnings.simplefilter("always")
        for i in range(300):
            assert f(minitorch.ones(2), 0.5 + i).tolist() == [0.5 + i] * 2
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "different values of argument lr" in said[0], said
    assert len(f.calls) <= KEY_LIMIT and len(f.graphs) <= GRAPH_LIMIT
    assert len(f.recaptures) == GRAPH_LIMIT and "argument lr" in f.recaptures[-1]


def test_the_least_recently_used_graph_is_dropped_and_that_is_said():
    from minitorch.compiler.compiled import GRAPH_LIMIT

    f = minitorch.compile(lambda x: x + 1, warmup=0)
    with minitorch.no_grad():
        for n in list(range(1, GRAPH_LIMIT + 2)) * 2:
            assert f(minitorch.ones(n)).tolist() == [2.0] * n
    assert len(f.graphs) == GRAPH_LIMIT
    assert any(r.startswith("dropped the least recently used graph") for r in f.recaptures)


def test_a_python_counter_beside_a_fused_step_is_not_taken_for_the_steps_own():
    # Only the numbers the fused step's own Python half advances are replayed; a counter
    # of the program's (here scaling the loss) would stay at the capture's value.
    model, twin = twins()

    def make(m):
        o, count = minitorch.optim.Adam(m.parameters(), lr=0.01), {"n": 0}

        def step(x, y):
            o.zero_grad()
            count["n"] += 1
            loss = F.mse_loss(m(x), y) * count["n"]
            loss.backward()
            o.step()
            return loss

        return step

    compiled, eager = minitorch.compile(make(model)), make(twin)
    x, y = minitorch.randn(8, 3), minitorch.randn(8, 1)
    with pytest.warns(UserWarning, match=r"it changes count\['n'\], a Python number \(1 -> 2\)"):
        for i in range(5):
            assert compiled(x, y).item() == eager(x, y).item(), f"step {i}"
    assert_same_state(model, twin, "after 5 steps")


def test_a_smaller_last_batch_and_back_replays_both_graphs_without_recapturing():
    # zero_grad() inside empties p.grad and backward fills it: each graph made its own
    # gradient tensor, and p.grad holds the other graph's when the batch size changes.
    model, twin = twins()
    opts = [minitorch.optim.SGD(m.parameters(), lr=0.1) for m in (model, twin)]

    def make(m, o):
        def step(x, y):
            o.zero_grad()
            loss = F.mse_loss(m(x), y)
            loss.backward()
            o.step()
            return loss

        return step

    compiled, eager = minitorch.compile(make(model, opts[0])), make(twin, opts[1])
    for i, n in enumerate([6, 6, 6, 4, 4, 4, 6, 4, 6, 4]):
        x, y = minitorch.randn(n, 3), minitorch.randn(n, 1)
        assert compiled(x, y).item() == eager(x, y).item(), f"step {i}"
        assert_same_state(model, twin, f"step {i}")
    assert compiled.recaptures == ["x: shape (6, 3) -> (4, 3)"] and len(compiled.graphs) == 2
