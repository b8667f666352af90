"""The op table (PyTorch's OpInfo idea): one declarative row per public operation.

Each row says how to call the op (the *same* Python function is called once with
``lib=minitorch`` and once with ``lib=torch``), which dtypes it accepts, which sample
inputs to try, and whether it is differentiable. The rows drive

* ``tests/core/test_ops.py``          -- forward values, dtype, shape (and strides for views),
* ``tests/autograd/test_op_grads.py`` -- gradients vs torch, gradcheck, gradgradcheck,

on every backend. A new op is one new row.

Sample inputs are described, not built: ``T(shape, layout)`` stands for a random tensor
with that *logical* shape laid out in memory as

* ``"contiguous"`` -- a fresh tensor;
* ``"transposed"`` -- the transpose of a fresh tensor (last two dims swapped);
* ``"sliced"``     -- ``base[1::2]`` of a taller fresh tensor (offset 1, stride x2);
* ``"expanded"``   -- ``base.expand(shape)`` of a fresh tensor with a size-1 dimension
  (stride 0).

The fresh tensor (the *base*) is the leaf that requires grad in gradient tests, so
gradients also flow back through the layout views.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from helpers import FLOAT_NAMES, dtype_name, dtype_of, random_array

import minitorch as mt

F = ("float32", "float64")
FI = ("float32", "float64", "int64")
FII = ("float32", "float64", "int64", "int32")
ALL = ("float32", "float64", "int64", "int32", "bool")
LAYOUTS = ("contiguous", "transposed", "sliced", "expanded")


@dataclass
class T:
    """A tensor argument of a sample: logical shape, memory layout and value domain."""

    shape: tuple
    layout: str = "contiguous"
    dtype: str | None = None  # None: the dtype the test runs with
    low: float | None = None  # None: the op's domain
    high: float | None = None
    nonzero: bool = False  # keep values away from 0 (divisors)
    rounded: bool = False  # floats on a 0.5 grid, so that ties and equalities occur
    values: Any = None  # explicit data: an array, or a function rng -> array
    grad: bool = True  # a floating-point argument requires grad in gradient tests

    def __repr__(self) -> str:
        text = f"{self.dtype + ' ' if self.dtype else ''}{tuple(self.shape)}"
        return text if self.layout == "contiguous" else f"{text} {self.layout}"


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)
    desc: str = ""

    def __post_init__(self) -> None:
        if not self.desc:
            parts = [repr(a) for a in self.args]
            parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
            self.desc = ", ".join(parts)


def S(*args: Any, **kwargs: Any) -> Sample:  # noqa: N802 (short, table-like)
    return Sample(args, kwargs)


@dataclass
class OpInfo:
    name: str
    fn: Callable  # fn(lib, *args, **kwargs) with lib = minitorch or torch
    samples: Callable[[str], list[Sample]]  # dtype name -> samples
    dtypes: tuple = F
    grad: bool = True  # differentiable in its floating-point arguments
    gradgrad: bool = True  # twice differentiable (checked with create_graph)
    gradcheck: bool = True  # finite differences make sense (not through float32)
    view: bool = False  # returns view(s): strides and offset must equal torch's
    domain: tuple = (-2.0, 2.0)  # floating-point values
    int_domain: tuple = (-5, 5)
    rtol: float | None = None
    atol: float | None = None
    cpu_only: str | None = None  # why it has no CUDA kernel yet: on "cuda" it must say so

    def __repr__(self) -> str:
        return self.name


# --------------------------------------------------------------------------------------
# Building a sample in both libraries from the same NumPy data
# --------------------------------------------------------------------------------------


def base_shape(arg: T) -> tuple:
    shape = tuple(arg.shape)
    if arg.layout == "transposed":
        assert len(shape) >= 2, arg
        return shape[:-2] + (shape[-1], shape[-2])
    if arg.layout == "sliced":
        assert len(shape) >= 1, arg
        return (2 * shape[0] + 1,) + shape[1:]
    if arg.layout == "expanded":
        for d, size in enumerate(shape):
            if size > 1:
                return shape[:d] + (1,) + shape[d + 1 :]
        return shape
    assert arg.layout == "contiguous", arg.layout
    return shape


def apply_layout(base: Any, arg: T) -> Any:
    """The logical tensor of ``arg`` as a view of ``base`` (works for both libraries)."""
    if arg.layout == "transposed":
        return base.transpose(-2, -1)
    if arg.layout == "sliced":
        return base[1::2]
    if arg.layout == "expanded" and tuple(base.shape) != tuple(arg.shape):
        return base.expand(*arg.shape)
    return base


@dataclass
class Built:
    """A sample built in one library: the call's arguments and the leaves (bases)."""

    args: tuple
    kwargs: dict
    leaves: list  # base tensors that require grad, in argument order
    bases: list  # every base tensor, in argument order


def _walk(obj: Any, fn: Callable) -> Any:
    if isinstance(obj, T):
        return fn(obj)
    if isinstance(obj, tuple):
        return tuple(_walk(o, fn) for o in obj)
    if isinstance(obj, list):
        return [_walk(o, fn) for o in obj]
    if isinstance(obj, dict):
        return {k: _walk(v, fn) for k, v in obj.items()}
    return obj


def seed_for(*parts: Any) -> int:
    return zlib.crc32(repr(parts).encode())


def sample_arrays(op: OpInfo, sample: Sample, dtype: str, seed: int) -> dict:
    """NumPy data for every tensor argument of ``sample`` (keyed by ``id(arg)``)."""
    rng = np.random.default_rng(seed)
    arrays: dict = {}

    def generate(arg: T) -> T:
        name = arg.dtype or dtype
        if arg.values is not None:
            values = arg.values(rng) if callable(arg.values) else arg.values
            array = np.asarray(values).astype(np.dtype(_np_name(name)))
            assert array.shape == base_shape(arg), (arg, array.shape)
        else:
            if name in FLOAT_NAMES:
                low, high = op.domain
            else:
                low, high = op.int_domain
            low = low if arg.low is None else arg.low
            high = high if arg.high is None else arg.high
            array = random_array(base_shape(arg), name, rng, low, high, arg.nonzero)
            if arg.rounded and name in FLOAT_NAMES:
                array = (np.round(array * 2) / 2).astype(array.dtype)
        arrays[id(arg)] = array
        return arg

    _walk((sample.args, sample.kwargs), generate)
    return arrays


def _np_name(name: str) -> str:
    return "bool" if name == "bool" else name


def build(
    lib: Any,
    sample: Sample,
    arrays: dict,
    dtype: str,
    device: str = "cpu",
    requires_grad: bool = False,
) -> Built:
    """Build the arguments of ``sample`` in ``lib`` (minitorch or torch)."""
    leaves: list = []
    bases: list = []

    def make(arg: T) -> Any:
        name = arg.dtype or dtype
        array = arrays[id(arg)].copy()
        if lib is torch:
            base = torch.tensor(array, dtype=dtype_of(torch, name))
        else:
            base = mt.tensor(array, dtype=dtype_of(mt, name), device=device)
        if requires_grad and arg.grad and name in FLOAT_NAMES:
            base.requires_grad_(True)
            leaves.append(base)
        bases.append(base)
        return apply_layout(base, arg)

    args, kwargs = _walk((sample.args, sample.kwargs), make)
    return Built(args, kwargs, leaves, bases)


def call_with_bases(lib: Any, op: OpInfo, sample: Sample, bases: list) -> Any:
    """Call ``op`` on ``sample`` built from the given base tensors (in argument order),
    e.g. from the perturbed copies that ``gradcheck`` passes in."""
    remaining = iter(bases)

    def make(arg: T) -> Any:
        return apply_layout(next(remaining), arg)

    args, kwargs = _walk((sample.args, sample.kwargs), make)
    return op.fn(lib, *args, **kwargs)


def build_pair(
    op: OpInfo,
    sample: Sample,
    dtype: str,
    index: int,
    device: str = "cpu",
    requires_grad: bool = False,
) -> tuple[Built, Built]:
    """The sample built in minitorch and in torch from identical data."""
    arrays = sample_arrays(op, sample, dtype, seed_for(op.name, dtype, index))
    return (
        build(mt, sample, arrays, dtype, device, requires_grad),
        build(torch, sample, arrays, dtype, "cpu", requires_grad),
    )


def floating_outputs(result: Any) -> list:
    """The floating-point tensors among an op's outputs (those that carry gradients)."""
    if isinstance(result, (tuple, list)):
        found = []
        for r in result:
            found.extend(floating_outputs(r))
        return found
    if hasattr(result, "dtype") and dtype_name(result.dtype) in FLOAT_NAMES:
        return [result]
    return []


# --------------------------------------------------------------------------------------
# Sample sets
# --------------------------------------------------------------------------------------


def scalar_for(dtype: str) -> float | int:
    """A Python number of the test dtype's kind (a scalar does not upcast the tensor)."""
    return 1.5 if dtype in FLOAT_NAMES else 2


def unary_samples(dtype: str) -> list[Sample]:
    return [
        S(T(())),
        S(T((5,))),
        S(T((3, 4))),
        S(T((3, 4), "transposed")),
        S(T((4, 3), "sliced")),
        S(T((2, 3, 4), "expanded")),
        S(T((2, 0))),
    ]


def binary_samples(dtype: str, nonzero: bool = False, scalar: Any = None) -> list[Sample]:
    def b(shape: tuple, layout: str = "contiguous") -> T:
        return T(shape, layout, nonzero=nonzero)

    number = scalar_for(dtype) if scalar is None else scalar
    return [
        S(T((3, 4)), b((3, 4))),
        S(T((3, 1)), b((1, 4))),
        S(T((2, 3, 4)), b((4,))),
        S(T((3,)), b((2, 1, 3))),
        S(T(()), b((3,))),
        S(T((2, 3)), b(())),
        S(T((3, 4), "transposed"), b((3, 4), "sliced")),
        S(T((2, 3, 4), "expanded"), b((3, 4), "transposed")),
        S(T((4, 3), "sliced"), b((2, 4, 3), "expanded")),
        S(T((3, 4)), number),
        S(T((3, 4), "transposed"), number),
        S(T((0, 3)), b((1, 3))),
    ]


def scalar_samples(dtype: str, scalar: Any = None) -> list[Sample]:
    """A tensor with a Python number, for the reflected operators ``2 + a``."""
    number = scalar_for(dtype) if scalar is None else scalar
    return [S(T((3, 4)), number), S(T((3, 4), "transposed"), number), S(T(()), number)]


def compare_samples(dtype: str) -> list[Sample]:
    rounded = dtype in FLOAT_NAMES
    return [
        S(T((3, 4), rounded=rounded), T((3, 4), rounded=rounded)),
        S(T((3, 1), rounded=rounded), T((1, 4), rounded=rounded)),
        S(T((3, 4), "transposed", rounded=rounded), T((3, 4), "sliced", rounded=rounded)),
        S(T((2, 3, 4), "expanded", rounded=rounded), T((4,), rounded=rounded)),
        S(T((3, 4), rounded=rounded), scalar_for(dtype) if dtype != "bool" else True),
        S(T((3, 4), rounded=rounded), 1),
    ]


def reduce_samples(dtype: str, tuple_dims: bool = True, full: bool = True) -> list[Sample]:
    samples = [
        S(T((3, 4)), dim=0),
        S(T((3, 4)), dim=-1, keepdim=True),
        S(T((3, 4)), 1),
        S(T((2, 3, 4)), dim=1),
        S(T((3, 4), "transposed"), dim=1),
        S(T((4, 3), "sliced"), dim=0, keepdim=True),
        S(T((2, 3, 4), "expanded"), dim=0),
        S(T(()), dim=0),
    ]
    if full:
        samples += [S(T((3, 4))), S(T((2, 3, 4), "expanded")), S(T(())), S(T((5,)))]
    if tuple_dims:
        samples += [
            S(T((2, 3, 4)), dim=(0, 2)),
            S(T((2, 3, 4), "transposed"), dim=(-1, 0), keepdim=True),
        ]
    return samples


def matmul_samples(dtype: str) -> list[Sample]:
    return [
        S(T((4,)), T((4,))),
        S(T((3, 4)), T((4,))),
        S(T((4,)), T((4, 2))),
        S(T((3, 4)), T((4, 2))),
        S(T((2, 3, 4)), T((2, 4, 5))),
        S(T((2, 3, 4)), T((4, 2))),
        S(T((3, 4)), T((2, 4, 2))),
        S(T((2, 1, 3, 4)), T((3, 4, 2))),
        S(T((2, 3, 4)), T((4,))),
        S(T((4,)), T((2, 4, 3))),
        S(T((3, 4), "transposed"), T((4, 2), "sliced")),
        S(T((2, 3, 4), "expanded"), T((2, 4, 3), "transposed")),
        S(T((3, 0)), T((0, 2))),
    ]


def softmax_samples(dtype: str) -> list[Sample]:
    return [
        S(T((3, 4)), 1),
        S(T((3, 4)), dim=0),
        S(T((2, 3, 4)), dim=-1),
        S(T((3, 4), "transposed"), dim=1),
        S(T((4, 3), "sliced"), dim=-1),
        S(T((2, 3, 4), "expanded"), dim=0),
        S(T((2, 5), low=500.0, high=1000.0), dim=1),  # large values: must stay finite
        S(T((2, 5), low=-1000.0, high=-500.0), dim=1),
    ]


def index_values(high: int, shape: tuple) -> Callable:
    """Random valid indices in ``[0, high)`` of a given shape (duplicates allowed)."""
    return lambda rng: rng.integers(0, high, size=shape)


def idx(high: int, shape: tuple, layout: str = "contiguous") -> T:
    """An int64 index tensor argument (its layout may be non-contiguous)."""
    arg = T(shape, layout, dtype="int64", grad=False)
    arg.values = index_values(high, base_shape(arg))
    return arg


def mask(shape: tuple) -> T:
    return T(shape, dtype="bool", grad=False)


# --------------------------------------------------------------------------------------
# Row builders
# --------------------------------------------------------------------------------------


def function(name: str) -> Callable:
    """``lib.name(*args, **kwargs)``: the free-function form (``torch.exp(a)``)."""
    return lambda lib, *args, **kwargs: getattr(lib, name)(*args, **kwargs)


def method(name: str) -> Callable:
    """``a.name(*args, **kwargs)``: the method form (``a.exp()``)."""
    return lambda lib, a, *args, **kwargs: getattr(a, name)(*args, **kwargs)


OPS: list[OpInfo] = []


def add(*rows: OpInfo) -> None:
    OPS.extend(rows)


# ----- unary elementwise --------------------------------------------------------------

POSITIVE = (0.1, 3.0)
UNARY = {
    # name: (float domain, int domain, dtypes, differentiable)
    "neg": ((-2, 2), (-5, 5), FII, True),
    "abs": ((-2, 2), (-5, 5), FII, True),
    "exp": ((-2, 2), (-3, 3), FI, True),
    "log": (POSITIVE, (1, 5), FI, True),
    "log1p": ((-0.5, 2), (0, 5), FI, True),
    "sqrt": (POSITIVE, (0, 5), FI, True),
    "rsqrt": (POSITIVE, (1, 5), FI, True),
    "sin": ((-3, 3), (-5, 5), FI, True),
    "cos": ((-3, 3), (-5, 5), FI, True),
    "tanh": ((-2, 2), (-3, 3), FI, True),
    "sigmoid": ((-3, 3), (-3, 3), FI, True),
    "relu": ((-2, 2), (-5, 5), FII, True),
    "sign": ((-2, 2), (-5, 5), FII, True),
    "floor": ((-3, 3), (-5, 5), FII, True),
    "ceil": ((-3, 3), (-5, 5), FII, True),
    "reciprocal": ((-2, 2), (1, 5), FI, True),
}


def _nonzero_unary(dtype: str) -> list[Sample]:
    return [S(T(s.args[0].shape, s.args[0].layout, nonzero=True)) for s in unary_samples(dtype)]


for _name, (_domain, _int_domain, _dtypes, _grad) in UNARY.items():
    _samples = _nonzero_unary if _name in ("reciprocal", "abs", "sign") else unary_samples
    add(
        OpInfo(_name, function(_name), _samples, _dtypes, _grad, domain=_domain,
               int_domain=_int_domain),
        OpInfo(f"Tensor.{_name}", method(_name), _samples, _dtypes, _grad, domain=_domain,
               int_domain=_int_domain),
    )

add(
    OpInfo("-a", lambda lib, a: -a, unary_samples, FII),
    OpInfo("abs(a)", lambda lib, a: abs(a), _nonzero_unary, FII),
)


def clamp_samples(dtype: str) -> list[Sample]:
    low, high = (-0.5, 0.75) if dtype in FLOAT_NAMES else (-2, 3)
    return [
        S(T((3, 4)), low, high),
        S(T((3, 4), "transposed"), min=low, max=high),
        S(T((4, 3), "sliced"), min=low),
        S(T((2, 3, 4), "expanded"), max=high),
        S(T(()), low, high),
    ]


add(
    OpInfo("clamp", function("clamp"), clamp_samples, FII),
    OpInfo("Tensor.clamp", method("clamp"), clamp_samples, FII),
)


# ----- binary arithmetic ----------------------------------------------------------------


def _op(symbol: str) -> Callable:
    return {
        "+": lambda lib, a, b: a + b,
        "-": lambda lib, a, b: a - b,
        "*": lambda lib, a, b: a * b,
        "/": lambda lib, a, b: a / b,
        "//": lambda lib, a, b: a // b,
        "%": lambda lib, a, b: a % b,
        "**": lambda lib, a, b: a**b,
    }[symbol]


def _rop(symbol: str) -> Callable:
    return {
        "+": lambda lib, a, s: s + a,
        "-": lambda lib, a, s: s - a,
        "*": lambda lib, a, s: s * a,
        "/": lambda lib, a, s: s / a,
        "//": lambda lib, a, s: s // a,
        "%": lambda lib, a, s: s % a,
        "**": lambda lib, a, s: s**a,
    }[symbol]


def _divisor_samples(dtype: str) -> list[Sample]:
    return binary_samples(dtype, nonzero=True)


def _pow_samples(dtype: str) -> list[Sample]:
    if dtype in FLOAT_NAMES:
        base = dict(low=0.5, high=2.0)
        return [
            S(T((3, 4), **base), T((3, 4))),
            S(T((3, 1), **base), T((1, 4))),
            S(T((2, 3, 4), "expanded", **base), T((3, 4), "transposed")),
            S(T((4, 3), "sliced", **base), T((3,))),
            S(T((3, 4), **base), 2),
            S(T((3, 4), **base), 0.5),
            S(T((3, 4), **base), -1.5),
            S(T((3, 4)), 3),  # negative bases, integer exponent
        ]
    return [
        S(T((3, 4), low=-3, high=3), T((3, 4), low=0, high=3)),
        S(T((3, 1), low=-3, high=3), T((1, 4), low=0, high=3)),
        S(T((3, 4), "transposed", low=-3, high=3), 2),
        S(T((3, 4), "transposed", low=-3, high=3), 0),
    ]


def _rpow_samples(dtype: str) -> list[Sample]:
    if dtype in FLOAT_NAMES:
        return [S(T((3, 4)), 2.0), S(T((3, 4), "transposed"), 1.5), S(T(()), 3)]
    return [S(T((3, 4), low=0, high=4), 2), S(T((3, 4), "transposed", low=0, high=4), 3)]


def _rdiv_samples(dtype: str) -> list[Sample]:
    return [
        S(T((3, 4), nonzero=True), scalar_for(dtype)),
        S(T((3, 4), "transposed", nonzero=True), 3),
        S(T((), nonzero=True), 2.5),
    ]


ARITHMETIC = {
    # symbol: (function name, samples, reflected samples, dtypes, differentiable)
    "+": ("add", binary_samples, scalar_samples, FII, True),
    "-": ("sub", binary_samples, scalar_samples, FII, True),
    "*": ("mul", binary_samples, scalar_samples, FII, True),
    "/": ("div", _divisor_samples, _rdiv_samples, FII, True),
    "//": ("floor_divide", _divisor_samples, _rdiv_samples, FII, False),
    "%": ("remainder", _divisor_samples, _rdiv_samples, FII, True),
    "**": ("pow", _pow_samples, _rpow_samples, FI, True),
}

for _symbol, (_fname, _samples, _rsamples, _dtypes, _grad) in ARITHMETIC.items():
    add(
        OpInfo(f"a{_symbol}b", _op(_symbol), _samples, _dtypes, _grad),
        OpInfo(f"scalar{_symbol}a", _rop(_symbol), _rsamples, _dtypes, _grad),
        OpInfo(_fname, function(_fname), _samples, _dtypes, _grad),
        OpInfo(f"Tensor.{_fname}", method(_fname), _samples, _dtypes, _grad),
    )

add(
    OpInfo("maximum", function("maximum"), lambda d: binary_samples(d)[:9], FII),
    OpInfo("minimum", function("minimum"), lambda d: binary_samples(d)[:9], FII),
    OpInfo("Tensor.maximum", method("maximum"), lambda d: binary_samples(d)[:9], FII),
)


# ----- comparisons and logic -----------------------------------------------------------

COMPARISONS = {
    "==": ("eq", lambda lib, a, b: a == b),
    "!=": ("ne", lambda lib, a, b: a != b),
    "<": ("lt", lambda lib, a, b: a < b),
    "<=": ("le", lambda lib, a, b: a <= b),
    ">": ("gt", lambda lib, a, b: a > b),
    ">=": ("ge", lambda lib, a, b: a >= b),
}
for _symbol, (_fname, _fn) in COMPARISONS.items():
    add(
        OpInfo(f"a{_symbol}b", _fn, compare_samples, FII, grad=False),
        OpInfo(_fname, function(_fname), compare_samples, FI, grad=False),
    )
add(OpInfo("bool==bool", COMPARISONS["=="][1], compare_samples, ("bool",), grad=False))


def _logical_samples(dtype: str) -> list[Sample]:
    return [s for s in compare_samples(dtype) if all(isinstance(a, T) for a in s.args)]


add(
    OpInfo("logical_and", function("logical_and"), _logical_samples, ("bool", "float32", "int64"),
           grad=False, domain=(-1, 1), int_domain=(-1, 1)),
    OpInfo("logical_or", function("logical_or"), _logical_samples, ("bool", "float32", "int64"),
           grad=False, domain=(-1, 1), int_domain=(-1, 1)),
    OpInfo("logical_not", function("logical_not"), unary_samples, ("bool", "float32", "int64"),
           grad=False, domain=(-1, 1), int_domain=(-1, 1)),
    OpInfo("Tensor.logical_not", method("logical_not"), unary_samples, ("bool", "int64"),
           grad=False, int_domain=(-1, 1)),
)

# ----- bitwise: bit by bit on integers, logical on bools --------------------------------

INTS_AND_BOOLS = ("int64", "int32", "bool")
BITWISE = {"&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor"}


def _bitwise_samples(dtype: str) -> list[Sample]:
    number = True if dtype == "bool" else 6
    return binary_samples(dtype)[:9] + [S(T((3, 4)), number), S(T((3, 4), "transposed"), number)]


_BITWISE_OPERATORS = {
    "&": (lambda lib, a, b: a & b, lambda lib, a, s: s & a),
    "|": (lambda lib, a, b: a | b, lambda lib, a, s: s | a),
    "^": (lambda lib, a, b: a ^ b, lambda lib, a, s: s ^ a),
}
for _symbol, _fname in BITWISE.items():
    _forward, _reflected = _BITWISE_OPERATORS[_symbol]
    add(
        OpInfo(f"a{_symbol}b", _forward, _bitwise_samples, INTS_AND_BOOLS, grad=False,
               int_domain=(-40, 40)),
        OpInfo(f"scalar{_symbol}a", _reflected,
               lambda d: [s for s in _bitwise_samples(d) if not isinstance(s.args[1], T)],
               INTS_AND_BOOLS, grad=False, int_domain=(-40, 40)),
        OpInfo(_fname, function(_fname), _bitwise_samples, INTS_AND_BOOLS, grad=False,
               int_domain=(-40, 40)),
        OpInfo(f"Tensor.{_fname}", method(_fname), _bitwise_samples, INTS_AND_BOOLS, grad=False,
               int_domain=(-40, 40)),
    )
add(
    OpInfo("~a", lambda lib, a: ~a, unary_samples, INTS_AND_BOOLS, grad=False, int_domain=(-40, 40)),
    OpInfo("bitwise_not", function("bitwise_not"), unary_samples, INTS_AND_BOOLS, grad=False,
           int_domain=(-40, 40)),
    OpInfo("Tensor.bitwise_not", method("bitwise_not"), unary_samples, INTS_AND_BOOLS, grad=False,
           int_domain=(-40, 40)),
)


def _where_samples(dtype: str) -> list[Sample]:
    number = scalar_for(dtype)
    return [
        S(mask((3, 4)), T((3, 4)), T((3, 4))),
        S(mask((3, 1)), T((1, 4)), T((3, 4))),
        S(mask((2, 3, 4)), T((3, 4), "transposed"), T((4,))),
        S(T((3, 4), "transposed", dtype="bool", grad=False), T((3, 4), "sliced"), T(())),
        S(mask((3, 4)), T((3, 4)), number),
        S(mask((3, 4)), number, T((3, 4), "expanded")),
    ]


add(
    OpInfo("where", function("where"), _where_samples, FII),
    OpInfo("Tensor.where", lambda lib, c, a, b: a.where(c, b),
           lambda d: [s for s in _where_samples(d) if isinstance(s.args[1], T)], FII),
)


# ----- reductions ------------------------------------------------------------------------

add(
    OpInfo("sum", function("sum"), reduce_samples, ALL),
    OpInfo("Tensor.sum", method("sum"), reduce_samples, FII),
    OpInfo("mean", function("mean"), reduce_samples, F),
    OpInfo("Tensor.mean", method("mean"), reduce_samples, F),
    OpInfo("prod", function("prod"), lambda d: reduce_samples(d, tuple_dims=False), FII,
           domain=(0.5, 1.5), int_domain=(-2, 2)),
    OpInfo("Tensor.prod", method("prod"), lambda d: reduce_samples(d, tuple_dims=False), FI,
           domain=(-1.5, 1.5), int_domain=(-2, 2)),
    OpInfo("max", function("max"), lambda d: reduce_samples(d, tuple_dims=False), FII),
    OpInfo("Tensor.max", method("max"), lambda d: reduce_samples(d, tuple_dims=False), FII),
    OpInfo("min", function("min"), lambda d: reduce_samples(d, tuple_dims=False), FII),
    OpInfo("Tensor.min", method("min"), lambda d: reduce_samples(d, tuple_dims=False), FII),
    OpInfo("max(a,b)", function("max"), lambda d: binary_samples(d)[:9], FI),
    OpInfo("min(a,b)", function("min"), lambda d: binary_samples(d)[:9], FI),
    OpInfo("argmax", function("argmax"), lambda d: reduce_samples(d, tuple_dims=False), FII,
           grad=False),
    OpInfo("Tensor.argmax", method("argmax"), lambda d: reduce_samples(d, tuple_dims=False),
           FI, grad=False),
    OpInfo("argmin", function("argmin"), lambda d: reduce_samples(d, tuple_dims=False), FII,
           grad=False),
    OpInfo("Tensor.argmin", method("argmin"), lambda d: reduce_samples(d, tuple_dims=False),
           FI, grad=False),
    OpInfo("all", function("all"), reduce_samples, ("bool", "float32", "int64"), grad=False,
           domain=(-1, 1), int_domain=(-1, 1)),
    OpInfo("any", function("any"), reduce_samples, ("bool", "float32", "int64"), grad=False,
           domain=(-1, 1), int_domain=(-1, 1)),
    OpInfo("Tensor.all", method("all"), reduce_samples, ("bool",), grad=False),
    OpInfo("Tensor.any", method("any"), reduce_samples, ("bool",), grad=False),
)


def _empty_reduce_samples(dtype: str) -> list[Sample]:
    """Reductions over zero elements: sum 0, prod 1, mean nan, all True, any False."""
    return [
        S(T((0, 3)), dim=0),
        S(T((0, 3)), dim=1),
        S(T((0, 3))),
        S(T((2, 0, 3)), dim=(0, 1), keepdim=True),
        S(T((0,))),
    ]


add(
    OpInfo("sum(empty)", function("sum"), _empty_reduce_samples, ("float32", "int64")),
    OpInfo("mean(empty)", function("mean"), _empty_reduce_samples, ("float32",)),
    OpInfo("prod(empty)", method("prod"),
           lambda d: [s for s in _empty_reduce_samples(d) if not isinstance(
               s.kwargs.get("dim"), tuple)], ("float32", "int64")),
    OpInfo("all(empty)", function("all"), _empty_reduce_samples, ("bool",), grad=False),
    OpInfo("any(empty)", function("any"), _empty_reduce_samples, ("bool",), grad=False),
    OpInfo("logsumexp(empty)", function("logsumexp"),
           lambda d: [S(T((0, 3)), 0), S(T((2, 0)), dim=1)], ("float32",)),
)


def _var_samples(dtype: str) -> list[Sample]:
    return [
        S(T((3, 4))),
        S(T((3, 4)), dim=0),
        S(T((3, 4)), 1),
        S(T((2, 3, 4)), dim=(0, 2), keepdim=True),
        S(T((3, 4), "transposed"), dim=-1),
        S(T((4, 3), "sliced"), dim=0, unbiased=False),
        S(T((2, 3, 4), "expanded"), dim=1, correction=0),
        S(T((3, 4)), unbiased=False),
        S(T((3, 4)), dim=1, keepdim=True, correction=0),
    ]


def _logsumexp_samples(dtype: str) -> list[Sample]:
    return [
        S(T((3, 4)), 1),
        S(T((3, 4)), dim=0, keepdim=True),
        S(T((2, 3, 4)), dim=(0, 2)),
        S(T((3, 4), "transposed"), dim=-1),
        S(T((2, 3, 4), "expanded"), dim=0),
        S(T((2, 5), low=500.0, high=1000.0), dim=1),  # large: must not overflow
    ]


add(
    OpInfo("var", function("var"), _var_samples, F),
    OpInfo("Tensor.var", method("var"), _var_samples, F),
    OpInfo("std", function("std"), _var_samples, F),
    OpInfo("Tensor.std", method("std"), _var_samples, F),
    OpInfo("logsumexp", function("logsumexp"), _logsumexp_samples, FI),
    OpInfo("Tensor.logsumexp", method("logsumexp"), _logsumexp_samples, F),
    OpInfo("softmax", function("softmax"), softmax_samples, F),
    OpInfo("Tensor.softmax", method("softmax"), softmax_samples, F),
    OpInfo("log_softmax", function("log_softmax"), softmax_samples, F),
    OpInfo("Tensor.log_softmax", method("log_softmax"), softmax_samples, F),
)


# ----- linear algebra --------------------------------------------------------------------

add(
    OpInfo("a@b", lambda lib, a, b: a @ b, matmul_samples, FI),
    OpInfo("matmul", function("matmul"), matmul_samples, FI),
    OpInfo("Tensor.matmul", method("matmul"), matmul_samples, F),
)


# ----- gather / scatter / index_select ------------------------------------------------


def _gather_samples(dtype: str) -> list[Sample]:
    return [
        S(T((3, 4)), 1, idx(4, (3, 5))),
        S(T((3, 4)), 0, idx(3, (2, 4))),
        S(T((3, 4)), -1, idx(4, (2, 2))),  # index smaller than the input
        S(T((2, 3, 4), "expanded"), 1, idx(3, (2, 3, 4))),
        S(T((3, 4), "transposed"), dim=0, index=idx(3, (3, 4), "transposed")),
        S(T((5,)), 0, idx(5, (7,))),
    ]


def _index_select_samples(dtype: str) -> list[Sample]:
    return [
        S(T((3, 4)), 0, idx(3, (5,))),
        S(T((3, 4)), 1, idx(4, (2,))),
        S(T((2, 3, 4), "expanded"), -2, idx(3, (4,))),
        S(T((3, 4), "transposed"), dim=1, index=idx(4, (3,))),
        S(T((5,)), 0, idx(5, (0,))),
    ]


def _scatter_add_samples(dtype: str) -> list[Sample]:
    return [
        S(T((3, 4)), 1, idx(4, (3, 5)), T((3, 5))),
        S(T((3, 4)), 0, idx(3, (2, 4)), T((2, 4))),
        S(T((3, 4), "transposed"), -1, idx(4, (2, 3)), T((2, 3))),
        S(T((5,)), 0, idx(5, (8,)), T((8,), "sliced")),
        S(T((2, 3, 4)), 2, idx(4, (2, 3, 6)), T((2, 3, 6), "expanded")),
    ]


add(
    OpInfo("gather", function("gather"), _gather_samples, FI),
    OpInfo("Tensor.gather", method("gather"), _gather_samples, F),
    OpInfo("index_select", function("index_select"), _index_select_samples, FI),
    OpInfo("Tensor.index_select", method("index_select"), _index_select_samples, F),
    OpInfo("scatter_add", function("scatter_add"), _scatter_add_samples, FI),
    OpInfo("Tensor.scatter_add", method("scatter_add"), _scatter_add_samples, F),
)


# ----- conversions --------------------------------------------------------------------

add(
    OpInfo("Tensor.double", method("double"), unary_samples, ALL),
    OpInfo("Tensor.float", method("float"), unary_samples, ALL),
    OpInfo("Tensor.long", method("long"), unary_samples, ALL, grad=False),
    OpInfo("Tensor.int", method("int"), unary_samples, ALL, grad=False),
    OpInfo("Tensor.bool", method("bool"), unary_samples, ALL, grad=False),
    OpInfo("Tensor.to(float64)", lambda lib, a: a.to(lib.float64), unary_samples, ALL),
    OpInfo("Tensor.to(int64)", lambda lib, a: a.to(lib.int64), unary_samples, F, grad=False),
    OpInfo("Tensor.to(dtype=float32)", lambda lib, a: a.to(dtype=lib.float32), unary_samples,
           ALL),
    OpInfo("Tensor.to(other.dtype)", lambda lib, a, b: a.to(b.dtype),
           lambda d: [S(T((3, 4)), T((2,), dtype="float64", grad=False))], ALL),
)


# ----- views (results must have torch's strides and offset) ---------------------------

V = ("float32", "int64")


def _view_row(name: str, fn: Callable, samples: list[Sample] | Callable) -> OpInfo:
    make = samples if callable(samples) else (lambda d, s=samples: s)
    return OpInfo(name, fn, make, V, view=True)


def _plain_row(name: str, fn: Callable, samples: list[Sample] | Callable,
               dtypes: tuple = V) -> OpInfo:
    make = samples if callable(samples) else (lambda d, s=samples: s)
    return OpInfo(name, fn, make, dtypes)


add(
    _view_row("view", method("view"), [
        S(T((3, 4)), 12), S(T((3, 4)), 2, 6), S(T((3, 4)), (4, 3)), S(T((3, 4)), -1, 2),
        S(T((2, 3, 4)), 6, -1), S(T((2, 3, 4)), 2, 12), S(T((4, 6), "sliced"), 2, 2, 6),
        S(T((3, 4), "transposed"), 3, 2, 2),
        S(T((3, 4), "transposed"), 3, 4, 1), S(T(()), 1), S(T((1,)), ()),
        S(T((2, 3, 4), "expanded"), 2, 3, 2, 2), S(T((0, 3)), 3, 0),
    ]),
    _view_row("reshape", method("reshape"), [
        S(T((3, 4)), 12), S(T((3, 4)), (2, 6)), S(T((2, 3, 4)), -1, 4),
        S(T((3, 4), "transposed"), 12), S(T((3, 4), "transposed"), 2, 6),
        S(T((4, 6), "sliced"), 2, 12), S(T((2, 3, 4), "expanded"), 6, 4), S(T(()), (1, 1)),
    ]),
    _view_row("torch.reshape", function("reshape"), [
        S(T((3, 4)), (12,)), S(T((3, 4), "transposed"), (-1,)),
    ]),
    _view_row("permute", method("permute"), [
        S(T((2, 3, 4)), 2, 0, 1), S(T((2, 3, 4)), (1, 2, 0)), S(T((2, 3, 4)), -1, 0, 1),
        S(T((3, 4), "transposed"), 1, 0), S(T((2, 3, 4), "expanded"), 2, 1, 0),
        S(T((5, 3), "sliced"), 1, 0), S(T(()), ()),
    ]),
    _view_row("torch.permute", function("permute"), [S(T((2, 3, 4)), (2, 0, 1))]),
    _view_row("transpose", method("transpose"), [
        S(T((3, 4)), 0, 1), S(T((2, 3, 4)), 0, 2), S(T((2, 3, 4)), -1, -2),
        S(T((2, 3, 4), "expanded"), 0, 1), S(T((4, 3), "sliced"), 1, 0), S(T((3,)), 0, 0),
    ]),
    _view_row("torch.transpose", function("transpose"), [S(T((2, 3, 4)), 0, 2)]),
    _view_row("t", method("t"), [
        S(T((3, 4))), S(T((3, 4), "transposed")), S(T((5,))), S(T(())), S(T((4, 3), "sliced")),
    ]),
    _view_row("T", lambda lib, a: a.T, [S(T((3, 4))), S(T((4, 3), "sliced"))]),
    _view_row("mT", lambda lib, a: a.mT, [
        S(T((3, 4))), S(T((2, 3, 4))), S(T((2, 3, 4), "expanded")),
    ]),
    _view_row("unsqueeze", method("unsqueeze"), [
        S(T((3, 4)), 0), S(T((3, 4)), 1), S(T((3, 4)), 2), S(T((3, 4)), -1), S(T((3, 4)), -3),
        S(T((3, 4), "transposed"), 1), S(T((4, 3), "sliced"), 2), S(T(()), 0),
        S(T((2, 3, 4), "expanded"), 1),
    ]),
    _view_row("torch.unsqueeze", function("unsqueeze"), [S(T((3, 4)), 1)]),
    _view_row("squeeze", method("squeeze"), [
        S(T((1, 3, 1, 4))), S(T((1, 3, 1, 4)), 0), S(T((1, 3, 1, 4)), -2),
        S(T((1, 3, 1, 4)), 1), S(T((1, 3, 1, 4)), (0, 2)), S(T((3, 1), "transposed"), 0),
        S(T((1, 1))), S(T(())), S(T((1, 3, 4), "expanded")),
    ]),
    _view_row("expand", method("expand"), [
        S(T((3, 1)), 3, 4), S(T((3, 1)), (2, 3, 5)), S(T((3, 1)), -1, 4),
        S(T((4,)), 2, 3, 4), S(T(()), 3, 2), S(T((1, 3), "transposed"), 1, 2, 3),
        S(T((3, 1)), 0, 3, 2), S(T((3, 4)), 3, 4),
    ]),
    _view_row("expand_as", lambda lib, a, b: a.expand_as(b), [
        S(T((3, 1)), T((2, 3, 4), grad=False)),
    ]),
    _view_row("flatten", method("flatten"), [
        S(T((2, 3, 4))), S(T((2, 3, 4)), 1), S(T((2, 3, 4)), 0, 1),
        S(T((2, 3, 4)), start_dim=-2, end_dim=-1), S(T(())), S(T((3, 4), "transposed")),
        S(T((3, 4), "transposed"), 0, 0),
    ]),
    _view_row("torch.flatten", function("flatten"), [S(T((2, 3, 4)), 1)]),
    _view_row("unflatten", method("unflatten"), [
        S(T((2, 12)), 1, (3, 4)), S(T((6, 2)), 0, (2, -1)), S(T((2, 12)), -1, (2, 2, 3)),
        S(T((2, 12), "transposed"), 1, (3, 4)),
    ]),
    _view_row("narrow", method("narrow"), [
        S(T((4, 5)), 0, 1, 2), S(T((4, 5)), 1, 2, 3), S(T((4, 5)), -1, 0, 5),
        S(T((4, 5), "transposed"), 1, 3, 2), S(T((4, 5), "sliced"), 0, 1, 3),
        S(T((4, 5)), 1, 5, 0),
    ]),
    _view_row("torch.narrow", function("narrow"), [S(T((4, 5)), 1, 1, 3)]),
    _view_row("as_strided", method("as_strided"), [
        S(T((12,)), (3, 2), (2, 1)), S(T((12,)), (2, 2), (1, 2), 3),
        S(T((3, 4)), (3, 3), (4, 1)), S(T((3, 4)), (2, 2, 2), (1, 0, 4), 1),
        S(T((12,)), (5, 4), (2, 1)), S(T((3, 4)), (4,), (3,)),
    ]),
    # default offset: the input's own. Reaches storage outside the input view, where
    # autograd is undefined (in torch too), so forward only.
    _view_row("as_strided(view input)", method("as_strided"), [
        S(T((4, 3), "sliced"), (2, 2), (3, 1)),
    ]),
    _view_row("torch.as_strided", function("as_strided"), [S(T((12,)), (3, 3), (3, 1), 1)]),
    _view_row("a[int]", lambda lib, a, i: a[i], [
        S(T((3, 4)), 1), S(T((3, 4)), -1), S(T((5,)), 3), S(T((3, 4), "transposed"), 2),
        S(T((4, 3), "sliced"), -2), S(T((2, 3, 4), "expanded"), 1),
    ]),
    _view_row("a[i,j]", lambda lib, a: a[1, -2], [S(T((3, 4))), S(T((3, 4), "transposed"))]),
    _view_row("a[slice]", lambda lib, a: a[1:3], [
        S(T((5, 2))), S(T((5, 2), "transposed")), S(T((5, 2), "sliced")),
    ]),
    _view_row("a[::step]", lambda lib, a: a[::2, 1::3], [
        S(T((5, 7))), S(T((5, 7), "transposed")), S(T((5, 7), "sliced")),
    ]),
    _view_row("a[neg slice]", lambda lib, a: a[-3:-1, :-1], [S(T((5, 4))), S(T((2, 3)))]),
    _view_row("a[out-of-range slice]", lambda lib, a: a[2:100, 5:], [S(T((3, 4)))]),
    _view_row("a[None]", lambda lib, a: a[None, :, None], [
        S(T((3, 4))), S(T((3, 4), "transposed")),
    ]),
    _view_row("a[...]", lambda lib, a: a[..., 1], [
        S(T((2, 3, 4))), S(T((2, 3, 4), "expanded")), S(T((3, 4), "transposed")),
    ]),
    _view_row("a[..., None, slice]", lambda lib, a: a[0, ..., None, 1:], [S(T((2, 3, 4)))]),
    _view_row("a[0-d]", lambda lib, a: a[...], [S(T(()))]),
    _view_row("a[None on 0-d]", lambda lib, a: a[None], [S(T(()))]),
    _view_row("a[mixed]", lambda lib, a: a[-1, None, 1:3, ::2], [S(T((3, 4, 5)))]),
    _view_row("split", method("split"), [
        S(T((5, 4)), 2), S(T((5, 4)), 3, 1), S(T((5, 4)), [1, 4]), S(T((5, 4)), (2, 1, 1), 1),
        S(T((5, 4), "transposed"), 2, dim=0), S(T((5, 4), "sliced"), 2), S(T((5, 4)), 5),
    ]),
    _view_row("torch.split", function("split"), [S(T((5, 4)), 2, 1)]),
    _view_row("chunk", method("chunk"), [
        S(T((5, 4)), 2), S(T((5, 4)), 3, 1), S(T((6, 4)), 3), S(T((5, 4)), 2, dim=-1),
        S(T((5, 4), "transposed"), 4, 0), S(T((2, 4)), 5),
    ]),
    _view_row("torch.chunk", function("chunk"), [S(T((5, 4)), 2, 1)]),
    _view_row("unbind", method("unbind"), [
        S(T((3, 4))), S(T((3, 4)), 1), S(T((3, 4)), dim=-1), S(T((3, 4), "transposed")),
        S(T((2, 3, 4), "expanded"), 0),
    ]),
    _view_row("torch.unbind", function("unbind"), [S(T((3, 4)), 1)]),
    _view_row("contiguous(already)", method("contiguous"), [S(T((3, 4)))]),
    _view_row("detach", method("detach"), [S(T((3, 4))), S(T((3, 4), "transposed"))]),
)
OPS[-1].grad = False  # detach cuts the graph

# ----- copies ---------------------------------------------------------------------------

add(
    _plain_row("contiguous", method("contiguous"), [
        S(T((3, 4), "transposed")), S(T((4, 3), "sliced")), S(T((2, 3, 4), "expanded")),
    ]),
    _plain_row("clone", method("clone"), [
        S(T((3, 4))), S(T((3, 4), "transposed")), S(T(())),
    ]),
    _plain_row("torch.clone", function("clone"), [S(T((3, 4), "transposed"))]),
    _plain_row("flip", method("flip"), [
        S(T((3, 4)), 0), S(T((3, 4)), (0, 1)), S(T((2, 3, 4)), [-1, 0]),
        S(T((3, 4), "transposed"), 1), S(T((2, 3, 4), "expanded"), 0), S(T(()), ()),
    ]),
    _plain_row("torch.flip", function("flip"), [S(T((3, 4)), (1,)), S(T((3, 4)), dims=[0])]),
    _plain_row("cat", function("cat"), [
        S([T((2, 3)), T((4, 3))]), S([T((2, 3)), T((2, 1)), T((2, 2), "transposed")], 1),
        S([T((2, 3)), T((2, 3))], dim=-1), S((T((3,)), T((0,)), T((2,), "sliced"))),
        S([T((2, 3, 4), "expanded"), T((1, 3, 4))]), S([T((2, 3))]),
    ]),
    _plain_row("stack", function("stack"), [
        S([T((2, 3)), T((2, 3))]), S([T((2, 3)), T((2, 3), "transposed")], 1),
        S([T((2, 3)), T((2, 3)), T((2, 3), "sliced")], dim=-1), S([T(()), T(())]),
        S((T((3,)),), 0), S([T((2, 3), "expanded"), T((2, 3))], 2),
    ]),
    _plain_row("a[list]", lambda lib, a: a[[2, 0, 2]], [
        S(T((3, 4))), S(T((3, 4), "transposed")), S(T((5,))),
    ]),
    _plain_row("a[:, list]", lambda lib, a: a[:, [-1, 0]], [S(T((3, 4))), S(T((2, 3, 4)))]),
    _plain_row("a[int tensor]", lambda lib, a, i: a[i], [
        S(T((3, 4)), idx(3, (2, 5))), S(T((3, 4), "transposed"), idx(3, (4,), "sliced")),
        S(T((5,)), idx(5, ())), S(T((2, 3, 4), "expanded"), idx(2, (3,))),
    ]),
    _plain_row("a[list, list]", lambda lib, a: a[[0, 2, 1], [3, 0, 0]], [
        S(T((3, 4))), S(T((3, 4), "transposed")),
    ]),
    _plain_row("a[bool mask]", lambda lib, a, m: a[m], [
        S(T((3, 4)), mask((3, 4))), S(T((3, 4)), mask((3,))),
        S(T((3, 4), "transposed"), mask((3, 4))), S(T((5,)), mask((5,))),
    ]),
    _plain_row("a[a > 0]", lambda lib, a: a[a > 0], [S(T((3, 4))), S(T((3, 4), "sliced"))]),
)

# ----- names a student meets in the first hour (issue 31) -------------------------------

for _name, _domain, _int in (("tan", (-1.2, 1.2), (-1, 1)), ("log10", POSITIVE, (1, 5)),
                             ("log2", POSITIVE, (1, 5))):
    add(
        OpInfo(_name, function(_name), unary_samples, FI, domain=_domain, int_domain=_int),
        OpInfo(f"Tensor.{_name}", method(_name), unary_samples, FI, domain=_domain,
               int_domain=_int),
    )


def _round_samples(dtype: str) -> list[Sample]:
    samples = [S(T((3, 4))), S(T((3, 4), "transposed")), S(T(()))]
    if dtype in FLOAT_NAMES:
        samples += [S(T((4, 3), "sliced"), decimals=2), S(T((2, 3)), decimals=-1)]
    return samples


add(
    OpInfo("round", function("round"), _round_samples, FI, domain=(-30, 30)),
    OpInfo("Tensor.round", method("round"), _round_samples, FI, domain=(-30, 30)),
    _plain_row("repeat", method("repeat"), [
        S(T((2, 3)), 2, 1), S(T((2, 3)), (1, 2, 3)), S(T((2, 3), "transposed"), 2, 2),
        S(T((3,)), 0), S(T(()), 2, 3), S(T((2, 3, 4), "expanded"), 1, 2, 1),
    ]),
    _plain_row("tile", method("tile"), [
        S(T((2, 3)), (2,)), S(T((2, 3)), (2, 1, 2)), S(T((3, 2), "sliced"), (3, 1)),
    ]),
    _plain_row("torch.tile", function("tile"), [S(T((2, 3)), (2, 2))]),
    _plain_row("roll", method("roll"), [
        S(T((3, 4)), 1), S(T((3, 4)), -5, 1), S(T((3, 4)), (1, 2), (0, 1)),
        S(T((3, 4), "transposed"), 2, 0), S(T(()), 3), S(T((0, 3)), 1, 1),
    ]),
    _plain_row("torch.roll", function("roll"), [S(T((5,)), 7, 0)]),
    _view_row("movedim", method("movedim"), [
        S(T((2, 3, 4)), 0, -1), S(T((2, 3, 4)), (0, 1), (2, 0)), S(T((2, 3, 4), "expanded"), 2, 0),
    ]),
    _view_row("torch.movedim", function("movedim"), [S(T((2, 3, 4)), -1, 0)]),
    _view_row("view_as", lambda lib, a, b: a.view_as(b), [S(T((3, 4)), T((2, 6), grad=False))]),
    _view_row("reshape_as", lambda lib, a, b: a.reshape_as(b), [
        S(T((3, 4)), T((12,), grad=False)), S(T((3, 4), "transposed"), T((2, 6), grad=False)),
    ]),
    _plain_row("outer", function("outer"), [
        S(T((3,)), T((4,))), S(T((3,), "sliced"), T((2,))), S(T((0,)), T((2,))),
    ], FI),
    _plain_row("Tensor.outer", method("outer"), [S(T((3,)), T((4,)))], FI),
    _plain_row("diff", function("diff"), [
        S(T((3, 5))), S(T((3, 5)), 2, 0), S(T((3, 5), "transposed"), dim=0),
        S(T((3, 4)), 1, 1, T((3, 2)), T((3, 1))), S(T((4,)), 5), S(T((4,)), 0),
    ], FI),
    _plain_row("Tensor.diff", method("diff"), [S(T((3, 5)), 1, -1)], FI),
    _plain_row("median", function("median"), [
        S(T((3, 4))), S(T((5,))), S(T((3, 4), "transposed")), S(T(()))], FI),
    _plain_row("median(dim)", lambda lib, a, *args, **kw: a.median(*args, **kw).values, [
        S(T((3, 4)), 1), S(T((3, 5)), 0, True), S(T((4, 3), "sliced"), -1),
        S(T((3, 4)), dim=1, keepdims=True),
    ], FI),
    _plain_row("sum(keepdims)", lambda lib, a, *args, **kw: a.sum(*args, **kw), [
        S(T((3, 4)), 1, keepdims=True), S(T((3, 4)), (0, 1), keepdims=False)], FI),
    _plain_row("torch.mean(keepdims)", lambda lib, a, *args, **kw: lib.mean(a, *args, **kw), [
        S(T((3, 4)), 0, keepdims=True)]),
)
OPS[-1].dtypes = F
for _row in ("median", "median(dim)"):
    OPS[[op.name for op in OPS].index(_row)].domain = (-100, 100)
    OPS[[op.name for op in OPS].index(_row)].cpu_only = "sort has no CUDA kernel yet"

# ----- elementwise math and aliases (issue 31: special_math, float_parts, exp_log_formulas)

_MATH_UNARY = {
    # name: (float domain, int domain, dtypes, differentiable)
    "expm1": ((-2, 2), (-3, 3), FI, True), "asinh": ((-3, 3), (-5, 5), FI, True),
    "acosh": ((1.1, 4), (1, 5), FI, True), "atanh": ((-0.9, 0.9), (0, 0), F, True),
    "erfc": ((-2, 2), (-3, 3), FI, True), "lgamma": ((0.1, 5), (1, 5), FI, True),
    "digamma": ((0.2, 5), (1, 5), F, True), "erfinv": ((-0.9, 0.9), (0, 0), F, True),
    "i0": ((-20, 20), (-5, 5), FI, True),
    "trunc": ((-3, 3), (-5, 5), FII, True), "fix": ((-3, 3), (-5, 5), FII, True),
    "frac": ((-3, 3), (-5, 5), F, True), "exp2": ((-2, 2), (-3, 3), FI, True),
    "deg2rad": ((-200, 200), (-5, 5), FI, True), "rad2deg": ((-3, 3), (-5, 5), FI, True),
    "sinc": ((-2, 2), (-3, 3), FI, True), "logit": ((0.05, 0.95), (0, 0), F, True),
    "signbit": ((-2, 2), (-5, 5), FII, False), "isposinf": ((-2, 2), (-5, 5), FII, False),
    "isneginf": ((-2, 2), (-5, 5), FII, False), "isreal": ((-2, 2), (-5, 5), FII, False),
    "absolute": ((-2, 2), (-5, 5), FII, True), "arcsinh": ((-3, 3), (-5, 5), FI, True),
    "negative": ((-2, 2), (-5, 5), FII, True), "sgn": ((-2, 2), (-5, 5), FII, True),
    "positive": ((-2, 2), (-5, 5), FII, True),
}  # fmt: skip
for _name, (_domain, _int_domain, _dtypes, _grad) in _MATH_UNARY.items():
    _samples = _nonzero_unary if _name in ("absolute", "sgn") else unary_samples
    add(OpInfo(_name, function(_name), _samples, _dtypes, _grad, domain=_domain,
               int_domain=_int_domain))  # fmt: skip
add(OpInfo("Tensor.lgamma", method("lgamma"), unary_samples, F, domain=(0.1, 5)),
    OpInfo("Tensor.erfinv", method("erfinv"), unary_samples, F, domain=(-0.9, 0.9)),
    OpInfo("Tensor.arccosh", method("arccosh"), unary_samples, F, domain=(1.1, 4)),
    OpInfo("logit(eps)", lambda lib, a: lib.logit(a, 0.2), unary_samples, F, domain=(0, 1)),
    OpInfo("digamma(negative)", function("digamma"), unary_samples, F, domain=(-2.8, -2.2)),
    OpInfo("mvlgamma", function("mvlgamma"), lambda d: [S(T((3, 4)), 1), S(T((5,)), 3),
           S(T((3, 4), "transposed"), 2)], F, domain=(2, 5)))  # fmt: skip

_MATH_BINARY = {
    # name: (float domain, dtypes, differentiable, divisor kept away from 0)
    "xlogy": (POSITIVE, FI, True, False), "hypot": ((-2, 2), F, True, True),
    "logaddexp": ((-3, 3), F, True, False), "logaddexp2": ((-3, 3), F, True, False),
    "copysign": ((-2, 2), FI, True, True), "fmod": ((-3, 3), FI, True, True),
    "fmax": ((-2, 2), FII, True, False), "fmin": ((-2, 2), FII, True, False),
    "float_power": (POSITIVE, FI, True, False), "greater": ((-2, 2), FII, False, False),
    "less_equal": ((-2, 2), FII, False, False), "not_equal": ((-2, 2), FII, False, False),
    "multiply": ((-2, 2), FII, True, False), "true_divide": ((-2, 2), F, True, True),
}  # fmt: skip
_TENSOR_OTHER = ("hypot", "logaddexp", "logaddexp2", "fmax", "fmin")  # no number operand
for _name, (_domain, _dtypes, _grad, _nonzero) in _MATH_BINARY.items():
    add(OpInfo(_name, function(_name),
               lambda d, n=_name, z=_nonzero: binary_samples(d, z)[:9 if n in _TENSOR_OTHER else 12],
               _dtypes, _grad, domain=_domain, int_domain=(1, 5)))  # fmt: skip


def _ldexp_samples(dtype: str) -> list[Sample]:
    def exponents(shape: tuple) -> T:  # whole numbers (torch's gradient of an int exponent
        return T(shape, values=lambda rng: rng.integers(-3, 4, shape), grad=False)  # is int)

    return [S(T((3, 4)), exponents((3, 4))), S(T((3, 4), "transposed"), exponents((4,)))]


def _gcd_samples(dtype: str) -> list[Sample]:
    return [S(T((3, 4)), T((3, 4))), S(T((3, 1), "sliced"), T((4,))), S(T(()), T((5,)))]


add(OpInfo("ldexp", function("ldexp"), _ldexp_samples, F),
    OpInfo("Tensor.hypot", method("hypot"), lambda d: binary_samples(d)[:3], F),
    OpInfo("heaviside", function("heaviside"), lambda d: binary_samples(d, True)[:9], FII,
           grad=False, domain=(-2, 2)),
    OpInfo("gcd", function("gcd"), _gcd_samples, ("int64", "int32"), grad=False,
           int_domain=(-30, 30)),
    OpInfo("lcm", function("lcm"), _gcd_samples, ("int64", "int32"), grad=False,
           int_domain=(-30, 30)),
    _view_row("swapaxes", method("swapaxes"), [S(T((2, 3, 4)), 0, 2), S(T((3, 4)), -1, 0)]),
    _view_row("torch.swapdims", function("swapdims"), [S(T((2, 3, 4), "expanded"), 1, 2)]))

OPS_BY_NAME = {op.name: op for op in OPS}
OPS_BY_NAME["as_strided(view input)"].grad = False
for _name in ("Tensor.float", "Tensor.to(dtype=float32)"):  # rounds to float32
    OPS_BY_NAME[_name].gradcheck = False
OPS_BY_NAME["scalar%a"].grad = False  # torch: remainder(Scalar, Tensor) has no derivative
assert len(OPS_BY_NAME) == len(OPS), "op names must be unique"
GRAD_OPS = [op for op in OPS if op.grad]


def op_dtype_params() -> list:
    """``(op, dtype)`` pairs for the forward tests."""
    import pytest

    return [pytest.param(op, dtype, id=f"{op.name}-{dtype}") for op in OPS for dtype in op.dtypes]
