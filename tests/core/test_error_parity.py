"""Error parity with PyTorch 2.13 (issue 18, item 7): for each call in the table below,
minitorch does what torch does -- returns the same value (shape, dtype, numbers), or
raises the same exception type. Never an internal error (an ``AttributeError`` about a
NumPy dtype, an ``IndexError`` from a Python list) and never a silent conversion where
torch refuses. The table runs on both CPU backends (the ``backend`` fixture), and the
two must also raise the same message.

Each row is data: a case name and a call written once for both libraries (``lib`` is
``torch`` or ``minitorch``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch as mt


def floats(lib):
    return lib.arange(6.0).reshape(2, 3)


def ints(lib):
    return lib.arange(6).reshape(2, 3)


def bools(lib):
    return lib.tensor([[True, False, True], [False, True, True]])


def scalar(lib):
    return lib.tensor(2.0)


def row_mask(lib):
    return lib.tensor([True, False, True])


CASES = {
    # operands that are not tensors
    "tensor + NumPy array": lambda lib: floats(lib) + np.ones(3),
    "tensor + NumPy float32 array of 2-d": lambda lib: floats(lib)[0] + np.ones((2, 3), np.float32),
    "tensor * NumPy float64 scalar": lambda lib: floats(lib) * np.float64(2),
    "int tensor + NumPy int scalar": lambda lib: ints(lib) + np.int64(2),
    "add(tensor, NumPy array)": lambda lib: lib.add(floats(lib), np.ones(3)),
    "tensor + list": lambda lib: floats(lib) + [1, 2, 3],
    "tensor + None": lambda lib: floats(lib) + None,
    "tensor + str": lambda lib: floats(lib) + "a",
    "tensor < None": lambda lib: floats(lib) < None,
    "tensor < NumPy array": lambda lib: floats(lib) < np.ones(3),
    "eq(tensor, None)": lambda lib: lib.eq(floats(lib), None),
    "mm with a list": lambda lib: lib.mm(floats(lib), [[1.0], [2.0], [3.0]]),
    "mm with a list first": lambda lib: lib.mm([[1.0, 2.0]], floats(lib)),
    "mm with a NumPy array": lambda lib: lib.mm(floats(lib), np.ones((3, 1))),
    "matmul with a number": lambda lib: lib.matmul(floats(lib), 2.0),
    "tensor @ number": lambda lib: floats(lib) @ 2,
    "bmm with a list": lambda lib: lib.bmm(floats(lib).reshape(1, 2, 3), [[[1.0]]]),
    "dot with a list": lambda lib: lib.dot(floats(lib)[0], [1.0, 2.0, 3.0]),
    "flip(None)": lambda lib: lib.flip(None, (0,)),
    "softmax(None)": lambda lib: lib.softmax(None, 0),
    "nonzero(str)": lambda lib: lib.nonzero("x"),
    "equal(tensor, number)": lambda lib: lib.equal(floats(lib), 1.5),
    "Tensor.equal(tuple)": lambda lib: floats(lib).equal((-1, -1)),
    # == and != with anything
    "tensor == None": lambda lib: floats(lib) == None,  # noqa: E711 - the point of the case
    "tensor != None": lambda lib: floats(lib) != None,  # noqa: E711
    "tensor in [None]": lambda lib: floats(lib) in [None],
    "tensor == str": lambda lib: floats(lib) == "a",
    "tensor == list": lambda lib: floats(lib) == [1, 2, 3],
    "tensor == NumPy array": lambda lib: floats(lib) == np.arange(3.0),
    # alpha
    "add(int, 2.5, alpha=2)": lambda lib: lib.add(ints(lib), 2.5, alpha=2),
    "add(int, 2, alpha=2.5)": lambda lib: lib.add(ints(lib), 2, alpha=2.5),
    "add(int, int tensor, alpha=2.5)": lambda lib: lib.add(ints(lib), ints(lib), alpha=2.5),
    "sub(int, 2, alpha=2.5)": lambda lib: lib.sub(ints(lib), 2, alpha=2.5),
    "add(float, 2, alpha=2.5)": lambda lib: lib.add(floats(lib), 2, alpha=2.5),
    "add(float, 1.0, alpha=True)": lambda lib: lib.add(floats(lib), 1.0, alpha=True),
    "add(bool, bool, alpha=2)": lambda lib: lib.add(bools(lib), bools(lib), alpha=2),
    "Tensor.add(float tensor, alpha=-1)": lambda lib: floats(lib).add(floats(lib).t().t(), alpha=-1),
    # 0-d tensors
    "gather 0-d, 0-d index": lambda lib: lib.gather(scalar(lib), 0, lib.tensor(0)),
    "gather 0-d, 1-d index": lambda lib: lib.gather(scalar(lib), 0, lib.tensor([0, 0])),
    "gather 0-d, index out of range": lambda lib: lib.gather(scalar(lib), 0, lib.tensor(1)),
    "gather 0-d, dim 1": lambda lib: lib.gather(scalar(lib), 1, lib.tensor(0)),
    "gather 1-d, 0-d index": lambda lib: lib.gather(lib.arange(3.0), 0, lib.tensor(1)),
    "gather 2-d, 0-d index": lambda lib: lib.gather(floats(lib), 0, lib.tensor(1)),
    "scatter_add 0-d": lambda lib: lib.scatter_add(scalar(lib), 0, lib.tensor(0), lib.tensor(5.0)),
    "scatter_add 0-d, dim -1": lambda lib: lib.scatter_add(scalar(lib), -1, lib.tensor(0), lib.tensor(5.0)),
    "scatter_add 0-d, index out of range": lambda lib: lib.scatter_add(
        scalar(lib), 0, lib.tensor(1), lib.tensor(5.0)
    ),
    "flip 0-d": lambda lib: lib.flip(scalar(lib), (0,)),
    "flip 0-d, dim -1": lambda lib: lib.flip(scalar(lib), (-1,)),
    "flip 0-d, no dims": lambda lib: lib.flip(scalar(lib), ()),
    "flip a dim twice": lambda lib: lib.flip(floats(lib), (0, 0)),
    "flip a dim twice, negative": lambda lib: lib.flip(floats(lib), (1, -1)),
    "nonzero 0-d": lambda lib: lib.nonzero(scalar(lib)),
    "nonzero 0-d zero": lambda lib: lib.nonzero(lib.tensor(0.0)),
    "nonzero 0-d as_tuple": lambda lib: lib.nonzero(scalar(lib), as_tuple=True)[0],
    "nonzero 0-d as_tuple length": lambda lib: len(lib.nonzero(scalar(lib), as_tuple=True)),
    "index_select 0-d": lambda lib: lib.index_select(scalar(lib), 0, lib.tensor([0])),
    "index_select 0-d, 0-d index": lambda lib: lib.index_select(scalar(lib), 0, lib.tensor(0)),
    "index_select 0-d, out of range": lambda lib: lib.index_select(scalar(lib), 0, lib.tensor([1])),
    "index_select 0-d, dim 1": lambda lib: lib.index_select(scalar(lib), 1, lib.tensor([0])),
    # bool tensors
    "relu of bool": lambda lib: lib.relu(bools(lib)),
    "abs of bool": lambda lib: lib.abs(bools(lib)),
    "floor of bool": lambda lib: lib.floor(bools(lib)),
    "ceil of bool": lambda lib: lib.ceil(bools(lib)),
    "neg of bool": lambda lib: lib.neg(bools(lib)),
    "sign of bool": lambda lib: lib.sign(bools(lib)),
    "square of bool": lambda lib: lib.square(bools(lib)),
    "exp of bool": lambda lib: lib.exp(bools(lib)),
    "reciprocal of bool": lambda lib: lib.reciprocal(bools(lib)),
    "matmul of bool": lambda lib: lib.matmul(bools(lib), bools(lib).t()),
    "mm of bool": lambda lib: lib.mm(bools(lib), bools(lib).t()),
    "dot of bool": lambda lib: lib.dot(bools(lib)[0], bools(lib)[1]),
    "mv of bool": lambda lib: lib.mv(bools(lib), bools(lib)[0]),
    "bool @ float": lambda lib: bools(lib) @ floats(lib).t(),
    "sum of bool": lambda lib: bools(lib).sum(),
    "prod of bool": lambda lib: bools(lib).prod(),
    # integer tensors
    "relu of int": lambda lib: lib.relu(ints(lib)),
    "abs of int": lambda lib: lib.abs(-ints(lib)),
    "floor of int": lambda lib: lib.floor(ints(lib)),
    "sqrt of int": lambda lib: lib.sqrt(ints(lib)),
    "matmul of int": lambda lib: lib.matmul(ints(lib), ints(lib).t()),
    "matmul int @ float": lambda lib: lib.matmul(ints(lib), floats(lib).t()),
    "softmax of int": lambda lib: lib.softmax(ints(lib), 1),
    "log_softmax of int": lambda lib: lib.log_softmax(ints(lib), 1),
    "softmax of bool": lambda lib: lib.softmax(bools(lib), 1),
    "Tensor.softmax of int": lambda lib: ints(lib).softmax(0),
    "softmax of int with dtype": lambda lib: lib.softmax(ints(lib), 1, dtype=lib.float32),
    "norm of int": lambda lib: lib.norm(ints(lib)),
    "norm of bool": lambda lib: lib.norm(bools(lib)),
    "Tensor.norm of int": lambda lib: ints(lib).norm(),
    "norm of int, p=1": lambda lib: ints(lib).norm(1),
    "norm, p=0 (count of nonzeros)": lambda lib: floats(lib).t().norm(0),
    "norm, p=0 along a dim": lambda lib: lib.norm(floats(lib), 0, dim=1),
    "logsumexp of int": lambda lib: lib.logsumexp(ints(lib), 1),
    "mean of int": lambda lib: ints(lib).mean(),
    "std of int": lambda lib: ints(lib).std(),
    "var of bool": lambda lib: bools(lib).var(),
    # masks
    "masked_fill with a float mask": lambda lib: floats(lib).masked_fill(lib.ones(2, 3), 0.0),
    "masked_fill with an int mask": lambda lib: floats(lib).masked_fill(ints(lib), 0.0),
    "masked_fill of int with 2.5": lambda lib: ints(lib).masked_fill(bools(lib), 2.5),
    "masked_fill of bool with 2": lambda lib: bools(lib).masked_fill(~bools(lib), 2),
    "masked_fill of int with NaN": lambda lib: ints(lib).masked_fill(bools(lib), float("nan")),
    "masked_fill with a 0-d tensor": lambda lib: floats(lib).masked_fill(bools(lib), lib.tensor(7)),
    "masked_fill with a 1-d tensor": lambda lib: floats(lib).masked_fill(bools(lib), lib.tensor([7.0])),
    "masked_fill with a broadcast mask": lambda lib: floats(lib).masked_fill(row_mask(lib), -1.0),
    "masked_fill with a mask of wrong shape": lambda lib: floats(lib).masked_fill(row_mask(lib)[:2], 0.0),
    "where with a float condition": lambda lib: lib.where(lib.ones(2, 3), floats(lib), 0.0),
    "where with an int condition": lambda lib: lib.where(ints(lib), floats(lib), 0.0),
    "index by a float mask": lambda lib: floats(lib)[lib.ones(2, 3)],
    "index by an int tensor of ones": lambda lib: floats(lib)[lib.ones(2, 3, dtype=lib.int64)],
    "~ of float": lambda lib: ~floats(lib),
}


def outcome(lib, call):
    """``("value", result)`` or ``("raises", type, message)``. torch's
    ``NotImplementedError`` counts as the ``RuntimeError`` it derives from."""
    try:
        with warnings.catch_warnings():  # torch's own NumPy interop warns (__array_wrap__)
            warnings.simplefilter("ignore", DeprecationWarning)
            return ("value", call(lib))
    except Exception as error:  # noqa: BLE001 - the outcome is what we compare
        kind = RuntimeError if isinstance(error, RuntimeError) else type(error)
        return ("raises", kind, str(error))


def as_array(value):
    if isinstance(value, torch.Tensor):
        return value.detach().numpy(), str(value.dtype).split(".")[-1]
    if isinstance(value, mt.Tensor):
        return value.detach().numpy(), value.dtype.name
    return np.asarray(value), type(value).__name__


@pytest.mark.parametrize("name", list(CASES))
def test_same_outcome_as_torch(name):
    expected, actual = outcome(torch, CASES[name]), outcome(mt, CASES[name])
    assert actual[0] == expected[0], f"torch: {expected}, minitorch: {actual}"
    if expected[0] == "raises":
        assert actual[1] is expected[1], (
            f"torch raises {expected[1].__name__}, minitorch {actual[1].__name__}: {actual[2]}"
        )
        return
    (want, want_dtype), (got, got_dtype) = as_array(expected[1]), as_array(actual[1])
    assert got_dtype == want_dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("name", [name for name in CASES if outcome(torch, CASES[name])[0] == "raises"])
def test_both_backends_raise_the_same_error(name):
    errors = []
    for backend in ("reference", "numba"):
        with mt.backend(backend):
            errors.append(outcome(mt, CASES[name]))
    assert errors[0] == errors[1]
