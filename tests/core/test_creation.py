"""Tensor creation (issue 2, item 3) against PyTorch: ``tensor`` from lists, scalars and
NumPy arrays; ``zeros ones full empty arange linspace eye``; random creation and
``manual_seed``; ``*_like``; NumPy interop (``from_numpy``, ``numpy``, ``__array__``,
DLPack) with shared memory."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, dtype_name, to_numpy

import minitorch as mt

# ----- tensor(data) ------------------------------------------------------------------

DATA = [
    [1.0, 2.0, 3.0],
    [1, 2, 3],
    [True, False],
    [1, 2.5],
    [True, 2],
    [True, 2.5],
    [[1, 2], [3, 4]],
    [[[1.5], [2.0]], [[3.0], [4.0]]],
    [],
    [[], []],
    3.0,
    7,
    False,
    [[1.0, 2.0]],
    [-0.0, 1e-8, 1e20],
]


@pytest.mark.parametrize("data", DATA, ids=repr)
def test_tensor_from_python_data(data, device):
    expected = torch.tensor(data)
    actual = mt.tensor(data, device=device)
    assert_close(actual, expected)
    assert actual.device.type == device


NUMPY_DTYPES = [np.float32, np.float64, np.int64, np.int32, np.bool_]


@pytest.mark.parametrize("np_dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_tensor_from_numpy_array_keeps_dtype_and_copies(np_dtype, device):
    array = (np.arange(6).reshape(2, 3) % 4).astype(np_dtype)
    actual = mt.tensor(array, device=device)
    assert_close(actual, torch.tensor(array))
    # tensor() copies: changing the array afterwards does not change the tensor
    array[0, 0] = 3
    assert to_numpy(actual)[0, 0] == (np_dtype(0) if np_dtype is not np.bool_ else False)


def test_tensor_from_non_contiguous_numpy_array(device):
    array = np.arange(24, dtype=np.float64).reshape(4, 6)[::2, 1::2].T
    assert_close(mt.tensor(array, device=device), torch.tensor(array))


def test_tensor_from_numpy_scalar_and_0d_array(device):
    assert_close(mt.tensor(np.float64(2.5), device=device), torch.tensor(np.float64(2.5)))
    assert_close(mt.tensor(np.array(3), device=device), torch.tensor(np.array(3)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_tensor_dtype_argument(dtype, device):
    data = [[0, 1.5], [-2, 3]] if dtype != "bool" else [[0, 1], [1, 0]]
    expected = torch.tensor(data, dtype=getattr(torch, dtype))
    assert_close(mt.tensor(data, dtype=getattr(mt, dtype), device=device), expected)


def test_tensor_requires_grad_argument():
    t = mt.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad is True
    assert t.is_leaf is True
    assert mt.tensor([1.0]).requires_grad is False


def test_tensor_from_a_list_of_0d_tensors():
    expected = torch.tensor([torch.tensor(1.5), torch.tensor(2.0)])
    assert_close(mt.tensor([mt.tensor(1.5), mt.tensor(2.0)]), expected)


@pytest.mark.parametrize(
    "data",
    [[[1, 2], [3]], [[1.0], [2.0, 3.0]], [[[1]], [2]], [1, [2]]],
    ids=repr,
)
def test_ragged_nested_lists_raise_like_torch(data):
    with pytest.raises((ValueError, TypeError)) as torch_error:
        torch.tensor(data)
    with pytest.raises(type(torch_error.value)) as error:
        mt.tensor(data)
    message = str(error.value).lower()
    assert any(w in message for w in ("length", "ragged", "shape", "sequence", "list")), message


def test_default_dtype_is_float32():
    assert mt.get_default_dtype() is mt.float32
    assert mt.tensor([1.0]).dtype is mt.float32
    assert mt.zeros(2).dtype is mt.float32


# ----- zeros, ones, full, empty --------------------------------------------------------

SIZES = [((2, 3), {}), ((2, 3), {"dtype": "int64"}), ((), {}), ((0, 2), {}), ((4,), {})]


@pytest.mark.parametrize("fn", ["zeros", "ones"])
@pytest.mark.parametrize(("size", "kw"), SIZES, ids=repr)
def test_zeros_ones(fn, size, kw, device):
    kwargs = {k: getattr(torch, v) for k, v in kw.items()}
    mkwargs = {k: getattr(mt, v) for k, v in kw.items()}
    expected = getattr(torch, fn)(size, **kwargs)
    assert_close(getattr(mt, fn)(size, device=device, **mkwargs), expected)
    if len(size) > 0:
        assert_close(getattr(mt, fn)(*size, device=device, **mkwargs), expected)
        assert_close(getattr(mt, fn)(list(size), device=device, **mkwargs), expected)


@pytest.mark.parametrize("fill", [2.5, 3, True, -1.0])
def test_full_infers_dtype_from_fill_value(fill, device):
    assert_close(mt.full((2, 3), fill, device=device), torch.full((2, 3), fill))
    assert_close(
        mt.full([2], fill, dtype=mt.float64, device=device),
        torch.full([2], fill, dtype=torch.float64),
    )


def test_empty_shape_dtype_device(device):
    t = mt.empty(2, 3, dtype=mt.int64, device=device)
    assert tuple(t.shape) == (2, 3)
    assert t.dtype is mt.int64
    assert t.device.type == device
    assert tuple(mt.empty((4,)).shape) == (4,)
    assert mt.empty(()).dim() == 0


# ----- arange, linspace, eye -------------------------------------------------------------

ARANGE = [
    (5,),
    (2, 7),
    (1, 10, 3),
    (10, 0, -3),
    (0.0, 1.0, 0.25),
    (0, 1, 0.1),
    (-1.5, 2),
    (3.0,),
    (0,),
]


@pytest.mark.parametrize("args", ARANGE, ids=repr)
def test_arange(args, device):
    assert_close(mt.arange(*args, device=device), torch.arange(*args))


def test_arange_dtype_and_keywords(device):
    expected = torch.arange(0, 6, 2, dtype=torch.float64)
    assert_close(mt.arange(0, 6, 2, dtype=mt.float64, device=device), expected)
    assert_close(mt.arange(start=1, end=4, step=1, device=device), torch.arange(1, 4))
    assert_close(mt.arange(end=3, device=device), torch.arange(3))


@pytest.mark.parametrize(
    "args", [(0, 1, 5), (-2.0, 3.0, 11), (1, 1, 1), (0, 1, 0), (3, -3, 4)], ids=repr
)
def test_linspace(args, device):
    assert_close(mt.linspace(*args, device=device), torch.linspace(*args))
    assert_close(
        mt.linspace(*args, dtype=mt.float64, device=device),
        torch.linspace(*args, dtype=torch.float64),
    )


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (1,)], ids=repr)
def test_eye(args, device):
    assert_close(mt.eye(*args, device=device), torch.eye(*args))
    assert_close(
        mt.eye(*args, dtype=mt.int64, device=device), torch.eye(*args, dtype=torch.int64)
    )


# ----- random creation -----------------------------------------------------------------


def test_rand_shape_dtype_range(device):
    t = mt.rand(20, 10, device=device)
    assert tuple(t.shape) == (20, 10) and t.dtype is mt.float32
    values = to_numpy(t)
    assert values.min() >= 0.0 and values.max() < 1.0
    assert 0.35 < values.mean() < 0.65, "rand should be uniform on [0, 1)"
    assert len(np.unique(values)) > 150, "rand values should differ"
    assert mt.rand((3,), dtype=mt.float64, device=device).dtype is mt.float64


def test_randn_shape_dtype_moments(device):
    t = mt.randn(40, 10, device=device)
    assert tuple(t.shape) == (40, 10) and t.dtype is mt.float32
    values = to_numpy(t)
    assert abs(values.mean()) < 0.2, values.mean()
    assert 0.8 < values.std() < 1.2, values.std()
    assert (values < 0).any() and (values > 0).any()
    assert mt.randn((2, 2), dtype=mt.float64).dtype is mt.float64


def test_randint(device):
    t = mt.randint(3, 7, (50,), device=device)
    assert t.dtype is mt.int64 and tuple(t.shape) == (50,)
    values = to_numpy(t)
    assert values.min() >= 3 and values.max() < 7
    assert set(values.tolist()) == {3, 4, 5, 6}
    t = mt.randint(5, (4, 5), device=device)
    assert tuple(t.shape) == (4, 5)
    assert to_numpy(t).min() >= 0 and to_numpy(t).max() < 5
    assert mt.randint(0, 2, size=(3,)).dtype is mt.int64


@pytest.mark.parametrize(
    "make",
    [
        lambda: mt.rand(6),
        lambda: mt.randn(2, 3),
        lambda: mt.randint(0, 100, (8,)),
        lambda: mt.rand_like(mt.zeros(5)),
        lambda: mt.randn_like(mt.zeros(2, 2)),
    ],
    ids=["rand", "randn", "randint", "rand_like", "randn_like"],
)
def test_manual_seed_makes_random_creation_reproducible(make):
    mt.manual_seed(1234)
    first = to_numpy(make())
    second_draw = to_numpy(make())
    mt.manual_seed(1234)
    again = to_numpy(make())
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second_draw), "consecutive draws must differ"
    mt.manual_seed(99)
    assert not np.array_equal(first, to_numpy(make())), "different seeds, different values"


# ----- *_like --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_like_functions(dtype, device):
    m = mt.zeros(2, 3, dtype=getattr(mt, dtype), device=device)
    t = torch.zeros(2, 3, dtype=getattr(torch, dtype))
    assert_close(mt.zeros_like(m), torch.zeros_like(t))
    assert_close(mt.ones_like(m), torch.ones_like(t))
    assert_close(mt.full_like(m, 7), torch.full_like(t, 7))
    assert_close(mt.ones_like(m, dtype=mt.float64), torch.ones_like(t, dtype=torch.float64))
    assert mt.zeros_like(m).device.type == device
    if dtype != "int64":
        for fn in ("rand_like", "randn_like"):
            r = getattr(mt, fn)(m)
            assert tuple(r.shape) == (2, 3) and dtype_name(r.dtype) == dtype
            assert r.device.type == device


def test_like_of_non_contiguous_input_has_same_values_shape():
    m = mt.arange(12.0).view(3, 4).t()
    t = torch.arange(12.0).view(3, 4).t()
    assert_close(mt.zeros_like(m), torch.zeros_like(t))
    assert_close(mt.full_like(m, 2.5), torch.full_like(t, 2.5))


# ----- NumPy interop -------------------------------------------------------------------


@pytest.mark.parametrize("np_dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_from_numpy_shares_memory(np_dtype):
    array = (np.arange(6).reshape(2, 3) % 2).astype(np_dtype)
    m = mt.from_numpy(array)
    assert_close(m, torch.from_numpy(array.copy()))
    array[1, 2] = 0
    array[0, 0] = 1
    assert to_numpy(m)[1, 2] == 0 and to_numpy(m)[0, 0] == 1, "from_numpy must share memory"


def test_from_numpy_writes_back_into_the_array():
    array = np.zeros(4, dtype=np.float32)
    m = mt.from_numpy(array)
    m.add_(2)
    m[1] = 5.0
    np.testing.assert_array_equal(array, [2, 5, 2, 2])


def test_from_numpy_of_strided_array_matches_torch_strides():
    array = np.arange(24, dtype=np.float64).reshape(4, 6)[::2, 1::2].T
    m = mt.from_numpy(array)
    t = torch.from_numpy(array)
    assert_close(m, t)
    assert tuple(m.stride()) == tuple(t.stride())
    array[0, 0] = -1.0
    assert to_numpy(m)[0, 0] == -1.0


def test_numpy_shares_memory_with_the_tensor():
    m = mt.zeros(2, 3)
    view = m.numpy()
    assert isinstance(view, np.ndarray) and view.dtype == np.float32 and view.shape == (2, 3)
    view[1, 1] = 4.0
    assert m[1, 1].item() == 4.0, "numpy() must share memory (like torch)"
    m.add_(1)
    assert view[0, 0] == 1.0


def test_numpy_of_a_view_reads_the_view():
    m = mt.arange(12.0).view(3, 4)
    t = torch.arange(12.0).view(3, 4)
    np.testing.assert_array_equal(m.t().numpy(), t.t().numpy())
    np.testing.assert_array_equal(m[1:, ::2].numpy(), t[1:, ::2].numpy())
    assert m.t().numpy().shape == (4, 3)


def test_numpy_of_tensor_requiring_grad_raises_like_torch():
    t = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        t.numpy()
    m = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        m.numpy()
    np.testing.assert_array_equal(m.detach().numpy(), [1.0, 1.0])


def test_array_protocol():
    m = mt.tensor([[1.5, 2.0], [3.0, 4.0]])
    array = np.asarray(m)
    np.testing.assert_array_equal(array, [[1.5, 2.0], [3.0, 4.0]])
    assert array.dtype == np.float32
    assert np.array(m, dtype=np.float64).dtype == np.float64
    assert float(np.asarray(m).sum()) == 10.5
    assert_close(mt.tensor(np.asarray(m.t())), torch.tensor([[1.5, 3.0], [2.0, 4.0]]))


def test_from_dlpack_shares_memory_with_numpy():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    m = mt.from_dlpack(array)
    assert_close(m, torch.from_numpy(array.copy()))
    array[0, 1] = 42.0
    assert to_numpy(m)[0, 1] == 42.0, "from_dlpack must be zero-copy"


def test_numpy_from_dlpack_of_minitorch_tensor_is_zero_copy():
    m = mt.arange(6.0).view(2, 3)
    array = np.from_dlpack(m)
    np.testing.assert_array_equal(array, np.arange(6.0).reshape(2, 3))
    m.add_(1)
    np.testing.assert_array_equal(array, np.arange(6.0).reshape(2, 3) + 1)
    assert m.__dlpack_device__()[0] == 1  # kDLCPU


def test_torch_from_dlpack_of_minitorch_view():
    m = mt.arange(12.0).view(3, 4).t()[1:]
    t = torch.from_dlpack(m)
    assert_close(m, t)
    assert tuple(t.stride()) == tuple(m.stride())
