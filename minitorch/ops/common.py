"""Small helpers shared by the op files: wrapping Python numbers, casting, broadcasting.

These run inside ``forward`` functions (with no graph recorded); none is an op a user
calls directly.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.dtypes import dtype as DType
from minitorch.dtypes import int64, wrap_integer
from minitorch.layout import (
    Shape,
    Strides,
    broadcast_shapes,
    contiguous_strides,
    expand,
    is_contiguous,
    strides_in_order,
)

Number = bool | int | float


def require_tensor(function: str, value: Any, argument: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError when a function that needs a tensor is given something else
    (``None``, a list, a number): the message names the argument and the fix. One
    ``isinstance`` test, so the public functions call it before reading ``x.dtype``."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be Tensor, not "
            f"{type(value).__name__} (convert it with minitorch.tensor(...))"
        )


def require_tensors(function: str, values: Sequence[Any]) -> None:
    """The same check for each element of a sequence of tensors (``cat``, ``stack``)."""
    for i, value in enumerate(values):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{function}(): expected Tensor as element {i} in argument 0, but got "
                f"{type(value).__name__} (convert it with minitorch.tensor(...))"
            )


def is_number(value: object) -> bool:
    """A Python number, or a NumPy scalar such as ``np.float32(2)`` (PyTorch treats both
    alike: ``np.float64(2) * float32_tensor`` stays float32)."""
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def python_number(value: Any) -> Any:
    """A NumPy scalar as the Python number it holds (anything else unchanged)."""
    return value.item() if isinstance(value, np.generic) else value


_scalars: dict[tuple, Tensor] = {}


def scalar_tensor(value: Number, dtype: DType, like: Tensor) -> Tensor:
    """A 0-d tensor holding ``value``, on ``like``'s device, for a kernel to read.

    The same few numbers (0, 1, 0.5, a learning rate...) come back on every training
    step, so these internal operands are remembered. They never reach users, so nobody
    can change them in place."""
    device = like.device  # keyed by its fields: a device's own hash is a Python call
    if type(value) is float and (value == 0.0 or value != value):
        # ``0.0 == -0.0`` and ``nan != nan``: these floats are keyed by their bit pattern,
        # so the two zeros get two entries (``x / -0.0`` must give ``-inf``) and NaN is
        # found again. (Any other number is its own key, with its type: ``1 != 1.0`` here.)
        key = (float, struct.pack("<d", value), dtype, device.type, device.index)
    else:
        key = (type(value), value, dtype, device.type, device.index)
    found = _scalars.get(key)
    if found is None:
        if dtype.category == 1 and isinstance(value, int):  # wraps around, as in PyTorch:
            value = wrap_integer(value, dtype)  # int32_tensor + 2**40 adds 0, uint8 - 1 adds 255
        with np.errstate(over="ignore"):  # 1e300 as a float32 operand is inf, as in PyTorch
            found = Tensor._full((), value, dtype, like.device)
        if len(_scalars) < 4096:
            _scalars[key] = found
    return found


def as_operand(value: Any, dtype: DType, like: Tensor) -> Tensor:
    """A tensor operand of ``dtype``: numbers become 0-d tensors, tensors are cast."""
    if isinstance(value, Tensor):
        return cast(value, dtype)
    if is_number(value):
        return scalar_tensor(python_number(value), dtype, like)
    raise TypeError(
        f"unsupported operand type {type(value).__name__}: expected a Tensor or a number"
    )


def cast(t: Tensor, dtype: DType) -> Tensor:
    """``t`` converted to ``dtype`` (``t`` itself when it already has it). No graph.

    A float becomes uint8, int8 or int16 as in PyTorch's C++: rounded toward zero into an
    int64, whose low bits are kept (300.0 -> int8 is 44, -1.0 -> uint8 is 255). A
    kernel's own float -> int8 store would saturate or be undefined instead."""
    if t.dtype is dtype:
        return t
    if t.dtype.is_floating_point and dtype.category == 1 and dtype.itemsize < 4:
        t = cast(t, int64)
    out = Tensor._empty(t._shape, dtype, t.device)
    return dispatch.map("copy", out, t)


# Broadcasting is a pure function of shapes and strides, and a program meets the same
# few of them on every step (a bias added to a batch, a tensor times a number), so the
# two answers below are remembered, like ``layout.new_tensor_layout``. A pair that
# raises (shapes that do not broadcast) is not remembered and raises again.
common_shape = functools.lru_cache(maxsize=4096)(broadcast_shapes)


@functools.lru_cache(maxsize=4096)
def stretched_layout(shape: Shape, strides: Strides, target: Shape) -> tuple[Shape, Strides]:
    """``layout.expand`` of ``(shape, strides)`` to ``target``, without the offset (which
    a stretch never changes)."""
    new_shape, new_strides, _ = expand(shape, strides, 0, target)
    return new_shape, new_strides


def broadcast_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A stride-0 view of ``t`` stretched to ``shape`` (for kernels, never returned)."""
    shape = tuple(shape)
    if t._shape == shape:
        return t
    new_shape, new_strides = stretched_layout(t._shape, t._strides, shape)
    return Tensor._make(t._storage, new_shape, new_strides, t._offset, t.dtype, t.device)


def broadcast_all(*tensors: Tensor) -> tuple[tuple[int, ...], Sequence[Tensor]]:
    """The common shape, and each tensor viewed at that shape."""
    shape = tensors[0]._shape
    for t in tensors:
        if t._shape != shape:
            break
    else:  # all alike (the common case): nothing to view
        return shape, tensors
    shape = common_shape(*[t._shape for t in tensors])
    return shape, [broadcast_view(t, shape) for t in tensors]


def result_strides(shape: tuple[int, ...], operands: Sequence[Tensor]) -> tuple[int, ...] | None:
    """The strides of an elementwise result of ``shape``: dense, in the memory order of
    the first operand that fills ``shape`` without broadcasting (``x.t() + y.t()`` is
    transposed, as in PyTorch); ``None`` (contiguous) when that order is row-major or no
    operand qualifies."""
    for t in operands:
        if t._shape == shape and 0 not in t._strides:
            return dense_strides_like(shape, t._strides)
    return None


@functools.lru_cache(maxsize=4096)
def dense_strides_like(shape: Shape, strides: Strides) -> Strides | None:
    """Strides that lay ``shape`` out densely in the memory order of ``strides`` (which
    has no stride 0); ``None`` when that order is row-major. Remembered, like the
    broadcasting answers above: a program meets the same few layouts on every step."""
    if is_contiguous(shape, strides):
        return None
    dense = strides_in_order(shape, strides)
    return None if dense == contiguous_strides(shape) else dense


def shares_storage(a: Tensor, b: Tensor) -> bool:
    return a._storage is b._storage


# The reductions for which PyTorch also accepts NumPy's spelling ``keepdims=``.
KEEPDIMS_REDUCTIONS = frozenset(
    "sum mean prod max min amax amin argmax argmin var std logsumexp all any median".split()
)


def accepts_keepdims(function: Any) -> Any:
    """``function`` also taking NumPy's ``keepdims=`` for its ``keepdim=``, as PyTorch's
    reductions do (``x.sum(1, keepdims=True)``)."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if "keepdims" in kwargs:
            if "keepdim" in kwargs:
                raise TypeError(f"{function.__name__}() got both 'keepdim' and 'keepdims'")
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return function(*args, **kwargs)

    return call


def sizes_from(args: tuple) -> tuple[int, ...]:
    """Accept both ``f(2, 3)`` and ``f((2, 3))``, like PyTorch."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for size in args:
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
            raise TypeError(f"sizes must be ints, but got {type(size).__name__} ({size!r})")
    return tuple([int(s) for s in args])  # (NumPy integers as ints; a list: twice a generator's speed)
