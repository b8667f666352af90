"""Adagrad: each weight's step shrinks with the sum of all its squared gradients so far.

For each parameter ``p`` with gradient ``g`` (PyTorch's formulation)::

    t += 1
    g = g + weight_decay * p                       (L2 penalty, if weight_decay)
    lr_t = lr / (1 + (t - 1) * lr_decay)
    s = s + g * g                                  s starts at initial_accumulator_value
    p = p - lr_t * g / (sqrt(s) + eps)

A weight that has seen large gradients takes small steps from then on, one that rarely
gets a gradient (a rare word's embedding) keeps taking large ones. The sum only grows, so
every step size decays: good for convex problems and sparse features, too fast for long
deep-learning runs (RMSprop and Adam replace the sum by a running average).

Every state tensor is updated in place and the step count is a 0-d tensor, so a step
under ``minitorch.compile`` replays exactly (see ``Optimizer._count_step``).
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch.optim.optimizer import Optimizer


class Adagrad(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None,
                 *, maximize: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:  # fmt: skip
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay),
                            ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):  # fmt: skip
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        _refuse_options(differentiable=differentiable, fused=fused)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}  # fmt: skip
        super().__init__(params, defaults)
        # PyTorch makes Adagrad's state at once (the sum starts at a chosen value).
        for group in self.param_groups:
            for param in group["params"]:
                self._state(param, group)

    def _state(self, param: Any, group: dict[str, Any]) -> dict[str, Any]:
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = creation.zeros((), device=param.device)
            state["sum"] = creation.full_like(param.detach(), group["initial_accumulator_value"])
        return state

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        grad = -param.grad if group["maximize"] else param.grad
        state = self._state(param, group)
        step = self._count_step(state)
        if group["weight_decay"] != 0:
            grad = grad + param * group["weight_decay"]
        step_size = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt() + group["eps"]
        param.add_(grad / std * -step_size)


def _refuse_options(**options: Any) -> None:
    """PyTorch's ``differentiable``, ``fused`` and ``capturable`` switches: accepted at their
    defaults; minitorch has no differentiable optimizer steps or fused CPU kernels for
    these optimizers, and every step is already capturable (tensor step counts)."""
    for name, value in options.items():
        if value:
            raise NotImplementedError(f"{name}=True is not supported by minitorch's optimizers "
                                      "(see docs/api-coverage.md)")  # fmt: skip
