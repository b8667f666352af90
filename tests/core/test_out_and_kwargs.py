"""``out=`` and PyTorch's keyword names on the functional forms (issue 14, item 1).

Each call runs in both libraries on tensors built from the same data; the result, the
returned object and ``out`` itself are compared. ``out`` starts as the right shape, as
a size-0 tensor (resized silently), as a non-empty tensor of the wrong shape (resized
with PyTorch's warning) and as a transposed view (written through its strides)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt

RNG = np.random.default_rng(14)
A = RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
B = RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
M = RNG.uniform(-1.0, 1.0, (4, 2)).astype(np.float32)
I = np.array([[0, 2], [1, 3], [3, 0]])


def tensors(lib):
    """The operands: ``a`` and ``b`` (3x4; ``b`` transposed storage), ``m`` (4x2), an
    integer tensor, an index tensor and a 3-D batch."""
    return {
        "a": lib.tensor(A),
        "b": lib.tensor(B.T.copy()).t(),  # non-contiguous
        "m": lib.tensor(M),
        "n": lib.tensor(np.arange(12).reshape(3, 4)),
        "i": lib.tensor(I),
        "batch": lib.tensor(A).reshape(3, 2, 2),
        "empty": lib.zeros(0, 4),
        "scalar": lib.tensor(1.5),
    }


# name -> (call taking (lib, t, **kw), out's dtype name). ``kw`` carries out=.
CALLS = {
    "add": (lambda lib, t, **kw: lib.add(t["a"], t["b"], **kw), "float32"),
    "add alpha": (lambda lib, t, **kw: lib.add(t["a"], t["b"], alpha=2, **kw), "float32"),
    "add scalar": (lambda lib, t, **kw: lib.add(t["a"], 2.5, **kw), "float32"),
    "sub": (lambda lib, t, **kw: lib.sub(t["a"], t["b"], **kw), "float32"),
    "mul broadcast": (lambda lib, t, **kw: lib.mul(t["a"], t["b"][0], **kw), "float32"),
    "div": (lambda lib, t, **kw: lib.div(t["a"], t["b"], **kw), "float32"),
    "pow": (lambda lib, t, **kw: lib.pow(t["a"], 2, **kw), "float32"),
    "clamp": (lambda lib, t, **kw: lib.clamp(t["a"], 0.8, 1.5, **kw), "float32"),
    "exp": (lambda lib, t, **kw: lib.exp(t["b"], **kw), "float32"),
    "sqrt": (lambda lib, t, **kw: lib.sqrt(t["a"], **kw), "float32"),
    "neg": (lambda lib, t, **kw: lib.neg(t["a"], **kw), "float32"),
    "sigmoid": (lambda lib, t, **kw: lib.sigmoid(t["a"], **kw), "float32"),
    "add of ints into float": (lambda lib, t, **kw: lib.add(t["n"], t["n"], **kw), "float32"),
    "add into float64": (lambda lib, t, **kw: lib.add(t["a"], t["b"], **kw), "float64"),
    "eq into float": (lambda lib, t, **kw: lib.eq(t["a"], t["a"], **kw), "float32"),
    "where": (lambda lib, t, **kw: lib.where(t["a"] > 1, t["a"], t["b"], **kw), "float32"),
    "maximum": (lambda lib, t, **kw: lib.maximum(t["a"], t["b"], **kw), "float32"),
    "matmul": (lambda lib, t, **kw: lib.matmul(t["a"], t["m"], **kw), "float32"),
    "mm": (lambda lib, t, **kw: lib.mm(t["a"], t["m"], **kw), "float32"),
    "bmm": (lambda lib, t, **kw: lib.bmm(t["batch"], t["batch"], **kw), "float32"),
    "sum dim": (lambda lib, t, **kw: lib.sum(t["a"], 1, **kw), "float32"),
    "sum keepdim": (lambda lib, t, **kw: lib.sum(t["b"], dim=0, keepdim=True, **kw), "float32"),
    "mean": (lambda lib, t, **kw: lib.mean(t["a"], 0, **kw), "float32"),
    "amax": (lambda lib, t, **kw: lib.amax(t["a"], 1, **kw), "float32"),
    "argmax": (lambda lib, t, **kw: lib.argmax(t["a"], 1, **kw), "int64"),
    "logsumexp": (lambda lib, t, **kw: lib.logsumexp(t["a"], 1, **kw), "float32"),
    "cat": (lambda lib, t, **kw: lib.cat([t["a"], t["b"]], 1, **kw), "float32"),
    "stack": (lambda lib, t, **kw: lib.stack([t["a"], t["b"]], **kw), "float32"),
    "gather": (lambda lib, t, **kw: lib.gather(t["a"], 1, t["i"], **kw), "float32"),
    "index_select": (lambda lib, t, **kw: lib.index_select(t["a"], 1, t["i"][0], **kw), "float32"),
    "softmax": (lambda lib, t, **kw: lib.softmax(t["a"], 1, **kw), "float32"),
    "add of empty tensors": (lambda lib, t, **kw: lib.add(t["empty"], t["a"][0], **kw), "float32"),
    "mul of 0-d tensors": (lambda lib, t, **kw: lib.mul(t["scalar"], t["scalar"], **kw), "float32"),
    "exp of 0-d": (lambda lib, t, **kw: lib.exp(t["scalar"], **kw), "float64"),
    "sum to 0-d": (lambda lib, t, **kw: lib.sum(t["b"], (0, 1), **kw), "float32"),
    "sum of empty": (lambda lib, t, **kw: lib.sum(t["empty"], 0, **kw), "float32"),
    "matmul of empty": (lambda lib, t, **kw: lib.matmul(t["empty"], t["m"], **kw), "float32"),
    "addcdiv": (lambda lib, t, **kw: lib.addcdiv(t["a"], t["b"], t["a"], value=2, **kw), "float32"),
    "clamp_min": (lambda lib, t, **kw: lib.clamp_min(t["a"], 1.2, **kw), "float32"),
    "scatter": (lambda lib, t, **kw: lib.scatter(t["a"], 1, t["i"], t["b"], **kw), "float32"),
    "addcmul": (lambda lib, t, **kw: lib.addcmul(t["a"], t["b"], t["a"], value=0.5, **kw), "float32"),
    "lerp": (lambda lib, t, **kw: lib.lerp(t["a"], t["b"], 0.25, **kw), "float32"),
}

OUT_KINDS = ("right shape", "size 0", "wrong shape", "transposed")


def make_out(lib, kind: str, shape: tuple, dtype: str):
    dtype = getattr(lib, dtype)
    if kind == "right shape":
        return lib.zeros(shape, dtype=dtype)
    if kind == "size 0":
        return lib.zeros(0, dtype=dtype)
    if kind == "wrong shape":
        return lib.zeros(7, dtype=dtype)
    if len(shape) != 2:
        return lib.zeros(shape, dtype=dtype)
    return lib.zeros(tuple(reversed(shape)), dtype=dtype).t()


def run(lib, call, kind, out_dtype, shape):
    out = make_out(lib, kind, shape, out_dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        returned = call(lib, tensors(lib), out=out)
    resized = [w for w in caught if "was resized" in str(w.message)]
    return out, returned, len(resized)


@pytest.mark.parametrize("kind", OUT_KINDS)
@pytest.mark.parametrize("name", list(CALLS))
def test_out_matches_torch(name, kind):
    call, out_dtype = CALLS[name]
    shape = tuple(call(torch, tensors(torch)).shape)
    t_out, t_returned, t_warnings = run(torch, call, kind, out_dtype, shape)
    m_out, m_returned, m_warnings = run(mt, call, kind, out_dtype, shape)
    assert m_returned is m_out  # out itself is returned
    assert t_returned is t_out
    assert (m_warnings > 0) == (t_warnings > 0)  # (torch warns twice when it also casts)
    assert_close(m_out, t_out)
    if kind in ("right shape", "transposed"):  # out keeps its own layout
        assert m_out.stride() == t_out.stride()


def test_out_pair_of_max_with_dim():
    values, indices = mt.zeros(0), mt.zeros(0, dtype=mt.int64)
    returned = mt.max(tensors(mt)["a"], 1, out=(values, indices))
    assert returned.values is values and returned.indices is indices  # the named pair
    expected = torch.max(torch.tensor(A), 1)
    assert_close(values, expected.values)
    assert_close(indices, expected.indices)


def test_out_shares_storage_with_an_input():
    """``add(a, b, out=a)``: the values are read before they are overwritten."""
    results = []
    for lib in (mt, torch):
        a = lib.tensor(np.arange(6.0).reshape(2, 3))
        lib.add(a, a.flip(1), out=a)
        results.append(a)
    assert_close(*results)


def test_out_views_see_the_values():
    out = mt.zeros(3, 4)
    row = out[1]
    mt.mul(mt.tensor(A), 2, out=out)
    assert_close(row, torch.tensor(A)[1] * 2)


FACTORY_CALLS = {
    "zeros": lambda lib, **kw: lib.zeros(2, 3, **kw),
    "ones": lambda lib, **kw: lib.ones((2, 3), **kw),
    "full": lambda lib, **kw: lib.full((4,), 7, **kw),
    "arange": lambda lib, **kw: lib.arange(5, **kw),
    "arange floats": lambda lib, **kw: lib.arange(0, 6, 1.5, **kw),
    "linspace": lambda lib, **kw: lib.linspace(-1, 1, 9, **kw),
    "eye": lambda lib, **kw: lib.eye(3, **kw),
    "empty": lambda lib, **kw: lib.empty(2, 2, **kw).fill_(1),  # compare shapes, not garbage
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", list(FACTORY_CALLS))
def test_factory_out_takes_out_dtype(name, dtype):
    """A factory makes its values in ``out``'s dtype and resizes ``out`` silently
    (``arange`` warns when the count differs, as PyTorch's does)."""
    outs, warned = [], []
    for lib in (mt, torch):
        out = lib.zeros(5, dtype=getattr(lib, dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            returned = FACTORY_CALLS[name](lib, out=out)
        assert returned is out
        outs.append(out)
        warned.append([str(w.message).split(" (Triggered")[0] for w in caught])
    assert_close(*outs)
    assert warned[0] == warned[1]


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_random_factory_out(name):
    out = mt.zeros(0, dtype=mt.float64)
    assert getattr(mt, name)(2, 3, out=out) is out
    assert out.shape == (2, 3) and out.dtype is mt.float64


def test_factory_out_refuses_another_dtype():
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="does not match dtype of out parameter"):
            lib.zeros(2, dtype=lib.float32, out=lib.zeros(2, dtype=lib.int64))


ERRORS = {
    "float into long": (lambda lib: lib.add(lib.ones(2), 1, out=lib.zeros(2, dtype=lib.int64)),
                        RuntimeError, "result type Float can't be cast to the desired output type Long"),
    "int into bool": (lambda lib: lib.add(lib.ones(2, dtype=lib.int64), 1, out=lib.zeros(2, dtype=lib.bool)),
                      RuntimeError, "result type Long can't be cast to the desired output type Bool"),
    "matmul wants its dtype": (lambda lib: lib.matmul(lib.ones(2, 2), lib.ones(2, 2),
                                                      out=lib.zeros(2, 2, dtype=lib.float64)),
                               RuntimeError, "Expected out tensor to have dtype"),
    "argmax wants long": (lambda lib: lib.argmax(lib.ones(2, 2), 1, out=lib.zeros(2)),
                          RuntimeError, "Expected out tensor to have dtype"),
    "input requires grad": (lambda lib: lib.mul(lib.ones(2, requires_grad=True), 2, out=lib.zeros(2)),
                            RuntimeError, r"mul\(\): functions with out=\.\.\. arguments don't support"),
    "out requires grad": (lambda lib: lib.exp(lib.ones(2), out=lib.zeros(2, requires_grad=True)),
                          RuntimeError, r"exp\(\): functions with out=\.\.\. arguments don't support"),
    "no out in torch": (lambda lib: lib.isnan(lib.ones(2), out=lib.zeros(2, dtype=lib.bool)),
                        TypeError, "unexpected keyword argument 'out'"),
    "out not a tensor": (lambda lib: lib.add(lib.ones(2), 1, out=[1, 2]), TypeError, "out"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(ERRORS))
def test_out_errors_like_torch(name):
    call, error, message = ERRORS[name]
    for lib in (torch, mt):
        with pytest.raises(error, match=message):
            call(lib)


def test_out_allowed_under_no_grad():
    for lib in (mt, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            out = lib.mul(x, 3, out=lib.zeros(2))
        assert not out.requires_grad and out.tolist() == [3.0, 3.0]


KEYWORD_CALLS = {
    "add(input=, other=)": lambda lib, t: lib.add(input=t["a"], other=t["b"]),
    "add(x, other=, alpha=)": lambda lib, t: lib.add(t["a"], other=t["b"], alpha=3),
    "sub(input=, other=)": lambda lib, t: lib.sub(input=t["a"], other=2.0),
    "mul(input=, other=)": lambda lib, t: lib.mul(input=t["a"], other=t["b"]),
    "div(x, other=, rounding_mode=)": lambda lib, t: lib.div(t["a"], other=t["b"], rounding_mode="floor"),
    "pow(input=, exponent=)": lambda lib, t: lib.pow(input=t["a"], exponent=3),
    "matmul(input=, other=)": lambda lib, t: lib.matmul(input=t["a"], other=t["m"]),
    "mm(input=, mat2=)": lambda lib, t: lib.mm(input=t["a"], mat2=t["m"]),
    "mv(input=, vec=)": lambda lib, t: lib.mv(input=t["a"], vec=t["a"][0]),
    "dot(input=, tensor=)": lambda lib, t: lib.dot(input=t["a"][0], tensor=t["b"][1]),
    "sum(input=, dim=, keepdim=)": lambda lib, t: lib.sum(input=t["a"], dim=1, keepdim=True),
    "mean(input=, dim=)": lambda lib, t: lib.mean(input=t["b"], dim=(0, 1)),
    "max(input=, dim=)": lambda lib, t: lib.max(input=t["a"], dim=0).values,
    "argmax(input=, dim=, keepdim=)": lambda lib, t: lib.argmax(input=t["a"], dim=1, keepdim=True),
    "exp(input=)": lambda lib, t: lib.exp(input=t["a"]),
    "clamp(input=, min=)": lambda lib, t: lib.clamp(input=t["a"], min=1.0),
    "softmax(input=, dim=)": lambda lib, t: lib.softmax(input=t["a"], dim=1),
    "transpose(input=, dim0=, dim1=)": lambda lib, t: lib.transpose(input=t["a"], dim0=0, dim1=1),
    "unsqueeze(input=, dim=)": lambda lib, t: lib.unsqueeze(input=t["a"], dim=1),
    "gather(input=, dim=, index=)": lambda lib, t: lib.gather(input=t["a"], dim=1, index=t["i"]),
    "eq(input=, other=)": lambda lib, t: lib.eq(input=t["a"], other=t["b"]),
    "where(cond, input=, other=)": lambda lib, t: lib.where(t["a"] > 1, input=t["a"], other=t["b"]),
    "cat(tensors=, dim=)": lambda lib, t: lib.cat(tensors=[t["a"], t["b"]], dim=0),
}


@pytest.mark.parametrize("name", list(KEYWORD_CALLS))
def test_torch_keyword_names(name):
    call = KEYWORD_CALLS[name]
    assert_close(call(mt, tensors(mt)), call(torch, tensors(torch)))


def test_keyword_given_twice():
    for lib in (mt, torch):
        with pytest.raises(TypeError):
            lib.add(lib.ones(2), lib.ones(2), other=lib.ones(2))


def test_wrapped_functions_keep_their_docs_and_signature():
    import inspect

    assert mt.add.__doc__ == mt.ones(1).add.__doc__
    assert "alpha" in inspect.signature(mt.add).parameters


def test_every_function_torch_documents_with_out_takes_it():
    """A new op whose PyTorch docstring lists ``out`` must be named in ``ops/out.py``."""
    from minitorch.ops import out as out_module

    wrapped = [name for name in dir(mt) if hasattr(getattr(mt, name), "__wrapped__")]
    docs = {name: getattr(torch, name).__doc__ or "" for name in wrapped if hasattr(torch, name)}
    documented = [name for name, doc in docs.items() if "out (Tensor" in doc]
    missing = sorted(set(documented) - out_module.OPS_WITH_OUT - out_module.FACTORIES_WITH_OUT)
    assert not missing, f"add these to OPS_WITH_OUT in minitorch/ops/out.py: {missing}"
    assert "add" in documented and "zeros" in documented  # the check reads the docs at all
