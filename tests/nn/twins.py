"""The same layer in minitorch and in PyTorch, with the same weights.

Weights travel through NumPy: ``copy_weights(mt_module, torch_module)`` writes every
entry of PyTorch's ``state_dict`` into minitorch's under the same key, which also checks
that both libraries name their state the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import minitorch as mt

TOLERANCE = {"float64": 1e-9, "float32": 1e-5}


def copy_weights(module: mt.nn.Module, reference: torch.nn.Module) -> None:
    """Give ``module`` the parameters and buffers of ``reference`` (keys must match)."""
    theirs = reference.state_dict()
    ours = module.state_dict()
    assert list(ours.keys()) == list(theirs.keys())
    module.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in theirs.items()})


def twin_tensors(array: np.ndarray, requires_grad: bool = True) -> tuple[mt.Tensor, torch.Tensor]:
    """A minitorch tensor and a torch tensor holding a copy of ``array``."""
    return (mt.tensor(array.copy(), requires_grad=requires_grad),
            torch.tensor(array.copy(), requires_grad=requires_grad))  # fmt: skip


def as_numpy(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().numpy())


def assert_close(actual: Any, expected: Any, tol: float | None = None, what: str = "") -> None:
    a, e = as_numpy(actual), as_numpy(expected)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != {e.shape}"
    if tol is None:
        tol = TOLERANCE.get(str(e.dtype), 0)
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol, err_msg=what)


def check_module(module: mt.nn.Module, reference: torch.nn.Module, *inputs: np.ndarray,
                 tol: float | None = None, grad_inputs: bool = True) -> None:  # fmt: skip
    """Forward and backward of both modules (same weights) agree: outputs, the gradient of
    every input and of every parameter, for a random upstream gradient."""
    copy_weights(module, reference)
    ours = [mt.tensor(a.copy(), requires_grad=grad_inputs and a.dtype.kind == "f") for a in inputs]
    theirs = [torch.tensor(a.copy(), requires_grad=grad_inputs and a.dtype.kind == "f") for a in inputs]
    out, expected = module(*ours), reference(*theirs)
    assert_close(out, expected, tol, "forward")
    upstream = (
        np.random.default_rng(1).standard_normal(tuple(expected.shape)).astype(as_numpy(expected).dtype)
    )
    (out * mt.tensor(upstream)).sum().backward()
    (expected * torch.tensor(upstream)).sum().backward()
    for name, param in reference.named_parameters():
        mine = dict(module.named_parameters())[name]
        assert_close(mine.grad, param.grad, tol, f"grad of {name}")
    for mine, theirs_input in zip(ours, theirs):
        if theirs_input.requires_grad:
            assert_close(mine.grad, theirs_input.grad, tol, "grad of the input")
    for name, buffer in reference.named_buffers():
        assert_close(dict(module.named_buffers())[name], buffer, tol, f"buffer {name}")
