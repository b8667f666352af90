"""Indexing and index assignment against PyTorch 2.13 (issue 18, items 6 and 7).

Each case is one call written once for both libraries (``lib`` is ``torch`` or
``minitorch``). The test runs it with both and compares the outcome: the same values,
shape and dtype, or the same exception type. Cases cover the rules a student meets
first and PyTorch's less obvious ones:

* a 0-d integer tensor index is the int it holds (``t[tensor(1)]`` is ``t[1]``, a view),
  so ``x[tensor(0), :, tensor([0, 1, 2])]`` has shape ``(2, 3)``, not ``(3, 2)``;
* a Python or 0-d bool adds a dimension of size 1 (``True``) or 0 (``False``);
* a *list* that holds sequences, slices, ``None`` or ``...`` is read as a tuple;
* ``x[key] = value`` drops the value's leading size-1 dimensions, converts a number to
  ``x``'s dtype, and refuses values that are not numbers or tensors.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt


def cube(lib):
    """A (4, 2, 4) tensor of distinct values, 0..31."""
    return lib.arange(32).reshape(4, 2, 4)


def strided(lib):
    """A non-contiguous (4, 3) view: the transpose of a (3, 4) tensor."""
    return lib.arange(12.0).reshape(3, 4).t()


def mask(lib):
    """A 1-D boolean mask of 3 elements."""
    return lib.tensor([True, False, True])


def assigned(lib, key, value, shape=(2, 3), dtype="float32"):
    """A zero tensor of ``shape`` after ``x[key] = value``."""
    x = lib.zeros(shape, dtype=getattr(lib, dtype))
    x[key] = value
    return x


GETITEM = {
    # 0-d integer tensors act as ints
    "0-d int, slice, 1-d": lambda lib: cube(lib)[lib.tensor(0), :, lib.tensor([0, 1, 2])],
    "0-d int alone": lambda lib: cube(lib)[lib.tensor(1)],
    "0-d int32": lambda lib: cube(lib)[lib.tensor(1, dtype=lib.int32)],
    "negative 0-d int": lambda lib: cube(lib)[lib.tensor(-1)],
    "two 0-d ints": lambda lib: cube(lib)[lib.tensor(0), lib.tensor(1)],
    "1-d, slice, 0-d": lambda lib: cube(lib)[lib.tensor([0, 1]), :, lib.tensor(0)],
    "slice, 0-d, 1-d": lambda lib: cube(lib)[:, lib.tensor(0), lib.tensor([0, 1, 2])],
    "ellipsis, 0-d": lambda lib: cube(lib)[..., lib.tensor(2)],
    "2-d, 0-d": lambda lib: cube(lib)[lib.tensor([[0, 1]]), lib.tensor(0)],
    "0-d, None, slice, 1-d": lambda lib: cube(lib)[lib.tensor(0), None, :, lib.tensor([0, 1, 2])],
    "0-d int of a strided view": lambda lib: strided(lib)[lib.tensor(2)],
    "0-d int out of range": lambda lib: cube(lib)[lib.tensor(7)],
    "0-d float": lambda lib: cube(lib)[lib.tensor(1.0)],
    "0-d NumPy int array": lambda lib: cube(lib)[np.array(1)],
    # bools add a dimension
    "0-d True": lambda lib: cube(lib)[lib.tensor(True)],
    "0-d False": lambda lib: cube(lib)[lib.tensor(False)],
    "0-d True, int": lambda lib: cube(lib)[lib.tensor(True), 0],
    "0-d True, slice, 1-d": lambda lib: cube(lib)[lib.tensor(True), :, lib.tensor([0, 1])],
    "0-d True consumes no dim": lambda lib: cube(lib)[lib.tensor(True), :, lib.tensor([0, 1, 2])],
    "Python True": lambda lib: cube(lib)[True],
    "Python False": lambda lib: cube(lib)[False],
    "Python True and three ints": lambda lib: cube(lib)[True, 0, 0, 0],
    "mask and 0-d True": lambda lib: cube(lib)[lib.tensor([True, False, True, False]), lib.tensor(True)],
    "int and 1-d mask": lambda lib: cube(lib)[0, lib.tensor([True, False])],
    "list of bools": lambda lib: cube(lib)[[True, False, True, False]],
    # lists: one index, or a tuple in disguise
    "list of ints": lambda lib: cube(lib)[[0, 1, 1]],
    "nested list": lambda lib: cube(lib)[[[0, 1], [1, 0]]],
    "nested list of three": lambda lib: cube(lib)[[[0, 1], [1, 0], [2, 3]]],
    "list of list of list": lambda lib: cube(lib)[[[[0, 1]]]],
    "list with a slice": lambda lib: cube(lib)[[0, slice(None), 1]],
    "list with None": lambda lib: cube(lib)[[None, 1]],
    "list with ellipsis": lambda lib: cube(lib)[[..., 1]],
    "list with a 0-d tensor": lambda lib: cube(lib)[[lib.tensor(0), 1]],
    "NumPy 1-d array": lambda lib: cube(lib)[np.array([0, 1])],
    "NumPy 2-d array": lambda lib: cube(lib)[np.array([[0, 1], [1, 0]])],
    "list on a strided view": lambda lib: strided(lib)[[[0, 3], [1, 2]]],
    "empty list": lambda lib: cube(lib)[[]],
    "empty tuple": lambda lib: cube(lib)[()],
}

SETITEM = {
    # the value's leading 1s are dropped
    "row = (1, 3)": lambda lib: assigned(lib, 0, lib.ones(1, 3)),
    "row = (1, 1, 3)": lambda lib: assigned(lib, 0, lib.ones(1, 1, 3)),
    "row = (2, 3)": lambda lib: assigned(lib, 0, lib.ones(2, 3)),
    "row = (1, 3, 1)": lambda lib: assigned(lib, 0, lib.ones(1, 3, 1)),
    "column = (1, 2)": lambda lib: assigned(lib, (slice(None), 0), lib.ones(1, 2)),
    "[[0]] = (1, 1, 3)": lambda lib: assigned(lib, [0], lib.ones(1, 1, 3)),
    "[[0, 1]] = (1, 1, 3)": lambda lib: assigned(lib, [0, 1], lib.ones(1, 1, 3)),
    "[:, [0]] = (1, 2, 1)": lambda lib: assigned(lib, (slice(None), [0]), lib.ones(1, 2, 1)),
    "mask = (1, 1, 3)": lambda lib: assigned(lib, lib.tensor([True, False]), lib.ones(1, 1, 3)),
    "0-d [()] = [v]": lambda lib: assigned(lib, (), lib.tensor([3.0]), shape=()),
    "0-d [()] = [[v]]": lambda lib: assigned(lib, (), lib.tensor([[3.0]]), shape=()),
    "0-d [...] = [v]": lambda lib: assigned(lib, ..., lib.tensor([3.0]), shape=()),
    "1-d [..., -1] = [v]": lambda lib: assigned(lib, (..., -1), lib.tensor([3.0]), shape=(4,)),
    "row = int (1, 3)": lambda lib: assigned(lib, 0, lib.ones(1, 3, dtype=lib.int64)),
    # numbers are converted to the tensor's dtype
    "bool [[0]] = 2": lambda lib: assigned(lib, [0], 2, (3,), "bool"),
    "bool [0] = 2": lambda lib: assigned(lib, 0, 2, (3,), "bool"),
    "bool [[0]] = 2.5": lambda lib: assigned(lib, [0], 2.5, (3,), "bool"),
    "bool [[0]] = 0.0": lambda lib: assigned(lib, [0], 0.0, (3,), "bool"),
    "int [[0]] = 2.7": lambda lib: assigned(lib, [0], 2.7, (3,), "int64"),
    "int [[0]] = -2.7": lambda lib: assigned(lib, [0], -2.7, (3,), "int64"),
    "int [[0]] = True": lambda lib: assigned(lib, [0], True, (3,), "int64"),
    "int [mask] = 2.5": lambda lib: assigned(lib, mask(lib), 2.5, (3,), "int64"),
    "int [0] = NaN": lambda lib: assigned(lib, 0, float("nan"), (3,), "int64"),
    "int [[0]] = NaN": lambda lib: assigned(lib, [0], float("nan"), (3,), "int64"),
    "int [mask] = inf": lambda lib: assigned(lib, mask(lib), float("inf"), (3,), "int64"),
    "int [0] = 1e30": lambda lib: assigned(lib, 0, 1e30, (3,), "int64"),
    "int32 [[0]] = 3e9": lambda lib: assigned(lib, [0], 3e9, (3,), "int32"),
    "float32 [[0]] = 1e300": lambda lib: assigned(lib, [0], 1e300, (3,)),
    "[0] = NumPy int": lambda lib: assigned(lib, 0, np.int64(2)),
    "[0] = NumPy float64": lambda lib: assigned(lib, 0, np.float64(2)),
    # tensor values: basic keys convert, advanced keys need the same dtype
    "int [0] = 0-d float": lambda lib: assigned(lib, 0, lib.tensor(2.7), (3,), "int64"),
    "int [:] = float": lambda lib: assigned(lib, slice(None), lib.tensor([1.5, 2.5, 3.5]), (3,), "int64"),
    "int [[0]] = 0-d float": lambda lib: assigned(lib, [0], lib.tensor(2.7), (3,), "int64"),
    "float [[0]] = 0-d int": lambda lib: assigned(lib, [0], lib.tensor(2), (3,)),
    "float [[0]] = 0-d float64": lambda lib: assigned(lib, [0], lib.tensor(2.0, dtype=lib.float64), (3,)),
    "float [mask] = 0-d int": lambda lib: assigned(lib, mask(lib), lib.tensor(2), (3,)),
    "float [mask] = (1,) int": lambda lib: assigned(lib, mask(lib), lib.tensor([2]), (3,)),
    "float [mask] = (2,) int": lambda lib: assigned(lib, mask(lib), lib.tensor([2, 3]), (3,)),
    "float [(mask, 0)] = 0-d int": lambda lib: assigned(lib, (mask(lib), 0), lib.tensor(2), (3, 2)),
    "float [0-d True] = 0-d int": lambda lib: assigned(lib, lib.tensor(True), lib.tensor(2), (3,)),
    "bool [[0]] = 0-d float": lambda lib: assigned(lib, [0], lib.tensor(2.5), (3,), "bool"),
    # values that are not numbers or tensors
    "[[0]] = None": lambda lib: assigned(lib, [0], None),
    "[0] = None": lambda lib: assigned(lib, 0, None),
    "[0] = str": lambda lib: assigned(lib, 0, "a"),
    "[0] = list": lambda lib: assigned(lib, 0, [1, 2, 3]),
    "[[0]] = list": lambda lib: assigned(lib, [0], [1, 2, 3]),
    "[0] = NumPy array": lambda lib: assigned(lib, 0, np.ones(3)),
    "[0] = NumPy float32": lambda lib: assigned(lib, 0, np.float32(2)),
    "[0] = complex": lambda lib: assigned(lib, 0, 1j),
    # keys that changed meaning
    "nested list = 5": lambda lib: assigned(lib, [[0, 1], [1, 0]], 5.0, (3, 2)),
    "0-d int = 5": lambda lib: assigned(lib, lib.tensor(1), 5.0, (3, 2)),
    "0-d True = 5": lambda lib: assigned(lib, lib.tensor(True), 5.0, (3, 2)),
    "0-d False = 5": lambda lib: assigned(lib, lib.tensor(False), 5.0, (3, 2)),
    "True = (1, 3, 2)": lambda lib: assigned(lib, True, lib.ones(1, 3, 2), (3, 2)),
    "list with a slice = row": lambda lib: assigned(lib, [slice(None), 1], lib.ones(3), (3, 2)),
    "0-d, slice, 1-d = (2, 3)": lambda lib: assigned(
        lib, (lib.tensor(0), slice(None), lib.tensor([0, 1, 2])), lib.ones(2, 3), (4, 2, 4)
    ),
}


def outcome(lib, call):
    """What ``call(lib)`` gives: ``("value", array, dtype name)`` or ``("raises", type)``.
    torch's ``NotImplementedError`` counts as the ``RuntimeError`` it derives from."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # both warn about list-as-tuple keys
        try:
            result = call(lib)
        except Exception as error:  # noqa: BLE001 - the outcome is what we compare
            kind = type(error)
            return ("raises", RuntimeError if issubclass(kind, RuntimeError) else kind)
    array = np.asarray(result.detach().cpu() if lib is torch else result.detach())
    return ("value", array, str(result.dtype).split(".")[-1])


def assert_same_outcome(call):
    expected, actual = outcome(torch, call), outcome(mt, call)
    assert expected[0] == actual[0], f"torch {expected}, minitorch {actual}"
    if expected[0] == "raises":
        assert actual[1] is expected[1], f"torch raises {expected[1]}, minitorch {actual[1]}"
        return
    assert actual[2] == expected[2], f"dtype: torch {expected[2]}, minitorch {actual[2]}"
    shapes = (expected[1].shape, actual[1].shape)
    assert shapes[0] == shapes[1], f"shape: torch {shapes[0]}, minitorch {shapes[1]}"
    np.testing.assert_array_equal(actual[1], expected[1])


@pytest.mark.parametrize("name", list(GETITEM))
def test_getitem_matches_torch(name):
    assert_same_outcome(GETITEM[name])


@pytest.mark.parametrize("name", list(SETITEM))
def test_setitem_matches_torch(name):
    assert_same_outcome(SETITEM[name])


def test_zero_dim_int_index_is_a_view():
    x = mt.arange(12.0).reshape(3, 4)
    row = x[mt.tensor(1)]
    row[0] = 100.0
    assert x[1, 0].item() == 100.0
    assert row._base is x or row._base is x._base


def test_assignment_through_nested_list_writes_only_the_named_elements():
    x = mt.zeros(3, 2)
    with pytest.warns(UserWarning, match="tuple"):
        x[[[0, 1], [1, 0]]] = 5.0
    assert x.tolist() == [[0.0, 5.0], [5.0, 0.0], [0.0, 0.0]]


def test_setitem_with_leading_ones_is_differentiable():
    value = mt.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    expected_value = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    for lib, v in ((mt, value), (torch, expected_value)):
        x = lib.zeros(2, 3)
        x[0] = v * 2
        x[[1]] = v
        (x * lib.arange(6.0).reshape(2, 3)).sum().backward()
    np.testing.assert_allclose(value.grad.numpy(), expected_value.grad.numpy())


def test_rejected_value_leaves_tensor_unchanged():
    x = mt.arange(6.0).reshape(2, 3)
    for bad in (None, "a", [1.0, 2.0, 3.0], np.ones(3)):
        with pytest.raises(TypeError, match="assign"):
            x[0] = bad
        with pytest.raises(TypeError, match="assign"):
            x[[0]] = bad
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


# ----- seeded fuzzing: random keys and values, both libraries ----------------------------

FUZZ_CASES = int(os.environ.get("MINITORCH_FUZZ_CASES", "150"))  # more for a longer hunt


def random_item(rng, size, lib):
    """One key item for a dimension of ``size``, as the same call for either library."""
    kind = rng.choice(["int", "slice", "list", "0-d", "1-d", "mask", "None", "bool"])
    if kind in ("int", "0-d", "list", "1-d") and size == 0:
        kind = "slice"
    if kind == "int":
        return int(rng.integers(-size, size))
    if kind == "0-d":
        return lib.tensor(int(rng.integers(-size, size)))
    if kind in ("list", "1-d"):
        # distinct positions (so no element is written twice), some counted from the end
        picked = rng.permutation(size)[: rng.integers(1, size + 1)]
        picked = [int(p) - size if rng.random() < 0.3 else int(p) for p in picked]
        return picked if kind == "list" else lib.tensor(picked)
    if kind == "mask":
        return lib.tensor(rng.random(size) < 0.5)
    if kind == "None":
        return None
    if kind == "bool":
        return bool(rng.random() < 0.7)
    start, stop = (int(v) for v in rng.integers(-size - 1, size + 2, 2))
    return slice(start if rng.random() < 0.7 else None, stop if rng.random() < 0.7 else None,
                 int(rng.integers(1, 3)))  # fmt: skip


def random_case(seed):
    """``(make_x, key_for, value_for)`` built from one seed, each a function of ``lib``."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(0, 4, rng.integers(1, 4)))
    transposed = bool(rng.random() < 0.3) and len(shape) > 1
    n_items = int(rng.integers(1, len(shape) + 1))
    ellipsis_at = int(rng.integers(0, n_items + 1)) if rng.random() < 0.3 else None
    item_seed = int(rng.integers(2**31))
    value_kind = rng.choice(["number", "exact", "leading ones", "broadcast"])
    value_seed = int(rng.integers(2**31))

    def make_x(lib):
        x = lib.arange(float(np.prod(shape))).reshape(shape[::-1] if transposed else shape)
        return x.permute(*reversed(range(len(shape)))) if transposed else x

    def key_for(lib):
        item_rng = np.random.default_rng(item_seed)
        items = [random_item(item_rng, shape[d], lib) for d in range(n_items)]
        if ellipsis_at is not None:
            items.insert(ellipsis_at, Ellipsis)
        return tuple(items)

    def value_for(lib, target_shape):
        value_rng = np.random.default_rng(value_seed)
        if value_kind == "number":
            return float(value_rng.integers(-9, 9))
        target = list(target_shape)
        if value_kind == "leading ones":
            target = [1] * int(value_rng.integers(1, 3)) + target
        elif value_kind == "broadcast" and target:
            target = [1 if value_rng.random() < 0.5 else s for s in target][int(value_rng.integers(0, 2)) :]
        return lib.tensor(value_rng.integers(-99, 99, target).astype(np.float32))

    return make_x, key_for, value_for


@pytest.mark.parametrize("seed", range(FUZZ_CASES))
def test_fuzzed_getitem_and_setitem_match_torch(seed):
    make_x, key_for, value_for = random_case(seed)
    assert_same_outcome(lambda lib: make_x(lib)[key_for(lib)])
    try:
        target_shape = tuple(make_x(torch)[key_for(torch)].shape)
    except IndexError:
        return  # a bad key: the getitem comparison above checked both raise it

    def assign(lib):
        x = make_x(lib).clone()
        x[key_for(lib)] = value_for(lib, target_shape)
        return x

    assert_same_outcome(assign)


@pytest.mark.parametrize("shape, key", [((0, 0), [0]), ((0, 3), [0]), ((2, 0), [5]), ((2, 0), ([5], [0])),
                                        ((0, 0), [])])  # fmt: skip
def test_an_index_into_an_empty_dimension_is_out_of_bounds_as_in_pytorch(shape, key):
    """Every index into a size-0 dimension is out of bounds, even when nothing would be
    read; into another dimension of a tensor with no elements left, PyTorch checks none."""
    outcomes = []
    for lib in (mt, torch):
        try:
            outcomes.append(tuple(lib.zeros(*shape)[key].shape))
        except IndexError:
            outcomes.append("IndexError")
    assert outcomes[0] == outcomes[1]
