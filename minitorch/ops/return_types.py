"""The named tuples some ops return, printed as PyTorch prints its ``torch.return_types``.

``values, indices = x.sort()`` unpacks like any tuple; ``x.sort().values`` reads a field
by name; and ``print(x.sort())`` shows the same text as PyTorch, so that a tutorial's
output matches line for line::

    torch.return_types.sort(
    values=tensor([1., 2.]),
    indices=tensor([1, 0]))
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any


def _return_type(name: str, fields: list[str]) -> Any:
    base = namedtuple(name, fields)  # noqa: PYI024 (a plain tuple subclass, like PyTorch's)

    def __repr__(self: Any) -> str:  # noqa: N807 (the tuple's own repr)
        parts = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"torch.return_types.{name}(\n{parts})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


sort = _return_type("sort", ["values", "indices"])
topk = _return_type("topk", ["values", "indices"])
svd = _return_type("svd", ["U", "S", "V"])
linalg_svd = _return_type("linalg_svd", ["U", "S", "Vh"])
median = _return_type("median", ["values", "indices"])
histogram = _return_type("histogram", ["hist", "bin_edges"])
aminmax = _return_type("aminmax", ["min", "max"])
cummax = _return_type("cummax", ["values", "indices"])
cummin = _return_type("cummin", ["values", "indices"])
kthvalue = _return_type("kthvalue", ["values", "indices"])
mode = _return_type("mode", ["values", "indices"])
nanmedian = _return_type("nanmedian", ["values", "indices"])
frexp = _return_type("frexp", ["mantissa", "exponent"])
