"""``assert_close``: are two tensors equal up to a tolerance? (``torch.testing.assert_close``)

Two values are close when, element by element, ``|actual - expected| <= atol + rtol *
|expected|``. The default tolerances depend on the dtype, as in PyTorch: float32
``rtol=1.3e-6, atol=1e-5``, float64 ``rtol=1e-7, atol=1e-7``, exact for integers and bool.
Shapes, dtypes and devices must match too (``check_dtype=False``, ``check_device=False``
relax the last two).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch._tensor import Tensor

DEFAULT_TOLERANCES = {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def _as_tensor(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    from minitorch.creation import tensor  # creation sits beside testing, not below it

    return tensor(value)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    msg: str | None = None,
) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (see module)."""
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted")
    a, e = _as_tensor(actual), _as_tensor(expected)
    problem = None
    if tuple(a.shape) != tuple(e.shape):
        problem = f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}."
    elif check_dtype and a.dtype != e.dtype:
        problem = f"The values for attribute 'dtype' do not match: {a.dtype} != {e.dtype}."
    elif check_device and a.device != e.device:
        problem = f"The values for attribute 'device' do not match: {a.device} != {e.device}."
    if problem is None:
        if rtol is None:
            rtol, atol = DEFAULT_TOLERANCES.get(a.dtype.name, (0.0, 0.0))
        x = np.asarray(a.detach().cpu().numpy(), dtype=np.float64)
        y = np.asarray(e.detach().cpu().numpy(), dtype=np.float64)
        close = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan) | (x == y)
        if not close.all():
            bad = int((~close).sum())
            diff = np.abs(x - y)[~close]
            greatest = float(np.max(diff))  # nan when a NaN is among the mismatches
            problem = (
                f"Tensor-likes are not close!\n\nMismatched elements: {bad} / {close.size} "
                f"({100 * bad / close.size:.1f}%)\nGreatest absolute difference: "
                f"{greatest} (up to {atol} allowed)"
            )
    if problem is not None:
        raise AssertionError(msg or problem)
