"""The fused optimizer step (``foreach``) against ``torch.optim`` and against our own
per-parameter loop (``foreach=False``, the readable specification).

The parameters are chosen to be awkward: transposed and sliced leaves, a 0-d and an
empty one, one that never gets a gradient, more than ``TENSORS_PER_CALL`` of them (so a
step takes two kernel calls), non-contiguous gradients; float32 and float64. Gradients
are random each step, the same for both libraries.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import dispatch, optim

SGD_SETTINGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
    dict(lr=0.1, momentum=0.5, maximize=True),
    dict(lr=0.1, weight_decay=0.2, maximize=True),
]
ADAM_SETTINGS = [
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.5))),  # 1 - beta1 > 0.5: lerp's other branch
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.03, weight_decay=0.5, amsgrad=True)),
]
SETTINGS = [("SGD", s) for s in SGD_SETTINGS] + ADAM_SETTINGS
TOLERANCE = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-13)}


def awkward_params(lib, dtype: str) -> list:
    """The same eleven leaves in either library (``lib`` is ``mt`` or ``torch``)."""
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(shape).astype(dtype) for shape in
              [(4, 3), (3,), (5, 6), (), (0, 2), (2, 3, 4), (7,), (2, 2), (6,), (3, 1), (8,)]]  # fmt: skip
    tensors = [lib.tensor(a) for a in arrays]
    tensors[0] = tensors[0].t()  # a transposed leaf
    tensors[2] = tensors[2][:, ::2]  # every other column
    tensors[5] = tensors[5].permute(2, 0, 1)
    return [t.requires_grad_() for t in tensors]


def gradients(params: list, step: int, dtype: str) -> list:
    """Random gradients for every parameter but number 6 (which never gets one); odd
    steps give parameter 1 a transposed (non-contiguous) gradient."""
    rng = np.random.default_rng(100 + step)
    grads = [rng.standard_normal(tuple(p.shape)).astype(dtype) for p in params]
    grads[6] = None
    if step % 2:
        grads[5] = np.ascontiguousarray(grads[5].transpose(2, 1, 0)).transpose(2, 1, 0)
    return grads


def train(lib, name: str, settings: dict, dtype: str, steps: int = 5, foreach=None) -> list:
    """The parameters after ``steps`` steps with the same gradients."""
    params = awkward_params(lib, dtype)
    optimizer = getattr(lib.optim, name)(params, **settings, foreach=foreach)
    for step in range(steps):
        for param, grad in zip(params, gradients(params, step, dtype)):
            param.grad = None if grad is None else lib.from_numpy(grad)
        optimizer.step()
    return [p.detach().numpy().copy() for p in params]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,settings", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)])
def test_fused_step_matches_torch(name, settings, dtype, numba_backend):
    ours = train(mt, name, settings, dtype)
    for foreach in (False, True):
        theirs = train(torch, name, settings, dtype, foreach=foreach)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            what = f"param {i}, torch foreach={foreach}"
            np.testing.assert_allclose(a, b, **TOLERANCE[dtype], err_msg=what)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,settings", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)])
def test_fused_step_matches_our_loop(name, settings, dtype, numba_backend):
    fused, loop = train(mt, name, settings, dtype), train(mt, name, settings, dtype, foreach=False)
    for a, b in zip(fused, loop):
        np.testing.assert_allclose(a, b, **TOLERANCE[dtype])


@pytest.mark.parametrize("name,settings", [SETTINGS[3], SETTINGS[8], SETTINGS[11]])
def test_reference_backend_step_matches_torch(name, settings):
    with mt.backend("reference"):
        ours = train(mt, name, settings, "float32", steps=3)
    theirs = train(torch, name, settings, "float32", steps=3, foreach=False)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, **TOLERANCE["float32"])


def kernel_calls(optimizer, params) -> list:
    for param in params:
        param.grad = mt.ones_like(param)
    with dispatch.trace() as calls:
        optimizer.step()
    return [call.primitive for call in calls]


@pytest.mark.parametrize("make", [lambda p: optim.SGD(p, lr=0.1, momentum=0.9), lambda p: optim.Adam(p)])
def test_one_kernel_call_per_step(make, numba_backend):
    params = [mt.randn(3, 4, requires_grad=True) for _ in range(6)]
    optimizer = make(params)
    kernel_calls(optimizer, params)  # the first step makes the state
    assert kernel_calls(optimizer, params) == ["optimizer_step"]
    more = [mt.randn(2, requires_grad=True) for _ in range(11)]
    optimizer = make(more)
    kernel_calls(optimizer, more)
    assert kernel_calls(optimizer, more) == ["optimizer_step"]  # two calls inside the backend
    loop = make(params)
    loop.param_groups[0]["foreach"] = False
    assert "optimizer_step" not in kernel_calls(loop, params)


def test_mixed_dtypes_take_one_call_each_and_match_torch(numba_backend):
    arrays = [np.arange(6.0).reshape(2, 3), np.linspace(-1, 1, 4), np.ones(5)]
    dtypes = ["float32", "float64", "float32"]
    ours = [mt.tensor(a.astype(d), requires_grad=True) for a, d in zip(arrays, dtypes)]
    theirs = [torch.tensor(a.astype(d), requires_grad=True) for a, d in zip(arrays, dtypes)]
    ours_opt, theirs_opt = optim.Adam(ours, lr=0.1), torch.optim.Adam(theirs, lr=0.1)
    for step in range(3):
        for a, b in zip(ours, theirs):
            grad = np.random.default_rng(step).standard_normal(tuple(a.shape)).astype(a.dtype.name)
            a.grad, b.grad = mt.tensor(grad), torch.tensor(grad)
        with dispatch.trace() as calls:
            ours_opt.step()
        theirs_opt.step()
        assert [c.primitive for c in calls if c.primitive == "optimizer_step"] == ["optimizer_step"] * 2
    for a, b, d in zip(ours, theirs, dtypes):
        assert a.dtype.name == d
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOLERANCE[d])


def test_float16_parameters_take_the_loop(numba_backend):
    param = mt.ones(4, dtype=mt.float16, requires_grad=True)
    optimizer = optim.SGD([param], lr=0.5)
    param.grad = mt.ones(4, dtype=mt.float16)
    with dispatch.trace() as calls:
        optimizer.step()
    assert "optimizer_step" not in [c.primitive for c in calls]
    assert param.tolist() == [0.5] * 4


def test_state_moves_between_fused_and_loop(numba_backend):
    """Three fused steps, then the state dict into a loop optimizer for two more: the same
    as five steps of either."""
    def run(switch: bool) -> list:
        params = awkward_params(mt, "float64")
        first = optim.Adam(params, lr=0.01, amsgrad=True)
        second = optim.Adam(params, lr=0.01, amsgrad=True, foreach=False)
        for step in range(5):
            for param, grad in zip(params, gradients(params, step, "float64")):
                param.grad = None if grad is None else mt.from_numpy(grad)
            if step == 3 and switch:
                second.load_state_dict(first.state_dict())
            (second if switch and step >= 3 else first).step()
        return [p.detach().numpy() for p in params]

    for a, b in zip(run(False), run(True)):
        np.testing.assert_allclose(a, b, **TOLERANCE["float64"])


def test_state_matches_torch(numba_backend):
    params = [mt.tensor([1.0, -2.0], requires_grad=True), mt.tensor([[3.0]], requires_grad=True)]
    twins = [torch.tensor([1.0, -2.0], requires_grad=True), torch.tensor([[3.0]], requires_grad=True)]
    ours, theirs = optim.SGD(params, lr=0.1, momentum=0.9), torch.optim.SGD(twins, lr=0.1, momentum=0.9)
    for _ in range(2):
        for a, b in zip(params, twins):
            a.grad, b.grad = mt.ones_like(a) * 0.5, torch.ones_like(b) * 0.5
        ours.step()
        theirs.step()
    for a, b in zip(params, twins):
        buffer, twin = ours.state[a]["momentum_buffer"], theirs.state[b]["momentum_buffer"]
        np.testing.assert_allclose(buffer.numpy(), twin.numpy())
    assert ours.param_groups[0]["foreach"] is None


def test_a_step_bumps_the_version_counter(numba_backend):
    param = mt.zeros(3, requires_grad=True)
    optimizer = optim.SGD([param], lr=0.1)
    param.grad = mt.ones(3)
    before = param._version
    optimizer.step()
    assert param._version == before + 1


def test_bad_gradients_and_states_are_refused_before_the_kernel(numba_backend):
    """A gradient of another shape or dtype is refused (when it is assigned, as PyTorch
    does, or at the latest by the step); so is a state that does not fit its parameter."""
    param = mt.zeros(3, requires_grad=True)
    optimizer = optim.SGD([param], lr=0.1, momentum=0.9)
    for bad in (mt.ones(4), mt.ones(3, dtype=mt.float64), mt.ones(1, 3)):
        with pytest.raises(RuntimeError):
            param.grad = bad
            optimizer.step()
        assert param.tolist() == [0.0, 0.0, 0.0]
    param.grad = mt.ones(3)
    for bad in (mt.ones(4), mt.ones(3, dtype=mt.float64)):
        optimizer.state[param] = {"momentum_buffer": bad}
        with pytest.raises(RuntimeError, match="the state of parameter 0"):
            optimizer.step()
        assert param.tolist() == [0.0, 0.0, 0.0]


def test_an_expanded_parameter_is_refused(numba_backend):
    param = mt.zeros(1).expand(3).requires_grad_()
    optimizer = optim.SGD([param], lr=0.1)
    param.grad = mt.ones(3)
    with pytest.raises(RuntimeError, match="single memory location"):
        optimizer.step()
    twin = torch.zeros(1).expand(3).requires_grad_()
    twin.grad = torch.ones(3)
    with pytest.raises(RuntimeError, match="single memory location"):
        torch.optim.SGD([twin], lr=0.1).step()
