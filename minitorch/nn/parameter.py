"""``Parameter`` and ``Buffer``: how a tensor says what it is to the module it is assigned to.

A ``Parameter`` is a weight to learn: a leaf that requires grad, registered in the
module's ``_parameters``. ``Buffer`` marks state that is not learned (BatchNorm's running
mean), registered in ``_buffers``. Both share the tensor's storage: nothing is copied.
"""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.creation import empty


class Parameter(Tensor):
    """A tensor that is a module's weight: a leaf that requires grad by default, and that
    a ``Module`` registers when it is assigned as an attribute.

    ``Parameter(t)`` shares ``t``'s storage (no copy), like PyTorch.
    """

    __slots__ = ()

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor, but got {type(data).__name__}")
        super().__init__(data)  # the legacy ``Tensor(t)``: t's storage, layout and version counter
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        copied = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = copied
        return copied


class Buffer:
    """Marks a tensor as a buffer when assigned to a module (``self.x = nn.Buffer(t)``)."""

    def __init__(self, data: Tensor, persistent: bool = True) -> None:
        self.data, self.persistent = data, persistent
