"""RAdam: Adam with its early steps "rectified" (Liu et al., 2019).

In its first steps Adam's ``v`` is an average of very few squared gradients, so its
per-weight step sizes vary wildly (the reason Adam is usually run with a warm-up).
RAdam works out how many gradients ``v`` effectively averages, ``rho_t`` (the length of
the simple moving average it approximates), and while that is 5 or less it takes plain
momentum steps; afterwards it takes Adam's step, scaled by ``r_t``, the ratio of the
variance of the adaptive step size with ``rho_t`` samples to its limit::

    t += 1
    g = g + weight_decay * p          (or p *= 1 - lr * weight_decay, if decoupled)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g^2
    m_hat = m / (1 - beta1^t)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    if rho_t > 5:
        r_t = sqrt((rho_t - 4) (rho_t - 2) rho_inf / ((rho_inf - 4) (rho_inf - 2) rho_t))
        p = p - lr * m_hat * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
    else:
        p = p - lr * m_hat

The branch is a ``where`` on the 0-d ``rho_t``, not a Python ``if``, so a step under
``minitorch.compile`` replays it on the step it is at (the step count is a 0-d tensor and
every state tensor is updated in place).
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch.ops.choice import where
from minitorch.optim.adagrad import _refuse_options
from minitorch.optim.adamax import _check_adam_options
from minitorch.optim.optimizer import Optimizer


class RAdam(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:  # fmt: skip
        _check_adam_options(lr, betas, eps, weight_decay)
        _refuse_options(differentiable=differentiable)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}  # fmt: skip
        super().__init__(params, defaults)

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        lr, (beta1, beta2), weight_decay = group["lr"], group["betas"], group["weight_decay"]
        grad = -param.grad if group["maximize"] else param.grad
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = creation.zeros((), device=param.device)
            state["exp_avg"] = creation.zeros_like(param.detach())
            state["exp_avg_sq"] = creation.zeros_like(param.detach())
        step = self._count_step(state)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad + param * weight_decay
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction2 = 1 - beta2**step
        corrected_exp_avg = exp_avg / (1 - beta1**step)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2**step / bias_correction2
        rectification = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        # bias_correction2 ** 0.5 / (sqrt(v) + eps), in the order PyTorch's float / Tensor takes
        adaptive_lr = (exp_avg_sq.sqrt() + group["eps"]).reciprocal() * bias_correction2**0.5
        momentum_step = corrected_exp_avg * lr
        # (before rho_t > 5 the rectification is NaN, the square root of a negative number:
        # ``where`` takes the plain momentum step there)
        param.sub_(where(rho_t > 5.0, momentum_step * adaptive_lr * rectification, momentum_step))
