"""Comparisons and logic, elementwise: ``== != < <= > >=``, ``logical_and``, the bitwise
``& | ^`` and closeness (``isclose``, ``allclose``, ``equal``).

None is differentiable: the result is a bool tensor (or, for the bitwise ops on
integers, an integer one). Each is one ``zip`` kernel, prepared as in ``binary.py``
(type promotion, then broadcasting).
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.dtypes import bool_, result_type
from minitorch.ops.common import python_number, require_tensor
from minitorch.ops.elementwise import apply_zip


def _compare(op: str) -> Any:
    def compare(a: Any, b: Any) -> Tensor:
        return apply_zip(op, a, b)

    compare.__name__ = op
    compare.__doc__ = f"Elementwise ``{op}`` comparison; the result is a bool tensor."
    return compare


eq, ne, lt, le, gt, ge = (_compare(op) for op in ("eq", "ne", "lt", "le", "gt", "ge"))
logical_and = _compare("logical_and")
logical_or = _compare("logical_or")


def _bitwise(op: str, on_bools: str) -> Any:
    """``&``, ``|``, ``^``: bit by bit on integers (``6 & 3 == 2``); on bools the
    logical op ``on_bools`` (xor of two bools is ``!=``). Floats have no bits to combine."""

    def bitwise(a: Any, b: Any) -> Tensor:
        a, b = python_number(a), python_number(b)
        dtype = result_type(a, b)
        if dtype.is_floating_point:
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dtype.type_name}'")
        return apply_zip(on_bools if dtype is bool_ else op, a, b)

    bitwise.__name__ = op
    bitwise.__doc__ = f"Elementwise ``{op}`` of integer or bool tensors."
    return bitwise


bitwise_and = _bitwise("bitwise_and", "logical_and")
bitwise_or = _bitwise("bitwise_or", "logical_or")
bitwise_xor = _bitwise("bitwise_xor", "ne")


def isclose(a: Tensor, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:  # fmt: skip
    """``|a - b| <= atol + rtol * |b|`` elementwise (NaNs equal only with ``equal_nan``)."""
    close = (a - b).abs() <= atol + rtol * (b.abs() if isinstance(b, Tensor) else abs(b))
    close = close | (a == b)  # infinities of the same sign
    if equal_nan:
        close = close | ((a != a) & (b != b))
    return close


def allclose(a: Tensor, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:  # fmt: skip
    return bool(isclose(a, b, rtol, atol, equal_nan).all())


def equal(a: Tensor, b: Tensor) -> bool:
    """True when both have the same shape and the same values."""
    require_tensor("equal", a)
    require_tensor("equal", b, "other", 2)
    return tuple(a.shape) == tuple(b.shape) and bool((a == b).all())
