"""How a tensor prints: like PyTorch, ``tensor([[1., 2.], [3., 4.]], requires_grad=True)``.

Floats that are all whole numbers print as ``1.``; others with four decimals, or in
scientific notation when their magnitudes span too much for that. The dtype is shown
unless it is the default one for its kind (float32, int64, bool).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.dtypes import bool_, get_default_dtype, int64


def _float_formatter(values: np.ndarray) -> Any:
    finite = values[np.isfinite(values)].astype(np.float64)
    magnitudes = np.abs(finite[finite != 0])
    if finite.size and np.all(finite == np.round(finite)) and (
        magnitudes.size == 0 or magnitudes.max() < 1e8
    ):
        return lambda v: f"{v:.0f}." if np.isfinite(v) else str(v)
    if magnitudes.size and (magnitudes.max() >= 1e8 or magnitudes.min() < 1e-4):
        return lambda v: f"{v:.4e}"
    return lambda v: f"{v:.4f}"


def format_values(array: np.ndarray) -> str:
    """The bracketed values, aligned like PyTorch's (long tensors are summarised)."""
    if array.dtype.kind == "f":
        fmt = _float_formatter(array)
    elif array.dtype.kind == "b":
        fmt = str
    else:
        fmt = str
    values = array.reshape(-1)
    if array.dtype.kind == "f":  # like PyTorch, align on the finite values only
        values = values[np.isfinite(values)]
    shown = [fmt(v) for v in values[:1000]]
    width = max((len(s) for s in shown), default=0)
    return np.array2string(
        array,
        separator=", ",
        prefix="tensor(",
        threshold=1000,
        edgeitems=3,
        max_line_width=80,
        formatter={"all": lambda v: fmt(v).rjust(width)},
    )


def tensor_repr(t: Any) -> str:
    array = t.detach().cpu()._host_array()
    if t.numel() == 0:
        body = "[]" if t.ndim == 1 else f"[], size={tuple(t.shape)}"
    else:
        body = format_values(array)
    extras = []
    if t.device.type != "cpu":
        extras.append(f"device='{t.device}'")
    implied = (get_default_dtype(),) if t.numel() == 0 else (get_default_dtype(), int64, bool_)
    if t.dtype not in implied:
        extras.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body, *extras]) + ")"
