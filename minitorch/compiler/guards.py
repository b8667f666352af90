"""Guards: when may a captured graph be replayed, and when must it be captured again?

A graph bakes in everything that was true while it was captured. Two checks say whether
it still is, before every replay:

1. the **key** of the call (this file): the shapes, strides, dtypes, devices and
   ``requires_grad`` of the tensor arguments (every node's layout follows from them),
   the Python values passed in, *exactly* (``fn(x, 0.5)`` multiplied by 0.5; ``-0.0``
   is not ``0.0``), and the context: grad mode (whether backward nodes were made), the
   backends, the default dtype and device, and ``training`` of every module the
   function reaches (``bn.eval()`` takes another path). Graphs are kept per key;
2. the **state guard** of that key's graph (``state.py``): every tensor the function
   reads without receiving it (parameters, ``.grad``, optimizer state, closures) is
   found again through its slot and checked for identity, storage, ``requires_grad``
   and ``None``-ness.

``difference(old, new)`` says in words which part of a key changed: the reasons
``fn.recaptures`` lists (PyTorch's ``torch._dynamo`` logs its recompiles the same way).

What neither can see is Python state that is not a tensor and not an argument (a global
number, a list the function appends to): that is baked in at capture, as in
``torch.compile`` and ``tf.function``.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, NamedTuple

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.device import get_default_device
from minitorch.dtypes import get_default_dtype


def flatten_arguments(fn: Any, args: tuple, kwargs: dict) -> tuple[list[tuple[str, Any]], list[Tensor]]:
    """Every leaf of the arguments as ``(name, value)`` (names as the function calls
    them: ``x``, ``batch[0]``), and the tensors among them, in order."""
    try:
        bound = signature(fn).bind(*args, **kwargs)
        named = list(bound.arguments.items())
    except (TypeError, ValueError):
        named = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    leaves: list[tuple[str, Any]] = []

    def walk(name: str, value: Any) -> None:
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(f"{name}[{i}]", item)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(f"{name}[{key!r}]", item)
        else:
            leaves.append((name, value))

    for name, value in named:
        walk(name, value)
    return leaves, [value for _, value in leaves if isinstance(value, Tensor)]


def signature(fn: Any) -> inspect.Signature:
    """``inspect.signature(fn)``, worked out once per function: it reads the code object
    and walks its parameters, work that would otherwise repeat on every replay."""
    try:
        return _cached_signature(fn)
    except TypeError:  # an unhashable callable (a bound method of an unhashable object)
        return inspect.signature(fn)


_cached_signature = functools.lru_cache(maxsize=256)(inspect.signature)


def guard_key(leaves: list[tuple[str, Any]], context: tuple) -> tuple:
    """The guard of a call (see the module docstring): one part per argument, then the
    ``context`` (``context_key``)."""
    parts: list[tuple] = []
    first_of_storage: dict[int, tuple[int, int]] = {}  # storage -> (tensor number, offset)
    tensor_number = 0
    for name, value in leaves:
        if isinstance(value, Tensor):
            # Which earlier argument's storage this one shares, and how far from it it
            # starts: the graph reads both through one buffer, at the captured distance.
            storage = id(value._storage)
            first, first_offset = first_of_storage.setdefault(storage, (tensor_number, value._offset))
            shares = (first, value._offset - first_offset)
            tensor_number += 1
            parts.append((name, "tensor", value._shape, value._strides, value.dtype, str(value.device),
                          value.requires_grad, shares))  # fmt: skip
        else:
            parts.append((name, "value", type(value).__name__, exact(name, value)))
    return tuple(parts) + context


class FloatBits(NamedTuple):
    """A float as a key holds it: its bits (``float.hex``)."""

    bits: str

    def __repr__(self) -> str:
        return repr(float.fromhex(self.bits))


class ArrayBytes(NamedTuple):
    """A NumPy array or scalar as a key holds it: dtype, shape and bytes."""

    dtype: str
    shape: tuple
    data: bytes

    def __repr__(self) -> str:
        return repr(np.frombuffer(self.data, dtype=self.dtype).reshape(self.shape))


def exact(name: str, value: Any) -> Any:
    """A Python value as the key holds it: equal only to the very same value. A float by
    its bits (``-0.0`` is not ``0.0``, and a NaN equals itself), a NumPy array or scalar
    by its dtype, shape and bytes, anything else by itself (it must be hashable: its own
    ``__eq__`` and ``__hash__`` say what it means to be the same)."""
    if isinstance(value, float):
        return FloatBits(value.hex())
    if isinstance(value, complex):
        return FloatBits(value.real.hex()), FloatBits(value.imag.hex())
    if isinstance(value, (np.ndarray, np.generic)):
        return ArrayBytes(value.dtype.str, value.shape, value.tobytes())
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"minitorch.compile: argument {name} is a {type(value).__name__}, which cannot be "
            "hashed, so a guard cannot tell whether a later call passes the same value: pass "
            "tensors, numbers, strings, or lists, tuples and dicts of them"
        ) from None
    return value


def context_key(modules: list[tuple[str, Any]]) -> tuple:
    """What a graph depends on besides its arguments: grad mode, the backends, the
    default dtype and device (``zeros(3)`` inside is made in them), and the
    ``training`` flag of every module the function reaches (dropout, batch norm)."""
    return (("grad mode", is_grad_enabled()), ("cpu backend", dispatch.get_backend("cpu")),
            ("cuda backend", dispatch.get_backend("cuda")), ("default dtype", get_default_dtype()),
            ("default device", get_default_device()),
            *((f"{name}.training", module.training) for name, module in modules))  # fmt: skip


def difference(old: tuple, new: tuple) -> tuple[str, str]:
    """Which part of the key changed (an argument's or the context's name), and why
    ``new`` does not match ``old``, in words."""
    arguments = sum(1 for part in old if len(part) > 2), sum(1 for part in new if len(part) > 2)
    if len(old) != len(new) or arguments[0] != arguments[1]:
        return "arguments", f"the number of arguments changed ({arguments[0]} -> {arguments[1]})"
    for before, after in zip(old, new):
        if before == after:
            continue
        name = before[0]
        if len(before) == 2:  # context
            return name, f"{name} changed ({_word(before[1])} -> {_word(after[1])})"
        if before[1] != after[1]:
            return name, f"argument {name} was a {before[2] if before[1] == 'value' else 'tensor'}, now "\
                         f"{after[2] if after[1] == 'value' else 'a tensor'}"  # fmt: skip
        if before[1] == "value":
            return name, f"argument {name} changed ({before[3]!r} -> {after[3]!r})"
        labels = ("shape", "strides", "dtype", "device", "requires_grad",
                  "storage sharing (first argument of that storage, offset from it)")  # fmt: skip
        for label, was, now in zip(labels, before[2:], after[2:]):
            if was != now:
                if label in ("shape", "strides"):
                    was, now = tuple(was), tuple(now)
                return name, f"{name}: {label} {was} -> {now}"
    return "", "the guard changed"


def _word(value: Any) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)
