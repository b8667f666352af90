"""Bad input (issue 2, item 9): each case raises an exception of PyTorch's type (the same
call is made in PyTorch to find it), with a message that names the problem, before any
kernel runs -- and leaves its inputs unchanged. Never a crash, a hang or a silently
wrong number."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt


def x(lib):
    return lib.arange(12.0).view(3, 4)


def long(lib, data):
    return lib.tensor(data, dtype=lib.int64)


# name: (call, words) -- every word (lower case) must appear in minitorch's message;
# a word written "a|b" means either.
CASES = {
    # broadcasting
    "broadcast mismatch": (lambda lib: x(lib) + lib.ones(3), ["4", "3", "dim|dimension"]),
    "broadcast mismatch 3-d": (
        lambda lib: lib.ones(2, 3, 4) * lib.ones(2, 1, 5), ["4", "5", "dim|dimension"]
    ),
    "expand to incompatible size": (lambda lib: x(lib).expand(2, 5), ["5", "4"]),
    "expand with fewer sizes": (lambda lib: x(lib).expand(4), ["size|dimension"]),
    # views and shapes
    "view on incompatible strides": (lambda lib: x(lib).t().view(12), ["reshape"]),
    "view to wrong size": (lambda lib: x(lib).view(5, 2), ["12|shape|size"]),
    "view with two -1": (lambda lib: x(lib).view(-1, -1), ["infer|-1|one"]),
    "reshape to wrong size": (lambda lib: x(lib).reshape(5, -1), ["12|shape|size"]),
    "permute wrong length": (lambda lib: x(lib).permute(0), ["dim|length"]),
    "permute duplicate dims": (lambda lib: x(lib).permute(1, 1), ["duplicate|repeat|twice|once"]),
    "unflatten bad sizes": (lambda lib: x(lib).unflatten(1, (3, 2)), ["4|size"]),
    "flatten start after end": (lambda lib: x(lib).flatten(1, 0), ["start|end"]),
    "narrow beyond the end": (lambda lib: x(lib).narrow(1, 3, 2), ["exceed|size|range|length"]),
    "narrow negative length": (lambda lib: x(lib).narrow(0, 0, -1), ["length|negative"]),
    "split size 0": (lambda lib: x(lib).split(0), ["split|size|0"]),
    "chunk 0": (lambda lib: x(lib).chunk(0), ["chunk|0|greater"]),
    "as_strided outside storage": (
        lambda lib: x(lib).as_strided((3, 5), (4, 1)), ["storage|bound|outside"]
    ),
    "as_strided offset outside storage": (
        lambda lib: x(lib).as_strided((2, 2), (1, 1), 11), ["storage|bound|outside"]
    ),
    "as_strided negative stride": (lambda lib: x(lib).as_strided((2,), (-1,)), ["negative|stride"]),
    "cat shape mismatch": (
        lambda lib: lib.cat([x(lib), lib.ones(3, 2)], 0), ["size|shape|match"]
    ),
    "cat empty list": (lambda lib: lib.cat([]), ["empty|non-empty"]),
    "stack shape mismatch": (lambda lib: lib.stack([lib.ones(2), lib.ones(3)]), ["size|shape"]),
    "stack empty list": (lambda lib: lib.stack([]), ["empty|non-empty"]),
    # dims out of range
    "sum dim out of range": (lambda lib: x(lib).sum(2), ["range"]),
    "sum negative dim out of range": (lambda lib: x(lib).sum(-3), ["range"]),
    "max dim out of range": (lambda lib: x(lib).max(5), ["range"]),
    "softmax dim out of range": (lambda lib: x(lib).softmax(2), ["range"]),
    "transpose dim out of range": (lambda lib: x(lib).transpose(0, 4), ["range"]),
    "unsqueeze dim out of range": (lambda lib: x(lib).unsqueeze(4), ["range"]),
    "squeeze dim out of range": (lambda lib: x(lib).squeeze(4), ["range"]),
    "size(dim) out of range": (lambda lib: x(lib).size(2), ["range"]),
    "cat dim out of range": (lambda lib: lib.cat([x(lib), x(lib)], 2), ["range"]),
    "std dim out of range": (lambda lib: x(lib).std(dim=5), ["range"]),
    "flip dim out of range": (lambda lib: x(lib).flip(3), ["range"]),
    "repeated dim in sum": (lambda lib: x(lib).sum((0, 0)), ["dim"]),
    # indexing
    "index out of range": (lambda lib: x(lib)[3], ["3", "bound|range"]),
    "negative index out of range": (lambda lib: x(lib)[-4], ["-4", "bound|range"]),
    "second index out of range": (lambda lib: x(lib)[0, 4], ["4", "bound|range"]),
    "too many indices": (lambda lib: x(lib)[0, 0, 0], ["too many|dimension"]),
    "int list index out of range": (lambda lib: x(lib)[[0, 9]], ["9", "bound|range"]),
    "int tensor index out of range": (lambda lib: x(lib)[long(lib, [9])], ["9", "bound|range"]),
    "float index": (lambda lib: x(lib)[1.5], ["float|integer"]),
    "float tensor index": (lambda lib: x(lib)[lib.tensor([0.5])], ["long|int|bool|dtype"]),
    "mask of wrong shape": (
        lambda lib: x(lib)[lib.ones(2, 4, dtype=lib.bool)], ["shape|mask"]
    ),
    "zero slice step": (lambda lib: x(lib)[::0], ["step"]),
    "negative slice step": (lambda lib: x(lib)[::-1], ["step"]),
    "setitem index out of range": (lambda lib: x(lib).__setitem__(5, 1.0), ["5", "bound|range"]),
    "setitem value of wrong shape": (
        lambda lib: x(lib).__setitem__(0, lib.ones(3)), ["size|shape"]
    ),
    "gather index out of range": (
        lambda lib: x(lib).gather(1, long(lib, [[0, 4]] * 3)), ["4", "bound|range"]
    ),
    "gather float index": (
        lambda lib: x(lib).gather(1, lib.zeros(3, 1)), ["int|long|dtype"]
    ),
    "gather index of wrong rank": (
        lambda lib: x(lib).gather(0, long(lib, [0, 1])), ["dimension|dim"]
    ),
    "index_select index out of range": (
        lambda lib: x(lib).index_select(0, long(lib, [5])), ["range|bound"]
    ),
    "index_select float index": (
        lambda lib: x(lib).index_select(0, lib.tensor([0.0])), ["int|long|dtype"]
    ),
    "index_select 2-d index": (
        lambda lib: x(lib).index_select(0, long(lib, [[0]])), ["vector|1-d|1d|dim"]
    ),
    "scatter_add index out of range": (
        lambda lib: x(lib).scatter_add(0, long(lib, [[5, 0, 0, 0]]), lib.ones(1, 4)),
        ["5", "bound|range"],
    ),
    # matmul
    "matmul 2-d mismatch": (lambda lib: x(lib) @ lib.ones(3, 2), ["3x4|(3, 4)|[3, 4]|4", "3"]),
    "matmul 1-d mismatch": (lambda lib: lib.ones(2) @ lib.ones(3), ["2", "3"]),
    "matmul batched mismatch": (lambda lib: lib.ones(2, 2, 3) @ lib.ones(2, 4, 2), ["3", "4"]),
    "matmul batch broadcast mismatch": (
        lambda lib: lib.ones(2, 2, 3) @ lib.ones(3, 3, 2), ["2", "3"]
    ),
    "matmul 0-d": (lambda lib: lib.tensor(1.0) @ lib.ones(2), ["1d|1-d|0d|0-d|dimension"]),
    # values and dtypes
    "integer division by zero": (lambda lib: long(lib, [1, 2]) // long(lib, [1, 0]), ["zero"]),
    "integer remainder by zero": (lambda lib: long(lib, [1, 2]) % 0, ["zero"]),
    "integer to negative power": (lambda lib: long(lib, [2]) ** -1, ["negative"]),
    "mean of integers": (lambda lib: long(lib, [1, 2]).mean(), ["float|dtype"]),
    "var of integers": (lambda lib: long(lib, [1, 2]).var(), ["float|dtype"]),
    "where with non-bool condition": (
        lambda lib: lib.where(lib.ones(2), lib.ones(2), lib.zeros(2)), ["bool"]
    ),
    "negation of bool": (lambda lib: -lib.tensor([True]), ["bool"]),
    "item of many elements": (lambda lib: x(lib).item(), ["element|scalar"]),
    "item of empty tensor": (lambda lib: lib.zeros(0).item(), ["element|scalar|0"]),
    "max of empty tensor": (lambda lib: lib.zeros(0).max(), ["empty|numel|dim|0"]),
    "argmax of empty tensor": (lambda lib: lib.zeros(0).argmax(), ["empty|numel|dim|0"]),
    "requires_grad on integers": (
        lambda lib: lib.zeros(2, dtype=lib.int64, requires_grad=True), ["float"]
    ),
    # creation
    "ragged nested list": (lambda lib: lib.tensor([[1, 2], [3]]), ["length|ragged|shape"]),
    "None in data": (lambda lib: lib.tensor([1, None]), ["none|infer|type"]),
    "string data": (lambda lib: lib.tensor("abc"), ["str|type"]),
    "zeros negative size": (lambda lib: lib.zeros(-1), ["negative|size"]),
    "linspace negative steps": (lambda lib: lib.linspace(0, 1, -1), ["step|negative"]),
    "arange zero step": (lambda lib: lib.arange(0, 1, 0), ["step"]),
    "arange wrong step sign": (lambda lib: lib.arange(5, 2), ["step|bound|sign"]),
    "eye negative": (lambda lib: lib.eye(-1), ["negative|0|greater"]),
    "randint low >= high": (lambda lib: lib.randint(5, 2, (3,)), ["from|low|high|less"]),
}


def normalized(kind: type) -> type:
    """torch's NotImplementedError ("not implemented for 'Bool'") is a RuntimeError."""
    return RuntimeError if issubclass(kind, RuntimeError) else kind


@pytest.mark.parametrize("name", list(CASES))
def test_error_type_and_message_match_torch(name):
    call, words = CASES[name]
    with pytest.raises(Exception) as torch_error:  # noqa: B017 - the oracle decides the type
        call(torch)
    kind = normalized(type(torch_error.value))
    with pytest.raises(Exception) as error:  # noqa: B017
        call(mt)
    assert isinstance(error.value, kind), (
        f"torch raises {type(torch_error.value).__name__}, minitorch "
        f"{type(error.value).__name__}: {error.value}"
    )
    message = str(error.value).lower()
    for word in words:
        assert any(w in message for w in word.split("|")), (
            f"message should mention {word!r}: {error.value}"
        )


def test_failed_setitem_leaves_tensor_unchanged():
    m = x(mt)
    before = m.tolist()
    with pytest.raises(RuntimeError):
        m[0] = mt.ones(3)
    with pytest.raises(IndexError):
        m[[0, 7]] = 1.0
    assert m.tolist() == before


def test_failed_in_place_op_leaves_tensor_unchanged():
    m = x(mt)
    before = m.tolist()
    with pytest.raises(RuntimeError):
        m.add_(mt.ones(3))
    with pytest.raises(RuntimeError):
        m.copy_(mt.ones(2, 4))
    assert m.tolist() == before


def test_large_out_of_range_values_never_reach_kernels():
    m = x(mt)
    for bad in (10**6, -(10**6)):
        with pytest.raises(IndexError):
            m[bad]
        with pytest.raises((IndexError, RuntimeError)):
            m.gather(1, long(mt, [[bad]] * 3))
        with pytest.raises((IndexError, RuntimeError)):
            m.index_select(0, long(mt, [bad]))
    with pytest.raises(RuntimeError):
        m.as_strided((2,), (1,), 10**6)
    with pytest.raises(RuntimeError):
        m.as_strided((2,), (10**6,))


def test_error_message_of_view_suggests_reshape_and_reshape_works():
    m = x(mt).t()
    with pytest.raises(RuntimeError, match="reshape"):
        m.view(12)
    np.testing.assert_array_equal(m.reshape(12).numpy(), x(torch).t().reshape(12).numpy())
