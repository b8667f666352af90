"""ASGD: averaged stochastic gradient descent (Polyak and Juditsky).

Plain SGD with a slowly decaying step size, plus a running average ``ax`` of the
weights it visits. Averaging the iterates cancels much of SGD's noise: on a convex
problem the average converges faster than the last iterate does. The parameters
themselves follow SGD; read the average from ``optimizer.state[p]["ax"]``.
For each parameter ``p`` with gradient ``g`` (PyTorch's formulation)::

    t += 1
    g = g + weight_decay * p                         (L2 penalty, if weight_decay)
    p = p * (1 - lambd * eta) - eta * g              eta starts at lr
    ax = p                        while mu == 1  (the first t0 steps)
    ax = ax + mu * (p - ax)       afterwards: a running mean of the iterates
    eta = lr / (1 + lambd * lr * t) ** alpha
    mu = 1 / max(1, t - t0)

``eta`` and ``mu`` are 0-d tensors in the state, as PyTorch keeps them, and the switch
on ``mu == 1`` is a ``where``, so a step under ``minitorch.compile`` replays exactly.
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch.ops.choice import where
from minitorch.optim.adagrad import _refuse_options
from minitorch.optim.optimizer import Optimizer


class ASGD(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:  # fmt: skip
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _refuse_options(differentiable=differentiable)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}  # fmt: skip
        super().__init__(params, defaults)

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        lr, lambd = group["lr"], group["lambd"]
        grad = -param.grad if group["maximize"] else param.grad
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = creation.zeros((), device=param.device)
            state["eta"] = creation.full((), lr, device=param.device)
            state["mu"] = creation.ones((), device=param.device)
            state["ax"] = creation.zeros_like(param.detach())
        step = self._count_step(state)
        if group["weight_decay"] != 0:
            grad = grad + param * group["weight_decay"]
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        param.mul_(1 - lambd * eta.double())
        param.sub_(grad * eta)
        ax.copy_(where(mu == 1, param, ax + (param - ax) * mu))
        # PyTorch makes the new eta and mu default-dtype tensors first, then copies them in
        # (so they are rounded to float32 even where loading made eta and mu float64).
        scalar_dtype = state["step"].dtype
        eta.copy_((lr / (1 + lambd * lr * step) ** group["alpha"]).to(scalar_dtype))
        mu.copy_((1 / (step - group["t0"]).clamp_min(1)).to(scalar_dtype))
