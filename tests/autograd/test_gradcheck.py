"""``minitorch.autograd.gradcheck`` and ``gradgradcheck`` behave like PyTorch's
(issue 3, item 7): True for correct gradients, an exception (a ``RuntimeError``, like
torch's ``GradcheckError``) with a report for wrong ones, or False with
``raise_exception=False``; tolerances ``eps``, ``atol``, ``rtol`` are honoured."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt

RNG = np.random.default_rng(5)


def inputs(lib, *shapes, requires_grad=True):
    return tuple(
        lib.tensor(RNG.standard_normal(s), dtype=lib.float64, requires_grad=requires_grad)
        for s in shapes
    )


def make_scaled_exp(lib, factor: float, detach_in_backward: bool = False):
    """exp with a backward scaled by ``factor`` (1.0 is correct); optionally a backward
    that is right to first order but not differentiable correctly (detached)."""

    class ScaledExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            if detach_in_backward:
                y = y.detach()
            return grad * y * factor

    return ScaledExp


def test_gradcheck_true_for_correct_functions():
    x, w = inputs(mt, (3, 4), (4, 2))
    assert mt.autograd.gradcheck(lambda a, b: (a @ b).tanh(), (x, w)) is True
    assert mt.autograd.gradcheck(lambda a: (a.sin(), a.sum(0)), (x,)) is True
    assert mt.autograd.gradcheck(make_scaled_exp(mt, 1.0).apply, (x,)) is True


def test_gradcheck_with_default_arguments_and_single_tensor_input():
    (x,) = inputs(mt, (5,))
    assert mt.autograd.gradcheck(lambda a: a * a, x) is True


def test_gradcheck_ignores_inputs_not_requiring_grad():
    (x,) = inputs(mt, (3,))
    (c,) = inputs(mt, (3,), requires_grad=False)
    assert mt.autograd.gradcheck(lambda a, b: a * b.exp(), (x, c)) is True


@pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "minitorch"])
def test_gradcheck_raises_for_wrong_gradient(lib):
    (x,) = inputs(lib, (2, 3))
    with pytest.raises(RuntimeError) as error:
        lib.autograd.gradcheck(make_scaled_exp(lib, 1.5).apply, (x,))
    message = str(error.value).lower()
    assert "jacobian" in message or "mismatch" in message, message
    assert "numerical" in message and "analytical" in message, message


def test_gradcheck_raise_exception_false_returns_false():
    (x,) = inputs(mt, (2, 3))
    result = mt.autograd.gradcheck(make_scaled_exp(mt, 1.5).apply, (x,), raise_exception=False)
    assert result is False


def test_gradcheck_tolerances():
    (x,) = inputs(mt, (4,))
    slightly_off = make_scaled_exp(mt, 1.0 + 1e-4).apply
    assert mt.autograd.gradcheck(slightly_off, (x,), eps=1e-6, atol=1e-5, rtol=1e-3) is True
    with pytest.raises(RuntimeError):
        mt.autograd.gradcheck(slightly_off, (x,), eps=1e-6, atol=1e-9, rtol=1e-7)


def test_gradcheck_catches_wrong_builtin_style_bug_in_one_entry():
    class OneWrongEntry(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            g = grad * 2
            g[0] = 0.0
            return g

    (x,) = inputs(mt, (3,))
    with pytest.raises(RuntimeError):
        mt.autograd.gradcheck(OneWrongEntry.apply, (x,))


def test_gradgradcheck_true_for_correct_functions():
    (x,) = inputs(mt, (3,))
    assert mt.autograd.gradgradcheck(lambda a: (a * a * a).sin(), (x,)) is True
    assert mt.autograd.gradgradcheck(make_scaled_exp(mt, 1.0).apply, (x,)) is True


@pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "minitorch"])
def test_gradgradcheck_raises_for_wrong_second_derivative(lib):
    (x,) = inputs(lib, (3,))
    wrong = make_scaled_exp(lib, 1.0, detach_in_backward=True).apply
    assert lib.autograd.gradcheck(wrong, (x,)) is True  # right to first order
    with pytest.raises(RuntimeError):
        lib.autograd.gradgradcheck(wrong, (x,))
