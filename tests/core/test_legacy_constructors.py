"""PyTorch's legacy constructors, still found in tutorials (issue 14, item 3):
``Tensor(list)``, ``Tensor(*sizes)``, ``Tensor()``, ``Tensor(other)``, ``FloatTensor(...)``
and its siblings, ``isinstance(t, FloatTensor)``, ``Tensor.type()`` and
``autograd.Variable``; each compared with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt

VALUE_CALLS = {
    "Tensor(list)": lambda lib: lib.Tensor([[1, 2], [3, 4]]),
    "Tensor(tuple)": lambda lib: lib.Tensor((2, 3)),  # a tuple is data, not a shape
    "Tensor(float list)": lambda lib: lib.Tensor([0.5, -1.5]),
    "Tensor(numpy)": lambda lib: lib.Tensor(np.array([1, 2])),
    "Tensor()": lambda lib: lib.Tensor(),
    "Tensor(empty list)": lambda lib: lib.Tensor([]),
    "FloatTensor(list)": lambda lib: lib.FloatTensor([0.5, 2]),
    "DoubleTensor(list)": lambda lib: lib.DoubleTensor([0.5, 2]),
    "LongTensor(list)": lambda lib: lib.LongTensor([3, 4]),
    "LongTensor(floats)": lambda lib: lib.LongTensor([1.7, -2.7]),
    "IntTensor(list)": lambda lib: lib.IntTensor([1, 2]),
    "BoolTensor(list)": lambda lib: lib.BoolTensor([1, 0]),
    "ByteTensor(list)": lambda lib: lib.ByteTensor([1, 200]),
    "CharTensor(list)": lambda lib: lib.CharTensor([1, -2]),
    "ShortTensor(list)": lambda lib: lib.ShortTensor([1, -2]),
    "HalfTensor(list)": lambda lib: lib.HalfTensor([0.5, 2]),
}


@pytest.mark.parametrize("name", list(VALUE_CALLS))
def test_values_like_torch(name):
    assert_close(VALUE_CALLS[name](mt), VALUE_CALLS[name](torch))


SHAPE_CALLS = {
    "Tensor(2, 3)": lambda lib: lib.Tensor(2, 3),
    "Tensor(Size)": lambda lib: lib.Tensor(lib.Size([2, 1])),
    "Tensor(0)": lambda lib: lib.Tensor(0),
    "Tensor(np.int64)": lambda lib: lib.Tensor(np.int64(4)),
    "FloatTensor(3)": lambda lib: lib.FloatTensor(3),
    "LongTensor(2, 2)": lambda lib: lib.LongTensor(2, 2),
    "DoubleTensor(1, 2, 3)": lambda lib: lib.DoubleTensor(1, 2, 3),
}


@pytest.mark.parametrize("name", list(SHAPE_CALLS))
def test_shapes_and_dtypes_like_torch(name):
    """Sizes make an uninitialised tensor in PyTorch (zeros here): compare shape and dtype."""
    m, t = SHAPE_CALLS[name](mt), SHAPE_CALLS[name](torch)
    assert tuple(m.shape) == tuple(t.shape)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]


def test_tensor_of_a_tensor_shares_its_storage():
    for lib in (mt, torch):
        x = lib.tensor([1, 2])
        y = lib.Tensor(x)
        assert y is not x and y.dtype == lib.int64  # Tensor(other) keeps other's dtype
        y[0] = 7
        assert x.tolist() == [7, 2]


def test_typed_constructor_refuses_another_dtype():
    for lib in (mt, torch):
        with pytest.raises(TypeError, match="expected"):
            lib.FloatTensor(lib.tensor([1, 2]))
        assert lib.FloatTensor(lib.ones(2)).dtype == lib.float32


@pytest.mark.parametrize("bad", [2.5, "a", None])
def test_bad_data_is_refused(bad):
    for lib in (mt, torch):
        with pytest.raises(TypeError):
            lib.Tensor(bad)


def test_negative_size():
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="negative dimension"):
            lib.Tensor(-1)


LEGACY_TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
                "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]  # fmt: skip
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_isinstance_and_type_names(dtype):
    m = mt.zeros(2, dtype=getattr(mt, dtype))
    t = torch.zeros(2, dtype=getattr(torch, dtype))
    assert m.type() == t.type()
    for name in LEGACY_TYPES:
        assert isinstance(m, getattr(mt, name)) == isinstance(t, getattr(torch, name)), name
    assert isinstance(m, mt.Tensor) and isinstance(t, torch.Tensor)


def test_legacy_type_repr_and_dtype():
    assert repr(mt.FloatTensor) == repr(torch.FloatTensor) == "<class 'torch.FloatTensor'>"
    assert mt.LongTensor.dtype is mt.int64


TYPE_CONVERSIONS = {
    "type(dtype)": lambda lib, x: x.type(lib.int32),
    "type(name)": lambda lib, x: x.type("torch.DoubleTensor"),
    "type(legacy type)": lambda lib, x: x.type(lib.LongTensor),
    "type(same type)": lambda lib, x: x.type(lib.FloatTensor),
}


@pytest.mark.parametrize("name", list(TYPE_CONVERSIONS))
def test_type_conversions(name):
    data = [1.5, -2.5, 0.25]
    convert = TYPE_CONVERSIONS[name]
    assert_close(convert(mt, mt.tensor(data)), convert(torch, torch.tensor(data)))


def test_type_refuses_unknown_names():
    for lib in (mt, torch):
        with pytest.raises(ValueError, match="invalid type"):
            lib.ones(2).type("float")


def test_variable():
    for lib in (mt, torch):
        data = lib.ones(2)
        v = lib.autograd.Variable(data, requires_grad=True)
        assert isinstance(v, lib.Tensor) and v.requires_grad and not data.requires_grad
        assert isinstance(v, lib.autograd.Variable) and isinstance(data, lib.autograd.Variable)
        (v * 3).sum().backward()
        assert v.grad.tolist() == [3.0, 3.0]
        v.data[0] = 5.0  # shares data's storage
        assert data.tolist() == [5.0, 1.0]
        assert lib.autograd.Variable(lib.tensor([1, 2])).dtype == lib.int64
        assert lib.autograd.Variable().shape == (0,)
        with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
            lib.autograd.Variable([1, 2])


def test_parameter_still_shares_storage():
    data = mt.ones(3)
    p = mt.nn.Parameter(data)
    assert p.requires_grad and isinstance(p, mt.Tensor)
    p.data[1] = 4.0
    assert data.tolist() == [1.0, 4.0, 1.0]


NEW_CALLS = {
    "new(2, 3)": lambda lib, x: x.new(2, 3).fill_(1),
    "new(list)": lambda lib, x: x.new([1, 2]),
    "new()": lambda lib, x: x.new(),
    "new(Size)": lambda lib, x: x.new(lib.Size([1, 2])).fill_(1),
}


@pytest.mark.parametrize("name", list(NEW_CALLS))
def test_new_takes_the_tensors_dtype(name):
    m = NEW_CALLS[name](mt, mt.ones(2, dtype=mt.float64))
    t = NEW_CALLS[name](torch, torch.ones(2, dtype=torch.float64))
    assert_close(m, t)


def test_type_names_the_device(device):
    """``x.type()`` of a CUDA tensor is "torch.cuda.FloatTensor", and such a name moves it."""
    x = mt.ones(2, device=device)
    assert x.type() == ("torch.cuda.FloatTensor" if device == "cuda" else "torch.FloatTensor")
    back = x.type("torch.DoubleTensor")
    assert back.device.type == "cpu" and back.dtype is mt.float64
    if device == "cuda":
        assert x.cpu().type("torch.cuda.LongTensor").type() == "torch.cuda.LongTensor"
