"""``gradcheck``: does backward agree with finite differences?

For a function ``f`` and an input ``x``, the derivative of output element ``o`` with
respect to input element ``i`` can be estimated without autograd (central difference)::

    numerical[i, o] = (f(x + eps * e_i)[o] - f(x - eps * e_i)[o]) / (2 * eps)

Autograd gives the same Jacobian row by row: backward with a one-hot ``grad_output``
returns ``d f[o] / d x`` for every ``i``. ``gradcheck`` compares both, entry by entry,
with ``|analytical - numerical| <= atol + rtol * |numerical|``. Use float64 inputs:
in float32 the rounding error of the difference quotient is larger than the tolerance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd import grad
from minitorch.layout import contiguous_strides


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical gradients differ."""


def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _outputs_as_arrays(func: Callable, inputs: tuple) -> list[np.ndarray]:
    outputs = _as_tuple(func(*inputs))
    return [o.detach().cpu().numpy().astype(np.float64).reshape(-1) for o in outputs
            if isinstance(o, Tensor) and o.dtype.is_floating_point]  # fmt: skip


def _numerical_jacobians(func: Callable, inputs: tuple, which: int, eps: float) -> list:
    """One ``(input numel, output numel)`` matrix per output, by central differences.
    Each input element is nudged in place (through a detached alias, so the layout the
    function sees is the caller's, non-contiguous included)."""
    x = inputs[which].detach()
    flat_positions = list(np.ndindex(*x.shape)) if x.ndim else [()]
    columns: list[list[np.ndarray]] = []
    for index in flat_positions:
        original = x[index].item()
        x[index] = original + eps
        plus = _outputs_as_arrays(func, inputs)
        x[index] = original - eps
        minus = _outputs_as_arrays(func, inputs)
        x[index] = original
        columns.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return [np.stack([col[o] for col in columns]) if columns else np.zeros((0, 0))
            for o in range(len(columns[0]) if columns else 0)]  # fmt: skip


def _analytical_jacobians(func: Callable, inputs: tuple, which: int) -> list:
    """One ``(input numel, output numel)`` matrix per output, from backward passes."""
    outputs = [o for o in _as_tuple(func(*inputs))
               if isinstance(o, Tensor) and o.dtype.is_floating_point]  # fmt: skip
    x = inputs[which]
    result = []
    for output in outputs:
        columns = []
        for k in range(output.numel()):
            one_hot = np.zeros(output.numel())
            one_hot[k] = 1.0
            seed = Tensor._full(output._shape, 0, output.dtype, output.device)
            seed = seed + _tensor_like(one_hot.reshape(output.shape), output)
            if not output.requires_grad:
                columns.append(np.zeros(x.numel()))
                continue
            (g,) = grad(output, x, seed, retain_graph=True, allow_unused=True)
            columns.append(np.zeros(x.numel()) if g is None
                           else g.detach().cpu().numpy().astype(np.float64).reshape(-1))  # fmt: skip
        result.append(np.stack(columns, axis=1) if columns else np.zeros((x.numel(), 0)))
    return result


def _tensor_like(array: np.ndarray, like: Tensor) -> Tensor:
    """``array`` as a new tensor with ``like``'s dtype and device."""
    host = np.array(array, dtype=like.dtype.numpy, order="C")  # (keeps 0-d arrays 0-d)
    storage = dispatch.from_numpy(host.reshape(-1), like.device.type)
    return Tensor._make(storage, host.shape, contiguous_strides(host.shape), 0, like.dtype, like.device)


def gradcheck(
    func: Callable[..., Any],
    inputs: Tensor | Sequence[Any],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """True when every gradient of ``func`` at ``inputs`` (the tensors with
    ``requires_grad``) matches finite differences; else raise ``GradcheckError``
    describing the worst entries (or return False with ``raise_exception=False``)."""
    inputs = _as_tuple(inputs)
    for which, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        numerical = _numerical_jacobians(func, inputs, which, eps)
        analytical = _analytical_jacobians(func, inputs, which)
        for out_index, (n, a) in enumerate(zip(numerical, analytical)):
            bad = np.abs(a - n) > atol + rtol * np.abs(n)
            if bad.any():
                if not raise_exception:
                    return False
                raise GradcheckError(_report(which, out_index, n, a, bad))
    return True


def _report(which: int, out_index: int, n: np.ndarray, a: np.ndarray, bad: np.ndarray) -> str:
    worst = np.argsort(-(np.abs(a - n) * bad), axis=None)[:5]
    lines = [
        f"Jacobian mismatch for output {out_index} with respect to input {which}: "
        f"{int(bad.sum())} of {bad.size} entries differ. Worst entries "
        "(input element, output element): numerical vs analytical"
    ]
    for flat in worst:
        i, o = np.unravel_index(flat, n.shape)
        if bad[i, o]:
            lines.append(f"  ({i}, {o}): {n[i, o]:.6g} vs {a[i, o]:.6g}")
    return "\n".join(lines)


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Tensor | Sequence[Any],
    grad_outputs: Sequence[Tensor] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the function that maps ``inputs`` to
    the gradients ``func`` produces (computed with ``create_graph=True``)."""
    inputs = _as_tuple(inputs)
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    if grad_outputs is None:
        generator = np.random.default_rng(0)
        grad_outputs = [_tensor_like(generator.standard_normal(o.shape), o) for o in outputs]

    def first_derivatives(*xs: Any) -> tuple:
        outs = [o for o in _as_tuple(func(*xs)) if isinstance(o, Tensor)]
        targets = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        grads = grad(outs, targets, grad_outputs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)  # fmt: skip
