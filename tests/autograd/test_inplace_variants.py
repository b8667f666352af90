"""The in-place variant of every op (issue 14, item 4): ``sin_``, ``clamp_``, ``eq_``,
``lerp_``, ``addcmul_``, ``t_``, ``unsqueeze_``... against PyTorch.

Each variant is checked three ways: its values (on a whole tensor and through a
transposed view, whose base must change too), its gradient (the op runs in place on a
non-leaf inside a graph, and the leaf's ``.grad`` is compared), and autograd's refusals
(a leaf that requires grad; a result whose dtype cannot be written back)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt

DATA = np.array([[0.3, -1.2, 0.7, 2.1], [-0.4, 1.6, -2.3, 0.9], [1.1, -0.6, 0.2, -1.7]])


def other(lib):
    return lib.tensor(np.linspace(0.5, 1.5, 12).reshape(3, 4), dtype=lib.float32)


def index(lib):
    return lib.tensor([[0, 2], [1, 3], [3, 0]])


# method name -> (positional args taking the library, keyword args), run on DATA (3x4 float32).
VARIANTS = {
    "abs_": (lambda lib: (), {}), "neg_": (lambda lib: (), {}), "exp_": (lambda lib: (), {}),
    "sin_": (lambda lib: (), {}), "cos_": (lambda lib: (), {}), "tanh_": (lambda lib: (), {}),
    "sigmoid_": (lambda lib: (), {}), "relu_": (lambda lib: (), {}), "erf_": (lambda lib: (), {}),
    "floor_": (lambda lib: (), {}), "ceil_": (lambda lib: (), {}), "sign_": (lambda lib: (), {}),
    "square_": (lambda lib: (), {}), "reciprocal_": (lambda lib: (), {}),
    "atan_": (lambda lib: (), {}), "sinh_": (lambda lib: (), {}),
    "clamp_": (lambda lib: (-0.5, 1.0), {}), "clamp_ (min=)": (lambda lib: (), {"min": 0.0}),
    "clip_": (lambda lib: (-1.0, 1.0), {}), "clamp_min_": (lambda lib: (0.25,), {}),
    "clamp_max_": (lambda lib: (0.25,), {}), "pow_": (lambda lib: (2,), {}),
    "remainder_": (lambda lib: (0.75,), {}), "atan2_": (lambda lib: (other(lib),), {}),
    "eq_": (lambda lib: (0.7,), {}), "lt_": (lambda lib: (other(lib),), {}),
    "masked_fill_": (lambda lib: (lib.tensor(DATA) > 1, -9.0), {}),
    "index_fill_": (lambda lib: (1, lib.tensor([0, 2]), 5.0), {}),
    "scatter_": (lambda lib: (1, index(lib), other(lib)), {}),
    "scatter_ (value)": (lambda lib: (1, index(lib)), {"value": -3.0}),
    "scatter_add_": (lambda lib: (1, index(lib), other(lib)), {}),
    "addcmul_": (lambda lib: (other(lib), other(lib)), {"value": -0.5}),
    "addcdiv_": (lambda lib: (other(lib), other(lib) + 1), {"value": 2}),
    "lerp_": (lambda lib: (other(lib), 0.3), {}), "lerp_ (near end)": (lambda lib: (other(lib), 0.8), {}),
    "lerp_ (tensor weight)": (lambda lib: (other(lib), other(lib) - 0.5), {}),
    "tril_": (lambda lib: (), {}), "cumsum_": (lambda lib: (1,), {}),
}  # fmt: skip

NOT_DIFFERENTIABLE = {"eq_", "lt_", "floor_", "ceil_", "sign_"}


def method_name(name: str) -> str:
    return name.split(" ")[0]


SCATTERS = {"scatter_", "scatter_ (value)", "scatter_add_"}  # index fits the 3x4 layout only


def run(lib, name: str, view: bool):
    """Run the variant on a 3x4 tensor, or on its transposed view (then tensor arguments
    of the same shape are transposed alike); return the base and the target."""
    args, kwargs = VARIANTS[name]
    base = lib.tensor(DATA, dtype=lib.float32)
    target, arguments = base, args(lib)
    if view:
        target = base.t()
        arguments = tuple(a.t() if hasattr(a, "shape") and tuple(a.shape) == DATA.shape else a
                          for a in arguments)  # fmt: skip
    returned = getattr(target, method_name(name))(*arguments, **kwargs)
    assert returned is target
    return base, target


CASES = [(name, view) for name in VARIANTS for view in ("whole", "transposed view")
         if not (view != "whole" and name in SCATTERS)]  # fmt: skip


@pytest.mark.parametrize(("name", "view"), CASES)
def test_values(name, view):
    m_base, m_target = run(mt, name, view != "whole")
    t_base, t_target = run(torch, name, view != "whole")
    assert_close(m_target, t_target)
    assert_close(m_base, t_base)
    assert m_target._version == t_target._version


@pytest.mark.parametrize("name", sorted(set(VARIANTS) - NOT_DIFFERENTIABLE))
def test_gradients(name):
    grads = []
    for lib in (mt, torch):
        args, kwargs = VARIANTS[name]
        leaf = lib.tensor(DATA, dtype=lib.float32, requires_grad=True)
        x = leaf * 1.5
        getattr(x, method_name(name))(*args(lib), **kwargs)
        (x * lib.tensor(np.arange(12.0).reshape(3, 4), dtype=lib.float32)).sum().backward()
        grads.append(leaf.grad)
    assert_close(*grads)


def test_gradient_through_a_view_reaches_the_base():
    grads = []
    for lib in (mt, torch):
        leaf = lib.tensor(DATA, dtype=lib.float32, requires_grad=True)
        x = leaf * 2
        x[1].sin_()
        x.t()[:, 0].sigmoid_()
        (x**2).sum().backward()
        grads.append(leaf.grad)
    assert_close(*grads)


def test_leaf_that_requires_grad_is_refused():
    for lib in (mt, torch):
        leaf = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            leaf.sin_()
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            leaf.unsqueeze_(0)
        with lib.no_grad():
            leaf.clamp_(max=0.5)
        assert leaf.tolist() == [0.5, 0.5, 0.5]


@pytest.mark.parametrize("call", [lambda t: t.sqrt_(), lambda t: t.sin_(), lambda t: t.exp_()])
def test_float_result_into_int_is_refused(call):
    for lib in (mt, torch):
        message = "result type Float can't be cast to the desired output type Long"
        with pytest.raises(RuntimeError, match=message):
            call(lib.arange(3))


def test_bool_result_into_float():
    for lib in (mt, torch):
        x = lib.tensor([1.0, 2.0, 3.0])
        x.ge_(2)
        assert x.tolist() == [0.0, 1.0, 1.0] and x.dtype == lib.float32


def test_saved_tensor_changed_in_place_is_detected():
    for lib in (mt, torch):
        leaf = lib.ones(3, requires_grad=True)
        y = leaf.exp()
        y.sin_()  # exp saved its output, now overwritten
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("exponent", [2, 3.0, "tensor"])
def test_a_power_saves_its_result_only_when_the_exponent_needs_a_gradient(exponent):
    """``x ** 2`` needs ``x`` for its gradient, not ``x ** 2``: PyTorch saves only ``x``,
    so the result may be changed in place afterwards. A tensor exponent that requires
    grad needs the result (``d(a^b)/db = a^b ln a``), and then the change is detected."""
    for lib in (mt, torch):
        leaf = lib.tensor([0.5, 1.5, 2.0], requires_grad=True)
        if exponent == "tensor":
            power = lib.tensor([2.0, 1.0, 3.0], requires_grad=True)
            y = leaf**power
            y.add_(1)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
            continue
        y = leaf**exponent
        y.add_(1)
        y.sum().backward()
        assert leaf.grad.tolist() == pytest.approx([exponent * v ** (exponent - 1) for v in (0.5, 1.5, 2.0)])


VIEW_VARIANTS = {
    "t_": ((), (2, 3)),
    "transpose_": ((0, 2), (4, 3, 2)),
    "unsqueeze_": ((1,), (2, 3, 4)),
    "unsqueeze_ (negative)": ((-1,), (2, 3, 4)),
    "squeeze_": ((), (1, 3, 1)),
    "squeeze_ (dim)": ((0,), (1, 3, 1)),
}


@pytest.mark.parametrize("name", list(VIEW_VARIANTS))
def test_view_variants_change_the_layout(name):
    args, shape = VIEW_VARIANTS[name]
    data = np.arange(float(np.prod(shape))).reshape(shape)
    results = []
    for lib in (mt, torch):
        x = lib.tensor(data, dtype=lib.float32)
        storage_before = x.data_ptr() if lib is torch else x._storage
        returned = getattr(x, method_name(name))(*args)
        assert returned is x
        assert (x.data_ptr() if lib is torch else x._storage) is storage_before or lib is torch
        results.append(x)
    m, t = results
    assert m.shape == t.shape and m.stride() == t.stride() and m._version == t._version
    assert_close(m, t)


def test_view_variant_history_and_gradient():
    grads = []
    for lib in (mt, torch):
        leaf = lib.tensor(np.arange(6.0).reshape(2, 3), dtype=lib.float32, requires_grad=True)
        x = leaf * 2
        x.t_()
        x.unsqueeze_(0)
        (x * lib.arange(6.0).reshape(1, 3, 2)).sum().backward()
        grads.append(leaf.grad)
    assert_close(*grads)


def test_resize_():
    for lib in (mt, torch):
        x = lib.tensor([1.0, 2.0, 3.0])
        assert x.resize_(2, 1) is x and x.shape == (2, 1) and x.flatten().tolist() == [1.0, 2.0]
        x.resize_(5)
        assert x[:3].tolist() == [1.0, 2.0, 3.0]  # the old cells are kept
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            lib.ones(2, requires_grad=True).resize_(3)


def test_every_listed_variant_exists():
    """Each op named in inplace.INPLACE_VARIANTS that exists has its ``_`` method, and
    PyTorch has it too."""
    from minitorch.ops import METHODS
    from minitorch.ops.inplace import INPLACE_VARIANTS

    for name in INPLACE_VARIANTS:
        if name in METHODS:
            assert hasattr(mt.Tensor, name + "_"), name
            assert hasattr(torch.Tensor, name + "_"), name


@pytest.mark.parametrize("name", ["uniform_", "normal_"])
def test_random_fills(name):
    """``uniform_(a, b)`` and ``normal_(mean, std)`` overwrite the tensor (values from
    our generator, so only their range and the autograd rules are compared)."""
    x = mt.zeros(1000)
    assert getattr(x, name)(0.5, 2.0) is x and x._version == 1
    if name == "uniform_":
        assert 0.5 <= float(x.min()) and float(x.max()) < 2.0
    else:
        assert abs(float(x.mean()) - 0.5) < 0.3 and abs(float(x.std()) - 2.0) < 0.3
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            getattr(lib.ones(2, requires_grad=True), name)()


EDGE_CALLS = {
    "sin_": lambda x: x.sin_(),
    "clamp_": lambda x: x.clamp_(-0.5, 0.5),
    "pow_": lambda x: x.pow_(2),
    "lerp_": lambda x: x.lerp_(x * 2, 0.75),
    "unsqueeze_": lambda x: x.unsqueeze_(0),
    "t_": lambda x: x.t_(),
    "squeeze_": lambda x: x.squeeze_(),
}


@pytest.mark.parametrize("shape", [(), (0,), (0, 3)], ids=["0-d", "empty", "empty 2-d"])
@pytest.mark.parametrize("name", list(EDGE_CALLS))
def test_edge_shapes(name, shape):
    """0-d and empty tensors: same values, shape and version counter as PyTorch."""
    results = []
    for lib in (mt, torch):
        x = lib.full(shape, 0.7)
        assert EDGE_CALLS[name](x) is x
        results.append(x)
    m, t = results
    assert tuple(m.shape) == tuple(t.shape) and m._version == t._version
    assert_close(m, t)



def test_scatter_with_a_repeated_index_keeps_the_last_write():
    """PyTorch's CPU loop writes in row-major order, so the last write to a position wins."""
    results = []
    for lib in (mt, torch):
        x = lib.arange(12.0).reshape(3, 4)
        src = lib.arange(100.0, 120.0).reshape(4, 5)
        x.scatter_(1, lib.tensor([[0, 1], [2, 3], [1, 1]]), src)
        x.scatter_(0, lib.tensor([[0, 1, 0], [0, 2, 2]]), src)
        results.append(x)
    assert_close(*results)
