"""Saving and loading a module's state: ``load_state_dict`` and the keys it matches.

``Module.state_dict()`` names every parameter and persistent buffer by its attribute path
(``"0.weight"``, ``"encoder.layers.1.bias"``), as PyTorch does. Loading walks the same
names (``state_entries``), checks the whole state dict against them first (missing and
unexpected keys, shapes, types), and only then copies, so a bad state dict leaves the
module as it was.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING, Any

from minitorch._tensor import Size, Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.parameter import Parameter

if TYPE_CHECKING:
    from minitorch.nn.module import Module


_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class IncompatibleKeys(_IncompatibleKeys):
    """What ``load_state_dict(strict=False)`` returns: keys the module wanted but the state
    dict lacked, and keys the state dict had that the module does not know."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def state_entries(module: Module) -> dict[str, tuple[Module, str, Tensor]]:
    """``{key: (owning module, attribute name, current tensor)}`` for every entry of
    ``state_dict()``, in its order."""
    entries: dict[str, tuple[Module, str, Tensor]] = {}
    for prefix, owner in module.named_modules(remove_duplicate=False):
        dotted = prefix + "." if prefix else ""
        for name, param in owner._parameters.items():
            if param is not None:
                entries.setdefault(dotted + name, (owner, name, param))
        for name, buffer in owner._buffers.items():
            if buffer is not None and name not in owner._non_persistent_buffers_set:
                entries.setdefault(dotted + name, (owner, name, buffer))
    return entries


def load_state_dict(module: Module, state_dict: Any, strict: bool = True,
                    assign: bool = False) -> IncompatibleKeys:  # fmt: skip
    """Copy tensors from ``state_dict`` into ``module``'s parameters and buffers.

    Everything is checked *before* anything is copied, so a bad state dict leaves the
    module untouched (PyTorch may have copied part of it by the time it raises):

    * ``strict=True``: missing or unexpected keys raise, listing them all;
      ``strict=False``: they are returned as ``(missing_keys, unexpected_keys)``;
    * a shape that differs from the module's always raises, naming the key.
    """
    if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
    entries = state_entries(module)
    missing = [key for key in entries if key not in state_dict]
    unexpected = [key for key in state_dict.keys() if key not in entries]
    errors: list[str] = []
    if strict and unexpected:
        errors.append("Unexpected key(s) in state_dict: "
                      + ", ".join(f'"{k}"' for k in unexpected) + ". ")  # fmt: skip
    if strict and missing:
        errors.insert(0, "Missing key(s) in state_dict: "
                      + ", ".join(f'"{k}"' for k in missing) + ". ")  # fmt: skip
    for key, (_, _, current) in entries.items():
        if key not in state_dict:
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected a Tensor '
                          f"from checkpoint but received {type(value).__name__}")  # fmt: skip
        elif tuple(value.shape) != tuple(current.shape):
            errors.append(
                f"size mismatch for {key}: copying a param with shape "
                f"{_size(value.shape)} from checkpoint, the shape in current model is "
                f"{_size(current.shape)}."
            )
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))  # fmt: skip
    with no_grad():
        for key, (owner, name, current) in entries.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if assign:
                if isinstance(current, Parameter):
                    value = Parameter(value.detach(), current.requires_grad)
                setattr(owner, name, value)
            else:
                current.copy_(value.detach())
    return IncompatibleKeys(missing, unexpected)


def _size(shape: Any) -> str:
    return repr(Size(tuple(shape)))
