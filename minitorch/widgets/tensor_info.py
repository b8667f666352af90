"""What the widgets show about one tensor, as plain JSON-ready data.

Every widget describes tensors the same way: shape, dtype, device, layout, and either
its values (small tensors) or a short summary (large ones). Values travel to the browser
as JSON, which has no NaN or infinity, so those become the strings ``"nan"``,
``"inf"`` and ``"-inf"``.

A summary is computed from the tensor's layout, never from a copy of all its elements:
a broadcast view (``expand``: stride 0) reads the same storage cells at every index
along its broadcast dimensions, so ``x.expand(20000, 20000)`` of one number has 4e8
elements but one cell to look at (``distinct_cells``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.layout import is_contiguous, numel
from minitorch.widgets.colors import tensor_color

MAX_VALUES = 64  # tensors with more elements get a summary instead of their values


def json_number(value: Any) -> Any:
    """A Python number JSON can carry (NaN and infinities become strings)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def json_values(values: Any) -> Any:
    """Nested lists of numbers, made JSON-safe (see ``json_number``)."""
    if isinstance(values, list):
        return [json_values(v) for v in values]
    return json_number(values)


def format_number(value: Any) -> str:
    """A short human-readable number: ``3``, ``0.5``, ``1.234e-05``, ``nan``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.4g}"


def host_values(t: Tensor) -> np.ndarray:
    """The tensor's elements as a NumPy array in host memory (never part of a graph)."""
    return np.asarray(t.detach()._host_array())


def storage_values(t: Tensor) -> list:
    """Every cell of ``t``'s storage (used or not), in storage order."""
    return json_values(dispatch.to_numpy(t._storage, t.device.type).tolist())


def distinct_cells(t: Tensor) -> tuple[np.ndarray, int]:
    """``t``'s elements without its broadcast dimensions, and how often ``t`` repeats them.

    Along a dimension of stride 0 every index reads the same cells, so dropping it
    leaves the same values, each now counted once instead of ``size`` times::

        shape (3, 20000, 4), strides (4, 0, 1)  ->  shape (3, 4), strides (4, 1), repeats 20000

    The result is a NumPy view over the (host) storage, not a copy: its min, max and
    mean are ``t``'s (every value is repeated equally often), and counts scale by
    ``repeats``."""
    keep = [d for d, (size, stride) in enumerate(zip(t._shape, t._strides)) if stride != 0 or size == 0]
    repeats = numel([t._shape[d] for d in range(t.ndim) if d not in keep])
    storage = dispatch.to_numpy(t._storage, t.device.type)
    cells = np.lib.stride_tricks.as_strided(
        storage[t._offset :],
        shape=tuple(t._shape[d] for d in keep),
        strides=tuple(t._strides[d] * storage.itemsize for d in keep),
    )
    return t.dtype.decode(cells), repeats


def summary(array: np.ndarray, repeats: int = 1) -> str:
    """``min / mean / max`` of a large array (or of the finite part of it), each of whose
    elements stands for ``repeats`` equal ones."""
    if array.size == 0:
        return "empty"
    if array.dtype == np.bool_:
        return f"{int(array.sum()) * repeats} of {array.size * repeats} true"
    finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
    if finite.size == 0:
        return "no finite values"
    low, mean, high = finite.min(), finite.astype(np.float64).mean(), finite.max()
    return f"min {format_number(json_number(low))}  mean {mean:.4g}  max {format_number(json_number(high))}"


def describe(t: Tensor | None, max_values: int = MAX_VALUES) -> dict | None:
    """Everything a widget shows about ``t``: shape, dtype, device, strides, offset,
    contiguity, ``color`` (the tensor's colour on the page, the same in every widget:
    ``colors.py``), ``values`` (nested lists, when at most ``max_values`` elements) or
    ``summary`` (a string, otherwise)."""
    if t is None:
        return None
    info: dict[str, Any] = {
        "shape": list(t._shape),
        "dtype": t.dtype.name,
        "device": str(t.device),
        "strides": list(t._strides),
        "offset": t._offset,
        "contiguous": is_contiguous(t._shape, t._strides),
        "numel": t.numel(),
        "requires_grad": t.requires_grad,
        "color": tensor_color(t),
    }
    if t.numel() <= max_values:
        info["values"] = json_values(host_values(t).tolist())
    else:
        info["summary"] = summary(*distinct_cells(t))
    return info


def describe_text(info: dict | None) -> str:
    """One line for a ``describe`` result: ``float32 [2, 3] = [[1, 2, 3], ...]``."""
    if info is None:
        return "None"
    head = f"{info['dtype']} {info['shape']}"
    if "values" in info:
        return f"{head} = {_nested_text(info['values'])}"
    return f"{head} ({info['summary']})"


def _nested_text(values: Any) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested_text(v) for v in values) + "]"
    return format_number(values)
