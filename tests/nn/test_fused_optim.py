"""The fused optimizer step (the default, ``foreach=None``) in the situations a training
loop meets, against ``torch.optim`` (both of its paths, ``foreach=True`` and ``False``)
and against our own per-parameter loop (``foreach=False``):

* the *state* after several steps (momentum buffers; Adam's moments, its running maximum
  and its per-parameter step count), not only the parameters;
* parameters that get a gradient only on some steps, non-contiguous and stride-0
  gradients, parameter groups with their own settings, a learning rate changed by a
  scheduler between steps, ``zero_grad(set_to_none=False)`` (zero gradients still
  decay momentum), and views of a parameter seeing its update.

``tests/nn/test_foreach_optim.py`` checks the parameters' values, kernel-call counts
and refusals; this file checks the rest.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import dispatch

SETTINGS = [
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.03, weight_decay=0.5, amsgrad=True)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(SETTINGS)]
TOLERANCE = dict(rtol=1e-12, atol=1e-13)  # float64 throughout
SHAPES = [(4, 3), (3,), (5, 6), (), (0, 2), (2, 3, 4), (2, 2)]


def make_params(lib) -> list:
    """The same leaves in either library: contiguous, transposed, sliced, permuted, 0-d,
    empty."""
    rng = np.random.default_rng(3)
    tensors = [lib.tensor(rng.standard_normal(shape)) for shape in SHAPES]
    tensors[0] = tensors[0].t()
    tensors[2] = tensors[2][:, 1::2]
    tensors[5] = tensors[5].permute(1, 2, 0)
    return [t.requires_grad_() for t in tensors]


def set_gradients(lib, params: list, step: int) -> None:
    """Random gradients, laid out awkwardly: parameter 1 has one only on even steps,
    parameter 6 only from step 2 on; odd steps give parameter 0 a transposed gradient and
    parameter 2 a stride-0 one (one row repeated)."""
    rng = np.random.default_rng(50 + step)
    for i, param in enumerate(params):
        shape = tuple(param.shape)
        grad = lib.tensor(rng.standard_normal(shape))
        if step % 2 and i == 0:
            grad = lib.tensor(np.ascontiguousarray(rng.standard_normal(shape[::-1]))).t()
        if step % 2 and i == 2:
            grad = lib.tensor(rng.standard_normal(shape[1:])).expand(*shape)
        if (i == 1 and step % 2) or (i == 6 and step < 2):
            grad = None
        param.grad = grad


def run(lib, name: str, settings: dict, steps: int = 5, foreach=None):
    params = make_params(lib)
    optimizer = getattr(lib.optim, name)(params, **settings, foreach=foreach)
    for step in range(steps):
        set_gradients(lib, params, step)
        optimizer.step()
    return params, optimizer


def numpy_of(value) -> np.ndarray:
    if isinstance(value, (int, float)):
        return np.asarray(float(value))
    return np.asarray(value.detach().numpy() if hasattr(value, "detach") else value, dtype=np.float64)


def assert_same_state(ours, theirs, our_params, their_params, what: str) -> None:
    for i, (p, q) in enumerate(zip(our_params, their_params)):
        np.testing.assert_allclose(numpy_of(p), numpy_of(q), **TOLERANCE, err_msg=f"param {i} {what}")
        mine, twin = ours.state.get(p, {}), theirs.state.get(q, {})
        assert sorted(mine) == sorted(twin), f"param {i} state keys {what}"
        for key in twin:
            np.testing.assert_allclose(numpy_of(mine[key]), numpy_of(twin[key]), **TOLERANCE,
                                       err_msg=f"param {i} state {key!r} {what}")  # fmt: skip


@pytest.mark.parametrize("name,settings", SETTINGS, ids=IDS)
def test_parameters_and_state_match_torch(name, settings, numba_backend):
    our_params, ours = run(mt, name, settings)
    for foreach in (True, False):
        their_params, theirs = run(torch, name, settings, foreach=foreach)
        assert_same_state(ours, theirs, our_params, their_params, f"(torch foreach={foreach})")


@pytest.mark.parametrize("name,settings", SETTINGS, ids=IDS)
def test_the_fused_step_is_the_loop(name, settings, numba_backend):
    fused_params, fused = run(mt, name, settings)
    loop_params, loop = run(mt, name, settings, foreach=False)
    for i, (p, q) in enumerate(zip(fused_params, loop_params)):
        np.testing.assert_allclose(numpy_of(p), numpy_of(q), **TOLERANCE, err_msg=f"param {i}")
        for key, value in loop.state.get(q, {}).items():
            np.testing.assert_allclose(numpy_of(fused.state[p][key]), numpy_of(value), **TOLERANCE)


def test_a_step_is_one_kernel_call_with_the_awkward_parameters(numba_backend):
    params, optimizer = run(mt, "Adam", dict(lr=0.01, amsgrad=True), steps=2)
    set_gradients(mt, params, 2)
    with dispatch.trace() as calls:
        optimizer.step()
    assert [call.primitive for call in calls] == ["optimizer_step"]


def test_groups_with_their_own_settings_match_torch(numba_backend):
    """Two groups with different learning rates and momentum, the second forced onto the
    per-parameter loop: each group is stepped its own way, as in PyTorch."""
    def train(lib):
        params = make_params(lib)
        optimizer = lib.optim.SGD([{"params": params[:4], "momentum": 0.5},
                                   {"params": params[4:], "lr": 0.02, "foreach": False}],
                                  lr=0.1, momentum=0.9, weight_decay=0.01)  # fmt: skip
        for step in range(4):
            set_gradients(lib, params, step)
            optimizer.step()
        return params, optimizer

    (our_params, ours), (their_params, theirs) = train(mt), train(torch)
    assert_same_state(ours, theirs, our_params, their_params, "(two groups)")


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_a_learning_rate_changed_by_a_scheduler_is_used_by_the_next_step(name, numba_backend):
    def train(lib):
        params = make_params(lib)
        settings = dict(lr=0.1, momentum=0.9) if name == "SGD" else dict(lr=0.05)
        optimizer = getattr(lib.optim, name)(params, **settings)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.3)
        for step in range(5):
            set_gradients(lib, params, step)
            optimizer.step()
            scheduler.step()
        return params, optimizer

    (our_params, ours), (their_params, theirs) = train(mt), train(torch)
    assert ours.param_groups[0]["lr"] == pytest.approx(theirs.param_groups[0]["lr"])
    assert_same_state(ours, theirs, our_params, their_params, "(StepLR)")


ZERO_GRAD_SETTINGS = [SETTINGS[0], SETTINGS[3], SETTINGS[5]]


@pytest.mark.parametrize("name,settings", ZERO_GRAD_SETTINGS, ids=["SGD", "Adam", "amsgrad"])
def test_zero_grad_keeping_the_tensors_then_a_step_decays_the_state_like_torch(name, settings, numba_backend):
    """``zero_grad(set_to_none=False)`` zeroes each gradient in place (the same tensor
    object); a step with zero gradients still moves momentum and Adam's moments."""
    def train(lib):
        params, optimizer = run(lib, name, settings, steps=3)
        grads = [p.grad for p in params]
        optimizer.zero_grad(set_to_none=False)
        for p, g in zip(params, grads):
            assert (p.grad is None) == (g is None)
            if g is not None:
                assert p.grad is g and not p.grad.any()
        optimizer.step()
        return params, optimizer

    (our_params, ours), (their_params, theirs) = train(mt), train(torch)
    assert_same_state(ours, theirs, our_params, their_params, "(zero gradients)")


def test_zero_grad_to_none_then_a_step_changes_nothing(numba_backend):
    params, optimizer = run(mt, "Adam", dict(lr=0.01), steps=2)
    before = [p.detach().clone() for p in params]
    state = {p: {k: (v.clone() if hasattr(v, "clone") else v) for k, v in s.items()}
             for p, s in optimizer.state.items()}  # fmt: skip
    optimizer.zero_grad()
    assert all(p.grad is None for p in params)
    with dispatch.trace() as calls:
        optimizer.step()
    assert calls == []
    for p, b in zip(params, before):
        np.testing.assert_array_equal(p.detach().numpy(), b.numpy())
    for p, saved in state.items():
        assert optimizer.state[p]["step"] == saved["step"]


def test_the_parameters_stay_the_same_leaves_and_their_views_see_the_update(numba_backend):
    for lib in (mt, torch):
        params = make_params(lib)
        optimizer = lib.optim.SGD(params, lr=0.5, momentum=0.9)
        ids = [id(p) for p in params]
        row = params[5][0]  # a view of a parameter, taken before the step
        row_before = row.detach().numpy().copy()
        set_gradients(lib, params, 0)
        expected_row = row_before - 0.5 * params[5].grad[0].numpy()
        optimizer.step()
        assert [id(p) for p in params] == ids
        assert all(p.is_leaf and p.requires_grad and p.grad_fn is None for p in params)
        np.testing.assert_allclose(row.detach().numpy(), expected_row, **TOLERANCE)
