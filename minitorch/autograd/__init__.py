"""Reverse-mode automatic differentiation (PyTorch's ``torch.autograd``).

* ``function.py``  -- ``Function``, ``ctx``, and the graph nodes it leaves (``grad_fn``);
* ``engine.py``    -- the backward walk: topological order, accumulation, un-broadcasting;
* ``grad_mode.py`` -- ``no_grad``, ``enable_grad``, ``set_grad_enabled``;
* ``gradcheck.py`` -- compare gradients with finite differences;
* ``functional.py`` -- Jacobians, Hessians and their products (``jacobian``, ``jvp``...);
* ``profiler.py`` -- ``profile``: which ops ran, how often and how long.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitorch._tensor import Tensor
from minitorch.autograd.engine import run_backward
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minitorch.autograd.node import Node, accumulate_grad


def _as_list(tensors: Tensor | Sequence[Tensor] | None) -> list:
    if tensors is None:
        return []
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _make_grads(outputs: list[Tensor], grads: list) -> list[Tensor]:
    """Fill in the gradient of each output: ``1`` for a scalar, required otherwise."""
    result = []
    for i, output in enumerate(outputs):
        grad = grads[i] if i < len(grads) else None
        if grad is None:
            if output.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grad = Tensor._full(output._shape, 1, output.dtype, output.device)
        elif tuple(grad.shape) != tuple(output.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {grad.shape} and "
                f"output[{i}] has a shape of {output.shape}."
            )
        result.append(grad)
    return result


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves; with
    ``inputs``, into the ``.grad`` of those tensors only (leaves or not)."""
    outputs = _as_list(tensors)
    grads = _make_grads(outputs, _as_list(grad_tensors))
    keep = create_graph if retain_graph is None else retain_graph
    if inputs is None:
        run_backward(outputs, grads, retain_graph=keep, create_graph=create_graph)
        return
    input_list = _as_list(inputs)
    if not input_list:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    captured = run_backward(outputs, grads, keep, create_graph, inputs=input_list)
    assert captured is not None
    with set_grad_enabled(create_graph):
        for t, g in zip(input_list, captured):
            if g is not None:
                accumulate_grad(t, g)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (not added to
    ``.grad``). With ``create_graph=True`` they are differentiable themselves."""
    output_list = _as_list(outputs)
    input_list = _as_list(inputs)
    grads = _make_grads(output_list, _as_list(grad_outputs))
    keep = create_graph if retain_graph is None else retain_graph
    result = run_backward(output_list, grads, keep, create_graph, inputs=input_list)
    assert result is not None
    if not allow_unused and any(g is None for g in result):
        raise RuntimeError(
            "One of the differentiated Tensors appears to not have been used in the graph. "
            "Set allow_unused=True if this is the desired behavior."
        )
    return tuple(result)


class _VariableType(type):
    """Makes ``Variable(t)`` return a tensor, and ``isinstance(t, Variable)`` true for
    every tensor, as in PyTorch since variables and tensors merged."""

    def __call__(cls, data: Tensor | None = None, requires_grad: bool = False,  # type: ignore[override]
                 volatile: bool = False) -> Tensor:  # fmt: skip
        if data is None:
            return Tensor()
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        result = data.detach()  # shares data's storage; data itself is left as it was
        return result.requires_grad_(True) if requires_grad else result

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableType):
    """PyTorch's old wrapper that gave a tensor a gradient: ``Variable(t,
    requires_grad=True)``. Today it returns a tensor over ``t``'s storage that requires
    grad (``t.detach().requires_grad_()``); new code writes that, or
    ``minitorch.tensor(..., requires_grad=True)``."""


from minitorch.autograd import functional, profiler  # noqa: E402, F401  (torch.autograd.*)
from minitorch.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402

__all__ = [
    "Function", "FunctionCtx", "Node", "Variable", "backward", "grad", "no_grad", "enable_grad",
    "set_grad_enabled", "is_grad_enabled", "gradcheck", "gradgradcheck", "GradcheckError",
]  # fmt: skip
