"""``ParameterList`` and ``ParameterDict``: a list and a dict of parameters that a module
registers (a plain Python list of ``Parameter`` would hide them from ``parameters()``,
the optimizer and the state dict).

Each entry is a parameter registered under its position (``"0"``, ``"1"``, ...) or its
key, so ``named_parameters()`` and ``state_dict()`` name them ``"0"``, ``"1"`` or the key,
as PyTorch does. A plain tensor put in is wrapped into a ``Parameter`` first; other
values (a number, a module) are kept as they are, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn.module import Module, Parameter


def _as_parameter(value: Any) -> Any:
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _store(module: Module, name: str, value: Any) -> None:
    """Register ``value`` under ``name``; a replaced parameter keeps its place in the
    order (``register_parameter`` overwrites in place, as PyTorch's assignment does)."""
    value = _as_parameter(value)
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        setattr(module, name, value)


def _describe(name: Any, value: Any) -> str:
    """One line of the repr: ``(0): Parameter containing: [torch.float32 of size 2x3]``."""
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        size = "x".join(str(s) for s in value.shape)
        return f"({name}): {kind} containing: [{value.dtype} of size {size}]"
    return f"({name}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters: ``append``, ``extend``, indexing, ``len`` and iteration."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _index(self, index: int) -> int:
        if not -self._size <= index < self._size:
            raise IndexError(f"index {index} is out of range")
        return index % self._size

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return ParameterList([self[i] for i in range(self._size)[index]])
        return getattr(self, str(self._index(index)))

    def __setitem__(self, index: int, value: Any) -> None:
        _store(self, str(self._index(index)), value)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self._size))

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def __dir__(self) -> list[str]:
        return [name for name in super().__dir__() if not name.isdigit()]

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if isinstance(values, Tensor) or not isinstance(values, Iterable):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__}")  # fmt: skip
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_describe(i, value) for i, value in enumerate(self))


class ParameterDict(Module):
    """A dict of parameters, keyed by strings, in insertion order."""

    def __init__(self, parameters: Mapping[str, Any] | Iterable | None = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"parameter name should be a string. Got {type(key).__name__}")
        self._keys[key] = None
        _store(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        return [(key, self[key]) for key in self._keys]

    def values(self) -> Iterable[Any]:
        return [self[key] for key in self._keys]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> ParameterDict:
        return ParameterDict(self.items())

    def update(self, parameters: Mapping[str, Any] | Iterable) -> None:
        if isinstance(parameters, Tensor) or not isinstance(parameters, Iterable):
            raise TypeError("ParameterDict.update should be called with an iterable of key/value "
                            f"pairs, but got {type(parameters).__name__}")  # fmt: skip
        pairs = parameters.items() if isinstance(parameters, Mapping) else parameters
        for pair in pairs:
            key, value = pair
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_describe(key, value) for key, value in self.items())
