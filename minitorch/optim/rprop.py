"""Rprop: resilient backpropagation (Riedmiller and Braun), which uses only the *sign*
of each gradient.

Every weight has its own step size. While its gradient keeps its sign, the step grows
(``etaplus``); when the sign flips, the last step jumped over a minimum, so the step
shrinks (``etaminus``) and this step makes no move. Per weight, with the gradient
``g`` and the one kept from the last step ``g_prev`` (PyTorch's formulation)::

    t += 1
    s = g * g_prev
    step = step * etaplus    where s > 0     (step starts at lr)
    step = step * etaminus   where s < 0
    step = clamp(step, step_size_min, step_size_max)
    g = 0                    where s < 0     (and it is kept as 0: no shrink next time)
    p = p - sign(g) * step
    g_prev = g

The size of the gradient never enters, so Rprop suits full-batch training and is
unsuited to mini-batches, whose gradients' signs are noisy.

Every state tensor is updated in place (the branches are ``where``), so a step under
``minitorch.compile`` replays exactly.
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch.ops.choice import where
from minitorch.optim.adagrad import _refuse_options
from minitorch.optim.optimizer import Optimizer


class Rprop(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:  # fmt: skip
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _refuse_options(differentiable=differentiable)
        defaults = {"lr": lr, "etas": tuple(etas), "step_sizes": tuple(step_sizes), "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}  # fmt: skip
        super().__init__(params, defaults)

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        etaminus, etaplus = group["etas"]
        smallest, largest = group["step_sizes"]
        grad = -param.grad if group["maximize"] else param.grad
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = creation.zeros((), device=param.device)
            state["prev"] = creation.zeros_like(param.detach())
            state["step_size"] = creation.full_like(grad, group["lr"])
        state["step"].add_(1)
        prev, step_size = state["prev"], state["step_size"]
        sign = (grad * prev).sign()
        factor = where(sign > 0, etaplus, where(sign < 0, etaminus, where(sign == 0, 1.0, sign)))
        step_size.mul_(factor).clamp_(smallest, largest)
        grad = where(factor == etaminus, 0.0, grad)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
