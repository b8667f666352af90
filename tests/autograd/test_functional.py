"""``minitorch.autograd.functional`` against ``torch.autograd.functional``.

Values, shapes and the tuple structure of ``jacobian``, ``hessian``, ``vjp``, ``jvp``,
``hvp`` and ``vhp`` for tensor and tuple inputs and outputs, 0-d, empty and
non-contiguous inputs; ``create_graph`` (the results differentiable again), ``strict``,
``vectorize`` and the errors for bad arguments.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

RNG = np.random.default_rng(0)
A = RNG.standard_normal(3)
M = RNG.standard_normal((2, 3))
V3 = RNG.standard_normal(3)
V2 = RNG.standard_normal(2)


def leaves(value) -> list:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in leaves(v)]
    return [value]


def structure(value):
    if isinstance(value, (tuple, list)):
        return tuple(structure(v) for v in value)
    return tuple(value.shape)


def assert_same(actual, expected):
    assert structure(actual) == structure(expected)
    for a, e in zip(leaves(actual), leaves(expected)):
        assert isinstance(a, minitorch.Tensor)
        np.testing.assert_allclose(a.detach().numpy(), e.detach().numpy(), rtol=1e-7, atol=1e-10)


def both(call):
    """``call(lib, F, T)`` with each library, its ``autograd.functional`` and a tensor
    maker, compared."""
    expected = call(torch, torch.autograd.functional, lambda v: torch.tensor(np.asarray(v)))
    actual = call(minitorch, minitorch.autograd.functional, lambda v: minitorch.tensor(np.asarray(v)))
    assert_same(actual, expected)


def f_vector(x):
    return (x**3).sin() * 2


def f_pair(x, m):
    return (x * m).sum(1), (m.exp() * x).sum(0), m.t()


def f_scalar(x):
    return (x**3).sum() + x.prod() * x[0]


def f_scalar_pair(x, m):
    return (x * m * m).sum() + (x.exp() * x).sum()


JACOBIANS = {
    "vector": lambda T: (f_vector, T(A)),
    "0-d input": lambda T: (lambda x: x * x.sin(), T(1.5)),
    "0-d output": lambda T: (lambda x: (x * x).sum(), T(A)),
    "transposed input": lambda T: (lambda m: m.exp() * m[:1], T(M).t()),
    "tuple in, tuple out": lambda T: (f_pair, (T(A), T(M))),
    "tuple of one": lambda T: (lambda x: (x * 2,), (T(A),)),
    "unused input": lambda T: (lambda x, m: x * 3, (T(A), T(M))),
}


@pytest.mark.parametrize("name", list(JACOBIANS))
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian(name, vectorize):
    def call(lib, F, T):
        func, inputs = JACOBIANS[name](T)
        return F.jacobian(func, inputs, vectorize=vectorize)

    both(call)


HESSIANS = {
    "vector": lambda T: (f_scalar, T(A)),
    "0-d": lambda T: (lambda x: x.sin() * x, T(0.7)),
    "tuple": lambda T: (f_scalar_pair, (T(A), T(M))),
    "one-element output": lambda T: (lambda x: (x * x).sum().reshape(1, 1), T(A)),
}


def test_jacobian_of_an_empty_output_is_empty():
    """(PyTorch raises here: its stack of no rows fails.)"""
    x = minitorch.zeros(0, 2)
    assert minitorch.autograd.functional.jacobian(lambda t: t * 2, x).shape == (0, 2, 0, 2)
    x = minitorch.tensor(A)
    jac = minitorch.autograd.functional.jacobian(lambda t: t[:0], x)
    assert jac.shape == (0, 3)


@pytest.mark.parametrize("name", list(HESSIANS))
def test_hessian(name):
    def call(lib, F, T):
        func, inputs = HESSIANS[name](T)
        return F.hessian(func, inputs)

    both(call)


PRODUCTS = {
    "vjp": lambda F, T: F.vjp(f_vector, T(A), T(V3)),
    "vjp tuple": lambda F, T: F.vjp(f_pair, (T(A), T(M)), (T(V2), T(V3), T(M.T))),
    "vjp scalar, v=None": lambda F, T: F.vjp(f_scalar, T(A)),
    "jvp": lambda F, T: F.jvp(f_vector, T(A), T(V3)),
    "jvp tuple": lambda F, T: F.jvp(f_pair, (T(A), T(M)), (T(V3), T(M * 2))),
    "jvp 0-d, v=None": lambda F, T: F.jvp(lambda x: x.exp() * 3, T(0.5)),
    "jvp unused input": lambda F, T: F.jvp(lambda x, m: x * 3, (T(A), T(M)), (T(V3), T(M))),
    "hvp": lambda F, T: F.hvp(f_scalar, T(A), T(V3)),
    "hvp tuple": lambda F, T: F.hvp(f_scalar_pair, (T(A), T(M)), (T(V3), T(M))),
    "vhp": lambda F, T: F.vhp(f_scalar, T(A), T(V3)),
    "vhp tuple": lambda F, T: F.vhp(f_scalar_pair, (T(A), T(M)), (T(V3), T(M))),
    "vhp linear part": lambda F, T: F.vhp(lambda x, m: (x * 2).sum() + (m * m).sum(),
                                          (T(A), T(M)), (T(V3), T(M))),  # fmt: skip
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products(name):
    both(lambda lib, F, T: PRODUCTS[name](F, T))


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_create_graph_makes_results_differentiable(name):
    """With create_graph=True the result is part of the caller's graph: its sum's
    gradient with respect to the original input equals torch's."""

    def call(lib, F, T):
        x = T(A).requires_grad_()
        if name == "jacobian":
            result = F.jacobian(f_vector, x, create_graph=True)
        elif name == "hessian":
            result = F.hessian(f_scalar, x, create_graph=True)
        elif name == "vjp":
            result = F.vjp(f_vector, x, T(V3), create_graph=True)[1]
        elif name == "jvp":
            result = F.jvp(f_vector, x, T(V3), create_graph=True)[1]
        else:
            result = getattr(F, name)(f_scalar, x, T(V3), create_graph=True)[1]
        assert result.requires_grad
        (result * result).sum().backward()
        return result, x.grad

    both(call)


def test_results_are_detached_without_create_graph():
    x = minitorch.tensor(A, requires_grad=True)
    out, product = minitorch.autograd.functional.vjp(f_vector, x, minitorch.tensor(V3))
    assert not out.requires_grad and not product.requires_grad
    assert not minitorch.autograd.functional.jacobian(f_vector, x).requires_grad
    assert x.grad is None


def test_strict_refuses_an_unused_input():
    F = minitorch.autograd.functional
    inputs = (minitorch.tensor(A), minitorch.tensor(M))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.jacobian(lambda x, m: x * 3, inputs, strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.vjp(lambda x, m: x * 3, inputs, minitorch.tensor(V3), strict=True)


def test_bad_arguments_raise_like_torch():
    F = minitorch.autograd.functional
    x = minitorch.tensor(A)
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        F.jacobian(f_vector, [1.0, 2.0])
    with pytest.raises(TypeError, match="outputs of the user-provided function"):
        F.jacobian(lambda t: 3.0, x)
    with pytest.raises(RuntimeError, match="v can only be None"):
        F.vjp(f_vector, x)
    with pytest.raises(RuntimeError, match="v can only be None"):
        F.jvp(f_vector, x)
    with pytest.raises(RuntimeError, match="invalid size"):
        F.vjp(f_vector, x, minitorch.tensor(V2))
    with pytest.raises(RuntimeError, match="should contain a single element"):
        F.hessian(f_vector, x)
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        F.hvp(f_vector, x, minitorch.tensor(V3))
    with pytest.raises(NotImplementedError, match="forward-mode"):
        F.jacobian(f_vector, x, strategy="forward-mode")
